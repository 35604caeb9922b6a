"""Seed talk (NumbaPro, 2013): matrix multiply with shared-memory tiles and syncthreads."""
import numpy as np
from numba import cuda, float32

tpb = 16  # threads per block along each axis; also the tile size


@cuda.jit('void(float32[:,:], float32[:,:], float32[:,:])')
def matrix_matrix_mult(A, B, C):
    # allocate shared memory like NumPy array
    # __shared__ float32 sA[tpb][tpb];
    sA = cuda.shared.array(shape=(tpb, tpb), dtype=float32)
    sB = cuda.shared.array(shape=(tpb, tpb), dtype=float32)

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x, y = cuda.grid(2)
    n = C.shape[0]
    bpg = cuda.gridDim.x

    acc = float32(0.0)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if x < n and y < n:
            sA[ty, tx] = A[y, tx + i * tpb]
            sB[ty, tx] = B[ty + i * tpb, x]

        cuda.syncthreads()        # barrier __syncthreads()

        for j in range(tpb):
            acc += sA[ty, j] * sB[j, tx]

        cuda.syncthreads()

    if x < n and y < n:
        C[y, x] = acc


def main():
    n = 64
    rng = np.random.default_rng(0)
    A = rng.random((n, n), dtype=np.float32)
    B = rng.random((n, n), dtype=np.float32)
    C = np.zeros((n, n), dtype=np.float32)
    bpg = n // tpb
    matrix_matrix_mult[(bpg, bpg), (tpb, tpb)](A, B, C)
    np.testing.assert_allclose(C, A @ B, rtol=1e-5)
    print("matrix_matrix_mult %dx%d: ok, C[0, :3] =" % (n, n), C[0, :3])


if __name__ == "__main__":
    main()
