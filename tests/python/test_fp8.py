"""numba-cuda's FP8 conversion intrinsics (numba.cuda._internal.cuda_fp8's cvt_float_to_fp8,
cvt_double_to_fp8, cvt_float_to_e8m0, cvt_double_to_e8m0 and their float2/double2 forms) in
kernels, bit for bit: against a
NumPy reference written from the formats' definitions (every code's value; round to nearest
even; E4M3 without infinity, E5M2 IEEE-like; E8M0 powers of two rounded toward zero or up), on
all 256 codes' values, the midpoints between them and their neighbours, powers of two, float32
edge cases and random bit patterns; against CUDA's own cuda_fp8.h compiled for the host by nvcc
where the toolkit is installed; against ml_dtypes' float8 types (NOSAT) where ml_dtypes is;
under the import hook as numba.cuda._internal.cuda_fp8 (numba-cuda) and numba.cuda.fp8; and
as PTX that ptxas assembles."""
import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import run_python
from simt import cuda
from simt.errors import CompileError
from simt.fp8 import (cudaRoundMode, cvt_double2_to_e8m0x2, cvt_double2_to_fp8x2,
                      cvt_double_to_e8m0, cvt_double_to_fp8, cvt_float2_to_e8m0x2,
                      cvt_float2_to_fp8x2, cvt_float_to_e8m0, cvt_float_to_fp8,
                      fp8_interpretation_t, saturation_t)

NOSAT, SATFINITE = saturation_t.NOSAT, saturation_t.SATFINITE
E4M3, E5M2 = fp8_interpretation_t.E4M3, fp8_interpretation_t.E5M2
RZ, RP = cudaRoundMode.cudaRoundZero, cudaRoundMode.cudaRoundPosInf

# (mantissa bits, bias, has infinity) of fp8_interpretation_t's formats
FORMATS = {E4M3: (3, 7, False), E5M2: (2, 15, True)}


def code_values(interpretation):
    """The value of every code 0..0x7F as a normal/subnormal number (NaN/Inf codes included, as
    the numbers their bits would be): index = code."""
    m, bias, _ = FORMATS[interpretation]
    codes = np.arange(128)
    exponent, mantissa = codes >> m, codes & ((1 << m) - 1)
    normal = np.ldexp(1.0 + mantissa / 2.0**m, exponent - bias)
    subnormal = np.ldexp(mantissa / 2.0**m, 1 - bias)
    return np.where(exponent == 0, subnormal, normal)


def max_norm(interpretation):
    return 0x7B if FORMATS[interpretation][2] else 0x7E


def reference_fp8(x, saturate, interpretation):
    """Codes of the doubles `x`: |x| rounded to the nearest code value, ties to the even code;
    one that rounds past the largest finite code overflows (to it under SATFINITE, else to
    infinity or, in E4M3, NaN); NaN is 0x7F (E4M3) or 0x7E with the top two significand bits
    (E5M2); the sign bit is x's."""
    x = np.asarray(x, np.float64)
    top = max_norm(interpretation)
    values = code_values(interpretation)[:top + 2]  # one code past the largest finite one
    a = np.abs(x)
    finite = np.where(np.isfinite(a), a, 0.0)
    above = np.clip(np.searchsorted(values, finite, side="left"), 1, top + 1)
    below = above - 1
    lo, hi = values[below], values[above]
    pick_hi = (finite - lo > hi - finite) | ((finite - lo == hi - finite) & (above % 2 == 0))
    code = np.where(pick_hi, above, below)
    code = np.where(finite > values[-1], top + 1, code)
    overflow = (code > top) | np.isinf(a)
    overflow_code = top if saturate == SATFINITE else (0x7C if interpretation == E5M2 else 0x7F)
    code = np.where(overflow, overflow_code, code)
    bits = x.view(np.uint64)
    nan_code = 0x7F if interpretation == E4M3 else 0x7E | ((bits >> 50) & 3).astype(np.int64)
    code = np.where(np.isnan(x), nan_code, code)
    return (code | ((bits >> 56) & 0x80).astype(np.int64)).astype(np.uint8)


