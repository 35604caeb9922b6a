import numpy as np
from simt import cuda


@cuda.jit
def vadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


n = 1 << 16
a = np.ones(n, np.float32)
a[7:] = 2
b = np.ones(n, np.float32)
c = np.zeros(n, np.float32)
vadd[n // 256, 256](a, b, c)
print("sum", c.sum())
