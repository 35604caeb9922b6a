"""An index past the end of the array: memcheck reports it and the launch raises IndexError."""
import numpy as np
from numba import cuda


@cuda.jit
def fill(a):
    a[cuda.grid(1)] = 1


a = np.zeros(8)
try:
    fill[1, 9](a)
except IndexError:
    print("launch failed")
