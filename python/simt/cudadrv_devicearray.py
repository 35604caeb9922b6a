"""numba.cuda.cudadrv.devicearray on simt (the import hook puts it in place of Numba's module, which
needs Numba's driver): simt's device arrays, with the module-level helpers Numba's code and
tests use (auto_device as numba.cuda.args calls it, from_array_like, from_record_like,
is_contiguous, array_core, sentry_contiguous, check_array_compatibility,
verify_cuda_ndarray_interface)."""
import numpy as np

from simt.memory.devicearray import *  # noqa: F401,F403
from simt.memory.devicearray import (DeviceNDArray, DeviceRecord, as_cuda_array, device_array_like,
                                     sentry_contiguous, to_device)

DeviceNDArrayBase = DeviceNDArray


def auto_device(obj, stream=0, copy=True, user_explicit=False):
    """(a device array for `obj`, whether it was copied from the host), as Numba's auto_device:
    device memory (a device array, a mapped array) is passed as it is, another CUDA array
    interface object as a device array over its memory; anything else is made a device array,
    its data copied when `copy`. A host array must be one region of memory once its broadcast
    dimensions are left out (sentry_contiguous: ValueError for `a[::2]`), as Numba's."""
    if getattr(obj, "__cuda_memory__", False):
        return obj, False
    if hasattr(obj, "__cuda_array_interface__"):
        return as_cuda_array(obj), False
    if isinstance(obj, np.void):
        return (to_device(obj, stream) if copy else DeviceRecord(obj.dtype, stream)), True
    host = np.asarray(obj)
    sentry_contiguous(host)
    if copy:
        return to_device(host, stream), True
    return device_array_like(host, stream), True


def is_cuda_ndarray(obj):
    """Whether `obj` is a CUDA ndarray (has __cuda_ndarray__ true, as device arrays do)."""
    return getattr(obj, "__cuda_ndarray__", False)


def require_cuda_ndarray(obj):
    if not is_cuda_ndarray(obj):
        raise ValueError("require an cuda ndarray object")


def verify_cuda_ndarray_interface(obj):
    """Raises unless `obj` is a CUDA ndarray with shape and strides tuples, a dtype and an int
    size (Numba's check)."""
    require_cuda_ndarray(obj)
    for attr, kind in (("shape", tuple), ("strides", tuple), ("dtype", np.dtype),
                       ("size", int)):
        if not hasattr(obj, attr):
            raise AttributeError(attr)
        if not isinstance(getattr(obj, attr), kind):
            raise AttributeError("%s must be of type %s" % (attr, kind))


def from_array_like(ary, stream=0, gpu_data=None):
    """An uninitialised device array with the shape, strides and dtype of `ary` (over
    `gpu_data` where given)."""
    if gpu_data is not None:
        return DeviceNDArray(ary.shape, ary.strides, ary.dtype, stream, gpu_data)
    return device_array_like(ary, stream)


def from_record_like(rec, stream=0, gpu_data=None):
    """An uninitialised device record of `rec`'s dtype (over `gpu_data` where given)."""
    return DeviceRecord(rec.dtype, stream, gpu_data)


