"""Complex numbers in kernels (complex64/complex128), compared with NumPy and Python's cmath."""
import cmath

import numpy as np
import pytest

import simt
from simt import cuda


def values(n, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-4, 4, n) + 1j * rng.uniform(-4, 4, n)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_arithmetic_matches_numpy(dtype):
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[0, i] = a[i] + b[i]
            out[1, i] = a[i] - b[i]
            out[2, i] = a[i] * b[i]
            out[3, i] = a[i] / b[i]
            out[4, i] = -a[i]
            out[5, i] = a[i] ** 2

    a, b = values(50, dtype), values(50, dtype, seed=1)
    out = np.zeros((6, 50), dtype)
    k[2, 32](a, b, out)
    expected = [a + b, a - b, a * b, a / b, -a, a * a]
    rtol = 1e-6 if dtype == np.complex64 else 1e-15
    np.testing.assert_allclose(out, np.array(expected), rtol=rtol)


def test_division_is_numbas_algorithm_bit_for_bit():
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] / b[i]

    a, b = values(64, np.complex128), values(64, np.complex128, seed=7)
    out = np.zeros(64, np.complex128)
    k[2, 32](a, b, out)
    # CPython's _Py_c_quot, which Numba's complex_div transcribes
    assert out.tolist() == [complex(x) / complex(y) for x, y in zip(a, b)]


def test_complex_division_by_zero_raises():
    @cuda.jit
    def k(a):
        a[0] = a[0] / a[1]

    with pytest.raises(ZeroDivisionError, match="complex division by zero"):
        k[1, 1](np.array([1 + 1j, 0j]))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_cmath_functions_match_python(dtype):
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            z = a[i]
            out[0, i] = cmath.sqrt(z)
            out[1, i] = cmath.exp(z)
            out[2, i] = cmath.log(z)
            out[3, i] = cmath.log10(z)
            out[4, i] = cmath.sin(z)
            out[5, i] = cmath.cos(z)
            out[6, i] = cmath.tan(z)
            out[7, i] = cmath.asin(z)
            out[8, i] = cmath.acos(z)
            out[9, i] = cmath.atan(z)
            out[10, i] = cmath.sinh(z)
            out[11, i] = cmath.cosh(z)
            out[12, i] = cmath.tanh(z)
            out[13, i] = cmath.asinh(z)
            out[14, i] = cmath.acosh(z)
            out[15, i] = cmath.atanh(z)

    a = values(40, dtype)
    out = np.zeros((16, 40), dtype)
    k[2, 32](a, out)
    fns = [cmath.sqrt, cmath.exp, cmath.log, cmath.log10, cmath.sin, cmath.cos, cmath.tan,
           cmath.asin, cmath.acos, cmath.atan, cmath.sinh, cmath.cosh, cmath.tanh, cmath.asinh,
           cmath.acosh, cmath.atanh]
    expected = np.array([[f(complex(z)) for z in a] for f in fns])
    rtol = 2e-5 if dtype == np.complex64 else 1e-13
    np.testing.assert_allclose(out, expected, rtol=rtol)


def test_cmath_special_values_follow_python():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[0, i] = cmath.sqrt(a[i])
            out[1, i] = cmath.exp(a[i])
            out[2, i] = cmath.cosh(a[i])

    inf, nan = float("inf"), float("nan")
    # (Python raises ValueError for exp and cosh of 1+infj, where Numba gives NaNs)
    a = np.array([complex(inf, 1), complex(-inf, 1), complex(-inf, 0.5), complex(nan, 0),
                  complex(0, 0), complex(-0.0, -0.0)])
    out = np.zeros((3, a.size), np.complex128)
    k[1, 32](a, out)
    expected = np.array([[f(z) for z in a] for f in (cmath.sqrt, cmath.exp, cmath.cosh)])
    np.testing.assert_array_equal(out, expected)


