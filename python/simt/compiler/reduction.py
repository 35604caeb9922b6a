"""cuda.reduce (numba.cuda.Reduce): a full reduction of a 1-d array with a user binary function.

As in numba/cuda/kernels/reduction.py, the array is cut into blocks of 128 threads; each thread
folds a block-strided run of elements, each block folds its threads' values in shared memory (a
tree of halvings, as many rounds as log2 of the block size) into one partial per block, and a
last one-block launch folds the partials. The user's function is compiled as a device function
into a kernel generated for the array's dtype."""
import simt.stubs as kernel_names
from simt.memory.devicearray import device_array

from .dispatcher import jit
from .sourcegen import device_function, function_from_source, generated_name

__all__ = ["Reduce"]

_WARPSIZE = 32
_NUMWARPS = 4
_BLOCK = _NUMWARPS * _WARPSIZE
# At most this many full blocks; each folds a block-strided run of the array.
_MAX_FULL_BLOCKS = 2 * _WARPSIZE

# Folds arr into partials[blockIdx.x] (and init into partials[0] when use_init). Every thread of
# a launch has at least one element.
_KERNEL_SOURCE = '''\
def __reduce_{name}(arr, partials, init, use_init):
    sm = __cuda__.shared.array(__BLOCK__, dtype=__dtype__)
    tid = __cuda__.threadIdx.x
    blkid = __cuda__.blockIdx.x
    blksz = __cuda__.blockDim.x
    start = tid + blksz * blkid
    step = blksz * __cuda__.gridDim.x
    value = arr[start]
    for i in range(start + step, arr.size, step):
        value = __reduce_op__(value, arr[i])
    sm[tid] = value
    __cuda__.syncthreads()
    width = blksz
    while width > 1:
        half = (width + 1) // 2
        if tid + half < width:
            sm[tid] = __reduce_op__(sm[tid], sm[tid + half])
        __cuda__.syncthreads()
        width = half
    if tid == 0:
        if use_init and blkid == 0:
            partials[0] = __reduce_op__(sm[0], init)
        else:
            partials[blkid] = sm[0]
'''


def _reduce_kernel(functor, reduce_op, dtype):
    name = generated_name(functor.__name__)
    source = _KERNEL_SOURCE.format(name=name)
    kernel = function_from_source(
        source, "__reduce_%s" % name,
        {"__cuda__": kernel_names, "__reduce_op__": reduce_op, "__dtype__": dtype,
         "__BLOCK__": _BLOCK},
        "reduce %s" % functor.__name__)
    return jit(kernel)


class Reduce:
    """A reduction with a binary function, compiled (as a CUDA device function) once per dtype
    and cached."""

    _cache = {}

    def __init__(self, functor):
        self._functor = functor
        # Made now, as @cuda.jit is applied: its source is captured before the file can change.
        self._reduce_op = device_function(functor)

    def _compile(self, dtype):
        key = self._functor, dtype
        kernel = self._cache.get(key)
        if kernel is None:
            kernel = self._cache[key] = _reduce_kernel(self._functor, self._reduce_op, dtype)
        return kernel

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        """Reduces `arr` (a host or device array; its first `size` elements if given) starting
        from `init`. Returns the result, or writes it to `res[0]` (a device array) and returns
        None. An empty array gives `init` (and leaves `res` alone, as Numba does)."""

        if arr.ndim != 1:
            raise TypeError("only support 1D array")
        if size is not None:
            arr = arr[:size]
        init = arr.dtype.type(init)
        if arr.size < 1:
            return init

        kernel = self._compile(arr.dtype)
        size_full = (arr.size // _BLOCK) * _BLOCK
        size_partial = arr.size - size_full
        full_blocks = min(size_full // _BLOCK, _MAX_FULL_BLOCKS)
        partials_size = full_blocks + (1 if size_partial else 0)
        partials = device_array(shape=partials_size, dtype=arr.dtype)
        if size_full:
            kernel[full_blocks, _BLOCK, stream](arr[:size_full], partials[:full_blocks], init,
                                                True)
        if size_partial:
            kernel[1, size_partial, stream](arr[size_full:], partials[full_blocks:], init,
                                            not full_blocks)
        if partials.size > 1:
            kernel[1, partials_size, stream](partials, partials, init, False)

        if res is not None:
            res[:1].copy_to_device(partials[:1], stream=stream)
            return None
        return partials[0]
