"""Seed talks: the grid-stride vector add, with implicit and with manual memory management."""
import numpy as np
from numba import cuda


@cuda.jit
def vector_add(r, x, y):
    start = cuda.grid(1)
    step = cuda.gridsize(1)
    stop = len(r)

    for i in range(start, stop, step):
        r[i] = x[i] + y[i]


@cuda.jit
def add(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = x[i] + y[i]


def main():
    n = 100_000
    x = np.arange(n, dtype=np.float32)
    y = x * 2
    r = np.zeros_like(x)
    vector_add[16, 128](r, x, y)
    np.testing.assert_array_equal(r, x + y)
    print("vector_add (grid-stride, 16x128 threads for", n, "elements): ok")

    # Transfers to and from host memory implied.
    x = np.arange(10)
    y = x * 2
    r = np.zeros_like(x)
    add[1, 32](r, x, y)
    np.testing.assert_array_equal(r, x + y)

    # Manual memory management: no transfer implied until copy_to_host.
    d_x = cuda.to_device(x)
    d_y = cuda.to_device(y)
    d_r = cuda.device_array_like(x)
    add[1, 32](d_r, d_x, d_y)
    r = d_r.copy_to_host()
    np.testing.assert_array_equal(r, x + y)
    print("add with device arrays:", r)

    arr = cuda.device_array((1024, 2048), dtype=np.float32)
    print("device_array:", arr.shape, arr.dtype)


if __name__ == "__main__":
    main()
