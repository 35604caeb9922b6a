"""bfloat16 in kernels (numba-cuda's numba.cuda.bf16): construction, operators, conversions in each
rounding mode, bit reinterpretation, the arithmetic, comparison and math functions, device
functions and arrays. Results are compared bit for bit with references computed here: NumPy in
float32 (exact for the widened bfloat16 operands) rounded once to bfloat16, exact rationals for
hfma, Python integers for the integer conversions."""
import math
import os
import shutil
import subprocess
from fractions import Fraction

import numpy as np
import pytest

from simt import cuda
from simt import types as simt_types
from simt.cuda import bf16
from simt.bf16 import (bfloat16, bfloat16_as_int16, bfloat16_as_uint16, bfloat16_to_float32,
                       float32_to_bfloat16, float64_to_bfloat16, hadd, hadd_rn, hadd_sat,
                       hceil, hcos, hdiv, hexp, hexp2, hexp10, hfloor, hfma, hfma_relu,
                       hfma_sat, hlog, hlog2, hlog10, hmul, hmul_rn, hmul_sat, hneg, habs,
                       hrcp, hrint, hrsqrt, hsin, hsqrt, hsub, hsub_rn, hsub_sat, htanh,
                       htanh_approx, htrunc, int16_as_bfloat16, uint16_as_bfloat16)
from simt.errors import CompileError

from conftest import run_python

# The references widen every bfloat16 pattern, signalling NaNs and overflows included.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning",
                                        "ignore:overflow encountered:RuntimeWarning")

ALL_BITS = np.arange(1 << 16, dtype=np.uint16)
ROUNDINGS = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}

# numba-cuda's numba.cuda.bf16.__all__ (numba_cuda/numba/cuda/bf16.py)
NUMBA_CUDA_ALL = """typing_registry target_registry bfloat16 habs hadd hsub hmul hadd_rn hsub_rn
hmul_rn hdiv hadd_sat hsub_sat hmul_sat hfma hfma_sat hneg hfma_relu heq hne hge hgt hle hlt hmax
hmin hmax_nan hmin_nan hisinf hisnan hequ hneu hgeu hgtu hleu hltu float32_to_bfloat16
float64_to_bfloat16 bfloat16_to_float32 float32_to_bfloat16_rn float32_to_bfloat16_rz
float32_to_bfloat16_rd float32_to_bfloat16_ru bfloat16_to_int8_rz bfloat16_to_uint8_rz
int16_to_bfloat16_rn int16_to_bfloat16_rz int16_to_bfloat16_rd int16_to_bfloat16_ru
bfloat16_to_int16_rn bfloat16_to_int16_rz bfloat16_to_int16_rd bfloat16_to_int16_ru
uint16_to_bfloat16_rn uint16_to_bfloat16_rz uint16_to_bfloat16_rd uint16_to_bfloat16_ru
bfloat16_to_uint16_rn bfloat16_to_uint16_rz bfloat16_to_uint16_rd bfloat16_to_uint16_ru
int32_to_bfloat16_rn int32_to_bfloat16_rz int32_to_bfloat16_rd int32_to_bfloat16_ru
bfloat16_to_int32_rn bfloat16_to_int32_rz bfloat16_to_int32_rd bfloat16_to_int32_ru
uint32_to_bfloat16_rn uint32_to_bfloat16_rz uint32_to_bfloat16_rd uint32_to_bfloat16_ru
bfloat16_to_uint32_rn bfloat16_to_uint32_rz bfloat16_to_uint32_rd bfloat16_to_uint32_ru
int64_to_bfloat16_rn int64_to_bfloat16_rz int64_to_bfloat16_rd int64_to_bfloat16_ru
bfloat16_to_int64_rn bfloat16_to_int64_rz bfloat16_to_int64_rd bfloat16_to_int64_ru
uint64_to_bfloat16_rn uint64_to_bfloat16_rz uint64_to_bfloat16_rd uint64_to_bfloat16_ru
bfloat16_to_uint64_rn bfloat16_to_uint64_rz bfloat16_to_uint64_rd bfloat16_to_uint64_ru
bfloat16_as_int16 bfloat16_as_uint16 int16_as_bfloat16 uint16_as_bfloat16 htrunc hceil hfloor
hrint hsqrt hrsqrt hrcp hlog hlog2 hlog10 hcos hsin htanh htanh_approx hexp hexp2
hexp10""".split()


# ---- references -----------------------------------------------------------------------------

