"""Seed talk: cuda.reduce turns a binary function into a full-array reduction on the device."""
import numpy as np
from numba import cuda


@cuda.reduce
def sum_reduce(a, b):
    return a + b


@cuda.reduce
def max_reduce(a, b):
    return max(a, b)


def main():
    A = (np.arange(1234, dtype=np.float64)) + 1
    expect = A.sum()

    got = sum_reduce(A)  # the result comes back to the host
    assert got == expect, (got, expect)
    print("sum_reduce(A) =", got)

    r = cuda.device_array(1, dtype=np.float64)
    sum_reduce(A, res=r)  # the result stays on the device
    assert r.copy_to_host()[0] == expect

    A_d = cuda.to_device(A)
    sum_reduce(A_d, res=r)
    assert r.copy_to_host()[0] == expect
    print("sum_reduce(A_d, res=r) ->", r.copy_to_host()[0])

    assert sum_reduce(A, size=100, init=10.0) == A[:100].sum() + 10
    values = np.random.default_rng(7).integers(-1000, 1000, 100000).astype(np.int32)
    assert max_reduce(values, init=-2**31) == values.max()
    print("max_reduce of 100000 int32:", max_reduce(values, init=-2**31))


if __name__ == "__main__":
    main()
