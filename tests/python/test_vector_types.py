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


def test_complex_of_a_two_element_vector_and_a_vector_of_a_complex():
    # numba-cuda-mlir's casts: complex(float2) is complex64, of double2 or int2 complex128;
    # float2(z) / double2(z) hold z's real and imaginary parts.
    @cuda.jit
    def k(c64, c128, parts32, parts64, z64, z128):
        c64[0] = complex(cuda.float2(1.5, 2.5))
        c128[0] = complex(cuda.double2(c64[0].real, 4.5))
        c128[1] = complex(cuda.int2(1, 2))
        v = cuda.float2(z64)
        w = cuda.double2(z128)
        parts32[0], parts32[1] = v.x, v.y
        parts64[0], parts64[1] = w.x, w.y

    c64, c128 = np.zeros(1, np.complex64), np.zeros(2, np.complex128)
    parts32, parts64 = np.zeros(2, np.float32), np.zeros(2)
    k[1, 1](c64, c128, parts32, parts64, np.complex64(1.5 + 2.5j), 3.25 - 4.5j)
    assert c64[0] == 1.5 + 2.5j and c128.tolist() == [1.5 + 4.5j, 1 + 2j]
    assert parts32.tolist() == [1.5, 2.5] and parts64.tolist() == [3.25, -4.5]
    ptx, _ = cuda.compile_ptx(k, "void(complex64[:], complex128[:], float32[:], float64[:], "
                                 "complex64, complex128)")
    assert ".entry" in ptx

    @cuda.jit
    def four(a):
        a[0] = complex(cuda.float4(1, 2, 3, 4))

    with pytest.raises(simt.CompileError, match="needs a two-element one .* got float32x4"):
        four[1, 1](np.zeros(1, np.complex128))