def reference_e8m0(x, saturate, rounding):
    """E8M0 codes of the doubles `x` (already exactly the float for the float functions): the
    exponent of |x|, 2^(code - 127), rounded toward zero (at least code 0, at most 0xFE for a
    finite x) or up (at least code 0); beyond 0xFE NaN (0xFF), or 0xFE under SATFINITE; NaN 0xFF."""
    a = np.abs(np.asarray(x, np.float64))
    mantissa, exponent = np.frexp(np.where(np.isfinite(a) & (a > 0), a, 1.0))
    floor_log2 = exponent.astype(np.int64) - 1
    log2 = floor_log2 if rounding == RZ else np.where(mantissa == 0.5, floor_log2, floor_log2 + 1)
    code = np.clip(log2 + 127, 0, 255)
    if rounding == RZ:
        code = np.minimum(code, 0xFE)
    code = np.where(a == 0, 0, code)
    code = np.where(np.isinf(a), 0xFF, code)
    if saturate == SATFINITE:
        code = np.minimum(code, 0xFE)
    return np.where(np.isnan(a), 0xFF, code).astype(np.uint8)


def edge_inputs():
    """Doubles: every code's value of both formats, signed, the midpoints between neighbouring
    codes and a float32 / float64 ulp either side, powers of two across float32's range and
    beyond, specials, and random float32 and float64 bit patterns."""
    rng = np.random.default_rng(8)
    parts = []
    for interpretation in (E4M3, E5M2):
        v = code_values(interpretation)
        mid = (v[:-1] + v[1:]) / 2
        for points in (v, mid):
            parts += [points, np.nextafter(points, np.inf), np.nextafter(points, -np.inf),
                      points.astype(np.float32).astype(np.float64)]
        f32 = mid.astype(np.float32)
        parts += [np.nextafter(f32, np.float32(np.inf)).astype(np.float64),
                  np.nextafter(f32, np.float32(-np.inf)).astype(np.float64)]
    powers = np.ldexp(1.0, np.arange(-160, 140))
    parts += [powers, powers * (1 + 2.0**-23), powers * (1 - 2.0**-24), powers * (1 + 2.0**-40),
              powers * 1.5, powers * (1 - 2.0**-40)]
    f32_bits = rng.integers(0, 2**32, 40000, dtype=np.uint64).astype(np.uint32)
    with np.errstate(invalid="ignore"):  # signalling NaNs among them
        parts.append(f32_bits.view(np.float32).astype(np.float64))
    parts.append(rng.integers(0, 2**64, 20000, dtype=np.uint64).view(np.float64))
    parts.append(rng.standard_normal(20000) * 300)
    specials = [0.0, np.inf, np.nan, float(np.finfo(np.float32).max),
                float(np.finfo(np.float32).tiny), 2.0**-149, float(np.finfo(np.float64).max),
                2.0**128, 2.0**127 * (2 - 2.0**-30), 5e-324]
    parts.append(np.array(specials))
    values = np.concatenate(parts)
    values = np.concatenate([values, -values])
    nan_bits = np.array([0x7FF8000000000000, 0x7FF4000000000000, 0x7FF0000000000001,
                         0x7FFC000000000000, 0xFFF8000000000000, 0xFFFE000000000000],
                        np.uint64)
    return np.concatenate([values, nan_bits.view(np.float64)])


# the columns of fp8_kernel's output and of the nvcc reference, in the reference's order
COLUMNS = ([("float", "fp8", s, i) for s in (NOSAT, SATFINITE) for i in (E4M3, E5M2)] +
           [("double", "fp8", s, i) for s in (NOSAT, SATFINITE) for i in (E4M3, E5M2)] +
           [("float", "e8m0", s, r) for s in (NOSAT, SATFINITE) for r in (RZ, RP)] +
           [("double", "e8m0", s, r) for s in (NOSAT, SATFINITE) for r in (RZ, RP)])


