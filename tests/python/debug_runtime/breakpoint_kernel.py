import numpy as np
from simt import cuda


@cuda.jit
def k(x):
    i = cuda.grid(1)
    if i == 5:
        breakpoint()
    x[i] = i * 2


x = np.zeros(8)
k[1, 8](x)
print("result", x.tolist(), list(k.overloads.values())[0].options)