def widen(bits):
    """The float32 values of bfloat16 bit patterns."""
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def round_bits(values, mode="rn"):
    """float64 values (any: float32 and bfloat16 are exact in them) rounded once to bfloat16 in
    `mode`, as bit patterns; NaN is the canonical 0x7fff."""
    x = np.asarray(values, np.float64)
    with np.errstate(all="ignore"):
        exponent = np.frexp(x)[1]
        quantum = np.maximum(exponent - 8, -133)  # 8 significant bits; subnormals below 2**-126
        rounded = np.ldexp(ROUNDINGS[mode](np.ldexp(x, -quantum)), quantum)
        rounded = np.where(np.isfinite(x), rounded, x)
        bits = (rounded.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    bits[np.isnan(x)] = 0x7fff
    return bits


def round_integer(n, mode="rn"):
    """The bfloat16 bits of the Python int `n` rounded once in `mode` (exact integers, beyond
    float64's 53 bits too)."""
    negative, m = n < 0, abs(int(n))
    shift = m.bit_length() - 8
    if shift > 0:
        q, r = divmod(m, 1 << shift)
        half = 1 << (shift - 1)
        up = {"rn": r > half or (r == half and q & 1), "rz": False,
              "rd": negative and r != 0, "ru": not negative and r != 0}[mode]
        m = (q + up) << shift
    return int(np.array(float(-m if negative else m), np.float32).view(np.uint32)) >> 16


def to_integer(bits, dtype, mode):
    """bfloat16 bits converted to integers of `dtype`: rounded in `mode`, saturating; NaN is 0,
    or 0x8000000000000000 for 64 bits (as CUDA's conversions give)."""
    info = np.iinfo(dtype)
    nan = (1 << 63 if info.min == 0 else -(1 << 63)) if info.bits == 64 else 0
    out = []
    for w in ROUNDINGS[mode](widen(bits).astype(np.float64)):
        if math.isnan(w):
            out.append(nan)
        else:
            out.append(info.max if w >= info.max else info.min if w <= info.min else int(w))
    return np.array(out, dtype)


def fma_bits(a, b, c):
    """a * b + c of bfloat16 bit patterns, rounded once from the exact value."""
    x, y, z = (float(v) for v in widen([a, b, c]))
    wide = x * y + z  # the product is exact in float64; specials and the sign of zero from it
    if not all(map(math.isfinite, (x, y, z))) or not math.isfinite(wide):
        return int(round_bits([wide])[0])
    exact = Fraction(x) * Fraction(y) + Fraction(z)
    if exact == 0:
        return int(round_bits([wide])[0])
    magnitude = abs(exact)
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** exponent > magnitude:
        exponent -= 1  # now 2**exponent <= |exact| < 2**(exponent + 1)
    quantum = Fraction(2) ** max(exponent - 7, -133)
    q, r = divmod(magnitude, quantum)
    q += r > quantum / 2 or (r == quantum / 2 and q % 2 == 1)
    value = float(q * quantum) if q * quantum < 2 ** 128 else math.inf
    return int(round_bits([-value if exact < 0 else value])[0])


def same_bits(got, expected):
    got, expected = np.asarray(got, np.uint16), np.asarray(expected, np.uint16)
    wrong = np.flatnonzero(got != expected)
    assert wrong.size == 0, "%d differ, e.g. at %s: got %s, expected %s" % (
        wrong.size, wrong[:5], [hex(v) for v in got[wrong[:5]]],
        [hex(v) for v in expected[wrong[:5]]])


def ulp_distance(got, expected):
    """Distance in bfloat16 steps (numba-cuda's _bf16_ulp_distance); NaNs compare as equal."""
    def rank(bits):
        u = np.asarray(bits, np.uint16).astype(np.int64)
        return np.where(u >> 15 == 0, u + 0x8000, 0x8000 - (u & 0x7fff))
    both_nan = np.isnan(widen(got)) & np.isnan(widen(expected))
    return np.where(both_nan, 0, np.abs(rank(got) - rank(expected)))


def sample_bits(count, seed):
    """Random bfloat16 patterns with the special ones first."""
    special = [0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x7f7f, 0xff7f,
               0x0001, 0x8001, 0x007f, 0x0080, 0x3f81, 0x4000, 0x3fc0, 0xc020]
    rng = np.random.default_rng(seed)
    return np.concatenate([special, rng.integers(0, 1 << 16, count - len(special))]
                          ).astype(np.uint16)


def run(kernel, *args, n=None):
    n = n if n is not None else args[-1].shape[-1]
    kernel[(n + 127) // 128, 128](*args)


# ---- the API ----------------------------------------------------------------------------------

def test_the_module_has_numba_cudas_names_and_aliases():
    assert sorted(bf16.__all__) == sorted(NUMBA_CUDA_ALL)
    for name in NUMBA_CUDA_ALL[3:]:
        assert getattr(bf16, name).__name__ == name
    assert bf16.float2bfloat16_rz is bf16.float32_to_bfloat16_rz
    assert bf16.bfloat162ll_ru is bf16.bfloat16_to_int64_ru
    assert bf16.short_as_bfloat16 is bf16.int16_as_bfloat16
    assert bf16.bfloat16 is bfloat16 and cuda.bf16 is bf16
    assert str(bfloat16) == "__nv_bfloat16"  # numba-cuda's spelling
    assert str(bfloat16[:, ::1]) == "array(__nv_bfloat16, 2d, C)"
    assert cuda.is_bfloat16_supported()
    # numba-cuda's Bfloat16.can_convert_from/to, for the dispatcher's explicit signatures
    scalars = simt_types._SCALARS
    assert [simt_types.conversion(scalars[t], bfloat16) for t in ("int8", "uint8", "bool",
            "int16", "int64", "float32", "float64", "complex64")] == [2, 2, 2, 3, 3, 3, 3, None]
    assert [simt_types.conversion(bfloat16, scalars[t]) for t in ("float32", "float64",
            "float16", "int64")] == [2, 2, 3, 3]
    assert "hsqrt" in bf16.hsqrt.__doc__ and "math.sqrt" in bf16.hsqrt.__doc__
    with pytest.raises(NotImplementedError, match="only usable inside a kernel"):
        hadd(1.0, 2.0)


def test_construction_rounds_once_to_nearest_even():
    @cuda.jit
    def k(d, f, h, out):
        i = cuda.grid(1)
        if i < d.size:
            out[0, i] = bfloat16_as_uint16(bfloat16(d[i]))
            out[1, i] = bfloat16_as_uint16(bfloat16(f[i]))
            out[2, i] = bfloat16_as_uint16(bfloat16(h[i]))
            out[3, i] = bfloat16_as_uint16(float64_to_bfloat16(d[i]))
            out[4, i] = bfloat16_as_uint16(float32_to_bfloat16(f[i]))

    rng = np.random.default_rng(1)
    finite = widen(ALL_BITS)[np.isfinite(widen(ALL_BITS))].astype(np.float64)
    finite.sort()
    mids = (finite[:-1] + np.diff(finite) / 2)[::7]  # ties between neighbours
    d = np.concatenate([mids, np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf),
                        [1 + 2 ** -8 + 2 ** -40, 1 + 2 ** -8, 261 + 2 ** -30,
                         float.fromhex("0x1.ffp127"), float.fromhex("0x1.fefffp127"), 1e39,
                         -1e39, 2 ** -134, 2 ** -135, 1e-300, -0.0, np.inf, -np.inf, np.nan],
                        rng.standard_normal(3000) * 10.0 ** rng.integers(-40, 39, 3000)])
    f = d.astype(np.float32)
    h = rng.standard_normal(d.size).astype(np.float16)
    out = np.zeros((5, d.size), np.uint16)
    with np.errstate(over="ignore"):
        run(k, d, f, h, out)
    same_bits(out[0], round_bits(d))  # once from the double: not through float32
    same_bits(out[1], round_bits(f))
    same_bits(out[2], round_bits(h))
    same_bits(out[3], out[0])
    same_bits(out[4], out[1])
    assert out[0][d.size - 3000 - 14] == 0x3f81  # 1 + 2**-8 + 2**-40: above the tie


def test_construction_from_integers_and_bool():
    @cuda.jit
    def k(n, u, s, b, out):
        i = cuda.grid(1)
        if i < n.size:
            out[0, i] = bfloat16_as_uint16(bfloat16(n[i]))
            out[1, i] = bfloat16_as_uint16(bfloat16(u[i]))
            out[2, i] = bfloat16_as_uint16(bfloat16(s[i]))
            out[3, i] = bfloat16_as_uint16(bfloat16(b[i]))
            out[4, i] = bfloat16_as_uint16(bfloat16(np.int32(n[i] >> 32)))
            out[5, i] = bfloat16_as_uint16(bfloat16(np.uint8(u[i])))

    rng = np.random.default_rng(2)
    size = 2048
    n = rng.integers(-2 ** 63, 2 ** 63 - 1, size, dtype=np.int64)
    n[:8] = [2 ** 62 + 2 ** 54 + 1, 2 ** 62 + 2 ** 54, -2 ** 63, 2 ** 63 - 1, 261, 259, 0, -1]
    n[8:200] >>= rng.integers(0, 63, 192)
    u = rng.integers(0, 2 ** 64, size, dtype=np.uint64)
    u[:2] = [2 ** 64 - 1, 2 ** 63 + 2 ** 55]
    s = rng.integers(-2 ** 15, 2 ** 15, size, dtype=np.int16)
    b = rng.integers(0, 2, size).astype(np.bool_)
    out = np.zeros((6, size), np.uint16)
    run(k, n, u, s, b, out)
    same_bits(out[0], [round_integer(v) for v in n])
    same_bits(out[1], [round_integer(v) for v in u])
    same_bits(out[2], [round_integer(v) for v in s])
    same_bits(out[3], np.where(b, 0x3f80, 0))
    same_bits(out[4], [round_integer(int(v) >> 32) for v in n])
    same_bits(out[5], [round_integer(int(v) & 0xff) for v in u])
    assert out[0, 0] == 0x5e81  # 2**62 + 2**55: above the tie, rounded once


def test_every_bfloat16_converts_to_the_other_types():
    @cuda.jit
    def k(bits, f, d, h, i8, u8, i32, u32, i64, u64, flags):
        i = cuda.grid(1)
        if i < bits.size:
            x = uint16_as_bfloat16(bits[i])
            f[i] = x  # implicit: float32 is a safe conversion
            d[i] = np.float64(x)
            h[i] = np.float16(x)
            i8[i] = np.int8(x)  # cuda_bf16.h's conversion operators truncate
            u8[i] = np.uint8(x)
            i32[i] = np.int32(x)
            u32[i] = np.uint32(x)
            i64[i] = np.int64(x)
            u64[i] = np.uint64(x)
            flags[i] = bool(x)

    n = ALL_BITS.size
    outs = [np.zeros(n, t) for t in (np.float32, np.float64, np.float16, np.int8, np.uint8,
                                     np.int32, np.uint32, np.int64, np.uint64, np.bool_)]
    run(k, ALL_BITS, *outs)
    f, d, h, i8, u8, i32, u32, i64, u64, flags = outs
    wide = widen(ALL_BITS)
    nan = np.isnan(wide)
    assert np.array_equal(f.view(np.uint32)[~nan], wide.view(np.uint32)[~nan])
    assert np.isnan(f[nan]).all() and np.isnan(d[nan]).all() and np.isnan(h[nan]).all()
    assert np.array_equal(d[~nan], wide[~nan].astype(np.float64))
    with np.errstate(over="ignore"):
        assert np.array_equal(h[~nan].view(np.uint16), wide[~nan].astype(np.float16).view(
            np.uint16))
    for got, dtype in ((i8, np.int8), (u8, np.uint8), (i32, np.int32), (u32, np.uint32),
                       (i64, np.int64), (u64, np.uint64)):
        assert np.array_equal(got, to_integer(ALL_BITS, dtype, "rz")), dtype
    assert np.array_equal(flags, (ALL_BITS & 0x7fff) != 0)


# ---- operators --------------------------------------------------------------------------------

def test_operators_round_each_result_once():
    @cuda.jit
    def k(x, y, out, cmp):
        i = cuda.grid(1)
        if i < x.size:
            a = uint16_as_bfloat16(x[i])
            b = uint16_as_bfloat16(y[i])
            out[0, i] = bfloat16_as_uint16(a + b)
            out[1, i] = bfloat16_as_uint16(a - b)
            out[2, i] = bfloat16_as_uint16(a * b)
            out[3, i] = bfloat16_as_uint16(a / b)
            out[4, i] = bfloat16_as_uint16(-a)
            out[5, i] = bfloat16_as_uint16(+a)
            c = a
            c += b
            c *= b
            c -= a
            c /= b
            out[6, i] = bfloat16_as_uint16(c)
            cmp[0, i] = a == b
            cmp[1, i] = a != b
            cmp[2, i] = a < b
            cmp[3, i] = a <= b
            cmp[4, i] = a > b
            cmp[5, i] = a >= b

    x, y = sample_bits(6000, 3), sample_bits(6000, 4)[::-1].copy()
    y[:300] = x[:300]  # equal operands
    out = np.zeros((7, x.size), np.uint16)
    cmp = np.zeros((6, x.size), np.bool_)
    run(k, x, y, out, cmp)
    a, b = widen(x), widen(y)
    with np.errstate(all="ignore"):
        for row, result in enumerate((a + b, a - b, a * b, a / b)):  # float32: then rounded
            same_bits(out[row], round_bits(result))
        c = widen(round_bits(a + b))
        c = widen(round_bits(c * b))
        c = widen(round_bits(c - a))
        same_bits(out[6], round_bits(c / b))
    same_bits(out[4], x ^ 0x8000)  # the sign bit alone, NaNs too
    same_bits(out[5], x)
    for row, expected in enumerate((a == b, a != b, a < b, a <= b, a > b, a >= b)):
        assert np.array_equal(cmp[row], expected), row


TINY = 2.0 ** -40
SMALL = 2.0 ** -20
TIE = 2.0 ** -8


def test_mixed_operands_follow_numba_cudas_conversions():
    @cuda.jit
    def k(out_f32, out_f64, out_bf):
        a = bfloat16(1.0)
        out_f32[0] = a + np.float32(SMALL)  # float32: not rounded to bfloat16
        out_f64[0] = a + TINY  # an int64 or float64 operand: float64
        out_f64[1] = a * 3 + TINY
        out_bf[0] = bfloat16_as_uint16(a + np.int8(1))  # 8-bit ints convert safely: bfloat16
        out_bf[1] = bfloat16_as_uint16(a + bfloat16(TIE))  # tie: to even
        out_f32[1] = a // bfloat16(0.375)  # no bfloat16 floor division: float32's
        out_f32[2] = max(a, bfloat16(-3.0)) + min(bfloat16(2.0), a)
        out_f32[3] = abs(bfloat16(-2.5))

    out_f32, out_f64, out_bf = np.zeros(4, np.float32), np.zeros(2), np.zeros(2, np.uint16)
    k[1, 1](out_f32, out_f64, out_bf)
    assert out_f32[0] == np.float32(1 + 2 ** -20)
    assert out_f64.tolist() == [1 + 2 ** -40, 3 + 2 ** -40]
    assert out_bf.tolist() == [0x4000, 0x3f80]
    assert out_f32[1:].tolist() == [2.0, 2.0, 2.5]


# ---- numba.cuda.bf16's functions ----------------------------------------------------------------

def test_arithmetic_functions():
    @cuda.jit
    def k(x, y, z, out):
        i = cuda.grid(1)
        if i < x.size:
            a, b, c = uint16_as_bfloat16(x[i]), uint16_as_bfloat16(y[i]), uint16_as_bfloat16(z[i])
            out[0, i] = bfloat16_as_uint16(hadd(a, b))
            out[1, i] = bfloat16_as_uint16(hsub(a, b))
            out[2, i] = bfloat16_as_uint16(hmul(a, b))
            out[3, i] = bfloat16_as_uint16(hdiv(a, b))
            out[4, i] = bfloat16_as_uint16(hadd_rn(a, b))
            out[5, i] = bfloat16_as_uint16(hsub_rn(a, b))
            out[6, i] = bfloat16_as_uint16(hmul_rn(a, b))
            out[7, i] = bfloat16_as_uint16(hadd_sat(a, b))
            out[8, i] = bfloat16_as_uint16(hsub_sat(a, b))
            out[9, i] = bfloat16_as_uint16(hmul_sat(a, b))
            out[10, i] = bfloat16_as_uint16(hfma(a, b, c))
            out[11, i] = bfloat16_as_uint16(hfma_sat(a, b, c))
            out[12, i] = bfloat16_as_uint16(hfma_relu(a, b, c))
            out[13, i] = bfloat16_as_uint16(habs(a))
            out[14, i] = bfloat16_as_uint16(hneg(a))

    x, y, z = sample_bits(3000, 5), sample_bits(3000, 6), sample_bits(3000, 7)
    # products a * b that are bfloat16 ties (7 * 37 = 259, 9 * 29 = 261) plus something tiny:
    # rounding the sum in float32 first would round them to even instead of up
    tricky = [(7, 37, 2 ** -20), (9, 29, 2 ** -20), (9, 29, -2 ** -20), (18, 29, 2 ** -100),
              (1.5, 1.5, 2 ** -60), (255, 255, 1), (2 ** 100, 2 ** 100, -1)]
    for j, triple in enumerate(tricky):
        x[j], y[j], z[j] = round_bits(triple)
    out = np.zeros((15, x.size), np.uint16)
    run(k, x, y, z, out)
    a, b = widen(x), widen(y)
    with np.errstate(all="ignore"):
        for row, result in enumerate((a + b, a - b, a * b, a / b, a + b, a - b, a * b)):
            same_bits(out[row], round_bits(result))
        for row, result in ((7, a + b), (8, a - b), (9, a * b)):
            rounded = widen(round_bits(result))
            clamped = np.where(rounded > 0, np.minimum(rounded, 1), 0)  # NaN to +0
            same_bits(out[row], round_bits(clamped))
    fma = np.array([fma_bits(*t) for t in zip(x, y, z)], np.uint16)
    same_bits(out[10], fma)
    assert widen(out[10, :4]).tolist() == [260, 262, 260, 524]
    wide = widen(fma)
    same_bits(out[11], round_bits(np.where(wide > 0, np.minimum(wide, 1), 0)))
    same_bits(out[12], np.where(np.isnan(wide), 0x7fff, np.where(wide < 0, 0, fma)))
    same_bits(out[13], x & 0x7fff)
    same_bits(out[14], x ^ 0x8000)


def test_comparison_functions():
    @cuda.jit
    def k(x, y, flags, out):
        i = cuda.grid(1)
        if i < x.size:
            a, b = uint16_as_bfloat16(x[i]), uint16_as_bfloat16(y[i])
            flags[0, i] = bf16.heq(a, b)
            flags[1, i] = bf16.hne(a, b)
            flags[2, i] = bf16.hge(a, b)
            flags[3, i] = bf16.hgt(a, b)
            flags[4, i] = bf16.hle(a, b)
            flags[5, i] = bf16.hlt(a, b)
            flags[6, i] = bf16.hequ(a, b)
            flags[7, i] = bf16.hneu(a, b)
            flags[8, i] = bf16.hgeu(a, b)
            flags[9, i] = bf16.hgtu(a, b)
            flags[10, i] = bf16.hleu(a, b)
            flags[11, i] = bf16.hltu(a, b)
            flags[12, i] = bf16.hisnan(a)
            out[0, i] = bfloat16_as_int16(bf16.hmax(a, b))
            out[1, i] = bfloat16_as_int16(bf16.hmin(a, b))
            out[2, i] = bfloat16_as_int16(bf16.hmax_nan(a, b))
            out[3, i] = bfloat16_as_int16(bf16.hmin_nan(a, b))
            out[4, i] = bf16.hisinf(a)

    x, y = sample_bits(4000, 8), sample_bits(4000, 9)
    x[:4], y[:4] = [0x0000, 0x8000, 0x7fc0, 0x7fc0], [0x8000, 0x0000, 0x3f80, 0x7fc1]
    y[100:300] = x[100:300]
    flags = np.zeros((13, x.size), np.bool_)
    out = np.zeros((5, x.size), np.int16)
    run(k, x, y, flags, out)
    a, b = widen(x), widen(y)
    unordered = np.isnan(a) | np.isnan(b)
    ordered = (a == b, (a != b) & ~unordered, a >= b, a > b, a <= b, a < b)
    for row, expected in enumerate(ordered):
        assert np.array_equal(flags[row], expected), row
        assert np.array_equal(flags[row + 6], expected | unordered), row + 6
    assert np.array_equal(flags[12], np.isnan(a))

    def max_min(p, q, is_max, propagate):
        fp, fq = widen([p, q])
        if np.isnan(fp) or np.isnan(fq):
            return 0x7fff if propagate or (np.isnan(fp) and np.isnan(fq)) else \
                (q if np.isnan(fp) else p)
        if fp != fq:
            return p if (fp > fq) == is_max else q
        return p & q if is_max else p | q  # +0 above -0

    for row, (is_max, propagate) in enumerate(((1, 0), (0, 0), (1, 1), (0, 1))):
        expected = [max_min(int(p), int(q), is_max, propagate) for p, q in zip(x, y)]
        same_bits(out[row].view(np.uint16), expected)
    assert out[:2, 0].tolist() == [0, -32768] and out[:2, 2].tolist() == [0x3f80, 0x3f80]
    assert np.array_equal(out[4], np.where(np.isinf(a), np.sign(a), 0))


@pytest.mark.parametrize("kind", ["float32", "int16", "uint16", "int32", "uint32", "int64",
                                  "uint64"])
def test_conversions_to_bfloat16_in_each_rounding_mode(kind):
    modes = list(ROUNDINGS)
    calls = "\n".join("            out[%d, i] = bf16.bfloat16_as_uint16("
                      "bf16.%s_to_bfloat16_%s(v[i]))" % (row, kind, mode)
                      for row, mode in enumerate(modes))
    source = ("def k(v, out):\n        i = cuda.grid(1)\n        if i < v.size:\n" + calls + "\n")
    namespace = {"cuda": cuda, "bf16": bf16}
    exec(compile("def make():\n    " + source + "    return k\n", "<bf16 %s>" % kind, "exec"),
         namespace)
    k = cuda.jit(namespace["make"]())

    rng = np.random.default_rng(10)
    if kind == "float32":
        v = np.concatenate([widen(sample_bits(1000, 11)) * np.float32(1 + 2 ** -9),
                            rng.standard_normal(2000).astype(np.float32),
                            widen(sample_bits(1000, 12)),
                            [np.float32(3.4e38), -np.float32(3.4e38), np.float32(2 ** -149)]]
                           ).astype(np.float32)
    else:
        info = np.iinfo(kind)
        v = rng.integers(info.min, info.max, 4000, dtype=kind, endpoint=True)
        v[:2000] >>= rng.integers(0, info.bits - 1, 2000).astype(kind)  # small ones too
        v[:4] = [info.min, info.max, 0, 259 if info.bits > 8 else 1]
    out = np.zeros((4, v.size), np.uint16)
    with np.errstate(invalid="ignore"):
        run(k, v, out)
    for row, mode in enumerate(modes):
        expected = round_bits(v, mode) if kind == "float32" else \
            [round_integer(int(n), mode) for n in v]
        same_bits(out[row], expected)


@pytest.mark.parametrize("kind", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                                  "uint64"])
def test_conversions_from_bfloat16_in_each_rounding_mode(kind):
    short = {"int8": "int8", "uint8": "uint8"}.get(kind)
    modes = ["rz"] if short else list(ROUNDINGS)
    calls = "\n".join("            out[%d, i] = bf16.bfloat16_to_%s_%s(bf16.uint16_as_bfloat16("
                      "bits[i]))" % (row, kind, mode) for row, mode in enumerate(modes))
    source = ("def k(bits, out):\n        i = cuda.grid(1)\n        if i < bits.size:\n" + calls +
              "\n")
    namespace = {"cuda": cuda, "bf16": bf16}
    exec(compile("def make():\n    " + source + "    return k\n", "<bf16 %s>" % kind, "exec"),
         namespace)
    k = cuda.jit(namespace["make"]())
    out = np.zeros((len(modes), ALL_BITS.size), kind)
    run(k, ALL_BITS, out)
    for row, mode in enumerate(modes):
        assert np.array_equal(out[row], to_integer(ALL_BITS, kind, mode)), mode


