"""A local array summed before all of it is written."""
import numpy as np
from numba import cuda, int64


@cuda.jit
def partial_sums(out):
    scratch = cuda.local.array(4, int64)
    for i in range(3):
        scratch[i] = i
    total = 0
    for i in range(4):
        total += scratch[i]
    out[cuda.grid(1)] = total


out = np.zeros(8, dtype=np.int64)
partial_sums[1, 8](out)
