import numpy as np
from simt import cuda


@cuda.jit
def forever(flag, out):
    i = cuda.grid(1)
    n = 0
    while flag[0] == 0:
        n += 1
    out[i] = n


flag, out = np.zeros(1), np.zeros(4)
try:
    forever[1, 4](flag, out)
except RuntimeError as e:
    print("raised:", e)
flag[0] = 1
forever[1, 4](flag, out)
print("second launch", out.tolist())
