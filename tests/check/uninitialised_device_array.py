"""A device array from cuda.device_array is read before anything writes it; the one copied from
the host is not reported."""
import numpy as np
from numba import cuda


@cuda.jit
def add(a, b, out):
    i = cuda.grid(1)
    out[i] = a[i] + b[i]


a = cuda.to_device(np.ones(16))
b = cuda.device_array(16)
b[:8].copy_to_device(np.ones(8))
out = cuda.device_array(16)
add[1, 16](a, b, out)
assert np.isnan(out.copy_to_host()[8:]).all()
