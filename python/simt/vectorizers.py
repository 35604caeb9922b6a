"""CUDA ufuncs on simt: `@vectorize([...], target='cuda')` and
`@guvectorize([...], '(m,n),(n,p)->(m,p)', target='cuda')`.

Numba's decorators (numba.vectorize, numba.guvectorize) look their target up in a registry; under
the import hook 'cuda' (and the old NumbaPro spelling 'gpu') give the builders here, which
generate the kernels of numba/cuda/vectorizers.py as source text and compile them with simt's
cuda.jit. Calls follow numba/np/ufunc/deviceufunc.py: type dispatch over the listed signatures,
broadcasting, scalars, `out=` and `stream=`, host arrays in -> host array out, any device array
in -> device array out. `vectorize` and `guvectorize` here are the same decorators without
Numba."""
import functools
import inspect
import operator
import re
import warnings
from collections import OrderedDict

import numpy as np

import simt.types as simt_types
from simt.base.source import CapturedSource
from simt.compiler import pickling
from simt.compiler.signatures import parse_signature
from simt.compiler.sourcegen import device_function, function_from_source
from simt.memory.devicearray import (DeviceNDArray, as_cuda_array, check_array_compatibility,
                                     is_cuda_array, sentry_contiguous, to_device)

__all__ = ["vectorize", "guvectorize", "CUDAVectorize", "CUDAGUFuncVectorize",
           "CUDAUFuncDispatcher", "CUDAGeneralizedUFunc", "TARGETS"]

# The target names that select these builders ('gpu' is NumbaPro's name for 'cuda').
TARGETS = ("cuda", "gpu")


def _cuda():
    import simt.cuda as cuda
    return cuda


def _dtype(scalar_type):
    return np.dtype(scalar_type.name)


def _as_device_array(obj):
    return obj if isinstance(obj, DeviceNDArray) else as_cuda_array(obj)


def _strided(ary, shape, strides):
    """A view of `ary` (host or device) with the given shape and strides."""
    if isinstance(ary, DeviceNDArray):
        return ary._view(np.lib.stride_tricks.as_strided(ary._host, shape, strides))
    return np.lib.stride_tricks.as_strided(ary, shape, strides)


def _reshaped(ary, shape):
    """`ary` reshaped; a device array that needs a copy for it is copied."""
    if isinstance(ary, DeviceNDArray):
        try:
            return ary.reshape(shape)
        except NotImplementedError:
            return to_device(np.ascontiguousarray(ary._host).reshape(shape), ary.stream)
    return np.reshape(ary, shape)


def _writable_view(ary, shape):
    """A view of `ary` with `shape`, or None where that needs a copy."""
    host = ary._host if isinstance(ary, DeviceNDArray) else ary
    try:
        view = host.view()
        view.shape = shape
    except AttributeError:
        return None
    if isinstance(ary, DeviceNDArray):
        return ary._view(view)
    # a kernel takes a host array as one region of memory (sentry_contiguous)
    return view if view.flags.c_contiguous or view.flags.f_contiguous else None


def _write_through(out, shape):
    """(array of `shape` for a kernel to write, function that moves its values into `out`)."""
    view = _writable_view(out, shape)
    if view is not None:
        return view, lambda: None
    staging = np.empty(shape, dtype=out.dtype)

    def copy_back():
        host = out._host if isinstance(out, DeviceNDArray) else out
        np.copyto(host, staging.reshape(host.shape))

    return staging, copy_back


# -- vectorize --------------------------------------------------------------------------------

_VECTORIZE_SOURCE = '''\
def __vectorized_{name}({args}, __out__):
    __tid__ = __cuda__.grid(1)
    if __tid__ < __out__.shape[0]:
        __out__[__tid__] = __core__({argitems})
'''


def _check_cache(cache):
    if cache:
        raise TypeError("caching is not supported")