def test_phase_polar_rect_predicates_abs():
    @cuda.jit
    def k(a, reals, flags, rects):
        i = cuda.grid(1)
        if i < a.size:
            z = a[i]
            r, phi = cmath.polar(z)
            reals[0, i] = abs(z)
            reals[1, i] = cmath.phase(z)
            reals[2, i] = r
            reals[3, i] = phi
            reals[4, i] = z.real
            reals[5, i] = z.imag
            rects[i] = cmath.rect(r, phi)
            flags[0, i] = cmath.isnan(z)
            flags[1, i] = cmath.isinf(z)
            flags[2, i] = cmath.isfinite(z)
            flags[3, i] = z == z.conjugate()

    a = np.array([3 + 4j, -1 - 1j, complex(float("nan"), 1), complex(1, float("inf")), 2 + 0j])
    reals = np.zeros((6, a.size))
    flags = np.zeros((4, a.size), np.bool_)
    rects = np.zeros(a.size, np.complex128)
    k[1, 32](a, reals, flags, rects)
    np.testing.assert_array_equal(reals[0], np.abs(a))
    np.testing.assert_array_equal(reals[1], [cmath.phase(z) for z in a])
    np.testing.assert_array_equal(reals[4], a.real)
    np.testing.assert_array_equal(reals[5], a.imag)
    assert flags.tolist() == [[cmath.isnan(z) for z in a], [cmath.isinf(z) for z in a],
                              [cmath.isfinite(z) for z in a], [z == z.conjugate() for z in a]]
    np.testing.assert_allclose(rects[[0, 1, 4]], a[[0, 1, 4]], rtol=1e-15)


def test_scalar_arguments_and_2d_arrays():
    @cuda.jit
    def k(a, s, t, out):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            out[i, j] = a[i, j] * s + t

    a = values(12, np.complex64).reshape(3, 4)
    out = np.zeros((3, 4), np.complex64)
    k[1, (4, 4)](a, np.complex64(2 - 1j), 0.5j, out)
    np.testing.assert_allclose(out, a * np.complex64(2 - 1j) + np.complex64(0.5j), rtol=1e-6)
    out128 = np.zeros((3, 4), np.complex128)
    a128 = a.astype(np.complex128)
    k[1, (4, 4)](a128, 1 + 2j, 3, out128)
    np.testing.assert_allclose(out128, a128 * (1 + 2j) + 3, rtol=1e-15)


def test_device_arrays_device_functions_globals_and_constructors():
    ROT = 1j
    TABLE = np.array([1 + 1j, 2 - 2j], np.complex64)

    @cuda.jit(device=True)
    def twist(z):
        return z * ROT

    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = twist(a[i]) + np.complex128(i) + complex(1, i) + TABLE[i % 2]

    host = values(8, np.complex128)
    d = cuda.to_device(host)
    k[1, 8](d)
    i = np.arange(8)
    expected = host * 1j + i + (1 + 1j * i) + np.array([1 + 1j, 2 - 2j])[i % 2]
    np.testing.assert_allclose(d.copy_to_host(), expected, rtol=1e-15)


def test_typeof_and_signatures():
    assert str(simt.types.typeof(1j)) == "complex128"
    assert str(simt.types.typeof(np.complex64(1))) == "complex64"
    assert str(simt.types.typeof(np.zeros(3, np.complex64))) == "array(complex64, 1d, C)"
    assert str(simt.complex128[:, ::1]) == "array(complex128, 2d, C)"

    @cuda.jit("void(complex64[:], complex128)")
    def k(a, s):
        a[0] = s

    a = np.zeros(1, np.complex64)
    k[1, 1](a, 1.5 - 2j)
    assert a[0] == np.complex64(1.5 - 2j)


def test_complex_atomics_are_refused():
    @cuda.jit
    def k(a):
        cuda.atomic.add(a, 0, 1j)

    with pytest.raises(simt.CompileError, match="complex128"):
        k[1, 1](np.zeros(1, np.complex128))