def test_bit_reinterpretation_keeps_every_pattern():
    @cuda.jit
    def k(u, s, out_u, out_s, wide):
        i = cuda.grid(1)
        if i < u.size:
            out_u[i] = bf16.bfloat16_as_uint16(uint16_as_bfloat16(u[i]))
            out_s[i] = bf16.bfloat16_as_short(bf16.short_as_bfloat16(s[i]))
            wide[i] = bfloat16_to_float32(int16_as_bfloat16(s[i]))

    s = ALL_BITS.view(np.int16)
    out_u, out_s, wide = np.zeros_like(ALL_BITS), np.zeros_like(s), np.zeros(s.size, np.float32)
    run(k, ALL_BITS, s, out_u, out_s, wide)
    same_bits(out_u, ALL_BITS)  # NaN payloads and signs included
    assert np.array_equal(out_s, s)
    assert np.array_equal(wide.view(np.uint32), ALL_BITS.astype(np.uint32) << 16)


def test_math_functions():
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            a = uint16_as_bfloat16(x[i])
            out[0, i] = bfloat16_as_uint16(htrunc(a))
            out[1, i] = bfloat16_as_uint16(hceil(a))
            out[2, i] = bfloat16_as_uint16(hfloor(a))
            out[3, i] = bfloat16_as_uint16(hrint(a))
            out[4, i] = bfloat16_as_uint16(hsqrt(a))
            out[5, i] = bfloat16_as_uint16(hrcp(a))
            out[6, i] = bfloat16_as_uint16(hrsqrt(a))
            out[7, i] = bfloat16_as_uint16(hlog(a))
            out[8, i] = bfloat16_as_uint16(hlog2(a))
            out[9, i] = bfloat16_as_uint16(hlog10(a))
            out[10, i] = bfloat16_as_uint16(hcos(a))
            out[11, i] = bfloat16_as_uint16(hsin(a))
            out[12, i] = bfloat16_as_uint16(htanh(a))
            out[13, i] = bfloat16_as_uint16(htanh_approx(a))
            out[14, i] = bfloat16_as_uint16(hexp(a))
            out[15, i] = bfloat16_as_uint16(hexp2(a))
            out[16, i] = bfloat16_as_uint16(hexp10(a))
            # numba-cuda's overloads of the math module
            out[17, i] = bfloat16_as_uint16(math.sqrt(a))
            out[18, i] = bfloat16_as_uint16(math.floor(a))
            out[19, i] = bfloat16_as_uint16(math.exp(a))

    x = np.concatenate([sample_bits(2000, 13), round_bits([0.5, 1.5, 2.5, -2.5, 3.14, -0.0])])
    x[20:1000] &= 0x7fff  # positive arguments for the roots and logarithms
    out = np.zeros((20, x.size), np.uint16)
    run(k, x, out)
    a = widen(x)
    one = np.float32(1)
    with np.errstate(all="ignore"):
        exact = (np.trunc(a), np.ceil(a), np.floor(a), np.rint(a), np.sqrt(a), one / a)
        for row, result in enumerate(exact):  # exactly rounded
            same_bits(out[row], round_bits(result))
        d = a.astype(np.float64)  # float32's results: exactly rounded from float64's
        approximate = (one / np.sqrt(a), np.log(d), np.log2(d), np.log10(d), np.cos(d), np.sin(d),
                       np.tanh(d), np.tanh(d), np.exp(d), np.exp2(d), np.power(10.0, d))
        for row, result in enumerate(approximate, start=6):  # then rounded to bfloat16
            result = np.asarray(result).astype(np.float32)
            distance = ulp_distance(out[row], round_bits(result))
            assert distance.max() <= 1, (row, np.flatnonzero(distance > 1)[:5])
    same_bits(out[17], out[4])
    same_bits(out[18], out[2])
    same_bits(out[19], out[14])
    assert widen(out[:4, -2]).tolist() == [3.0, 4.0, 3.0, 3.0]  # 3.140625
    assert widen(out[3, -6:-2]).tolist() == [0.0, 2.0, 2.0, -2.0]  # ties to even


