"""Two launches of one kernel; the debugger's `set var` changes what the first one computes."""
import numpy as np
from numba import cuda


@cuda.jit
def scale(x, out, factor):
    i = cuda.grid(1)
    f = factor

    out[i] = x[i] * f


x = np.arange(6, dtype=np.int32)
out = np.zeros(6, dtype=np.int32)
scale[1, 6](x, out, 2)
print("first =", out.tolist())
scale[1, 6](x, out, 3)
print("second =", out.tolist())