class CUDAVectorize:
    """Builds a CUDA ufunc: one kernel per signature, each calling the function per element."""

    def __init__(self, func, identity=None, cache=False, targetoptions=None):
        _check_cache(cache)
        for option in targetoptions or {}:
            if option == "nopython":
                warnings.warn("nopython kwarg for cuda target is redundant", RuntimeWarning)
            else:
                raise KeyError("Unrecognized options. cuda vectorize target does not support "
                               "option: '%s'" % option)
        self.py_func = func
        self.identity = identity
        self.kernelmap = OrderedDict()  # argument dtypes -> (result dtype, kernel)
        self._core = None
        self._signatures = []  # as given to add() (what a pickled ufunc is rebuilt with)

    @property
    def pyfunc(self):
        return self.py_func

    def add(self, sig=None):
        argtypes, return_type = _ufunc_signature(sig)
        name = self.py_func.__name__
        if self._core is None:
            self._core = device_function(self.py_func)
        if return_type is None:  # argument types alone: the function's return type, as Numba
            return_type = self._core.compile_device(argtypes).return_type
        if not isinstance(return_type, simt_types.ScalarType):
            raise TypeError("simt: a CUDA vectorize signature needs a scalar return type, as in "
                            "'float32(float32, float32)'; got %r for %s" % (sig, name))
        for t in argtypes:
            if not isinstance(t, simt_types.ScalarType):
                raise TypeError("simt: CUDA vectorize signatures take scalar arguments; got %s "
                                "in %r for %s" % (t, sig, name))
        cuda = _cuda()
        args = ["a%d" % i for i in range(len(argtypes))]
        source = _VECTORIZE_SOURCE.format(
            name=name, args=", ".join(args), argitems=", ".join("%s[__tid__]" % a for a in args))
        stager = function_from_source(source, "__vectorized_%s" % name,
                                      {"__cuda__": cuda, "__core__": self._core},
                                      "vectorize %s" % name)
        kernel_args = tuple(simt_types.ArrayType(t, 1, "A") for t in argtypes + (return_type,))
        kernel = cuda.jit([kernel_args])(stager)
        self.kernelmap[tuple(_dtype(t) for t in argtypes)] = (_dtype(return_type), kernel)
        self._signatures.append(sig)

    def disable_compile(self):
        """Signatures are fixed at decoration (Numba's API; nothing compiles lazily here)."""

    def build_ufunc(self):
        ufunc = CUDAUFuncDispatcher(self.kernelmap, self.py_func)
        ufunc._built_from = _built_from(self, dict(signatures=self._signatures,
                                                   identity=self.identity))
        return ufunc


def _built_from(builder, states):
    """What a (g)ufunc pickles (simt.compiler.pickling), read when it is pickled: its builder's
    function, that function's source, and `states`, the rest of what the builder was given."""
    py_func = builder.py_func

    def states_now():
        source = CapturedSource(py_func) if builder._core is None else builder._core._captured_source
        return dict(states, py_func=py_func, source=pickling.source_lines(source))

    return states_now


def _ufunc_signature(sig):
    """(argument types, return type) of a (g)ufunc signature in the spellings Numba's
    sigutils.normalize_signature takes: a signature (text or object), or argument types alone
    (a tuple, or text such as '(float32, float32)'), whose return type is None."""
    if isinstance(sig, str) and sig.strip().startswith("("):
        return parse_signature("void" + sig.strip())[0], None
    if isinstance(sig, (tuple, list)):
        return parse_signature(tuple(sig))[0], None
    return parse_signature(sig)


def _signature_list(signatures):
    """The signatures of vectorize/guvectorize: one (text or object) or a list of them."""
    if isinstance(signatures, str) or hasattr(signatures, "return_type"):
        return [signatures]
    return list(signatures or ())


def _broadcast_axis(a, b):
    if a == b or b == 1:
        return a
    if a == 1:
        return b
    raise ValueError("failed to broadcast {0} and {1}".format(a, b))


def _multi_broadcast(shapes):
    result = tuple(shapes[0])
    for i, shape in enumerate(shapes[1:], start=1):
        shape = tuple(shape)
        width = max(len(result), len(shape))
        left = (1,) * (width - len(result)) + result
        right = (1,) * (width - len(shape)) + shape
        try:
            result = tuple(_broadcast_axis(a, b) for a, b in zip(left, right))
        except ValueError:
            raise ValueError("failed to broadcast argument #{0}".format(i)) from None
    return result


