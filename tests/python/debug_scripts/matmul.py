"""A tiled shared-memory matrix product: 16x16 tiles, two barriers per tile."""
import numpy as np
from numba import cuda, float32

TPB = 16


@cuda.jit
def matmul(A, B, C):
    sA = cuda.shared.array((TPB, TPB), dtype=float32)
    sB = cuda.shared.array((TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tiles = cuda.gridDim.x
    acc = float32(0.0)
    for i in range(tiles):
        sA[ty, tx] = A[y, tx + i * TPB]
        sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    C[y, x] = acc


n = 32
A = np.arange(n * n, dtype=np.float32).reshape(n, n) % 7
B = np.arange(n * n, dtype=np.float32).reshape(n, n) % 5
C = np.zeros((n, n), dtype=np.float32)
matmul[(n // TPB, n // TPB), (TPB, TPB)](A, B, C)
print("matches numpy:", bool(np.allclose(C, A @ B)))
print("C[1, 2] =", C[1, 2])
