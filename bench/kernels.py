"""The benchmark kernels: one Python source, run by simt and by Numba's CUDA simulator.

BENCH_BACKEND=numba picks numba.cuda (the worker sets NUMBA_ENABLE_CUDASIM=1 before importing);
anything else picks simt. Shared arrays use NumPy's dtype so the source needs no Numba import.
"""
import os

import numpy as np

if os.environ.get("BENCH_BACKEND") == "numba":
    from numba import cuda
else:
    from simt import cuda

TPB = 256  # threads per block of the 1-D kernels
TILE = 16  # matmul tile edge; blocks are TILE x TILE threads


@cuda.jit
def vector_add(r, x, y):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = x[i] + y[i]


@cuda.jit
def matmul(A, B, C):
    # The tile loop runs over the whole matrix, not over gridDim, so a launch of fewer blocks
    # computes complete rows of C with the same work per thread.
    sA = cuda.shared.array(shape=(TILE, TILE), dtype=np.float32)
    sB = cuda.shared.array(shape=(TILE, TILE), dtype=np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x, y = cuda.grid(2)
    n = C.shape[0]
    acc = np.float32(0.0)
    for t in range(n // TILE):
        sA[ty, tx] = A[y, tx + t * TILE]
        sB[ty, tx] = B[ty + t * TILE, x]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sA[ty, k] * sB[k, tx]
        cuda.syncthreads()
    C[y, x] = acc


@cuda.jit
def block_sum(values, partials):
    workspace = cuda.shared.array(TPB, dtype=np.float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < values.size:
        workspace[tid] = values[i]
    else:
        workspace[tid] = 0
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if tid < stride:
            workspace[tid] += workspace[tid + stride]
        cuda.syncthreads()
        stride //= 2
    if tid == 0:
        partials[cuda.blockIdx.x] = workspace[0]
