import numpy as np
from simt import cuda


@cuda.jit
def diverge(out):
    t = cuda.threadIdx.x
    v = t
    if t % 2 == 0:
        v = v * 10
    else:
        v = v + 1000
    v = cuda.shfl_down_sync(0xFFFFFFFF, v, 1)
    out[t] = v


out = np.zeros(64, np.int64)
diverge[1, 64](out)
print(out[:4], out[32:36])