# ---- device functions, arrays, arguments ------------------------------------------------------

def test_bfloat16_in_device_functions():
    @cuda.jit(device=True)
    def add(a, b):
        return a + b

    @cuda.jit("__nv_bfloat16(__nv_bfloat16, __nv_bfloat16)", device=True)
    def fused(a, b):
        return hfma(a, b, bfloat16(1.0))

    @cuda.jit
    def k(out):
        a = bfloat16(3.14)
        b = bfloat16(5)
        out[0] = hfloor(add(a, b))  # numba-cuda's test_use_within_device_func
        out[1] = fused(a, b)
        out[2] = add(a, np.float32(0.25))

    out = np.zeros(3, np.float32)
    k[1, 1](out)
    assert out.tolist() == [8.0, float(widen(round_bits([3.140625 * 5 + 1]))[0]), 3.390625]


def test_arrays_of_bfloat16_from_int16_and_uint16_storage():
    @cuda.jit("void(bfloat16[:], bfloat16[:], bfloat16[:, ::1])")
    def k(x, y, out):
        i = cuda.grid(1)
        s = cuda.shared.array(128, bfloat16)
        t = cuda.local.array(2, bfloat16)
        if i < x.size:
            s[cuda.threadIdx.x] = x[i] * y[i]
            t[0] = x[i]
            t[1] = s[cuda.threadIdx.x]
            out[0, i] = t[0] + t[1]
            out[1, i] = x[i] / np.float32(3)  # a float32 stored: rounded to bfloat16

    x, y = sample_bits(1000, 14), sample_bits(1000, 15)
    out = np.zeros((2, x.size), np.uint16)
    run(k, x, y.view(np.int16), out)  # uint16 or int16 bits alike
    a, b = widen(x), widen(y)
    with np.errstate(all="ignore"):
        same_bits(out[0], round_bits(a + widen(round_bits(a * b))))
        same_bits(out[1], round_bits(a / np.float32(3)))
    assert [str(sig[0]) for sig in k.overloads] == ["array(__nv_bfloat16, 1d, A)"]
    with pytest.raises(TypeError, match="No matching definition"):
        k[1, 1](x.view(np.float16), y, out)
    d_x = cuda.to_device(x)  # device arrays of the bits too
    d_out = cuda.device_array_like(out)
    k[8, 128](d_x, y, d_out)
    same_bits(d_out.copy_to_host(), out)


