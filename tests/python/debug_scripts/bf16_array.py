"""A bfloat16 array (uint16 bits on the host) the debugger prints and assigns as values."""
import numpy as np
from numba import cuda
from numba.cuda.bf16 import bfloat16


@cuda.jit("void(bfloat16[:], float32[:])")
def double(h, out):
    i = cuda.grid(1)

    out[i] = float(h[i] * bfloat16(2.0))


h = np.array([0x3fc0, 0x4040, 0x3dcd], dtype=np.uint16)  # 1.5, 3.0, 0.10009765625
out = np.zeros(3, dtype=np.float32)
double[1, 3](h, out)
print("doubled =", out.tolist())
