"""CUDA vector types (cuda.float32x3, cuda.float3, ...) in kernels and device functions."""
import numpy as np
import pytest

import simt
from simt import cuda


@cuda.jit(device=True)
def scaled(v, s):
    return cuda.float32x3(v.x * s, v.y * s, v.z * s)


def test_constructors_attributes_and_device_functions():
    @cuda.jit
    def k(out, iout):
        i = cuda.grid(1)
        v = cuda.float3(i, 2.5, -1)
        w = scaled(v, np.float32(0.1))
        u = cuda.float4(cuda.float2(w.x, w.y), w.z, 7)
        out[i, 0] = u.x
        out[i, 1] = u.y
        out[i, 2] = u.z
        out[i, 3] = u.w
        b = cuda.int32x3(cuda.int2(i, 3.7), cuda.int1(-5))
        iout[i, 0] = b.x
        iout[i, 1] = b.y
        iout[i, 2] = b.z
        c = cuda.uchar2(300, i)  # converted as Numba converts: wraps
        iout[i, 3] = c.x

    out, iout = np.zeros((8, 4), np.float32), np.zeros((8, 4), np.int64)
    k[1, 8](out, iout)
    i = np.arange(8)
    tenth = np.float32(0.1)
    np.testing.assert_array_equal(out[:, 0], i.astype(np.float32) * tenth)
    np.testing.assert_array_equal(out[:, 1], np.float32(2.5) * tenth)
    np.testing.assert_array_equal(out[:, 2], np.float32(-1) * tenth)
    np.testing.assert_array_equal(out[:, 3], 7)
    np.testing.assert_array_equal(iout, np.array([i, np.full(8, 3), np.full(8, -5),
                                                  np.full(8, 44)]).T)


def test_double_and_long_aliases_keep_full_precision():
    @cuda.jit
    def k(x, out):
        v = cuda.double2(x[0], x[1])
        n = cuda.longlong2(2 ** 62 + 1, -3)
        out[0] = v.x + v.y
        out[1] = n.x - 2 ** 62
        out[2] = n.y

    out = np.zeros(3)
    k[1, 1](np.array([0.1, 1e-17]), out)
    assert out.tolist() == [0.1 + 1e-17, 1.0, -3.0]


def test_errors():
    @cuda.jit
    def wrong_count(a):
        v = cuda.float3(1, 2)
        a[0] = v.x

    with pytest.raises(simt.CompileError, match="function cuda.float3 expects 3 elements"):
        wrong_count[1, 1](np.zeros(1))

    @cuda.jit
    def missing(a):
        a[0] = cuda.float2(1, 2).z

    with pytest.raises(simt.CompileError, match="unknown attribute 'z' of float32x2"):
        missing[1, 1](np.zeros(1))

    with pytest.raises(NotImplementedError, match="only usable inside a kernel"):
        cuda.float3(1, 2, 3)
