"""Seed talk: Numba kernels run on another library's device arrays (CuPy's, there) through the
CUDA Array Interface. CuPy is not needed here: DeviceBuffer is a stand-in that exposes
__cuda_array_interface__ over its own memory, as any such library does. simt's device memory is
host memory, so the buffer is a NumPy array."""
import numpy as np
from numba import cuda


class DeviceBuffer:
    """A minimal foreign device array: shape, dtype and a data pointer, nothing else."""

    def __init__(self, values):
        self._memory = np.ascontiguousarray(values)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self._memory.shape, "typestr": self._memory.dtype.str,
                "data": (self._memory.ctypes.data, False), "strides": None, "version": 3,
                "stream": None}

    def get(self):
        """A host copy (cupy.ndarray.get)."""
        return self._memory.copy()


@cuda.jit
def add(x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] + y[i]


def main():
    n = 100_000
    a = DeviceBuffer(np.arange(n, dtype=np.float32))
    b = DeviceBuffer(np.full(n, 2, dtype=np.float32))
    out = DeviceBuffer(np.zeros(n, dtype=np.float32))

    add[32, 128](a, b, out)  # the foreign arrays are passed as they are
    result = out.get()
    np.testing.assert_array_equal(result, np.arange(n, dtype=np.float32) + 2)
    print("add on __cuda_array_interface__ objects:", result[:5], "...", result[-1])

    d_out = cuda.as_cuda_array(out)  # a Numba device array over the same memory
    print("as_cuda_array:", d_out.shape, d_out.dtype, d_out.copy_to_host()[:3])
    assert cuda.is_cuda_array(a) and d_out.copy_to_host()[-1] == n + 1


if __name__ == "__main__":
    main()
