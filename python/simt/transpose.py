"""numba.cuda.kernels.transpose on simt: device memory is host memory, so the transpose of a 2-d
device array is NumPy's, written into a C-contiguous device array as Numba's kernel does
(simt.memory.devicearray.transpose)."""
from simt.memory.devicearray import transpose

__all__ = ["transpose"]