def test_a_uint16_array_viewed_as_bfloat16_in_a_kernel():
    @cuda.jit
    def k(bits, out):
        v = bits.view(bfloat16)
        i = cuda.grid(1)
        if i < v.size:
            out[i] = v[i] * v[i]

    x = sample_bits(500, 16)
    out = np.zeros(x.size, np.float32)
    run(k, x, out)
    with np.errstate(all="ignore"):
        same_bits(round_bits(out), round_bits(widen(x) * widen(x)))


def test_bfloat16_scalar_arguments_round_once():
    @cuda.jit("void(bfloat16, uint16[:])")
    def k(a, out):
        out[0] = bfloat16_as_uint16(a)

    out = np.zeros(1, np.uint16)
    for value, bits in ((0.1, 0x3dcd), (1 + 2 ** -8 + 2 ** -40, 0x3f81), (1 + 2 ** -8, 0x3f80),
                        (np.float32(-2.5), 0xc020), (3, 0x4040), (1e39, 0x7f80)):
        k[1, 1](value, out)
        assert out[0] == bits, value


def test_print_shows_the_value(capfd):
    @cuda.jit
    def k():
        print(bfloat16(1.5), -bfloat16(0.1))

    k[1, 1]()
    cuda.synchronize()
    assert capfd.readouterr().out.split() == ["1.500000", "-0.100098"]


