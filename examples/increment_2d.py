"""Seed talk (CUDA community meetup 2022): increment every element of a 2-D array."""
import numpy as np
from numba import cuda


@cuda.jit
def increment_a_2D_array(an_array):
    x, y = cuda.grid(2)
    if x < an_array.shape[0] and y < an_array.shape[1]:
        an_array[x, y] += 1


def main():
    an_array = np.arange(30 * 20, dtype=np.float64).reshape(30, 20)
    expected = an_array + 1
    increment_a_2D_array[(4, 3), (8, 8)](an_array)
    np.testing.assert_array_equal(an_array, expected)
    print("increment_a_2D_array: ok, corner values", an_array[0, 0], an_array[-1, -1])


if __name__ == "__main__":
    main()
