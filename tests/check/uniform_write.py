"""Every thread writes the same flag value: reported at INFO level, separately from races."""
import numpy as np
from numba import cuda


@cuda.jit
def mark(flags, data):
    if data[cuda.grid(1)] > 0:
        flags[0] = 1


flags = np.zeros(1, dtype=np.int32)
data = np.ones(64, dtype=np.float32)
mark[1, 64](flags, data)