def test_ml_dtypes_arrays_are_bfloat16_arrays():
    ml_dtypes = pytest.importorskip("ml_dtypes")

    @cuda.jit
    def my_ker(arr_in, arr_in2, arr_out):  # numba-cuda's test_cupy_bfloat16_interop
        tid = cuda.grid(1)
        if tid < arr_in.size:
            arr_out[tid] = 2 * arr_in[tid] + 4 * arr_in2[tid] + ml_dtypes.bfloat16(3.0)

    arr = np.asarray([1, 2, 3, 4, 5], dtype=ml_dtypes.bfloat16)
    out = np.empty(arr.size, dtype=ml_dtypes.bfloat16)
    my_ker[1, 32](arr, np.arange(5), out)
    assert (out == 2 * arr + 4 * np.arange(5) + 3.0).all()


# ---- numba-cuda's own tests (cudapy/test_bfloat16.py), with their values ----------------------

def test_numba_cuda_arithmetic_and_saturation():
    @cuda.jit
    def kernel(out):
        a = bfloat16(1.25)
        b = bfloat16(-2.5)
        out[0] = np.float32(habs(b))
        out[1] = np.float32(hadd(a, b))
        out[2] = np.float32(hsub(a, b))
        out[3] = np.float32(hmul(a, b))
        out[4] = np.float32(hdiv(b, a))
        out[5] = np.float32(hneg(a))
        out[6] = np.float32(hfma(a, b, b))
        c, d = bfloat16(1.5), bfloat16(0.75)
        out[7] = np.float32(hadd_sat(c, d))
        out[8] = np.float32(hsub_sat(d, c))
        out[9] = np.float32(hmul_sat(c, d))
        out[10] = np.float32(hfma_sat(c, d, c))
        out[11] = np.float32(hfma_relu(bfloat16(-1.5), bfloat16(2.0), bfloat16(0.0)))

    out = np.zeros(12, np.float32)
    kernel[1, 1](out)
    assert out.tolist() == [2.5, -1.25, 3.75, -3.125, -2.0, -1.25, -5.625, 1.0, 0.0, 1.0, 1.0,
                            0.0]


