"""Each block reads its neighbour's element of a global array that the neighbour overwrites in
the same launch: blocks are unordered."""
import numpy as np
from numba import cuda


@cuda.jit
def shift(data):
    b = cuda.blockIdx.x
    if cuda.threadIdx.x == 0:
        left = data[(b + 1) % cuda.gridDim.x]
        data[b] = left * 2


data = np.arange(4, dtype=np.float64)
shift[4, 32](data)
