"""syncthreads under a branch only some threads take: the threads wait at different barriers."""
import numpy as np
from numba import cuda


@cuda.jit
def diverge(out):
    t = cuda.threadIdx.x
    if t < 16:
        cuda.syncthreads()
    else:
        cuda.syncthreads()
    out[t] = t


out = np.zeros(32, dtype=np.int32)
try:
    diverge[1, 32](out)
except RuntimeError:
    print("launch failed")