def test_numba_cuda_nan_inf_and_conversions():
    @cuda.jit
    def kernel(test_val, i2, u2, ints, floats, flags):
        nanv = bfloat16(float("nan"))
        infv = bfloat16(float("inf"))
        flags[0] = bf16.hisnan(nanv)
        flags[1] = bf16.hisinf(infv) != 0
        floats[0] = np.float32(bf16.hmax_nan(nanv, bfloat16(2.0)))
        floats[1] = np.float32(bf16.hmax(nanv, bfloat16(2.0)))
        floats[2] = bfloat16_to_float32(bfloat16(1.5))
        i2[0] = int16_as_bfloat16(bfloat16_as_int16(test_val))  # implicit conversions
        u2[0] = uint16_as_bfloat16(bfloat16_as_uint16(test_val))
        a = int16_as_bfloat16(np.int16(0x3FC0))  # 1.5
        ints[0] = bf16.bfloat16_to_int8_rz(a)
        ints[1] = bf16.bfloat16_to_int16_rn(a)
        ints[2] = bf16.bfloat16_to_int32_rz(a)
        ints[3] = bf16.bfloat16_to_int64_rd(a)
        ints[4] = bf16.bfloat16_to_uint64_ru(a)
        ints[5] = bf16.bfloat16_as_int16(bf16.int32_to_bfloat16_rn(np.int32(789)))

    test_val = np.int16(0x3FC0)
    i2, u2 = np.zeros(1, np.int16), np.zeros(1, np.uint16)
    ints, floats, flags = np.zeros(6, np.int64), np.zeros(3, np.float32), np.zeros(2, np.bool_)
    kernel[1, 1](test_val, i2, u2, ints, floats, flags)
    assert flags.all() and math.isnan(floats[0]) and floats[1:].tolist() == [2.0, 1.5]
    assert i2[0] == test_val and u2[0] == test_val
    assert ints.tolist() == [1, 2, 1, 1, 2, round_integer(789)]