@cuda.jit
def fp8_kernel(out, xf, xd):
    i = cuda.grid(1)
    if i < xd.size:
        f, d = xf[i], xd[i]
        out[i, 0] = cvt_float_to_fp8(f, NOSAT, E4M3)
        out[i, 1] = cvt_float_to_fp8(f, NOSAT, E5M2)
        out[i, 2] = cvt_float_to_fp8(f, SATFINITE, E4M3)
        out[i, 3] = cvt_float_to_fp8(f, SATFINITE, E5M2)
        out[i, 4] = cvt_double_to_fp8(d, NOSAT, E4M3)
        out[i, 5] = cvt_double_to_fp8(d, NOSAT, E5M2)
        out[i, 6] = cvt_double_to_fp8(d, SATFINITE, E4M3)
        out[i, 7] = cvt_double_to_fp8(d, SATFINITE, E5M2)
        out[i, 8] = cvt_float_to_e8m0(f, NOSAT, RZ)
        out[i, 9] = cvt_float_to_e8m0(f, NOSAT, RP)
        out[i, 10] = cvt_float_to_e8m0(f, SATFINITE, RZ)
        out[i, 11] = cvt_float_to_e8m0(f, SATFINITE, RP)
        out[i, 12] = cvt_double_to_e8m0(d, NOSAT, RZ)
        out[i, 13] = cvt_double_to_e8m0(d, NOSAT, RP)
        out[i, 14] = cvt_double_to_e8m0(d, SATFINITE, RZ)
        out[i, 15] = cvt_double_to_e8m0(d, SATFINITE, RP)


def run_fp8_kernel(xd):
    with np.errstate(over="ignore", invalid="ignore"):
        xf = xd.astype(np.float32)
    out = np.zeros((xd.size, len(COLUMNS)), np.uint8)
    fp8_kernel[(xd.size + 127) // 128, 128](out, xf, xd)
    return out


@pytest.fixture(scope="module")
def edge_results():
    xd = edge_inputs()
    return xd, run_fp8_kernel(xd)


def reference_column(xd, column):
    width, target, saturate, mode = column
    with np.errstate(over="ignore", invalid="ignore"):  # the float functions' inputs: as float32
        x = xd.astype(np.float32).astype(np.float64) if width == "float" else xd
    if target == "fp8" and width == "float":  # cuda_fp8.h: a NaN float becomes 0x7FFFFFFF
        canonical = np.array([0x7FFFFFFF], np.uint32).view(np.float32).astype(np.float64)
        x = np.where(np.isnan(x), canonical, x)
    if target == "fp8":
        return reference_fp8(x, saturate, mode)
    return reference_e8m0(x, saturate, mode)  # a double's rounded once, from its own exponent


def assert_codes_equal(got, expected, xd, what):
    wrong = np.flatnonzero(got != expected)
    if wrong.size:
        i = wrong[0]
        pytest.fail("%s: %d of %d differ, first x=%r (bits %#x): got %#x, expected %#x" % (
            what, wrong.size, got.size, xd[i], xd[i:i + 1].view(np.uint64)[0], got[i],
            expected[i]))


@pytest.mark.parametrize("index", range(len(COLUMNS)), ids=lambda i: "%s-%s-%s-%s" % (
    COLUMNS[i][0], COLUMNS[i][1], COLUMNS[i][2].name, COLUMNS[i][3].name))
def test_conversions_match_the_format_definitions(edge_results, index):
    xd, out = edge_results
    assert_codes_equal(out[:, index], reference_column(xd, COLUMNS[index]), xd,
                       str(COLUMNS[index]))


NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                 if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else None)


def test_conversions_match_cuda_fp8_h(edge_results, tmp_path):
    """CUDA's cuda_fp8.h, compiled for the host (its software conversions), on every input."""
    if NVCC is None:
        pytest.skip("nvcc is not installed")
    source = Path(__file__).with_name("fp8_reference.cu")
    binary = tmp_path / "fp8_reference"
    build = subprocess.run([NVCC, "-O1", "-o", str(binary), str(source)], capture_output=True,
                           text=True)
    if build.returncode != 0:
        pytest.skip("nvcc cannot build the host reference: " + build.stderr[-300:])
    xd, out = edge_results
    (tmp_path / "in.bin").write_bytes(xd.tobytes())
    subprocess.run([str(binary), str(tmp_path / "in.bin"), str(tmp_path / "out.bin")], check=True)
    cuda_codes = np.fromfile(tmp_path / "out.bin", np.uint8).reshape(xd.size, len(COLUMNS))
    for index, column in enumerate(COLUMNS):
        assert_codes_equal(out[:, index], cuda_codes[:, index], xd, "cuda_fp8.h " + str(column))


