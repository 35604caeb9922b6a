"""The seed's off-by-one: `i > x.shape[0]` lets thread 10 index past the end."""
import numpy as np
from numba import cuda


@cuda.jit
def reciprocal(x):
    i = cuda.grid(1)
    if i > x.shape[0]:
        return
    x[i] = 1 / x[i]


x = np.arange(1, 11, dtype=np.float64)
reciprocal[1, 32](x)
print("x =", x)
