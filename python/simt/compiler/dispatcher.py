"""cuda.jit and the kernel Dispatcher: compile once per argument-type tuple, launch with
`kernel[griddim, blockdim, stream, sharedmem](*args)` as numba.cuda does."""
import collections
import ctypes
import enum
import functools
import importlib
import inspect
import numbers
import os
import sys
import types as pytypes
import warnings
import weakref

import numpy as np

import simt.types as simt_types
from simt.base import config, host, hosts
from simt.base.numpy_compat import array_layout
from simt.base.source import CapturedSource
from simt.errors import CompileError, OutOfBoundsWarning
from simt.memory.devicearray import (DeviceNDArray, MappedNDArray, interchange_argument,
                                     sentry_contiguous, to_device)
from simt.memory.device import get_context, get_current_device
from simt.types import signature_text, typeof

from . import gpu, launch_hooks, linking, pickling, ptx, targets
from .faults import fault_exception
from .resolver import resolver_for
from .signatures import ExternFunction, declare_device, parse_signature, simt_argtypes

__all__ = ["jit", "declare_device", "ExternFunction", "Dispatcher", "In", "Out", "InOut",
           "missing_launch_config_msg"]

missing_launch_config_msg = """
Kernel launch configuration was not specified. Use the syntax:

kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)
"""

# Threads per block .forall() launches with.
FORALL_THREADS_PER_BLOCK = 256


def _argument_types_alone(sig):
    """Whether a signature gives argument types without a return type (`(float32, float32)`,
    "(float32[:], int32)"): Numba infers a device function's return type then."""
    if isinstance(sig, str):
        return sig.strip().startswith("(")
    return isinstance(sig, (tuple, list))


def _int_dims(dims):
    """Whether launch dimensions are Python ints or tuples of them (a cached configuration's)."""
    return all(type(d) is int or (type(d) is tuple and all(type(x) is int for x in d))
               for d in dims)


class _ArgumentWrapper:
    """cuda.In / cuda.Out / cuda.InOut: transfer hints. Device memory is host memory, so Out and
    InOut pass the array as is; In passes a copy (the kernel's writes are not copied back).
    to_device(retr, stream) is the protocol of Numba's argument hints (numba.cuda.args)."""

    def __init__(self, value, stream=0):
        self.value = value
        self.stream = stream

    @property
    def _host(self):
        return self.value._host if isinstance(self.value, DeviceNDArray) else self.value

    def to_device(self, retr, stream=0):
        return self.value


def _sentry_host_arrays(args):
    """Numba copies each host array a kernel takes to the device as one region of memory
    (numba.cuda.args' hints call auto_device, also for arrays in tuples and in cuda.Out or
    cuda.InOut): a host array that is not C- or F-contiguous once its broadcast dimensions are
    left out (`a[::2]`, `a[::-1]`, `x[:, ::2]`) raises ValueError there, before the launch.
    Device memory (device arrays and their views, mapped and managed arrays) is passed as it
    is, whatever its strides."""
    for value in args:
        if isinstance(value, np.ndarray):
            flags = value.flags
            if not (flags.c_contiguous or flags.f_contiguous) and \
                    not getattr(value, "__cuda_memory__", False):
                sentry_contiguous(value)
        elif isinstance(value, tuple):
            _sentry_host_arrays(value)
        elif isinstance(value, _ArgumentWrapper):
            _sentry_host_arrays((value.value,))


class In(_ArgumentWrapper):
    def to_device(self, retr, stream=0):
        if isinstance(self.value, DeviceNDArray):
            return self.value
        return to_device(self.value, stream)


class Out(_ArgumentWrapper):
    pass


class InOut(_ArgumentWrapper):
    pass


def _native():
    """simt._simt, the compiler, loaded at its first use: loading it loads LLVM, which would be
    most of the cost of importing simt.cuda."""
    import simt._simt as native
    return native


def _finish_loading_the_compiler_before_fork():
    """Waits, before a fork, for another thread's import of simt._simt to end: a child forked
    meanwhile would wait forever for that import's lock (its thread is not in the child)."""
    name = "simt._simt"
    # CPython's table of the locks of modules being imported (the extension is in sys.modules
    # only once its initialisation, which imports NumPy and simt.base.host, has ended)
    importing = getattr(importlib._bootstrap, "_module_locks", {})
    if name in importing and name not in sys.modules:
        _native()


os.register_at_fork(before=_finish_loading_the_compiler_before_fork)


class TypeAnnotation:
    """What Numba's compiled kernels keep as _type_annotation, for code that reads it: `typemap`,
    the kernel's variables and their Numba types (where Numba has the type; others are left
    out)."""

    def __init__(self, kernel):
        self.typemap = {}
        for name, text in kernel.local_types():
            try:
                self.typemap[name] = simt_types.numba_type(parse_signature("void(%s)" % text)[0][0])
            except (NotImplementedError, ValueError):
                pass


def _argument_key(args):
    """A cheap hashable key of the argument types, for the per-launch overload lookup."""
    key = []
    for a in args:
        cls = type(a)
        if cls is not np.ndarray and cls not in (int, float, bool):
            host = getattr(a, "_host", None)
            if host is not None and hasattr(a, "_is_device_record"):
                key.append(("record", host.dtype))
                continue
            if host is not None:
                a, cls = host, type(host)
        if isinstance(a, np.ndarray):
            key.append((a.dtype, a.ndim, array_layout(a), a.flags.writeable))
        elif cls in (float, bool):
            key.append(cls)
        elif isinstance(a, enum.Enum):
            key.append(cls)
        elif isinstance(a, int):  # its value picks int64 or uint64, as Numba types it
            key.append(simt_types.int_type(a))
        elif isinstance(a, (tuple, np.void)) or hasattr(a, "__cuda_array_interface__"):
            key.append(typeof(a))
        else:
            key.append(cls)
    return tuple(key)


