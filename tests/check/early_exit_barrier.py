"""Threads past the end of the array return before the block's barrier: 100 elements on two
blocks of 64, so 28 threads of block 1 exit without reaching it. CUDA wants every thread of a
block at a syncthreads, or none."""
import numpy as np
from numba import cuda


@cuda.jit
def scale(a):
    i = cuda.grid(1)
    if i >= a.size:
        return
    v = a[i] * 2
    cuda.syncthreads()
    a[i] = v


a = np.ones(100, dtype=np.float32)
scale[2, 64](a)
assert (a == 2).all()
