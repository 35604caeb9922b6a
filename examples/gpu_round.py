"""Seed talk (forall usage, borrowed from cuDF): round a column to `decimal` places."""
import numpy as np
from numba import cuda
from numpy import rint


@cuda.jit
def gpu_round(in_col, out_col, decimal):
    i = cuda.grid(1)
    f = 10 ** decimal

    if i < in_col.size:
        ret = in_col[i] * f
        ret = rint(ret)
        tmp = ret / f
        out_col[i] = tmp


def main():
    in_data = cuda.to_device(np.array([1.23456, 2.5, -3.14159, 0.0005, 9.9995]))
    out_data = cuda.device_array_like(in_data)
    nelems = len(in_data)
    # Round all elements to 3 d.p.
    gpu_round.forall(nelems)(in_data, out_data, 3)
    result = out_data.copy_to_host()
    np.testing.assert_allclose(result, np.rint(in_data.copy_to_host() * 1000) / 1000)
    print("gpu_round to 3 d.p.:", result)


if __name__ == "__main__":
    main()
