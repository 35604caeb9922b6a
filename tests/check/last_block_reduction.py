"""The "last block" reduction: each block writes its partial sum, fences, and counts itself
with an atomic; the block that counts last reads every partial sum. The fence and the atomic
order those reads after the writes: no hazard."""
import numpy as np
from numba import cuda, float32

BLOCKS = 4


@cuda.jit
def total(a, partial, counter, out):
    buf = cuda.shared.array(64, float32)
    last = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    buf[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    if t == 0:
        s = float32(0)
        for i in range(64):
            s += buf[i]
        partial[cuda.blockIdx.x] = s
        cuda.threadfence()
        last[0] = cuda.atomic.add(counter, 0, 1) == cuda.gridDim.x - 1
    cuda.syncthreads()
    if last[0] and t == 0:
        s = float32(0)
        for i in range(cuda.gridDim.x):
            s += partial[i]
        out[0] = s


a = np.ones(64 * BLOCKS, dtype=np.float32)
partial = np.zeros(BLOCKS, dtype=np.float32)
counter = np.zeros(1, dtype=np.int32)
out = np.zeros(1, dtype=np.float32)
total[BLOCKS, 64](a, partial, counter, out)
assert out[0] == 64 * BLOCKS
