"""A barrier under a branch on the thread index that every thread happens to take with this
launch's sizes: it runs, but a launch with more threads than elements would hang on a GPU."""
import numpy as np
from numba import cuda


@cuda.jit
def scale(a):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i] * 2
        cuda.syncthreads()
        a[i] = v


a = np.ones(64, dtype=np.float32)
scale[2, 32](a)
assert (a == 2).all()
