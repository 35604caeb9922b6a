"""What a kernel's global and closure names are, told to the C++ frontend's Resolver.

`resolver_for(py_func)` returns a callable name -> GlobalValue (simt._simt.GlobalValue: one
constructor per kind of value, pybind/global_value_binding.cpp), or None for a name kernels
cannot use. Given (name, [argument type texts]) for a function with numba.extending.overload
implementations (GlobalValue.overload()), it tells the implementation for those types.
"""
import builtins
import enum
import operator
import sys
import types as pytypes

import numpy as np

import simt.types as simt_types
from simt.base import hosts
from simt.base.source import function_source
from simt.types import signature_text

from .faults import user_exception_name
from .signatures import ExternFunction, parse_signature

__all__ = ["resolver_for", "describe"]

# Modules kernels may use, by the name the frontend knows them by.
_MODULE_NAMES = {"math": "math", "cmath": "cmath", "numpy": "numpy", "numba": "numba",
                 "numba.cuda": "cuda", "simt.cuda": "cuda", "simt": "numba",
                 "numba.types": "numba", "numba.core.types": "numba",
                 "operator": "operator", "_operator": "operator",
                 "numba.cuda.libdevice": "cuda.libdevice", "simt.libdevice": "cuda.libdevice",
                 "simt.cuda.libdevice": "cuda.libdevice",
                 "numba.cuda.bf16": "cuda.bf16", "simt.bf16": "cuda.bf16",
                 "simt.cuda.bf16": "cuda.bf16", "simt.stubs": "cuda",
                 **hosts.KERNEL_MODULE_NAMES}


def _values():
    """simt._simt.GlobalValue, whose constructors describe values: the compiler's extension,
    loaded by the compile that asks (it loads LLVM)."""
    from simt._simt import GlobalValue
    return GlobalValue


def _module_name(module):
    name = module.__name__
    return _MODULE_NAMES.get(name, name)


def _scalar_name(dtype):
    try:
        scalar = simt_types.from_dtype(dtype)
    except TypeError:
        return None
    return scalar.name if isinstance(scalar, simt_types.ScalarType) else None


def _dtype_name(dtype):
    """The name of a scalar or structured dtype (Numba's Record spelling), or None."""
    try:
        return str(simt_types.from_dtype(dtype))
    except TypeError:
        return None


def _describe_type_object(value):
    """simt or Numba type objects: scalars and arrays."""
    values = _values()
    if isinstance(value, (simt_types.ScalarType, simt_types.RecordType)):
        return values.dtype(str(value))
    if isinstance(value, simt_types.ArrayType):
        return values.array_type(value.dtype.name, value.ndim, value.layout)
    if not simt_types._is_type_object(value):
        return None
    text = str(value)
    if text.startswith("array("):
        dtype, ndim, layout = [part.strip() for part in text[6:-1].split(",")][:3]
        return values.array_type(dtype, int(ndim.rstrip("d")), layout)
    if text.startswith("Record("):  # Numba's record type of a structured dtype
        return values.dtype(text)
    if text in simt_types._SCALARS:
        return values.dtype(text)
    return None


def _describe_function(dispatcher_or_func):
    py_func = getattr(dispatcher_or_func, "py_func", dispatcher_or_func)
    name, source, file, first_line = function_source(dispatcher_or_func)
    declared = []
    if getattr(dispatcher_or_func, "_simt_dispatcher", False) and dispatcher_or_func.device:
        # (text, whether the return type is inferred: argument types alone were declared)
        declared = [(signature_text(sig), k in dispatcher_or_func._inferred_returns)
                    for k, sig in enumerate(dispatcher_or_func._declared)]
    return _values().function(name, source, file, first_line, id(py_func), resolver_for(py_func),
                              declared)


def _is_int_enum_class(value):
    """An enum class that is no enum.Enum but whose members are ints: cuda.bindings' FastEnum
    (numba-cuda's FP8 tests take cudaRoundMode from cuda.bindings.runtime)."""
    return (isinstance(value, type) and type(value).__name__ == "FastEnumMetaclass" and
            all(isinstance(member, int) for member in getattr(value, "__members__", {}).values()))


