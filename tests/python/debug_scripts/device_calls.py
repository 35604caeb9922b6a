"""Device functions two calls deep, for step/next/finish, backtraces and frames."""
import numpy as np
from numba import cuda


@cuda.jit(device=True)
def square(v):
    r = v * v
    return r


@cuda.jit(device=True)
def sum_of_squares(a, b):
    s = square(a) + square(b)
    return s


@cuda.jit
def squares(out, k):
    i = cuda.grid(1)
    t = i + k
    out[i] = sum_of_squares(t, i)
    out[i] += 1


out = np.zeros(8, dtype=np.int64)
squares[1, 8](out, 2)
print("out =", out.tolist())
