"""A stencil reads its left neighbour's shared element, which thread 0's neighbour never wrote:
initcheck reports the read, and the value read is the poison (NaN)."""
import numpy as np
from numba import cuda, float32


@cuda.jit
def smooth(a, out):
    buf = cuda.shared.array(33, float32)
    t = cuda.threadIdx.x
    buf[t + 1] = a[t]
    cuda.syncthreads()
    out[t] = (buf[t] + buf[t + 1]) / 2


a = np.ones(32, dtype=np.float32)
out = np.zeros(32, dtype=np.float32)
smooth[1, 32](a, out)
assert np.isnan(out[0]) and (out[1:] == 1).all()
