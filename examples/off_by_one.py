"""Seed talks (debugging): an off-by-one kernel. On a GPU without debug=True it silently writes
past the end of the array; simt reports the faulting thread, like Numba's simulator does."""
import numpy as np
from numba import cuda


@cuda.jit(debug=True)
def reciprocal(x):
    i = cuda.grid(1)
    # Off-by-one - accesses beyond end of array
    if i > x.shape[0]:
        return
    x[i] = 1 / x[i]


@cuda.jit(debug=True)
def add_1(x):
    i = cuda.grid(1)
    # Off-by-one - accesses beyond end of array
    if i > x.shape[0]:
        return
    x[i] += 1


def main():
    # The talk fills x with zeros; with debug=True, 1 / 0.0 raises ZeroDivisionError first (as on a
    # GPU), so reciprocal gets non-zero values to show the off-by-one itself.
    for kernel, x in ((reciprocal, np.arange(1.0, 11.0)), (add_1, np.zeros(10))):
        try:
            kernel[1, 32](x)
        except IndexError as e:
            print("%s raised IndexError as expected:" % kernel.py_func.__name__)
            print(e)
            assert "tid=[10, 0, 0] ctaid=[0, 0, 0]" in str(e)
        else:
            raise SystemExit("expected an IndexError")


if __name__ == "__main__":
    main()
