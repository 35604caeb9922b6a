"""A tree reduction without the syncthreads between its steps: threads of different warps read
partial sums other threads are still writing (racecheck errors), and lanes of one warp do too
(warnings: no syncwarp orders them)."""
import numpy as np
from numba import cuda, float32


@cuda.jit
def block_sum(a, out):
    buf = cuda.shared.array(256, float32)
    t = cuda.threadIdx.x
    buf[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    s = 128
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = buf[0]


a = np.ones(512, dtype=np.float32)
out = np.zeros(2, dtype=np.float32)
block_sum[2, 256](a, out)
