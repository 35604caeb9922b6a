"""Two kernels, a record array and module constants, for gdb's habits: list, until in a loop,
the value history, x, ptype and whatis of records, globals and closed-over values in
expressions, and a breakpoint pending in the kernel that runs second."""
import numpy as np
from numba import cuda

TILE = 4
POINT = np.dtype([("x", np.int32), ("y", np.float64)])


@cuda.jit
def fill(a, points):
    i = cuda.grid(1)
    total = 0.0
    for k in range(3):
        total += k
    a[i] = total + i * TILE
    points[i].x = i


def make_shift(R):
    @cuda.jit
    def shift(a):
        i = cuda.grid(1)
        a[i] = a[i] + R
    return shift


shift = make_shift(100)
a = np.zeros(8, dtype=np.float32)
points = np.zeros(8, dtype=POINT)
fill[1, 8](a, points)
shift[1, 8](a)
print("a =", a.tolist())
print("x =", points["x"].tolist())