# ---- errors and the GPU ---------------------------------------------------------------------

def test_unsupported_uses_are_compile_errors():
    def atomic(a):
        cuda.atomic.add(a, 0, bfloat16(1.0))

    def complex_arg(a):
        a[0] = hadd(a[0], 1j)

    def missing(a):
        a[0] = bf16.hdiv2(a[0], a[0])

    for fn, message in ((atomic, "atomic"), (complex_arg, "does not accept complex128"),
                        (missing, "has no attribute 'hdiv2'")):
        with pytest.raises(CompileError, match=message):
            cuda.jit("void(bfloat16[:])")(fn)


PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas"
                                   if os.access("/usr/local/cuda/bin/ptxas", os.X_OK) else None)


def ptx_kernel(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i] * y[i] - bfloat16(0.5)
        out[i] = hfma(a, x[i], bf16.float32_to_bfloat16_ru(np.float32(out[i])))


@pytest.mark.parametrize("cc", [(7, 5), (8, 0), (9, 0)])
def test_ptx_uses_native_bfloat16_from_sm_80(cc, tmp_path):
    ptx, _ = cuda.compile_ptx(ptx_kernel, "void(bfloat16[:], bfloat16[:], bfloat16[:])", cc=cc)
    native = cc >= (8, 0)
    assert ("cvt.rn.bf16.f32" in ptx) == native
    assert ("fma.rn.bf16" in ptx) == native
    if PTXAS is None:
        pytest.skip("ptxas is not installed")
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    arch = "sm_%d%d" % cc
    run = subprocess.run([PTXAS, "-arch=" + arch, str(path), "-o", os.devnull],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_gpu_parity_compares_bfloat16_arrays_as_numbers():
    from simt.compiler import targets
    sim = round_bits([1.0, 2.0, 3.0])
    gpu = sim.copy()
    gpu[1] += 1  # one bfloat16 step: within SIMT_TARGET=both's tolerance for bfloat16
    assert targets._first_difference(gpu, sim, bfloat16=True) is None
    assert targets._first_difference(gpu, sim)[0] == (1,)  # as uint16 bits: exactly
    gpu[2] = round_bits([3.5])[0]
    index, gpu_value, sim_value, count = targets._first_difference(gpu, sim, bfloat16=True)
    assert (index, gpu_value, sim_value, count) == ((2,), 3.5, 3.0, 1)
    kernel = targets.ParityKernel(None, None, ["x", "n"], (bfloat16[:], bfloat16))
    assert kernel._bfloat16 == [True, False]


def test_numba_cuda_bf16_under_the_hook():
    proc = run_python(["-c", """if 1:
        import simt.hook; simt.hook.install()
        import numpy as np
        from numba import cuda
        from numba.cuda import bf16
        from numba.cuda.bf16 import bfloat16, hadd, float32_to_bfloat16_rz
        from numba.cuda.types import bfloat16 as the_type
        import numba.cuda.bf16
        assert the_type is bfloat16 and numba.cuda.bf16 is bf16 and bf16.hadd is hadd
        assert cuda.is_bfloat16_supported()

        @cuda.jit
        def k(out):
            out[0] = np.float32(hadd(bfloat16(1.5), float32_to_bfloat16_rz(np.float32(0.3))))

        out = np.zeros(1, np.float32)
        k[1, 1](out)
        print(out[0])
        """])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["1.796875"]


def test_host_rounding_of_python_floats_matches_the_kernels():
    from simt.types import bfloat16_bits
    values = [0.1, -3.01, 1e-40, 3.4e38, 3.39e38, -7e38, 1.0, 0.0, float("inf")]
    expected = [int(b) for b in round_bits(np.array(values[:-1], np.float64))]
    assert [bfloat16_bits(v) for v in values[:-1]] == expected
    assert bfloat16_bits(float("inf")) == 0x7f80
    assert bfloat16_bits(float("nan")) == 0x7fff
