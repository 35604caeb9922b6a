"""numba.cuda.cudadrv.devicearray on simt (the import hook puts it in place of Numba's module, which
needs Numba's driver): simt's device arrays, with the module-level helpers Numba's code and
tests use (auto_device as numba.cuda.args calls it, from_array_like, from_record_like,
is_contiguous, array_core, sentry_contiguous, check_array_compatibility)."""
import numpy as np

from .devicearray import *  # noqa: F401,F403
from .devicearray import DeviceNDArray, device_array_like, is_device_array, to_device

DeviceRecord = DeviceNDArray
DeviceNDArrayBase = DeviceNDArray


def auto_device(obj, stream=0, copy=True, user_explicit=False):
    """(a device array for `obj`, whether it was copied from the host), as Numba's auto_device:
    a device array is passed as it is; anything else is made a device array, its data copied
    when `copy`."""
    if is_device_array(obj):
        return obj, False
    host = np.asarray(obj)
    if copy:
        return to_device(host, stream), True
    return device_array_like(host, stream), True


def from_array_like(ary, stream=0, gpu_data=None):
    """An uninitialised device array with the shape, strides and dtype of `ary`."""
    return device_array_like(ary, stream)


from_record_like = from_array_like


def array_core(ary):
    """The view of `ary` without its broadcast dimensions (stride 0), whose memory it repeats."""
    if not ary.strides or not ary.size:
        return ary
    return ary[tuple(0 if stride == 0 else slice(None) for stride in ary.strides)]


def is_contiguous(ary):
    """Whether `ary` is C-contiguous once its broadcast and 1-long dimensions are left out."""
    expected = ary.dtype.itemsize
    for extent, stride in zip(reversed(ary.shape), reversed(ary.strides)):
        if extent <= 1 or stride == 0:
            continue
        if stride != expected:
            return False
        expected *= extent
    return True


errmsg_contiguous_buffer = ("Array contains non-contiguous buffer and cannot be transferred as "
                            "a single memory region. Please ensure contiguous buffer with "
                            "numpy .ascontiguousarray()")


def sentry_contiguous(ary):
    """Raises ValueError unless `ary`'s core (array_core) is one C- or F-contiguous region."""
    core = array_core(ary)
    if not (core.flags.c_contiguous or core.flags.f_contiguous):
        raise ValueError(errmsg_contiguous_buffer)


def check_array_compatibility(ary1, ary2):
    """Raises unless a copy between `ary1` and `ary2` is one region to another: the same dtype,
    the same shape and (for a non-empty copy) strides, 1-long dimensions aside."""
    squeezed1, squeezed2 = ary1.squeeze(), ary2.squeeze()
    if ary1.dtype != ary2.dtype:
        raise TypeError("incompatible dtype: %s vs. %s" % (ary1.dtype, ary2.dtype))
    if squeezed1.shape != squeezed2.shape:
        raise ValueError("incompatible shape: %s vs. %s" % (ary1.shape, ary2.shape))
    if ary1.size and squeezed1.strides != squeezed2.strides:
        raise ValueError("incompatible strides: %s vs. %s" % (ary1.strides, ary2.strides))
