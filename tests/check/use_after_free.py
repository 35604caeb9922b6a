"""A device array used after cuda.close() freed the device's memory."""
import numpy as np
from numba import cuda


@cuda.jit
def fill(a):
    a[cuda.grid(1)] = 1


a = cuda.to_device(np.zeros(8))
cuda.close()
fill[1, 8](a)
