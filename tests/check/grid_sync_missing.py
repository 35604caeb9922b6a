"""A cooperative kernel whose second step reads what other blocks wrote in the first, without the
grid sync between the steps: a race between blocks. The same kernel with g.sync() there reports
nothing (examples/grid_sync.py)."""
import numpy as np
from numba import cuda


@cuda.jit
def two_steps(a, b, flag):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    a[i] = i
    b[i] = a[(i + cuda.blockDim.x) % a.size]
    g.sync()
    if i == 0:
        flag[0] = 1


a = np.zeros(64, dtype=np.int64)
b = np.zeros(64, dtype=np.int64)
flag = np.zeros(1, dtype=np.int64)
two_steps[2, 32](a, b, flag)
