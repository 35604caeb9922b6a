"""The CUDA Programming Guide's last-block sum (threadfence): each block stores its partial sum,
fences, and counts itself; the block that counts last sums the partial sums with a tree of
barriers. Those barriers sit under `if is_last[0] == 1:`, a branch on shared memory that every
thread of a block reads alike after the barrier before it: each block takes it whole or not at
all, so no barrier is divergent."""
import numpy as np
from numba import cuda, float32, int32

BLOCKS = 8
THREADS = 64


@cuda.jit
def total(a, partial, counter, out):
    buf = cuda.shared.array(THREADS, float32)
    is_last = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    buf[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    if t == 0:
        s = float32(0)
        for i in range(THREADS):
            s += buf[i]
        partial[cuda.blockIdx.x] = s
        cuda.threadfence()
        is_last[0] = cuda.atomic.add(counter, 0, 1) == cuda.gridDim.x - 1
    cuda.syncthreads()
    if is_last[0] == 1:
        buf[t] = partial[t] if t < cuda.gridDim.x else float32(0)
        cuda.syncthreads()
        s = THREADS // 2
        while s > 0:
            if t < s:
                buf[t] += buf[t + s]
            cuda.syncthreads()
            s //= 2
        if t == 0:
            out[0] = buf[0]


a = np.ones(THREADS * BLOCKS, dtype=np.float32)
partial = np.zeros(BLOCKS, dtype=np.float32)
counter = np.zeros(1, dtype=np.int32)
out = np.zeros(1, dtype=np.float32)
total[BLOCKS, THREADS](a, partial, counter, out)
assert out[0] == THREADS * BLOCKS
