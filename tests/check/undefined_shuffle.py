"""A shuffle reading a lane its mask does not name: CUDA leaves the value undefined (an H200
gave 0 where simt gives the reading lane its own value)."""
import numpy as np
from numba import cuda


@cuda.jit
def next_positive(a, out):
    i = cuda.grid(1)
    if a[i] > 0:
        mask = cuda.activemask()
        out[i] = cuda.shfl_down_sync(mask, a[i], 1)


a = np.array([1, 2, 0, 3, 4, 0, 0, 5] * 4, np.int32)
out = np.zeros(32, np.int32)
next_positive[1, 32](a, out)
