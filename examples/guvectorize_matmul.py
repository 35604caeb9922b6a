"""Seed talk: a generalized CUDA ufunc, a batch of small matrix products with @guvectorize."""
import numpy as np
from numba import cuda, guvectorize

prototype = "void(float32[:,:], float32[:,:], float32[:,:])"


@guvectorize([prototype], '(m,n),(n,p)->(m,p)', target='gpu')
def matmulcore(A, B, C):
    m, n = A.shape
    n, p = B.shape
    for i in range(m):
        for j in range(p):
            C[i, j] = 0
            for k in range(n):
                C[i, j] += A[i, k] * B[k, j]


def main():
    batch = 1000
    rng = np.random.default_rng(0)
    A = rng.random((batch, 2, 4), dtype=np.float32)
    B = rng.random((batch, 4, 5), dtype=np.float32)
    C = matmulcore(A, B)
    assert C.shape == (batch, 2, 5), C.shape
    np.testing.assert_allclose(C, A @ B, rtol=1e-5)
    print("matmulcore: %d products of 2x4 by 4x5, C[0] =\n%s" % (batch, C[0]))

    d_C = cuda.device_array((batch, 2, 5), dtype=np.float32)
    matmulcore(cuda.to_device(A), cuda.to_device(B), out=d_C)
    np.testing.assert_allclose(d_C.copy_to_host(), A @ B, rtol=1e-5)
    print("on the device: ok")


if __name__ == "__main__":
    main()
