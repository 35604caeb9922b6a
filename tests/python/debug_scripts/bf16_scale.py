"""A bfloat16 local the debugger prints (as its value) and assigns (rounded to bfloat16)."""
import numpy as np
from numba import cuda
from numba.cuda.bf16 import bfloat16


@cuda.jit
def scale(x, out):
    i = cuda.grid(1)
    h = bfloat16(x[i])

    out[i] = float(h * h)


x = np.array([1.5, 3.0, 0.1], dtype=np.float32)
out = np.zeros(3, dtype=np.float32)
scale[1, 3](x, out)
print("squares =", out.tolist())