def _broadcast_to(ary, shape):
    """`ary` seen with `shape`: missing and length-1 axes get stride 0 (no copy)."""
    if ary.shape == shape:
        return ary
    missing = len(shape) - ary.ndim
    strides = [0] * missing + list(ary.strides)
    for axis in range(len(shape)):
        if axis < missing or ary.shape[axis - missing] != shape[axis]:
            strides[axis] = 0
    return _strided(ary, shape, tuple(strides))


def _flat(ary):
    """The 1-d array of `ary`'s elements in C order: a device array's view where possible, a
    host array's ravel() (a copy unless its elements are one region, as Numba ravels them)."""
    if ary.ndim == 1:
        return ary
    if not isinstance(ary, DeviceNDArray):
        return np.ravel(ary)
    return _reshaped(ary, (ary.size,))


class CUDAUFuncDispatcher:
    """A CUDA ufunc: call it with host arrays, device arrays or scalars."""

    def __init__(self, types_to_retty_kernels, py_func=None):
        self.functions = types_to_retty_kernels
        self._max_blocksize = 0  # kept for Numba's API; launches use cuda's forall
        if py_func is not None:
            functools.update_wrapper(self, py_func)

    @property
    def max_blocksize(self):
        return self._max_blocksize

    @max_blocksize.setter
    def max_blocksize(self, blksz):
        self._max_blocksize = blksz

    def __repr__(self):
        return "<simt CUDA ufunc %s>" % getattr(self, "__name__", "?")

    def __reduce__(self):
        return pickling.reduce(self, self._built_from)

    @classmethod
    def _rebuild(cls, py_func, source, signatures, identity):
        pickling.restore_source(py_func, source)
        return vectorize(signatures, identity=identity)(py_func)

    def _resolve(self, args):
        """(argument arrays with scalars as 1-element arrays, argument dtypes)."""
        arrays = [None] * len(args)
        scalars = []
        for i, arg in enumerate(args):
            if is_cuda_array(arg):
                arrays[i] = _as_device_array(arg)
            elif isinstance(arg, (int, float, complex, np.number)):
                scalars.append(i)
            else:
                arrays[i] = np.asarray(arg)
        actual = [None if a is None else a.dtype for a in arrays]
        matches = []
        if scalars:  # first an exact match of the scalars' own dtypes
            matches = [formal for formal in self.functions
                       if len(formal) == len(args) and
                       all(f == (a if a is not None else np.asarray(args[i]).dtype)
                           for i, (f, a) in enumerate(zip(formal, actual)))]
        if not matches:  # then scalars convert to the signature's types
            matches = [formal for formal in self.functions
                       if len(formal) == len(args) and
                       all(a is None or f == a for f, a in zip(formal, actual))]
        if not matches:
            raise TypeError("No matching version.  GPU ufunc requires array arguments to have "
                            "the exact types.  This behaves like regular ufunc with "
                            "casting='no'.")
        if len(matches) > 1:
            raise TypeError("Failed to resolve ufunc due to ambiguous signature. Too many "
                            "untyped scalars. Use numpy dtype object to type tag.")
        formal = matches[0]
        for i in scalars:
            arrays[i] = np.array([args[i]], dtype=formal[i])
        return arrays, formal

    def __call__(self, *args, **kws):
        """Applies the ufunc elementwise. Keywords: `out` (a host or device array of the result
        shape and dtype) and `stream`."""
        stream = kws.pop("stream", 0)
        out = kws.pop("out", None)
        if kws:
            warnings.warn("unrecognized keywords: %s" % ", ".join(kws))
        nin = len(next(iter(self.functions), ()))
        if self.functions and len(args) != nin:
            raise TypeError("%s takes %d arguments, %d given"
                            % (getattr(self, "__name__", "ufunc"), nin, len(args)))
        arrays, formal = self._resolve(args)
        result_dtype, kernel = self.functions[formal]
        shape = _multi_broadcast([a.shape for a in arrays])
        if len(shape) <= 1:  # Numba copies 1-d host arrays to the device as they are
            for a in arrays:
                if not isinstance(a, DeviceNDArray):
                    sentry_contiguous(a)
        any_device = any(isinstance(a, DeviceNDArray) for a in arrays)
        inputs = [_flat(_broadcast_to(a, shape or (1,))) for a in arrays]
        size = int(np.prod(shape, dtype=np.int64))

        if out is None:
            cuda = _cuda()
            result = (cuda.device_array(size, result_dtype, stream=stream) if any_device
                      else np.empty(size, dtype=result_dtype))
            kernel.forall(size, stream=stream)(*inputs, result)
            return result.reshape(shape)

        if is_cuda_array(out):
            out = _as_device_array(out)
        if out.size != size:
            raise ValueError("out has shape %s; the result has shape %s" % (out.shape, shape))
        if out.dtype != result_dtype:
            raise TypeError("out has dtype %s; the result has dtype %s"
                            % (out.dtype, result_dtype))
        if len(shape) <= 1 and not isinstance(out, DeviceNDArray):
            # Numba copies a 1-d result into a host `out` as one region (copy_to_host)
            check_array_compatibility(np.empty(out.shape, out.dtype), out)
        target, copy_back = _write_through(out, (size,))
        kernel.forall(size, stream=stream)(*inputs, target)
        copy_back()
        return out.reshape(shape) if out.shape != shape else out

    def reduce(self, arg, stream=0):
        """Folds a 1-d array with this binary ufunc by pairwise halving, as Numba does."""
        if any(len(formal) != 2 for formal in self.functions):
            raise TypeError("must be a binary ufunc")
        if arg.ndim != 1:
            raise TypeError("must use 1d array")
        n = arg.shape[0]
        if n == 0:
            raise TypeError("Reduction on an empty array.")
        if n == 1:
            return arg[0]
        if isinstance(arg, DeviceNDArray):
            memory = to_device(np.ascontiguousarray(arg._host), stream)
        else:  # as Numba's cuda.to_device: ValueError for a host array that is not contiguous
            memory = to_device(np.asarray(arg), stream)
        return self._reduce(memory, stream)[0]

    def _reduce(self, memory, stream):
        n = memory.shape[0]
        if n % 2:
            most, last = memory.split(n - 1)
            partial = self._reduce(most, stream)
            return self(partial, last, out=partial, stream=stream)
        left, right = memory.split(n // 2)
        self(left, right, out=left, stream=stream)
        return self._reduce(left, stream) if n // 2 > 1 else left


# -- guvectorize ------------------------------------------------------------------------------

_GUFUNC_SOURCE = '''\
def __gufunc_{name}({args}):
    __tid__ = __cuda__.grid(1)
    if __tid__ < {checkedarg}:
        __core__({argitems})
'''

_GROUP = r"\((?:\w+(?:,\w+)*)?\)"
_GROUPS = re.compile(r"%s(?:,%s)*" % (_GROUP, _GROUP))


def parse_gufunc_signature(signature):
    """'(m,n),(n,p)->(m,p)' -> ([('m', 'n'), ('n', 'p')], [('m', 'p')])."""
    text = re.sub(r"\s+", "", signature)
    sides = text.split("->")
    if len(sides) != 2 or not all(_GROUPS.fullmatch(side) for side in sides):
        raise ValueError("simt: bad gufunc signature %r: expected a layout like "
                         "'(m,n),(n,p)->(m,p)'" % (signature,))
    inputs, outputs = ([tuple(s for s in group.split(",") if s)
                        for group in re.findall(r"\(([^()]*)\)", side)] for side in sides)
    return inputs, outputs


def _index_source(name, core_ndim, argtype):
    """How the generated kernel passes argument `name` of element __tid__ to the core."""
    if core_ndim > 0:
        return "%s[__tid__]" % name  # the element's sub-array: a view
    if isinstance(argtype, simt_types.ArrayType) and argtype.ndim - 1 == core_ndim:
        return "%s[__tid__:(__tid__ + 1)]" % name  # a 0-d core dimension of a 1-d array
    return "%s[__tid__]" % name


def _outer_type(argtype, core_ndim):
    if isinstance(argtype, simt_types.ArrayType):
        return simt_types.ArrayType(argtype.dtype, core_ndim + 1, argtype.layout)
    if core_ndim > 0:
        raise ValueError("gufunc signature mismatch: ndim>0 for scalar")
    return simt_types.ArrayType(argtype, 1, "A")


class CUDAGUFuncVectorize:
    """Builds a CUDA generalized ufunc: one kernel per signature, each thread calling the core
    function on one element's sub-arrays."""

    def __init__(self, func, sig, identity=None, cache=False, targetoptions=None,
                 writable_args=()):
        # writable_args (Numba 0.59+ passes it to every target): which inputs of a CPU gufunc
        # may be written, which numba-cuda refuses as simt does.
        if writable_args:
            raise TypeError("writable_args are not supported")
        _check_cache(cache)
        targetoptions = dict(targetoptions or {})
        if not targetoptions.pop("nopython", True):
            raise TypeError("nopython flag must be True")
        if targetoptions:
            raise TypeError("The following target options are not supported: {0}".format(
                ", ".join(repr(k) for k in targetoptions)))
        self.py_func = func
        self.identity = identity
        self.signature = sig
        self.inputsig, self.outputsig = parse_gufunc_signature(sig)
        if len(self.outputsig) != 1:
            raise ValueError("simt: CUDA gufuncs have exactly one output; %r has %d"
                             % (sig, len(self.outputsig)))
        self.kernelmap = OrderedDict()  # input dtypes -> (output dtype, kernel)
        self._core = None
        self._signatures = []  # as given to add() (what a pickled gufunc is rebuilt with)

    @property
    def pyfunc(self):
        return self.py_func

    def add(self, sig=None):
        argtypes, _ = _ufunc_signature(sig)
        name = self.py_func.__name__
        dims = [len(s) for s in self.inputsig + self.outputsig]
        if len(argtypes) != len(dims):
            raise TypeError("simt: the signature %r of %s has %d arguments; the layout %r has %d"
                            % (sig, name, len(argtypes), self.signature, len(dims)))
        outer = tuple(_outer_type(t, nd) for t, nd in zip(argtypes, dims))
        cuda = _cuda()
        if self._core is None:
            self._core = device_function(self.py_func)
        args = ["arg%d" % i for i in range(len(dims))]
        source = _GUFUNC_SOURCE.format(
            name=name, args=", ".join(args),
            checkedarg="min(%s)" % ", ".join("%s.shape[0]" % a for a in args),
            argitems=", ".join(_index_source(a, nd, t) for a, nd, t in zip(args, dims, argtypes)))
        stager = function_from_source(source, "__gufunc_%s" % name,
                                      {"__cuda__": cuda, "__core__": self._core},
                                      "guvectorize %s" % name)
        kernel = cuda.jit([outer])(stager)
        dtypes = tuple(t.dtype for t in outer)
        self.kernelmap[tuple(_dtype(t) for t in dtypes[:-1])] = (_dtype(dtypes[-1]), kernel)
        self._signatures.append(sig)

    def disable_compile(self):
        """Signatures are fixed at decoration (Numba's API; nothing compiles lazily here)."""

    def build_ufunc(self):
        gufunc = CUDAGeneralizedUFunc(self.kernelmap, self.inputsig, self.outputsig, self.py_func)
        gufunc._built_from = _built_from(self, dict(signatures=self._signatures,
                                                    layout=self.signature, identity=self.identity))
        return gufunc


class CUDAGeneralizedUFunc:
    """A CUDA generalized ufunc: call it with host arrays, device arrays or scalars."""

    def __init__(self, kernelmap, inputsig, outputsig, py_func=None):
        self.kernelmap = kernelmap
        self.inputsig = inputsig
        self.outputsig = outputsig
        self.max_blocksize = 2 ** 30
        if py_func is not None:
            functools.update_wrapper(self, py_func)

    def __repr__(self):
        return "<simt CUDA gufunc %s>" % getattr(self, "__name__", "?")

    def __reduce__(self):
        return pickling.reduce(self, self._built_from)

    @classmethod
    def _rebuild(cls, py_func, source, signatures, layout, identity):
        pickling.restore_source(py_func, source)
        return guvectorize(signatures, layout, identity=identity)(py_func)

    def _schedule(self, shapes):
        """(core input shapes, output shape, loop dimensions, pinned inputs), as Numba's
        GUFuncEngine.schedule: loop over the largest outer shape; others must equal it or be
        () or (1,)."""
        if len(shapes) != len(self.inputsig):
            raise TypeError("invalid number of input argument")
        symbols = {}
        outer_shapes, inner_shapes = [], []
        for argn, (shape, names) in enumerate(zip(shapes, self.inputsig), start=1):
            inner_ndim = len(names)
            if len(shape) < inner_ndim:
                raise ValueError("arg #%d: insufficient inner dimension" % argn)
            outer = shape[:len(shape) - inner_ndim]
            inner = shape[len(shape) - inner_ndim:]
            for axis, (dim, name) in enumerate(zip(inner, names), start=len(outer)):
                if symbols.setdefault(name, dim) != dim:
                    raise ValueError("arg #%d: shape[%d] mismatch argument" % (argn, axis))
            outer_shapes.append(tuple(outer))
            inner_shapes.append(tuple(inner))
        try:
            out_core = tuple(symbols[name] for name in self.outputsig[0])
        except KeyError as missing:
            raise ValueError("simt: the output dimension %s is not an input dimension"
                             % missing) from None
        sizes = [functools.reduce(operator.mul, s, 1) for s in outer_shapes]
        loopdims = outer_shapes[int(np.argmax(sizes))]
        pinned = []
        for argn, outer in enumerate(outer_shapes, start=1):
            if outer != loopdims and outer not in ((1,), ()):
                raise ValueError("arg #%d: outer dimension mismatch" % argn)
            pinned.append(outer != loopdims)
        return inner_shapes, loopdims + out_core, loopdims, pinned

    def _kernel_for(self, dtypes):
        """The kernel for inputs of `dtypes`, whose values are then converted to its declared
        dtypes: the exact signature, else the first whose declared dtypes cast safely to the
        inputs' (Numba's rule, deviceufunc's _search_matching_signature: `int32` declared takes
        an int64 `2`), else the first the inputs cast safely to (NumPy's rule, where Numba finds
        none: int32 data for float64)."""
        found = self.kernelmap.get(dtypes)
        if found is not None:
            return dtypes, found
        for numba_rule in (True, False):
            for declared, found in self.kernelmap.items():
                if all(np.can_cast(formal, actual) if numba_rule else np.can_cast(actual, formal)
                       for actual, formal in zip(dtypes, declared)):
                    return declared, found
        raise TypeError("no matching signature")

    def __call__(self, *args, **kws):
        """Applies the gufunc over the loop dimensions. The output may be passed positionally
        after the inputs or as `out=`; `stream=` is accepted."""
        stream = kws.pop("stream", 0)
        out = kws.pop("out", None)
        if kws:
            warnings.warn("unrecognized keywords: %s" % ", ".join(kws))
        nin = len(self.inputsig)
        if len(args) > nin:
            if len(args) > nin + 1:
                raise TypeError("too many arguments: %d inputs and one output expected, %d given"
                                % (nin, len(args)))
            if out is not None:
                raise ValueError("cannot specify 'out' as both a positional and keyword "
                                 "argument")
            args, out = args[:nin], args[nin]
        on_device = [is_cuda_array(a) for a in args]
        out_on_device = out is not None and is_cuda_array(out)
        if out_on_device:
            out = _as_device_array(out)
        inputs = [_as_device_array(a) if dev else np.asarray(a)
                  for a, dev in zip(args, on_device)]

        inner_shapes, out_shape, loopdims, pinned = self._schedule([a.shape for a in inputs])
        declared, (out_dtype, kernel) = self._kernel_for(tuple(a.dtype for a in inputs))
        if out is not None and tuple(out.shape) != out_shape:
            raise ValueError("output shape mismatch")
        if out is not None and out.dtype != out_dtype:
            raise TypeError("out has dtype %s; the gufunc's output is %s" % (out.dtype, out_dtype))
        for i, (dtype, ary) in enumerate(zip(declared, inputs)):
            if ary.dtype != dtype:
                if isinstance(ary, DeviceNDArray):
                    raise TypeError("compatible signature is possible by casting but {0} does "
                                    "not support .astype()".format(type(ary)))
                inputs[i] = ary.astype(dtype)
        for ary in inputs:  # Numba copies host inputs to the device as they are (to_device)
            if not isinstance(ary, DeviceNDArray):
                sentry_contiguous(ary)

        loopn = functools.reduce(operator.mul, loopdims, 1)
        odim = loopn if loopdims else 1
        if out is None:
            result = (_cuda().device_array(out_shape, out_dtype, stream=stream)
                      if any(on_device) else np.empty(out_shape, dtype=out_dtype))
        else:
            result = out
        if loopn == 0:
            return result
        params = [self._broadcast(a, odim, inner, pin)
                  for a, inner, pin in zip(inputs, inner_shapes, pinned)]
        target, copy_back = _write_through(result, (odim,) + out_shape[len(loopdims):])
        kernel.forall(odim, stream=stream)(*params, target)
        copy_back()
        return result

    @staticmethod
    def _broadcast(ary, odim, inner, pinned):
        """`ary` as (odim,) + its core shape: a scalar or pinned input repeats (stride 0)."""
        shape = (odim,) + tuple(inner)
        if ary.shape == shape:
            return ary
        if pinned or ary.ndim == len(inner):
            core = _reshaped(ary, tuple(inner)) if ary.ndim != len(inner) else ary
            return _strided(core, shape, (0,) + tuple(core.strides))
        return _reshaped(ary, shape)


# -- decorators -------------------------------------------------------------------------------

def _check_target(target):
    if target not in TARGETS:
        raise ValueError("simt: vectorize targets are %s, not %r"
                         % (" and ".join(repr(t) for t in TARGETS), target))


def vectorize(ftylist_or_function=(), target="cuda", identity=None, cache=False, **options):
    """numba.vectorize for target='cuda': `@vectorize(['float32(float32, float32)'])`."""
    _check_target(target)
    if inspect.isfunction(ftylist_or_function):
        return vectorize(target=target, identity=identity, cache=cache,
                         **options)(ftylist_or_function)
    ftylist = _signature_list(ftylist_or_function)

    def wrap(func):
        builder = CUDAVectorize(func, identity=identity, cache=cache, targetoptions=options)
        for sig in ftylist:
            builder.add(sig)
        return builder.build_ufunc()

    return wrap


def guvectorize(ftylist, signature, target="cuda", identity=None, cache=False, **options):
    """numba.guvectorize for target='cuda':
    `@guvectorize(['void(float32[:,:], float32[:,:], float32[:,:])'], '(m,n),(n,p)->(m,p)')`."""
    _check_target(target)
    ftylist = _signature_list(ftylist)

    def wrap(func):
        builder = CUDAGUFuncVectorize(func, signature, identity=identity, cache=cache,
                                      targetoptions=options)
        for sig in ftylist:
            builder.add(sig)
        return builder.build_ufunc()

    return wrap


def register_with_numba(ufunc_package):
    """Makes numba.vectorize / numba.guvectorize build simt's CUDA ufuncs for the targets
    'cuda' and 'gpu'. `ufunc_package` is numba.np.ufunc; its registries are Numba's
    DelayedRegistry (a dict that refuses to overwrite, with lazily built `ondemand` entries)."""
    for registry, builder in ((ufunc_package.Vectorize.target_registry, "CUDAVectorize"),
                              (ufunc_package.GUVectorize.target_registry,
                               "CUDAGUFuncVectorize")):
        for target in TARGETS:
            dict.pop(registry, target, None)
            registry.ondemand.pop(target, None)
            registry.ondemand[target] = functools.partial(_builder, builder)


def _builder(name):
    return globals()[name]