@cuda.jit
def fp8x2_kernel(out, xf, xd):
    i = cuda.grid(1)
    if i < xd.size:
        j = xd.size - 1 - i
        f2 = cuda.float32x2(xf[i], xf[j])
        d2 = cuda.float64x2(xd[i], xd[j])
        out[i, 0] = cvt_float2_to_fp8x2(f2, SATFINITE, E4M3)
        out[i, 1] = cvt_float2_to_fp8x2(f2, NOSAT, E5M2)
        out[i, 2] = cvt_double2_to_fp8x2(d2, NOSAT, E4M3)
        out[i, 3] = cvt_double2_to_fp8x2(d2, SATFINITE, E5M2)
        out[i, 4] = cvt_float2_to_e8m0x2(f2, NOSAT, RP)
        out[i, 5] = cvt_float2_to_e8m0x2(f2, SATFINITE, RZ)
        out[i, 6] = cvt_double2_to_e8m0x2(d2, SATFINITE, RP)
        out[i, 7] = cvt_double2_to_e8m0x2(d2, NOSAT, RZ)


def test_vector_forms_pack_x_low_and_y_high(edge_results):
    """cvt_float2_to_fp8x2 & co. of float32x2 / float64x2 vectors: (code(v.y) << 8) | code(v.x)."""
    xd, out = edge_results
    with np.errstate(over="ignore", invalid="ignore"):
        xf = xd.astype(np.float32)
    pairs = np.zeros((xd.size, 8), np.uint16)
    fp8x2_kernel[(xd.size + 127) // 128, 128](pairs, xf, xd)
    scalar_columns = [COLUMNS.index(c) for c in (
        ("float", "fp8", SATFINITE, E4M3), ("float", "fp8", NOSAT, E5M2),
        ("double", "fp8", NOSAT, E4M3), ("double", "fp8", SATFINITE, E5M2),
        ("float", "e8m0", NOSAT, RP), ("float", "e8m0", SATFINITE, RZ),
        ("double", "e8m0", SATFINITE, RP), ("double", "e8m0", NOSAT, RZ))]
    for k, column in enumerate(scalar_columns):
        codes = out[:, column].astype(np.uint16)
        assert_codes_equal(pairs[:, k], (codes[::-1] << 8) | codes, xd, str(COLUMNS[column]))


def test_nosat_matches_ml_dtypes(edge_results):
    """ml_dtypes' float8_e4m3fn / float8_e5m2 round to nearest even without saturating: the
    NOSAT codes of every non-NaN float32 (ml_dtypes rounds a float64 to float32 first)."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    xd, out = edge_results
    with np.errstate(over="ignore", invalid="ignore"):
        xf = xd.astype(np.float32)
    keep = ~np.isnan(xf)
    for index, dtype in ((0, ml_dtypes.float8_e4m3fn), (1, ml_dtypes.float8_e5m2)):
        with np.errstate(over="ignore", invalid="ignore"):
            expected = xf[keep].astype(dtype).view(np.uint8)
        if dtype == ml_dtypes.float8_e4m3fn:  # its NaN of an overflow has the input's sign
            expected = np.where((expected & 0x7F) == 0x7F, 0x7F | (expected & 0x80), expected)
        assert_codes_equal(out[keep, index], expected, xd[keep], "ml_dtypes " + dtype.__name__)


def test_every_code_round_trips_through_float():
    """Each finite code's value converts back to that code, in both saturation modes."""
    for interpretation in (E4M3, E5M2):
        top = max_norm(interpretation)
        values = code_values(interpretation)[:top + 1]
        xd = np.concatenate([values, -values])
        out = run_fp8_kernel(xd)
        column = 0 if interpretation == E4M3 else 1
        codes = np.concatenate([np.arange(top + 1), np.arange(top + 1) | 0x80]).astype(np.uint8)
        np.testing.assert_array_equal(out[:, column], codes)
        np.testing.assert_array_equal(out[:, column + 2], codes)
    powers = np.ldexp(1.0, np.arange(-127, 128))
    out = run_fp8_kernel(powers)
    for column in range(8, 16):
        np.testing.assert_array_equal(out[:, column], np.arange(255, dtype=np.uint8))


def test_numba_cuda_test_suite_cases():
    """The values numba-cuda's own tests (test_fp8_bindings.py) check on a GPU."""
    above_2_127 = float(np.nextafter(np.float32(2.0**127), np.float32(np.inf)))
    out = run_fp8_kernel(np.array([1e20, 1e300, above_2_127, np.nextafter(2.0**127, np.inf)]))
    assert list(out[0, :4]) == [0x7F, 0x7C, 0x7E, 0x7B]  # float: NOSAT E4M3/E5M2, SATFINITE
    assert list(out[1, 4:8]) == [0x7F, 0x7C, 0x7E, 0x7B]  # double
    assert list(out[2, [9, 11]]) == [0xFF, 0xFE]  # float, cudaRoundPosInf: NOSAT, SATFINITE
    assert list(out[3, [13, 15]]) == [0xFF, 0xFE]  # double


def test_arguments_convert_and_are_checked():
    @cuda.jit
    def ints(out, x):
        out[0] = cvt_float_to_fp8(x[0], 1, 0)  # plain ints for the enums
        out[1] = cvt_double_to_e8m0(x[0], np.int64(0), 2)
        out[2] = cvt_float_to_fp8(np.float32(3), SATFINITE, E5M2)  # an integer value converts

    out = np.zeros(3, np.uint8)
    ints[1, 1](out, np.array([1e6], np.float32))
    assert list(out) == [0x7E, 0x93, 0x42]

    def complex_arg(out):
        out[0] = cvt_float_to_fp8(1j, NOSAT, E4M3)

    def float_mode(out):
        out[0] = cvt_float_to_fp8(1.0, NOSAT, 0.5)

    def arity(out):
        out[0] = cvt_float_to_fp8(1.0, NOSAT)

    def wrong_vector(out):
        out[0] = cvt_float2_to_fp8x2(cuda.float64x2(1.0, 2.0), NOSAT, E4M3)

    for fn, message in ((complex_arg, "does not accept complex128"),
                        (wrong_vector, "does not accept float64x2"),
                        (float_mode, "does not accept float64"),
                        (arity, "expects 3 arguments, got 2")):
        with pytest.raises(CompileError, match=message):
            cuda.jit("void(uint8[:])")(fn)


PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas"
                                   if os.access("/usr/local/cuda/bin/ptxas", os.X_OK) else None)


