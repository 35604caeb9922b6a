"""A barrier under a branch on the thread index that every thread happens to take with this
launch's sizes: nothing to report, since each block reached the barrier whole (compute-sanitizer
on a GPU reports nothing either). A launch with more threads than elements would leave some
threads out, as early_exit_barrier.py shows."""
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
