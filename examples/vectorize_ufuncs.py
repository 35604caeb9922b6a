"""Seed talks: elementwise CUDA ufuncs with @vectorize, target='cuda' (and NumbaPro's 'gpu')."""
import numpy
import numpy as np
from numba import cuda, vectorize


@vectorize(['float32(float32, float32)'], target='cuda')
def rel_diff(x, y):
    return 2 * (x - y) / (x + y)


@vectorize(['float32(float32, float32)'], target='gpu')
def foo(a, b):
    return (a + b) ** 2


@vectorize(['int32(int32, int32)', 'float64(float64, float64)'], target='cuda')
def add(a, b):
    return a + b


def main():
    a = np.arange(1000, dtype=np.float32)
    b = a * 2 + 1
    result = rel_diff(a, b)
    np.testing.assert_allclose(result, 2 * (a - b) / (a + b), rtol=1e-6)
    print("rel_diff:", result[:4], "...")

    an_array = numpy.arange(10, dtype=numpy.float32)
    a_scalar = numpy.float32(1.2)
    result = foo(an_array, a_scalar)
    np.testing.assert_allclose(result, (an_array + a_scalar) ** 2, rtol=1e-6)
    print("foo(an_array, a_scalar):", result)

    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert np.array_equal(add(x, np.int32(100)), x + 100)
    d_out = cuda.device_array((3, 4), dtype=np.float64)
    add(cuda.to_device(x.astype(np.float64)), np.arange(4.0), out=d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(), x + np.arange(4.0))
    print("add with broadcasting, on the device:\n", d_out.copy_to_host())


if __name__ == "__main__":
    main()