_INTEGER_TYPE_NAMES = frozenset(("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                 "uint64"))


def _as_numba_passes(declared, values):
    """The scalar arguments `values` as Numba passes them for the parameters `declared` of a
    kernel's signature (numba/cuda/dispatcher.py, _prepare_args; tuples element by element).
    Numba converts an integer parameter's value with ctypes' c_<type>(value), which takes ints,
    bools and NumPy integers but refuses a float, also a NumPy float or one of integral value:
    TypeError, as ctypes words it ("'float' object cannot be interpreted as an integer" on
    Python 3.10 and later), where simt's conversion would truncate it. A boolean parameter takes
    c_uint8(int(value)): a float is truncated first (0.5 is false), and NaN or infinity raises as
    int() does. Checked at every call: the overload found for the argument types is cached."""
    converted = None
    for i, (argtype, value) in enumerate(zip(declared, values)):
        name = str(argtype)
        if name in _INTEGER_TYPE_NAMES:
            if not isinstance(value, (numbers.Integral, np.integer, np.bool_)):
                getattr(ctypes, "c_" + name)(value)
        elif name == "bool" and isinstance(value, (float, np.floating)):
            converted = converted or list(values)
            converted[i] = int(value) != 0
        elif isinstance(argtype, simt_types.ArrayType) and \
                isinstance(argtype.dtype, simt_types.ScalarType) and \
                argtype.dtype != simt_types.bfloat16 and hasattr(value, "view") and \
                str(getattr(value, "dtype", name)) != str(argtype.dtype):
            converted = converted or list(values)  # _same_bits: read as the declared dtype
            converted[i] = value.view(np.dtype(str(argtype.dtype)))
        elif isinstance(argtype, simt_types.TupleType) and isinstance(value, tuple):
            inner = _as_numba_passes(argtype.elems, value)
            if inner is not value:
                converted = converted or list(values)
                converted[i] = inner
    return values if converted is None else tuple(converted)


def _bfloat16_bits_for(actual, declared):
    """Whether `actual` is an int16 or uint16 array of bfloat16 bits for a bfloat16 array
    parameter (NumPy has no bfloat16 dtype without ml_dtypes)."""
    return declared.dtype == simt_types.bfloat16 and str(actual.dtype) in ("int16", "uint16")


def _same_bits(actual, declared):
    """Whether `actual` is an array whose elements a kernel of the one signature `declared` reads
    as its own dtype's (Numba's specialized kernels pass the data pointer, shape and strides as
    they are): another dtype of the same size, dimensions and layout rules as _converts'."""
    if not (isinstance(actual, simt_types.ArrayType) and isinstance(declared, simt_types.ArrayType)
            and isinstance(actual.dtype, simt_types.ScalarType)
            and isinstance(declared.dtype, simt_types.ScalarType)
            and actual.dtype != declared.dtype):
        return False
    try:
        size = np.dtype(str(actual.dtype)).itemsize
        declared_size = np.dtype(str(declared.dtype)).itemsize
    except TypeError:  # bfloat16
        return False
    return (size == declared_size
            and _converts(simt_types.ArrayType(declared.dtype, actual.ndim, actual.layout,
                                               actual.readonly), declared))


def _converts(actual, declared):
    """Whether an argument of type `actual` may be passed for a parameter of type `declared`
    (Numba's dispatcher: scalars convert by Numba's casting rules, arrays need the same dtype and
    dimensions and a layout at least as contiguous, and a read-only array only for a read-only
    parameter)."""
    if isinstance(declared, simt_types.ScalarType):
        return simt_types.conversion(actual, declared) is not None
    if isinstance(declared, simt_types.ArrayType):
        return (isinstance(actual, simt_types.ArrayType)
                and (actual.dtype == declared.dtype or _bfloat16_bits_for(actual, declared))
                and actual.ndim == declared.ndim
                and declared.layout in ("A", actual.layout)
                and (declared.readonly or not actual.readonly))
    if isinstance(declared, simt_types.TupleType):
        return (isinstance(actual, simt_types.TupleType)
                and len(actual.elems) == len(declared.elems)
                and all(_converts(a, d) for a, d in zip(actual.elems, declared.elems)))
    return actual == declared


# Argument types that are never DLPack exporters or StridedMemoryViews to convert at a launch.
_PLAIN_ARGUMENT_TYPES = frozenset((np.ndarray, DeviceNDArray, int, float, bool, complex, tuple))


# CUDA passes launch dimensions and the dynamic shared memory size as unsigned 32-bit integers
# (dim3, cuLaunchKernel's sharedMemBytes); the simulator checks its limits on values in range.
_LAUNCH_VALUE_MAX = 2**32 - 1


def _is_integer(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _check_launch_value(value, what):
    """`value` as a Python int, for a launch configuration value named `what`: TypeError for
    a non-integer, ValueError outside CUDA's unsigned 32-bit range."""
    if not _is_integer(value):
        raise TypeError("%s must be an integer, got %r" % (what, value))
    value = int(value)
    if not 0 <= value <= _LAUNCH_VALUE_MAX:
        raise ValueError("%s=%d is out of range: CUDA takes it as an unsigned 32-bit integer (0 to"
                         " %d)" % (what, value, _LAUNCH_VALUE_MAX))
    return value


def _normalize_dim(dim, name):
    """A grid or block dimension as Numba's normalize_kernel_dimensions checks it: an integer or
    a sequence of 1 to 3 integers, padded with 1s."""
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if not 1 <= len(dims) <= 3:  # the dimensions shown as a list, as Numba shows them
        raise ValueError("%s must be a sequence of 1, 2 or 3 integers, got %r" % (name,
                                                                                 list(dims)))
    if not all(_is_integer(v) for v in dims):
        raise TypeError("%s must be a sequence of integers, got %r" % (name, list(dims)))
    return tuple(_check_launch_value(v, "%s %s" % (name, axis))
                 for v, axis in zip(dims, "xyz")) + (1,) * (3 - len(dims))


def _check_stream(stream):
    """A launch's stream: 0 or None (the default stream) or a stream object (cuda.stream(),
    Numba's streams), as Numba's launch reads `stream.handle`."""
    if stream is None or (_is_integer(stream) and stream == 0) or hasattr(stream, "handle"):
        return stream
    raise TypeError("stream must be a stream (cuda.stream(), cuda.default_stream()) or 0, got %r"
                    % (stream,))


def _flush_stdout():
    """Flushes sys.stdout before a launch, so that Python's output comes before the kernel's
    print() (written to the C stdout, file descriptor 1). A GUI application, a daemon or a
    notebook kernel may have no sys.stdout, or one without flush(): kernel output still goes to
    file descriptor 1."""
    flush = getattr(sys.stdout, "flush", None)
    if flush is None:
        return
    try:
        flush()
    except (OSError, ValueError):  # a closed or broken stream: nothing to keep in order
        pass


class _Overloads(dict):
    """The compiled kernels by argument types; lookups also take Numba's type objects, as
    `kernel.overloads[(numba.int32[:, ::1],)]` in code written for Numba."""

    @staticmethod
    def _key(key):
        if isinstance(key, tuple) and not all(isinstance(t, simt_types.Type) for t in key):
            return simt_argtypes(key)
        return key

    def __getitem__(self, key):
        return dict.__getitem__(self, self._key(key))

    def __contains__(self, key):
        return dict.__contains__(self, self._key(key))

    def get(self, key, default=None):
        return dict.get(self, self._key(key), default)


# A compiled kernel's dispatcher and argument types, by id(kernel): Numba's overloads have
# inspect_llvm() (numba-cuda's test_array_alignment reads `f.overloads[sig].inspect_llvm()`).
_OVERLOAD_OWNERS = {}


def _overload_owner(kernel, dispatcher, argtypes):
    cls = type(kernel)
    if not hasattr(cls, "inspect_llvm"):
        def inspect_llvm(self):
            owner, types = _OVERLOAD_OWNERS[id(self)]
            return owner().inspect_llvm(types)
        try:
            cls.inspect_llvm = inspect_llvm
        except (TypeError, AttributeError):
            return
    _OVERLOAD_OWNERS[id(kernel)] = (weakref.ref(dispatcher), argtypes)


class _SignatureCounter(collections.Counter):
    """Counts by argument types (a Counter whose lookups also take Numba's type objects)."""

    def __getitem__(self, key):
        return collections.Counter.__getitem__(self, _Overloads._key(key))

    def __contains__(self, key):
        return collections.Counter.__contains__(self, _Overloads._key(key))

    def get(self, key, default=None):
        return collections.Counter.get(self, _Overloads._key(key), default)

    def __repr__(self):
        return repr(collections.Counter(self))


# What Numba's dispatchers give as `stats` (numba.core.dispatcher._CompileStats).
_CompileStats = collections.namedtuple("_CompileStats",
                                       ("cache_path", "cache_hits", "cache_misses"))


def _compile_cache_path():
    """The directory of simt's compile cache (docs/user-guide.md), None where SIMT_CACHE=0."""
    if config.value("SIMT_CACHE") == "0":
        return None
    return config.value("SIMT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "simt")


class _LaunchConfiguration:
    def __init__(self, dispatcher, griddim, blockdim, stream, sharedmem):
        self.dispatcher = dispatcher
        self.griddim = _normalize_dim(griddim, "griddim")
        self.blockdim = _normalize_dim(blockdim, "blockdim")
        bounds = dispatcher.targetoptions.get("launch_bounds")
        threads = self.blockdim[0] * self.blockdim[1] * self.blockdim[2]
        if bounds and threads > bounds[0]:
            raise ValueError("simt: a block of %d threads exceeds %s's launch_bounds of %d threads"
                             " per block (a GPU refuses the launch: CUDA_ERROR_INVALID_VALUE)"
                             % (threads, dispatcher.py_func.__name__, bounds[0]))
        self.stream = _check_stream(stream)
        self.sharedmem = _check_launch_value(sharedmem, "sharedmem")

    def __call__(self, *args):
        self.dispatcher._launch(args, self.griddim, self.blockdim, self.sharedmem, self.stream)


class _ForAll:
    def __init__(self, dispatcher, ntasks, tpb, stream, sharedmem):
        if not _is_integer(ntasks):
            raise TypeError("ntasks must be an integer, got %r" % (ntasks,))
        if ntasks < 0:
            raise ValueError("Can't create ForAll with negative task count: %s" % ntasks)
        self.dispatcher = dispatcher
        self.ntasks = int(ntasks)
        self.tpb = _check_launch_value(tpb, "tpb") or FORALL_THREADS_PER_BLOCK
        self.stream = stream
        self.sharedmem = sharedmem

    def __call__(self, *args):
        if self.ntasks == 0:
            return
        blocks = (self.ntasks + self.tpb - 1) // self.tpb
        self.dispatcher[blocks, self.tpb, self.stream, self.sharedmem](*args)



_BOUNDS_CHECKS = ("raise", "warn")


def bounds_check():
    """What an index out of an array's bounds does (SIMT_BOUNDSCHECK): 'raise' an IndexError
    (the default, as Numba's simulator) or 'warn' (simt.errors.OutOfBoundsWarning, and the kernel
    goes on as on a GPU)."""
    mode = config.value("SIMT_BOUNDSCHECK") or "raise"
    if mode not in _BOUNDS_CHECKS:
        raise ValueError("SIMT_BOUNDSCHECK=%s: expected raise or warn" % mode)
    return mode


def _warn_out_of_bounds(dispatcher):
    """Warns of each out-of-bounds site of the launch just made that this dispatcher has not
    warned of yet: the first thread at it, the access and the source line."""
    for site in _native().take_last_launch_out_of_bounds():
        fault, access = site[:-1], site[-1]
        where = (fault[4], fault[5], fault[7])
        if where in dispatcher._out_of_bounds_sites:
            continue
        dispatcher._out_of_bounds_sites.add(where)
        text = str(fault_exception(fault)).replace(": index", ": %s: index" % access, 1)
        warnings.warn(OutOfBoundsWarning(
            "SIMT_BOUNDSCHECK=warn: " + text + "\n(the kernel went on: a read out of bounds "
            "gives a poisoned value, all bytes 0xFF; a write is lost)"), stacklevel=4)


def fission_enabled():
    """Whether kernels with barriers in block-uniform control flow run by loop fission (the
    default) rather than as fibers (SIMT_FISSION=0): a simulator option, so both kinds of code
    can be compared in one process."""
    return config.value("SIMT_FISSION") != "0"

class Dispatcher:
    """A @cuda.jit function: a kernel (launched with a configuration) or a device function
    (called only from kernels)."""

    _simt_dispatcher = True

    def __init__(self, py_func, sigs=None, device=False, targetoptions=None,
                 captured_source=None):
        if not isinstance(py_func, pytypes.FunctionType):
            raise TypeError("simt: cuda.jit decorates Python functions, not %r" % (py_func,))
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        # The source as it is now: compiling (at the first launch) must not read a file edited
        # since. A specialization shares its dispatcher's.
        self._captured_source = captured_source or CapturedSource(py_func)
        self.device = device
        self.targetoptions = dict(targetoptions or {})
        self.targetoptions["extensions"] = list(self.targetoptions.get("extensions") or ())
        params = inspect.signature(py_func).parameters.values()
        plain = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        # a function may take *args too (a tuple of the extra positional arguments) where it
        # is called from a kernel; a kernel launched must not (compile() says so)
        allowed = plain + (inspect.Parameter.VAR_POSITIONAL,)
        if any(p.kind not in allowed for p in params):
            raise CompileError("simt: %s parameters must be plain positional parameters or "
                               "*args (%s)" % ("device function" if device else "kernel",
                                              py_func.__name__))
        self._star_args = any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params)
        self._nparams = len(params)
        _ALL_DISPATCHERS.add(self)
        self.overloads = _Overloads()
        self._variants = {}  # (argument types, compile options, target) -> compiled kernel
        self._by_key = {}
        self._out_of_bounds_sites = set()  # (file, line, function) warned of (SIMT_BOUNDSCHECK)
        self._configurations = {}
        self._explicit = sigs is not None
        self._specialized = False
        self.specializations = {}  # argument types -> the dispatcher specialize() made for them
        # Numba's counts of compiles per argument types: simt's disk cache is below the
        # dispatcher (every compile of a new overload is a miss here, whether LLVM runs or not)
        self._cache_hits = _SignatureCounter()
        self._cache_misses = _SignatureCounter()
        self._declared = []  # the signatures given to cuda.jit, as Signature objects
        # a device function's signatures given as argument types alone (Numba infers the
        # return type): their places in _declared
        self._inferred_returns = set()
        for sig in sigs or ():
            if device and _argument_types_alone(sig):
                self._inferred_returns.add(len(self._declared))
            argtypes, return_type = parse_signature(sig)
            if not device and return_type != simt_types.none:
                raise TypeError("simt: a kernel returns void, not %s (%s)"
                                % (return_type, py_func.__name__))
            self._declared.append(simt_types.Signature(return_type, argtypes))
            if not device:
                self.compile(argtypes)

    def __repr__(self):
        return "<simt.cuda.Dispatcher %s%s>" % (self.py_func.__qualname__,
                                                " (device)" if self.device else "")

    # -- pickling (simt.compiler.pickling): the function, its source and options; no code ------
    def __reduce__(self):
        return pickling.reduce(self, lambda: dict(
            py_func=self.py_func, source=pickling.source_lines(self._captured_source),
            sigs=[sig.args if k in self._inferred_returns else signature_text(sig)
                  for k, sig in enumerate(self._declared)] if self._explicit else None,
            device=self.device, targetoptions=self.targetoptions))

    @classmethod
    def _rebuild(cls, py_func, source, sigs, device, targetoptions):
        pickling.restore_source(py_func, source)
        return cls(py_func, sigs, device, targetoptions)

    # -- compiling ---------------------------------------------------------------------------
    @property
    def definitions(self):
        return self.overloads

    @property
    def signatures(self):
        """The argument types compiled for, as Numba's `list(self.overloads)`: a kernel's
        overloads (declared or compiled at launches), a device function's declared signatures'
        argument types (its other compiles happen inside the kernels that call it)."""
        if self.device:
            return [sig.args for sig in self._declared]
        return list(self.overloads)

    @property
    def nopython_signatures(self):
        """The Signature objects of `signatures` (Numba's `cres.signature` of each overload):
        a kernel's return none, a device function's their declared return types."""
        if self.device:
            return list(self._declared)
        return [simt_types.Signature(simt_types.none, argtypes) for argtypes in self.overloads]

    @property
    def stats(self):
        """Numba's _CompileStats(cache_path, cache_hits, cache_misses): the cache directory
        with cache=True (simt's compile cache; None without cache=True, as Numba's NullCache,
        or with SIMT_CACHE=0), and the counts of compiles per argument types. simt's disk cache
        is below the dispatcher, so each new overload counts as a miss."""
        cache_path = _compile_cache_path() if self.targetoptions.get("cache") else None
        return _CompileStats(cache_path=cache_path, cache_hits=self._cache_hits,
                             cache_misses=self._cache_misses)

    @property
    def specialized(self):
        """Whether it compiles no more signatures: made by specialize(), or given signatures (as
        Numba's dispatcher, which cannot compile after eager compilation)."""
        return self._specialized or self._explicit

    def compile(self, sig):
        """Compiles the kernel for `sig` (argument types, or a signature) and returns it."""
        if self.device:
            raise TypeError("simt: device functions are compiled with the kernels that call them")
        argtypes = tuple(sig) if isinstance(sig, (tuple, list)) else parse_signature(sig)[0]
        argtypes = simt_argtypes(argtypes)
        if self._star_args:
            raise CompileError("simt: a kernel launched takes plain positional parameters, "
                               "not *args (%s); call it from a kernel instead"
                               % self.py_func.__name__)
        if len(argtypes) != self._nparams:
            raise TypeError("kernel %s takes %d arguments, %d given in its signature"
                            % (self.py_func.__name__, self._nparams, len(argtypes)))
        # read (once) before the compiler loads: out of file descriptors, the error names the
        # kernel whose source could not be read
        name, source, file, first_line = self._captured_source.get()
        options, sim_options = self._options()
        target = targets.current()
        kernel = self._variants.get((argtypes, options, sim_options, target))
        compiled_now = kernel is None
        if compiled_now:
            def compiled(options, target):
                link = linking.for_target(
                    _with_extern_links(self.targetoptions.get("link"), self.py_func), target)
                return _native().compile(name, source, file, first_line, id(self.py_func),
                                         resolver_for(self.py_func), signature_text(argtypes),
                                         options, target=target, sim_options=sim_options,
                                         link=link)
            kernel = self._compile_for_target(compiled, options, target, argtypes)
            if launch_hooks.compiled(self, argtypes, kernel):
                # a tool needs its variant of this kernel now (breakpoint(): the debugger's)
                options, sim_options = self._options()
                kernel = compiled(options, "sim")
            self._variants[(argtypes, options, sim_options, target)] = kernel
        if argtypes not in self.overloads:
            self._cache_misses[argtypes] += 1
        self.overloads[argtypes] = kernel
        _overload_owner(kernel, self, argtypes)
        if compiled_now:
            _numba_dumps(self, argtypes, kernel)
        return kernel

    def _compile_for_target(self, compiled, options, target, argtypes):
        """The kernel for `target` (SIMT_TARGET: simt.compiler.targets): the debugger's variant
        runs on the simulator."""
        if target == "sim" or options.instrumentation != "none":
            return compiled(options, "sim")
        if target == "gpu":
            return compiled(options, "gpu")
        return targets.ParityKernel(compiled(options, "sim"), compiled(options, "gpu"),
                                    list(inspect.signature(self.py_func).parameters), argtypes)

    def _options(self):
        """What the kernel is compiled for and how the simulator runs it, both part of every
        cache key, from the variant a tool needs now (simt.compiler.launch_hooks: the
        debugger's, the checkers').

        simt._simt.CompileOptions: the error model, LLVM's optimisation level (opt=False: 0),
        fastmath, the variant's instrumentation and what an index out of bounds does
        (SIMT_BOUNDSCHECK). simt._simt.SimOptions: kernels with barriers
        by loop fission or not (SIMT_FISSION), and which threads of the checkers' variant run on
        fibers (the variant's checked_fibers)."""
        variant = dict(launch_hooks.variant(self))
        native = _native()
        options = native.CompileOptions(
            python_error_model=self._python_error_model(),
            opt_level=3 if self.targetoptions.get("opt", True) else 0,
            fastmath=bool(self.targetoptions.get("fastmath")),
            instrumentation=variant.get("instrumentation", "none"), bounds_check=bounds_check())
        sim_options = native.SimOptions(fission=fission_enabled(),
                                        checked_fibers=variant.get("checked_fibers", "none"))
        return options, sim_options

    def _python_error_model(self):
        """The host's error model for this kernel's options (simt.base.host.python_error_model)."""
        return host.python_error_model(self._debug(), self.targetoptions.get("lineinfo"))

    def _debug(self):
        """debug=, where None takes Numba's config.CUDA_DEBUGINFO_DEFAULT (NUMBA_CUDA_DEBUGINFO)."""
        debug = self.targetoptions.get("debug")
        if debug is None:
            config = sys.modules.get("numba.core.config")
            debug = getattr(config, "CUDA_DEBUGINFO_DEFAULT", None) if config else None
            if debug is None:
                debug = os.environ.get("NUMBA_CUDA_DEBUGINFO", "0") not in ("", "0")
        return bool(debug)

    @property
    def extensions(self):
        """Numba's argument handler extensions: objects with a `prepare_args(ty, val, stream,
        retr)` method returning `(ty, val)`, applied to each launch argument from the last in
        this list to the first; `retr` takes zero-argument functions to run after the launch."""
        return self.targetoptions["extensions"]

    def bind(self):
        """Numba loads the compiled kernels into the current context; simt's are ready."""

    def specialize(self, *args):
        """A dispatcher compiled for the types of `args` (values, or types) only: one per types,
        kept in `specializations`. A dispatcher with signatures is specialized already."""
        if self.specialized:
            raise RuntimeError("Dispatcher already specialized")
        argtypes = tuple(simt_argtypes((a,))[0] if simt_types._is_type_object(a) else typeof(a)
                         for a in args)
        specialization = self.specializations.get(argtypes)
        if specialization is None:
            specialization = Dispatcher(self.py_func, [argtypes], self.device, self.targetoptions,
                                        self._captured_source)
            specialization._specialized = True
            self.specializations[argtypes] = specialization
        return specialization

    def _overload_for(self, args):
        """(kernel, args as the kernel takes them) for a launch with `args`."""
        key = (_argument_key(args), launch_hooks.variant(self), fission_enabled(), bounds_check())
        found = self._by_key.get(key)
        if found is None:
            found = self._by_key[key] = self._resolve_overload(args)
        kernel, declared = found
        if declared is not None:
            args = _as_numba_passes(declared, args)
        return kernel, args

    def _resolve_overload(self, args):
        """(kernel, its declared argument types, or None where the kernel was compiled for the
        arguments' own types)."""
        if len(args) != self._nparams:
            raise TypeError("kernel %s takes %d arguments, %d given"
                            % (self.py_func.__name__, self._nparams, len(args)))
        argtypes = tuple(typeof(a) for a in args)
        if not self._explicit:
            return self.compile(argtypes), None
        if argtypes in self.overloads:  # the declared types themselves: nothing to convert
            return self.overloads[argtypes], None
        return self._best_conversion(argtypes)[::-1]

    def _best_conversion(self, argtypes):
        """(declared argument types, kernel) of the overload the arguments convert to best, as
        Numba's dispatcher rates them: by the count of unsafe, then safe, then promoting
        conversions; a tie is ambiguous."""
        rated = []
        for declared, kernel in self.overloads.items():
            if all(_converts(a, d) for a, d in zip(argtypes, declared)):
                kinds = [simt_types.conversion(a, d) for a, d in zip(argtypes, declared)]
                rating = tuple(kinds.count(kind) for kind in
                               (simt_types.UNSAFE, simt_types.SAFE, simt_types.PROMOTE))
                rated.append((rating, declared, kernel))
        if not rated and len(self.overloads) == 1 and all(
                _converts(a, d) or _same_bits(a, d)
                for a, d in zip(argtypes, next(iter(self.overloads)))):
            # Numba launches a kernel of one signature without matching the arguments: an
            # array's elements are read as the declared dtype (here: one of the same size)
            return next(iter(self.overloads)), next(iter(self.overloads.values()))
        if not rated:
            raise TypeError("No matching definition for argument type(s) %s"
                            % ", ".join(str(t) for t in argtypes))
        best = min(rating for rating, _, _ in rated)
        tied = [declared for rating, declared, _ in rated if rating == best]
        if len(tied) > 1:
            raise TypeError("Ambiguous overloading for %s (%s):\n%s"
                            % (self.py_func, ", ".join(str(t) for t in argtypes),
                               "\n".join("(%s) -> none" % ", ".join(map(str, d)) for d in tied)))
        return next((declared, kernel) for rating, declared, kernel in rated if rating == best)

    # -- launching ---------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if self.device:
            raise TypeError("simt: %s is a device function: call it from a kernel, not from the"
                            " host" % self.py_func.__name__)
        raise ValueError(missing_launch_config_msg)

    def configure(self, griddim, blockdim, stream=0, sharedmem=0, cluster=None):
        if self.device:
            raise RuntimeError("Cannot compile a device function as a kernel (%s is a device"
                               " function; only kernels are launched)" % self.py_func.__name__)
        _check_no_cluster(cluster)
        return _LaunchConfiguration(self, griddim, blockdim, stream, sharedmem)

    def __getitem__(self, config):
        if not isinstance(config, tuple) or len(config) not in (2, 3, 4, 5):
            raise ValueError("must specify at least the griddim and blockdim")
        # Only Python ints are cached (8.0 == 8 and hashes alike, but is refused as a dimension;
        # lists do not hash): the others are configured, so checked, each time.
        cacheable = _int_dims(config[:2])
        try:
            launcher = self._configurations.get(config) if cacheable else None
        except TypeError:  # an unhashable stream
            launcher, cacheable = None, False
        if launcher is None:
            launcher = self.configure(*config)
            if cacheable and len(self._configurations) < 128:
                self._configurations[config] = launcher
        if _numba_warns("CUDA_LOW_OCCUPANCY_WARNINGS", "NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS"):
            _warn_low_occupancy(launcher.griddim)
        return launcher

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        return _ForAll(self, ntasks, tpb, stream, sharedmem)

    def _launch(self, args, griddim, blockdim, sharedmem, stream=0):
        get_context()  # the device initialises at its first use (CudaSupportError if disabled)
        retr = []
        if not all(type(a) in _PLAIN_ARGUMENT_TYPES for a in args):
            args = tuple(interchange_argument(a) for a in args)  # DLPack, StridedMemoryView
        if self.targetoptions["extensions"] or any(type(a) is In for a in args):
            args = tuple(self._prepare_arg(a, stream, retr) for a in args)
        kernel, args = self._overload_for(args)
        _sentry_host_arrays(args)
        if _numba_warns("CUDA_WARN_ON_IMPLICIT_COPY", "NUMBA_CUDA_WARN_ON_IMPLICIT_COPY"):
            _warn_implicit_copies(args)
        _flush_stdout()
        fault = launch_hooks.launch(
            launch_hooks.Launch(self, kernel, griddim, blockdim, sharedmem, args))
        if bounds_check() == "warn":
            _warn_out_of_bounds(self)
        if fault is not None:
            raise fault_exception(fault)
        for writeback in retr:
            writeback()

    def argument_types_of(self, kernel, args):
        """The argument types `kernel` was compiled for: its overload's, or (a variant of other
        options, fission off, is no overload) the types of `args`."""
        return next((t for t, k in self.overloads.items() if k is kernel),
                    None) or tuple(typeof(a) for a in args)

    def _prepare_arg(self, value, stream, retr):
        """An argument after the extensions' prepare_args, last extension first, as Numba's
        dispatcher applies them; then an argument hint (cuda.In, ..., or Numba's
        numba.cuda.args.In, ...) is moved to the device, a copy back queued in `retr`."""
        argtype = typeof(value)
        for extension in reversed(self.targetoptions["extensions"]):
            argtype, value = extension.prepare_args(argtype, value, stream=stream, retr=retr)
        if hasattr(value, "to_device") and not isinstance(value, DeviceNDArray):
            value = value.to_device(retr, stream)
        return value

    # -- inspection --------------------------------------------------------------------------
    def _per_signature(self, signature, text_of):
        """text_of(kernel) for `signature`, or a dict of it per signature (whose lookups take
        Numba's type objects too)."""
        if signature is not None:
            argtypes = getattr(signature, "args", signature)
            return text_of(self.overloads[tuple(argtypes)])
        return _Overloads((argtypes, text_of(kernel)) for argtypes, kernel in
                          self.overloads.items())

    def inspect_ir(self, signature=None):
        """The typed IR, per signature (or for one)."""
        return self._per_signature(signature, lambda kernel: kernel.ir())

    def inspect_llvm(self, signature=None):
        """The NVVM-dialect LLVM IR the GPU backend compiles to PTX, per signature (or for one),
        as numba-cuda's inspect_llvm (see inspect_sim_llvm for the simulator's)."""
        return self._per_gpu_signature(signature, lambda compiled: compiled["llvm_ir"],
                                       llvm_ir=True)

    def inspect_sim_llvm(self, signature=None):
        """The optimised LLVM IR the simulator runs, per signature (or for one)."""
        return self._per_signature(signature, lambda kernel: kernel.llvm_ir())

    def inspect_types(self, file=None, signature=None):
        """Prints the typed IR of each compiled signature."""
        file = file or sys.stdout
        for argtypes, text in self._per_signature(None, lambda kernel: kernel.ir()).items():
            if signature is None or tuple(getattr(signature, "args", signature)) == argtypes:
                print("%s (%s)" % (self.py_func.__name__, ", ".join(map(str, argtypes))),
                      file=file)
                print(text, file=file)

    def compile_device(self, args):
        """Numba's compile_device for a device function: what compiling it for the GPU alone gives
        (`fndesc.mangled_name`, the function's name in its PTX and NVVM IR; `signature`;
        `return_type`)."""
        if not self.device:
            raise RuntimeError("compile_device is for device functions (%s is a kernel)"
                               % self.py_func.__name__)
        argtypes = simt_argtypes(tuple(args))
        compiled = ptx.compile_ptx(self.py_func, argtypes, **self._gpu_options())
        return_type = ptx.return_type(compiled, True)
        return pytypes.SimpleNamespace(
            fndesc=pytypes.SimpleNamespace(mangled_name=compiled["entry"],
                                           qualname=self.py_func.__qualname__),
            signature=simt_types.Signature(return_type, argtypes), return_type=return_type,
            argtypes=argtypes)

    def inspect_sass(self, signature=None):
        """SASS, per signature (or for one): the PTX assembled by ptxas and disassembled by
        nvdisasm, both from the CUDA toolkit (nvdisasm must be on the PATH, as with Numba)."""
        if self.device:
            raise RuntimeError("Cannot inspect SASS of a device function")
        return self._per_gpu_signature(signature, lambda compiled: gpu.disassemble(
            compiled["ptx"], self._gpu_options()["cc"]))

    def inspect_asm(self, signature=None):
        """The PTX of each compiled signature (or of one), from LLVM's NVPTX backend for the
        current device's compute capability (see cuda.compile_ptx)."""
        return self._per_gpu_signature(signature, lambda compiled: compiled["ptx"])

    def _gpu_options(self):
        return dict(debug=self._debug(), launch_bounds=self.targetoptions.get("launch_bounds"),
                    lineinfo=bool(self.targetoptions.get("lineinfo")), device=self.device,
                    fastmath=bool(self.targetoptions.get("fastmath")),
                    opt=self.targetoptions.get("opt", True) is not False,
                    cc=get_current_device().compute_capability)

    def _per_gpu_signature(self, signature, text_of, llvm_ir=False):
        """text_of(the GPU backend's compile of the function) for `signature`, or a dict of it
        per signature: the launched ones (kernels), the declared ones (device functions)."""
        options = self._gpu_options()

        def compiled(argtypes):
            return text_of(ptx.compile_ptx(self.py_func, argtypes, llvm_ir=llvm_ir, **options))
        if signature is not None:
            return compiled(simt_argtypes(tuple(getattr(signature, "args", signature))))
        return _Overloads((tuple(argtypes), compiled(tuple(argtypes)))
                          for argtypes in self.signatures)

    def get_shared_mem_per_block(self, signature=None):
        return self._per_signature(signature, lambda kernel: kernel.static_shared_bytes)

    def _resource(self, signature, resource):
        """What ptxas reports a compiled signature (or each) uses on the GPU (simt.compiler.gpu)."""
        options = self._gpu_options()
        if signature is None and self.specialized:  # its (first) signature's value, as Numba's
            signature = next(iter(self.overloads))
        return self._per_gpu_signature(signature, lambda compiled: gpu.resource_usage(
            compiled["ptx"], options["cc"], compiled["entry"],
            self.targetoptions.get("max_registers"))[resource])

    def get_regs_per_thread(self, signature=None):
        """Registers per thread of the kernel compiled for the GPU (ptxas's count; at most
        max_registers= where given)."""
        return self._resource(signature, "registers")

    def get_local_mem_per_thread(self, signature=None):
        return self._resource(signature, "local")

    def get_const_mem_size(self, signature=None):
        return self._resource(signature, "const")


def _numba_warns(name, variable):
    """Whether to give one of Numba's warnings about GPU performance: where the program has
    loaded Numba, its setting `name` is on, and the environment asks for it (`variable` set;
    Numba's default is on, but the simulator models no GPU performance, so simt gives them only
    when asked)."""
    config = sys.modules.get("numba.core.config")
    return config is not None and bool(getattr(config, name, 0)) and bool(
        os.environ.get(variable, "").strip())


def _numba_dumps(dispatcher, argtypes, kernel):
    """Numba's NUMBA_DUMP_IR, NUMBA_DUMP_LLVM and NUMBA_DUMP_ASSEMBLY, where the program has
    loaded Numba (its config then holds them): a newly compiled kernel's typed IR, its LLVM IR
    and its PTX (the GPU backend's, as Numba's dumps are) on standard output, headed as Numba
    heads them."""
    config = sys.modules.get("numba.core.config")
    if config is None:
        return
    name = dispatcher.py_func.__name__
    dumps = (("DUMP_IR", "IR DUMP: %s" % name, kernel.ir),
             ("DUMP_LLVM", "LLVM DUMP %s" % name, lambda: dispatcher.inspect_llvm(argtypes)),
             ("DUMP_ASSEMBLY", "ASSEMBLY %s" % name, lambda: dispatcher.inspect_asm(argtypes)))
    for setting, title, text in dumps:
        if getattr(config, setting, False):
            print(title.center(80, "-"))
            print(text())
            print("=" * 80)


def _numba_warning(category, message):
    """Warns as Numba does, in Numba's warning category (numba.core.errors.<category>)."""
    errors = sys.modules.get("numba.core.errors")
    warnings.warn(getattr(errors, category, UserWarning)(message) if errors else message,
                  stacklevel=3)


def _warn_low_occupancy(griddim):
    """Numba's warning for grids too small to occupy the device: fewer than two blocks per
    multiprocessor (the simulated device's: its worker threads)."""
    blocks = griddim[0] * griddim[1] * griddim[2]
    multiprocessors = get_current_device().MULTIPROCESSOR_COUNT
    if blocks < 2 * multiprocessors:
        _numba_warning("NumbaPerformanceWarning",
                       "Grid size %d will likely result in GPU under-utilization due to low "
                       "occupancy." % blocks)


def _warn_implicit_copies(args):
    """Numba's warning for host arrays passed to a kernel, which a GPU copies to and from the
    device at each launch (NUMBA_CUDA_WARN_ON_IMPLICIT_COPY)."""
    if any(isinstance(a, np.ndarray) and not isinstance(a, MappedNDArray) for a in args):
        _numba_warning("NumbaPerformanceWarning",
                       "Host array used in CUDA kernel will incur copy overhead to/from device.")


def _check_carveout(carveout):
    """numba-cuda's shared_memory_carveout=: a percentage of the unified L1/shared memory, or
    "MaxL1", "MaxShared", "default". A preference for the GPU's cache split; the simulator has
    none to make, so it only checks the value."""
    if carveout is None or carveout in ("MaxL1", "MaxShared", "default"):
        return
    if not isinstance(carveout, int) or not -1 <= carveout <= 100:
        raise ValueError("shared_memory_carveout must be an int from -1 to 100 or one of "
                         "'MaxL1', 'MaxShared', 'default': got %r" % (carveout,))


_ALL_DISPATCHERS = weakref.WeakSet()


def all_dispatchers():
    """Every kernel and device function defined so far (the debugger finds functions by name)."""
    return list(_ALL_DISPATCHERS)


def _check_no_cluster(cluster):
    """numba-cuda-mlir's fifth launch value, the thread block cluster: one block per cluster (or
    none given) is an ordinary launch; larger clusters are not simulated."""
    dims = (cluster,) if isinstance(cluster, int) else tuple(cluster or ())
    if any(not isinstance(d, int) or d < 1 for d in dims):
        raise ValueError("simt: a thread block cluster's dimensions are positive integers, not %r"
                         % (cluster,))
    if any(d != 1 for d in dims):
        raise NotImplementedError("simt: thread block clusters (cluster=%r) are not simulated; "
                                  "launch without one" % (cluster,))


def jit(func_or_sig=None, device=False, inline=False, link=(), debug=None, opt=True,
        lineinfo=False, cache=False, fastmath=False, max_registers=None, **kws):
    """numba.cuda.jit: `@jit`, `@jit()`, `@jit("void(float32[:])")`, `@jit([sig, ...])`,
    `@jit(device=True)`."""
    options = dict(debug=debug, opt=opt, lineinfo=lineinfo, cache=cache, fastmath=fastmath,
                   inline=inline, max_registers=max_registers, link=list(link or ()), **kws)
    options["launch_bounds"] = ptx.bounds_of(options.get("launch_bounds"))
    _check_carveout(options.get("shared_memory_carveout"))
    if debug and opt and targets.current() != "sim":  # CUDA's limitation, not the simulator's
        _numba_warning("NumbaInvalidConfigWarning",
                       "debug=True with opt=True (the default) is not supported by CUDA. This "
                       "may result in a crash - set debug=False or opt=False.")
    if isinstance(func_or_sig, Dispatcher):
        raise TypeError("A jit decorator was called on an already jitted function %s" %
                        func_or_sig)
    by_annotations = options.pop("annotations_as_signatures", hosts.numba_cuda_mlir_in_use())
    if isinstance(func_or_sig, pytypes.FunctionType):
        return Dispatcher(func_or_sig, _annotated_signatures(func_or_sig, None, by_annotations),
                          device, options)
    if func_or_sig is None:
        sigs = None
    elif isinstance(func_or_sig, list):
        sigs = func_or_sig
    else:
        sigs = [func_or_sig]
    return lambda py_func: Dispatcher(
        py_func, _annotated_signatures(py_func, sigs, by_annotations), device, options)


def _annotation_signature(py_func):
    """The argument types a function's annotations give when every parameter is annotated with
    a type object (simt's or a host's: `a: cuda.float32[:]`), else None (a template, compiled per
    argument types): numba-cuda-mlir's annotations as signatures."""
    parameters = inspect.signature(py_func).parameters.values()
    annotations = [p.annotation for p in parameters]
    if not annotations or any(a is inspect.Parameter.empty or isinstance(a, str)
                              for a in annotations):
        return None
    try:
        parse_signature(tuple(annotations))
    except (TypeError, ValueError, NotImplementedError, CompileError):
        return None
    return tuple(annotations)


def _annotated_signatures(py_func, sigs, by_annotations):
    """`sigs`, or (where annotations are signatures, as under numba-cuda-mlir) the one its
    annotations give; a TypeError when both are given, as numba-cuda-mlir raises."""
    if not by_annotations:
        return sigs
    annotated = _annotation_signature(py_func)
    if annotated is None:
        return sigs
    if sigs is not None:
        raise TypeError(
            "Conflicting signature sources for '%s': both an explicit signature and type "
            "annotations are provided. Use one or the other (or annotations_as_signatures=False "
            "to ignore the annotations)." % py_func.__name__)
    return [annotated]


def _with_extern_links(link, py_func):
    """A kernel's link= files and those of the external functions it names (declare_device's
    link=), each once: numba-cuda links those into every kernel that calls them."""
    links = list(link or ())
    code_objects, names = [py_func.__code__], set()
    while code_objects:
        code = code_objects.pop()
        names.update(code.co_names + code.co_freevars)
        code_objects.extend(c for c in code.co_consts if isinstance(c, pytypes.CodeType))
    closure = {}
    for name, cell in zip(py_func.__code__.co_freevars, py_func.__closure__ or ()):
        try:
            closure[name] = cell.cell_contents
        except ValueError:  # an empty cell
            pass
    for name in sorted(names):
        value = closure.get(name, py_func.__globals__.get(name))
        if isinstance(value, ExternFunction):
            links.extend(entry for entry in value.link if entry not in links)
    return links
