"""Lanes of one warp exchange values through shared memory without syncwarp: a warning (on
sm_70+ the lanes of a warp are not in lockstep)."""
import numpy as np
from numba import cuda, int32


@cuda.jit
def rotate(out):
    buf = cuda.shared.array(32, int32)
    lane = cuda.threadIdx.x
    buf[lane] = lane
    out[lane] = buf[(lane + 1) % 32]


out = np.zeros(32, dtype=np.int32)
rotate[1, 32](out)
