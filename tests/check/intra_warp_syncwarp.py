"""The same exchange with cuda.syncwarp() between the write and the read: no hazard."""
import numpy as np
from numba import cuda, int32


@cuda.jit
def rotate(out):
    buf = cuda.shared.array(32, int32)
    lane = cuda.threadIdx.x
    buf[lane] = lane
    cuda.syncwarp()
    out[lane] = buf[(lane + 1) % 32]


out = np.zeros(32, dtype=np.int32)
rotate[1, 32](out)
assert (out == (np.arange(32) + 1) % 32).all()