@pytest.mark.parametrize("cc", [(7, 5), (8, 9), (9, 0)])
def test_ptx_assembles(cc, tmp_path):
    for kernel, out in ((fp8_kernel, "uint8"), (fp8x2_kernel, "uint16")):
        ptx, _ = cuda.compile_ptx(kernel, "void(%s[:, :], float32[:], float64[:])" % out, cc=cc)
        if PTXAS is None:
            pytest.skip("ptxas is not installed")
        path = tmp_path / "k.ptx"
        path.write_text(ptx)
        run = subprocess.run([PTXAS, "-arch=sm_%d%d" % cc, str(path), "-o", os.devnull],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr


def test_modules_under_the_hook():
    """numba.cuda.fp8 (both hosts) and numba.cuda._internal.cuda_fp8 (numba-cuda, whose cuda
    package has it) are simt.fp8; numba-cuda's tests take cudaRoundMode from cuda.bindings."""
    proc = run_python(["-c", """if 1:
        import importlib.util
        import simt.hook; simt.hook.install()
        import numpy as np
        from numba import cuda
        import numba.cuda.fp8 as fp8
        import simt.fp8
        assert fp8 is simt.fp8 and cuda.fp8 is simt.fp8
        names = ["numba.cuda.fp8"]
        try:
            from numba.cuda._internal import cuda_fp8
            from cuda.bindings.runtime import cudaRoundMode
        except ImportError:
            cudaRoundMode = fp8.cudaRoundMode
        else:
            assert cuda_fp8 is simt.fp8
            names.append("numba.cuda._internal.cuda_fp8")

        @cuda.jit
        def k(out, x):
            out[0] = fp8.cvt_float_to_fp8(x[0], fp8.saturation_t.NOSAT,
                                          fp8.fp8_interpretation_t.E4M3)
            out[1] = fp8.cvt_float_to_e8m0(x[0], fp8.saturation_t.NOSAT,
                                           cudaRoundMode.cudaRoundPosInf)

        out = np.zeros(2, np.uint8)
        k[1, 1](out, np.array([1e20], np.float32))
        print(" ".join(names), out[0], out[1])
        """])
    assert proc.returncode == 0, proc.stderr
    names = ["numba.cuda.fp8"]
    if importlib.util.find_spec("numba_cuda") is not None:
        names.append("numba.cuda._internal.cuda_fp8")
    assert proc.stdout.split() == names + ["127", "194"]
