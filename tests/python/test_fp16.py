"""float16 in kernels: arrays, scalars, conversions and cuda.fp16, compared with NumPy's float16
(and, for hfma, the exactly rounded result)."""
from fractions import Fraction

import numpy as np
import pytest

import simt
from simt import cuda

ALL_HALVES = np.arange(1 << 16, dtype=np.uint16).view(np.float16)


def same_halves(got, expected):
    """Bit for bit, except that any NaN matches any NaN."""
    got, expected = np.asarray(got, np.float16), np.asarray(expected, np.float16)
    both_nan = np.isnan(got) & np.isnan(expected)
    return np.array_equal(got.view(np.uint16)[~both_nan], expected.view(np.uint16)[~both_nan])


def test_conversions_from_double_float_and_ints_round_like_numpy():
    @cuda.jit
    def k(d, f, n, u, out):
        i = cuda.grid(1)
        if i < d.size:
            out[0, i] = d[i]
            out[1, i] = f[i]
            out[2, i] = n[i]
            out[3, i] = u[i]

    rng = np.random.default_rng(0)
    # halfway points between neighbouring halves (and just off them) probe the rounding
    halves = ALL_HALVES[np.isfinite(ALL_HALVES)].astype(np.float64)
    mids = (halves[:-1] + np.diff(np.sort(halves)) / 2)
    d = np.concatenate([mids, np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf),
                        rng.standard_normal(4000) * 1e5, [np.inf, -np.inf, np.nan, 1e300,
                                                          65519.99, 65520.0, 5e-8, 3e-8, -0.0]])
    d = d[:d.size // 64 * 64]
    f = d.astype(np.float32)
    n = rng.integers(-70000, 70000, d.size)
    n[:4] = [2 ** 62, -2 ** 63, 2049, 4097]
    u = rng.integers(0, 2 ** 64, d.size, dtype=np.uint64)
    out = np.zeros((4, d.size), np.float16)
    k[d.size // 64, 64](d, f, n, u, out)
    with np.errstate(over="ignore"):
        expected = [d.astype(np.float16), f.astype(np.float16), n.astype(np.float16),
                    u.astype(np.float16)]
    for row, want in zip(out, expected):
        assert same_halves(row, want)


def test_doubles_below_float32s_range_round_to_zero_or_the_least_half():
    @cuda.jit
    def k(d, out):
        i = cuda.grid(1)
        if i < d.size:
            out[i] = d[i]

    # rounded to odd through float32 (whose zero is even): the odd neighbour is its least
    # subnormal, of the double's sign
    d = np.array([1e-300, -1e-300, 2.0 ** -160, 2.0 ** -25 * (1 + 2.0 ** -40), -5e-324])
    out = np.zeros(d.size, np.float16)
    k[1, 32](d, out)
    assert same_halves(out, d.astype(np.float16))
    assert out.view(np.uint16).tolist() == [0, 0x8000, 0, 1, 0x8000]


def test_every_half_widens_exactly_and_rounds_to_nearest_integer():
    @cuda.jit
    def k(h, wide, ints, bools):
        i = cuda.grid(1)
        if i < h.size:
            wide[i] = h[i]
            ints[i] = np.int32(h[i])
            bools[i] = h[i]

    h = ALL_HALVES
    wide, ints, bools = np.zeros(h.size), np.zeros(h.size, np.int32), np.zeros(h.size, np.bool_)
    k[h.size // 256, 256](h, wide, ints, bools)
    np.testing.assert_array_equal(wide, h.astype(np.float64))
    # Numba lowers float16 -> int with cvt.rni: to nearest, ties to even; NaN -> 0, saturating
    finite = np.isfinite(h)
    np.testing.assert_array_equal(ints[finite], np.rint(h[finite]).astype(np.int32))
    assert (ints[np.isnan(h)] == 0).all()
    assert ints[h == np.inf].tolist() == [2 ** 31 - 1] and ints[h == -np.inf].tolist() == [-2 ** 31]
    np.testing.assert_array_equal(bools, h != 0)


def test_fp16_functions_match_numpy_on_every_operand_class():
    @cuda.jit
    def k(a, b, out, flags):
        i = cuda.grid(1)
        if i < a.size:
            out[0, i] = cuda.fp16.hadd(a[i], b[i])
            out[1, i] = cuda.fp16.hsub(a[i], b[i])
            out[2, i] = cuda.fp16.hmul(a[i], b[i])
            out[3, i] = cuda.fp16.hneg(a[i])
            out[4, i] = cuda.fp16.habs(a[i])
            out[5, i] = cuda.fp16.hmax(a[i], b[i])
            out[6, i] = cuda.fp16.hmin(a[i], b[i])
            flags[0, i] = cuda.fp16.heq(a[i], b[i])
            flags[1, i] = cuda.fp16.hne(a[i], b[i])
            flags[2, i] = cuda.fp16.hlt(a[i], b[i])
            flags[3, i] = cuda.fp16.hle(a[i], b[i])
            flags[4, i] = cuda.fp16.hgt(a[i], b[i])
            flags[5, i] = cuda.fp16.hge(a[i], b[i])

    rng = np.random.default_rng(1)
    a = rng.permutation(ALL_HALVES)
    b = rng.permutation(ALL_HALVES)
    out, flags = np.zeros((7, a.size), np.float16), np.zeros((6, a.size), np.bool_)
    k[a.size // 256, 256](a, b, out, flags)
    with np.errstate(all="ignore"):
        expected = [a + b, a - b, a * b, -a, np.abs(a),
                    np.where(a > b, a, b), np.where(a < b, a, b)]
        ordered = ~(np.isnan(a) | np.isnan(b))
        expected_flags = [a == b, (a != b) & ordered, a < b, a <= b, a > b, a >= b]
    for row, want in zip(out, expected):
        assert same_halves(row, want)
    # hneg and habs only touch the sign bit, NaNs included (neg.f16, abs.f16)
    np.testing.assert_array_equal(out[3].view(np.uint16), a.view(np.uint16) ^ 0x8000)
    np.testing.assert_array_equal(out[4].view(np.uint16), a.view(np.uint16) & 0x7FFF)
    np.testing.assert_array_equal(flags, np.array(expected_flags))


def exact_fma(a, b, c):
    if not (np.isfinite(a) and np.isfinite(b) and np.isfinite(c)):
        with np.errstate(all="ignore"):
            return np.float16(np.float64(a) * np.float64(b) + np.float64(c))
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    # round to half by the neighbours around the double nearest the exact value
    with np.errstate(over="ignore"):
        approx = np.float16(float(exact))
    candidates = [np.nextafter(approx, np.float16(-np.inf)), approx,
                  np.nextafter(approx, np.float16(np.inf))]
    best = min(candidates, key=lambda h: (abs(Fraction(float(h)) - exact)
                                          if np.isfinite(h) else Fraction(10 ** 9),
                                          int(np.array(h).view(np.uint16)) & 1))
    if abs(exact) >= 65520:
        return np.float16(np.inf if exact > 0 else -np.inf)
    return best


def test_hfma_rounds_once():
    @cuda.jit
    def k(a, b, c, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = cuda.fp16.hfma(a[i], b[i], c[i])

    rng = np.random.default_rng(2)
    finite = ALL_HALVES[np.isfinite(ALL_HALVES)]
    a, b, c = (rng.choice(finite, 2048) for _ in range(3))
    # a*b + c where a plain a*b rounding then adding would round twice: c cancels most of a*b
    with np.errstate(over="ignore"):
        c[:512] = -(a[:512] * b[:512])
    c[512:640] = np.float16(2049)
    a[512:640], b[512:640] = np.float16(1), np.float16(2.0 ** -12) * np.arange(1, 129)
    out = np.zeros(a.size, np.float16)
    k[a.size // 64, 64](a, b, c, out)
    expected = np.array([exact_fma(x, y, z) for x, y, z in zip(a, b, c)], np.float16)
    assert same_halves(out, expected)


def test_arithmetic_is_typed_in_float32_as_numba_does():
    @cuda.jit
    def k(a, out16, out32, out64):
        i = cuda.grid(1)
        if i < a.size:
            x = a[i]
            y = x * x  # float32: float16 is no real_domain type, it promotes to float32
            out16[i] = y
            out32[i] = y
            out64[i] = x + 1  # float16 + int64 -> float64

    a = np.linspace(-3, 300, 64).astype(np.float16)
    out16, out32, out64 = np.zeros(64, np.float16), np.zeros(64, np.float32), np.zeros(64)
    k[1, 64](a, out16, out32, out64)
    wide = a.astype(np.float32)
    np.testing.assert_array_equal(out32, wide * wide)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out16, (wide * wide).astype(np.float16))
    np.testing.assert_array_equal(out64, a.astype(np.float64) + 1)


def test_scalar_arguments_and_typeof():
    @cuda.jit
    def k(h, out):
        out[0] = cuda.fp16.hadd(h, h)
        out[1] = abs(h)
        out[2] = round(h)

    out = np.zeros(3, np.float16)
    k[1, 1](np.float16(-2.5), out)
    np.testing.assert_array_equal(out, np.array([-5, 2.5, -2], np.float16))
    assert str(simt.typeof(np.float16(1))) == "float16"
    assert str(simt.typeof(np.zeros(3, np.float16))) == "array(float16, 1d, C)"
    assert simt.float16(1.0009765625) == np.float16(1.0009765625)
    assert str(simt.float16[:]) == "array(float16, 1d, A)"


def test_explicit_signature_and_constants():
    @cuda.jit("void(float16[::1], float16)")
    def k(out, h):
        out[0] = np.float16(0.1)
        out[1] = simt.float16(65519)
        out[2] = simt.float16(65520)
        out[3] = h

    out = np.zeros(4, np.float16)
    k[1, 1](out, 0.333)
    np.testing.assert_array_equal(out, np.array([0.1, 65504, np.inf, 0.333], np.float16))


def test_errors():
    @cuda.jit
    def no_hpow(a):
        a[0] = cuda.fp16.hpow(a[0], a[1])

    with pytest.raises(simt.CompileError, match="cuda.fp16.hpow"):
        no_hpow[1, 1](np.ones(2, np.float16))

    @cuda.jit
    def arity(a):
        a[0] = cuda.fp16.hadd(a[0])

    with pytest.raises(simt.CompileError, match="cuda.fp16.hadd expects 2 arguments, got 1"):
        arity[1, 1](np.ones(2, np.float16))

    @cuda.jit
    def complex_operand(a, z):
        a[0] = cuda.fp16.habs(z)

    with pytest.raises(simt.CompileError, match="does not accept complex numbers"):
        complex_operand[1, 1](np.ones(2, np.float16), 1j)

    @cuda.jit("void(float16[:])")
    def wrong_dtype(a):
        a[0] = 1

    with pytest.raises(TypeError, match="No matching definition"):
        wrong_dtype[1, 1](np.ones(2, np.float32))


# numba-cuda's cuda.fp16 math: float32's result rounded to float16 (hdiv, hsqrt, hrcp and the
# rounding functions exactly, as NumPy's float16 computes them)
FP16_MATH = {"hsin": np.sin, "hcos": np.cos, "htanh": np.tanh, "htanh_approx": np.tanh,
             "hlog": np.log, "hlog2": np.log2, "hlog10": np.log10, "hexp": np.exp,
             "hexp2": np.exp2, "hexp10": lambda x: np.power(np.float32(10), x),
             "hsqrt": np.sqrt, "hrsqrt": lambda x: 1 / np.sqrt(x), "hrcp": np.reciprocal,
             "hceil": np.ceil, "hfloor": np.floor, "htrunc": np.trunc, "hrint": np.rint}
EXACT = ("hsqrt", "hrcp", "hceil", "hfloor", "htrunc", "hrint")


@pytest.mark.parametrize("name", sorted(FP16_MATH))
def test_fp16_math_functions(name):
    source = ("def k(r, x):\n    i = cuda.grid(1)\n    if i < x.size:\n"
              "        r[i] = cuda.fp16.%s(x[i])\n" % name)
    scope = {"cuda": cuda}
    exec(source, scope)
    kernel = cuda.jit(scope["k"])
    x = np.linspace(0.05, 9.5, 256).astype(np.float16)
    r = np.zeros_like(x)
    kernel[4, 64](r, x)
    expected = FP16_MATH[name](x.astype(np.float32)).astype(np.float16)
    if name in EXACT:
        assert same_halves(r, expected)
    else:
        np.testing.assert_allclose(r, expected, rtol=1e-3)


def test_hdiv_rounds_correctly():
    @cuda.jit
    def k(r, x, y):
        i = cuda.grid(1)
        if i < x.size:
            r[i] = cuda.fp16.hdiv(x[i], y[i])

    rng = np.random.default_rng(1)
    x = np.ascontiguousarray(ALL_HALVES[np.isfinite(ALL_HALVES)][::7][:4096])
    y = rng.permutation(x)
    r = np.zeros_like(x)
    k[64, 64](r, x, y)
    with np.errstate(all="ignore"):
        assert same_halves(r, x / y)
