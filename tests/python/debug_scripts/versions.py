"""Names Numba types as several variables (SSA versions): a parameter redefined at the top, and a
name two loops bind to values of different types."""
import numpy as np
from numba import cuda


@cuda.jit
def versions(out, step):
    step = step * 2
    total = 0.0
    for v in range(3):
        total += v * step
    for v in (0.25, 0.5):
        total += v
    out[0] = total


out = np.zeros(1)
versions[1, 1](out, 1)
print("total =", out[0])
