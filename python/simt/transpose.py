"""numba.cuda.kernels.transpose on simt: device memory is host memory, so the transpose of a 2-d
device array is NumPy's, written into a C-contiguous device array as Numba's kernel does."""
import numpy as np

from .devicearray import DeviceNDArray, device_array

__all__ = ["transpose"]


def transpose(a, b=None):
    """The transpose of the 2-d array `a`, stored into `b` (a device array) if given, or else into
    a new C-contiguous device array; returns it."""
    if a.ndim != 2:
        raise NotImplementedError("transposing a non-2D DeviceNDArray isn't supported")
    stream = getattr(a, "stream", 0)
    host = a._host if isinstance(a, DeviceNDArray) else np.asarray(a)
    if b is None:
        b = device_array(host.shape[::-1], dtype=host.dtype, stream=stream)
    if b.shape != host.shape[::-1]:
        raise ValueError("transpose: the output has shape %s, %s is needed"
                         % (b.shape, host.shape[::-1]))
    b._host[...] = host.T
    return b
