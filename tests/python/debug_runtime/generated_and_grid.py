import numpy as np
from simt import cuda


@cuda.reduce
def sum_reduce(a, b):
    return a + b


@cuda.jit
def grid_kernel(x, out):
    i = cuda.grid(1)
    x[i] = i
    cuda.cg.this_grid().sync()
    out[i] = x[(i + 1) % x.size]


a = np.arange(100, dtype=np.float64)
print("sum", sum_reduce(a))
x = np.zeros(64); out = np.zeros(64)
grid_kernel[2, 32](x, out)
print("grid", out[:3], out[-1])