def _module_member(value):
    """GlobalValue.member(module, name) for functions and objects imported from kernel modules."""
    values = _values()
    cuda_name = getattr(value, "_simt_cuda_name", None)
    if cuda_name is not None:
        return values.member("cuda", cuda_name)
    module = getattr(value, "__module__", None)
    name = getattr(value, "__name__", None)
    if name is None:
        return None
    if isinstance(value, np.ufunc) or module == "numpy" or (module or "").startswith("numpy."):
        if getattr(np, name, None) is value:
            return values.member("numpy", name)
        return None
    if module in ("math", "cmath"):
        return values.member(module, name)
    # numba-cuda and numba-cuda-mlir keep their own copies of Numba's special functions
    if (module in ("numba.misc.special", "numba.cuda.misc.special") or
            module in hosts.SPECIAL_FUNCTION_MODULES) and name in ("literal_unroll", "prange"):
        return values.member("numba", name)
    if type(value).__name__ == "_Intrinsic" and type(value).__module__ == "numba.core.extending":
        return values.unsupported("@intrinsic functions (numba.extending.intrinsic) build LLVM IR "
                "with Numba's code generator, which simt does not use; '%s' is not supported "
                "(write it in Python, or as an @overload)" % name)
    if module in ("operator", "_operator") and getattr(operator, name, None) is value:
        return values.member("operator", name)
    # Numba's own stubs (`import numba.cuda.libdevice`; simt.cuda.libdevice under the hook)
    if module in ("numba.cuda.libdevice", "simt.cuda.libdevice"):
        return values.member("cuda", "libdevice." + name)
    if module and module.startswith("numba.cuda") and not module.startswith("numba.cuda.tests"):
        return values.member("cuda", name)
    if module == "simt.cuda.stubs":  # Numba's vector type stubs (numba.cuda.vector_types), made
        return values.member("cuda", name)  # under the hook in simt.cuda's namespace
    return None


def describe(value):
    """What one value is to kernels (a simt._simt.GlobalValue), or None if they can't use it."""
    values = _values()
    if isinstance(value, ExternFunction):
        return values.extern_function(value.name, value.signature_text)
    if isinstance(value, enum.Enum):
        inner = describe(value.value)
        return None if inner is None else values.enum_member(
            isinstance(value, enum.IntEnum), type(value).__name__, id(type(value)), inner)
    if isinstance(value, type) and issubclass(value, tuple) and hasattr(value, "_fields"):
        defaults = [describe(d) for d in getattr(value, "_field_defaults", {}).values()]
        if any(d is None for d in defaults):
            return None
        return values.namedtuple_class(value.__name__, id(value), list(value._fields), defaults)
    if isinstance(value, enum.EnumMeta) or _is_int_enum_class(value):
        return values.namespace(value.__name__)
    constant = _describe_constant(value, values)  # after enum members: an IntEnum's is an int
    if constant is not False:
        return constant
    if isinstance(value, pytypes.ModuleType):
        return values.module(_module_name(value))
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        name = _dtype_name(value)
        return None if name is None else values.dtype(name)
    type_description = _describe_type_object(value)
    if type_description is not None:
        return type_description
    if getattr(value, "_simt_dispatcher", False) or _is_numba_dispatcher(value):
        return _describe_function(value)
    if isinstance(value, type) and issubclass(value, BaseException):
        return values.exception(value.__name__ if value.__module__ == "builtins" else
                                user_exception_name(value))
    if isinstance(value, pytypes.BuiltinFunctionType) and \
            getattr(builtins, value.__name__, None) is value:
        return values.builtin(value.__name__)
    member = _module_member(value)
    if member is None and isinstance(value, pytypes.FunctionType) and \
            _overload_functions(value):
        return values.overload()
    if isinstance(value, pytypes.FunctionType) and _jit_disabled() and \
            (member is None or value.__module__ in _JIT_HELPER_MODULES):
        return _describe_function(value)
    return member


def _describe_constant(value, values):
    """None, numbers, strings, tuples of them and NumPy arrays and scalars, as constants (None
    for those kernels cannot use); False for values of other kinds."""
    if value is None:
        return values.none()
    if isinstance(value, (bool, np.bool_)):
        return values.boolean(bool(value))
    if isinstance(value, int):
        if -2**63 <= value < 2**63:
            return values.integer("int64", value)
        return values.integer("uint64", value) if 0 <= value < 2**64 else None
    if isinstance(value, float):
        return values.floating("float64", value)
    if isinstance(value, str):
        return values.string(value)
    if isinstance(value, complex):
        return values.complex("complex128", value.real, value.imag)
    if isinstance(value, (np.datetime64, np.timedelta64)):
        unit = np.datetime_data(value.dtype)[0]
        return values.time(isinstance(value, np.datetime64), "" if unit == "generic" else unit,
                           int(value.view(np.int64)))
    if isinstance(value, np.generic):
        name = _scalar_name(value.dtype)
        if name is None:
            return None
        if value.dtype.kind == "c":
            return values.complex(name, float(value.real), float(value.imag))
        if value.dtype.kind == "f":
            return values.floating(name, float(value))
        return values.integer(name, int(value))
    if isinstance(value, tuple):  # of numbers (a str is a constant on its own only)
        elems = [None if isinstance(e, str) else describe(e) for e in value]
        return None if any(e is None for e in elems) else values.tuple(elems)
    if isinstance(value, np.ndarray):
        if value.dtype.names is not None:  # TypeError: fields a record cannot hold
            name = str(simt_types.from_dtype(value.dtype))
        else:
            name = _scalar_name(value.dtype)
        if name is None:
            return None
        return values.array(name, tuple(value.shape), np.ascontiguousarray(value).tobytes())
    return False


