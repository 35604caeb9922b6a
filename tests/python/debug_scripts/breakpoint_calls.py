"""Two breakpoint() calls in a kernel: numbered breakpoints of their own, which the debugger
lists, disables, enables and deletes."""
import numpy as np
from simt import cuda


@cuda.jit
def k(x):
    i = cuda.grid(1)
    if i % 2 == 1:
        breakpoint()
    x[i] = i * 2
    if i >= 6:
        breakpoint()


x = np.zeros(8)
k[1, 8](x)
print("result", x.tolist())
