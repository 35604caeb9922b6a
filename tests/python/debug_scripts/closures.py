"""Two kernels of one name, each closing over its own R: the debugger reads the launched one's."""
import numpy as np
from numba import cuda


def make_add(R):
    @cuda.jit
    def add(a):
        i = cuda.grid(1)
        a[i] += R
    return add


a = np.zeros(4, dtype=np.int64)
make_add(1)[1, 4](a)
make_add(20)[1, 4](a)
print("a =", a.tolist())