# Numba's modules of @jit device helpers (numba.cuda.random's xoroshiro128p functions), by the
# names the hook loads them under: plain functions under NUMBA_DISABLE_JIT.
_JIT_HELPER_MODULES = ("numba.cuda.random", "simt.cuda.random")


def _jit_disabled():
    """Whether Numba runs with NUMBA_DISABLE_JIT: numba.njit(f) is then f itself, so a plain
    Python function a kernel calls is what an @njit function looks like, and compiles as a
    device function (as the simulators run it; gamdpy's CPU test does this)."""
    config = sys.modules.get("numba.core.config")
    return bool(getattr(config, "DISABLE_JIT", False))


# The targets whose @overload implementations a CUDA kernel uses, most specific first (Numba's
# target hierarchy: cuda, then gpu, then generic).
_OVERLOAD_TARGETS = ("cuda", "gpu", "generic")
_overload_index = {"size": -1, "by_function": {}}
_OVERLOAD_REGISTRIES = ("numba.core.typing.templates", "numba.cuda.typing.templates")
_implementations = {}


def _overload_functions(value):
    """The overload functions (numba.extending.overload) registered for the Python function
    `value`, for the targets CUDA kernels use, most specific target first."""
    # Numba's registry, and numba-cuda's own (numba.cuda.extending.overload registers there)
    registered = [entry for name in _OVERLOAD_REGISTRIES if name in sys.modules
                  for entry in sys.modules[name].builtin_registry.globals]
    if not registered:
        return []
    if _overload_index["size"] != len(registered):  # new registrations: index them again
        by_function = {}
        for function, typ in registered:
            for template in getattr(typ, "templates", ()):
                overload = getattr(template, "_overload_func", None)
                target = getattr(template, "metadata", {}).get("target", "generic")
                if overload is not None and target in _OVERLOAD_TARGETS:
                    by_function.setdefault(id(function), []).append(
                        (_OVERLOAD_TARGETS.index(target), function, overload))
        _overload_index.update(size=len(registered), by_function=by_function)
    found = _overload_index["by_function"].get(id(value), [])
    return [overload for _, function, overload in sorted(found, key=lambda entry: entry[0])
            if function is value]


def overload_implementation(value, arg_types):
    """The function the first of `value`'s overload functions returns for arguments of the
    types named by `arg_types` (simt's type texts, given to it as Numba's types), or None. One
    per function and types, as Numba caches them, so that every call site shares it."""
    key = (id(value), tuple(arg_types))
    if key not in _implementations:
        numba_types = _numba_types(arg_types)
        impl = None
        for overload in _overload_functions(value):
            impl = overload(*numba_types)
            if impl is not None:
                break
        _implementations[key] = (value, impl)  # keeps `value` alive for its id
    return _implementations[key][1]


# What an @overload function is given for a function passed to it (a device function or a
# nested def, which simt compiles as one): Numba gives its Dispatcher or MakeFunctionLiteral
# type, whose details no overload of CUDA kernels can use.
FUNCTION_ARGUMENT = "function"


def _numba_types(texts):
    from numba.core import types
    values = iter(simt_types.numba_type(t) for t in
                  _parse_types([t for t in texts if t != FUNCTION_ARGUMENT]))
    return [types.Opaque("function") if t == FUNCTION_ARGUMENT else next(values) for t in texts]


def _parse_types(texts):
    return parse_signature("void(%s)" % ", ".join(texts))[0]


def _is_numba_dispatcher(value):
    """Numba's own jit functions (e.g. numba.cuda.random's @jit helpers) compile as device
    functions from their Python source."""
    return type(value).__module__.startswith("numba.") and \
        isinstance(getattr(value, "py_func", None), pytypes.FunctionType)


def resolver_for(py_func):
    """The name -> GlobalValue callable for `py_func`'s closure, globals and builtins."""
    code = py_func.__code__
    closure = {}
    for name, cell in zip(code.co_freevars, py_func.__closure__ or ()):
        try:
            closure[name] = cell.cell_contents
        except ValueError:  # an empty cell: the name is not bound yet
            pass
    scope = py_func.__globals__

    missing = object()

    def lookup(name):
        if "." in name:  # an attribute of a module the scope holds: mymod.add
            first, *attributes = name.split(".")
            value = closure[first] if first in closure else scope.get(first)
            for attribute in attributes:
                namespace = isinstance(value, (pytypes.ModuleType, enum.EnumMeta)) or \
                    _is_int_enum_class(value)
                if not namespace or not hasattr(value, attribute):
                    return missing
                value = getattr(value, attribute)
            return value
        if name in closure:
            return closure[name]
        return scope.get(name, missing)

    def resolve(name, arg_types=None):
        value = lookup(name)
        if arg_types is not None:  # which implementation an @overload function has for them
            impl = None if value is missing else overload_implementation(value, arg_types)
            return None if impl is None else _describe_function(impl)
        if value is not missing:
            return describe(value)
        value = getattr(builtins, name, None)
        if "." not in name and isinstance(value, type) and issubclass(value, BaseException):
            return _values().exception(name)
        return None

    return resolve

