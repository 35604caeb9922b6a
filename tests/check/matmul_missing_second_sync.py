"""A tiled matrix product without the barrier that ends each tile's use: a thread loads the next
tile over values other threads are still reading (write-after-read)."""
import numpy as np
from numba import cuda, float32

TILE = 8


@cuda.jit
def matmul(a, b, c):
    sa = cuda.shared.array((TILE, TILE), float32)
    sb = cuda.shared.array((TILE, TILE), float32)
    x, y = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    acc = float32(0)
    for k in range(a.shape[1] // TILE):
        sa[ty, tx] = a[y, k * TILE + tx]
        sb[ty, tx] = b[k * TILE + ty, x]
        cuda.syncthreads()
        for j in range(TILE):
            acc += sa[ty, j] * sb[j, tx]
    c[y, x] = acc


n = 16
a = np.ones((n, n), dtype=np.float32)
b = np.ones((n, n), dtype=np.float32)
c = np.zeros((n, n), dtype=np.float32)
matmul[(2, 2), (TILE, TILE)](a, b, c)
