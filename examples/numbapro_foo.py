"""Seed talk (NumbaPro, 2013): a kernel with an explicit string signature and raw thread ids."""
import numpy as np
from numba import cuda


@cuda.jit('void(float32[:], float32[:], float32[:])')
def foo(A, B, Out):
    tid = cuda.threadIdx.x
    ctaid = cuda.blockIdx.x
    ntid = cuda.blockDim.x
    i = tid + ctaid * ntid
    if i >= Out.shape[0]:
        return
    Out[i] = A[i] + B[i]


def main():
    n = 1000
    a = np.arange(n, dtype=np.float32)
    b = np.full(n, 0.5, dtype=np.float32)
    out = np.empty(n, dtype=np.float32)
    foo[(n + 127) // 128, 128](a, b, out)
    np.testing.assert_array_equal(out, a + b)
    print("foo: ok,", out[:4], "...")


if __name__ == "__main__":
    main()
