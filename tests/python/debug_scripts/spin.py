"""A kernel that runs for ages unless the debugger pauses it (a DAP pause, Ctrl-C)."""
import numpy as np
from numba import cuda


@cuda.jit
def spin(out, n):
    i = cuda.grid(1)
    total = 0
    for k in range(n):
        total += k % 7
    out[i] = total


out = np.zeros(1, dtype=np.int64)
print("launching", flush=True)
spin[1, 1](out, 1 << 62)
print("total =", out[0])
