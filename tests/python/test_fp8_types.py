"""numba-cuda's FP8 value types (numba.cuda._internal.cuda_fp8's fp8_e4m3, fp8_e5m2, fp8_e8m0 and
their x2 / x4 forms) and its bfloat16_raw conversions in kernels, bit for bit against CUDA's own
cuda_fp8.h compiled for the host by nvcc (fp8_types_reference.cu): every constructor from
float32, float64, float16, bfloat16 and the integer types, and every conversion back (float32,
float64, float16, bfloat16, the integer types, bool), on every code's value, the midpoints
between codes, powers of two and random bit patterns (test_fp8.edge_inputs); the x2 / x4 forms'
packing; what the types refuse; and PTX that ptxas assembles."""
import subprocess
from pathlib import Path

import numpy as np
import pytest

from simt import cuda
from simt.errors import CompileError
from simt.fp8 import (cudaRoundMode, cvt_bfloat16raw_to_e8m0, cvt_bfloat16raw_to_fp8,
                      cvt_e8m0_to_bf16raw, cvt_float_to_e8m0, cvt_float_to_fp8, fp8_e4m3,
                      fp8_e5m2, fp8_e8m0, fp8_interpretation_t, fp8x2_e4m3, fp8x2_e5m2,
                      fp8x2_e8m0, fp8x4_e4m3, fp8x4_e5m2, fp8x4_e8m0, saturation_t)
from simt.types import (bfloat16, float16, float32, float64, int16, int32, int64, int8, uint16,
                        uint32, uint64, uint8)
from test_fp8 import NVCC, PTXAS, edge_inputs

SCALAR_TYPES = (fp8_e4m3, fp8_e5m2, fp8_e8m0)
PAIR_TYPES = (fp8x2_e4m3, fp8x2_e5m2, fp8x2_e8m0)
QUAD_TYPES = (fp8x4_e4m3, fp8x4_e5m2, fp8x4_e8m0)

FROM_DOUBLE = np.dtype([
    ("of_float", "u1"), ("of_double", "u1"), ("of_half", "u1"), ("of_bfloat16", "u1"),
    ("to_float", "<u4"), ("to_double", "<u8"), ("to_half", "<u2"), ("to_bfloat16", "<u4"),
    ("to_uchar", "u1"), ("to_schar", "i1"), ("to_ushort", "<u2"), ("to_short", "<i2"),
    ("to_uint", "<u4"), ("to_int", "<i4"), ("to_ull", "<u8"), ("to_ll", "<i8"), ("to_bool", "u1")])
FROM_INT = np.dtype([("of_ll", "u1"), ("of_ull", "u1"), ("of_int", "u1"), ("of_uint", "u1"),
                     ("of_short", "u1"), ("of_ushort", "u1")])
INTEGER_COLUMNS = ("to_uchar", "to_schar", "to_ushort", "to_short", "to_uint", "to_int",
                   "to_ull", "to_ll", "to_bool")


def decode(codes, type_index):
    """The float32 values of codes of fp8_e4m3 (0), fp8_e5m2 (1) or fp8_e8m0 (2)."""
    c = codes.astype(np.int64)
    if type_index == 2:
        return np.where(c == 0xFF, np.nan, np.ldexp(1.0, c - 127)).astype(np.float32)
    m, bias = (3, 7) if type_index == 0 else (2, 15)
    a = c & 0x7F
    e, mantissa = a >> m, a & ((1 << m) - 1)
    value = np.where(e == 0, np.ldexp(mantissa / 2.0**m, 1 - bias),
                     np.ldexp(1.0 + mantissa / 2.0**m, e - bias))
    if type_index == 1:
        value = np.where(a == 0x7C, np.inf, np.where(a > 0x7C, np.nan, value))
    else:
        value = np.where(a == 0x7F, np.nan, value)
    return np.where(c & 0x80, -value, value).astype(np.float32)


def integer_inputs():
    """int64s: around every power of two (and its negation), small values, the extremes, random."""
    powers = [1 << k for k in range(63)]
    near = [p + d for p in powers for d in (-1, 0, 1)] + [(1 << 63) - 1, -(1 << 63)]
    rng = np.random.default_rng(3)
    values = np.array(near + [-n for n in near[:-1]] + list(range(-300, 300)), np.int64)
    return np.concatenate([values, rng.integers(-2**63, 2**63 - 1, 5000, dtype=np.int64)])


@pytest.fixture(scope="module")
def cuda_reference(tmp_path_factory):
    if NVCC is None:
        pytest.skip("nvcc is not installed")
    tmp = tmp_path_factory.mktemp("fp8_types")
    binary = tmp / "reference"
    build = subprocess.run(
        [NVCC, "-O1", "-o", str(binary), str(Path(__file__).with_name("fp8_types_reference.cu"))],
        capture_output=True, text=True)
    if build.returncode != 0:
        pytest.skip("nvcc cannot build the host reference: " + build.stderr[-300:])
    xd, xn = edge_inputs(), integer_inputs()
    (tmp / "d.bin").write_bytes(xd.tobytes())
    (tmp / "n.bin").write_bytes(xn.tobytes())
    subprocess.run([str(binary), str(tmp / "d.bin"), str(tmp / "n.bin"), str(tmp / "out.bin")],
                   check=True)
    raw = (tmp / "out.bin").read_bytes()
    split = xd.size * 3 * FROM_DOUBLE.itemsize
    from_double = np.frombuffer(raw[:split], FROM_DOUBLE).reshape(xd.size, 3)
    from_int = np.frombuffer(raw[split:], FROM_INT).reshape(xn.size, 3)
    return xd, xn, from_double, from_int


def conversions_kernel(fp8_type):
    @cuda.jit
    def kernel(xd, made, floats, doubles, halves, ints):
        i = cuda.grid(1)
        if i < xd.size:
            d = xd[i]
            f = float32(d)
            made[i, 0] = float32(fp8_type(f))
            made[i, 1] = float32(fp8_type(d))
            made[i, 2] = float32(fp8_type(float16(f)))
            made[i, 3] = float32(fp8_type(bfloat16(f)))
            v = fp8_type(f)
            floats[i, 0] = float32(v)
            floats[i, 1] = float32(bfloat16(v))
            doubles[i] = float64(v)
            halves[i] = float16(v)
            ints[i, 0] = uint8(v)
            ints[i, 1] = int8(v)
            ints[i, 2] = uint16(v)
            ints[i, 3] = int16(v)
            ints[i, 4] = uint32(v)
            ints[i, 5] = int32(v)
            ints[i, 6] = uint64(v)
            ints[i, 7] = int64(v)
            ints[i, 8] = bool(v)
    return kernel


def integer_kernel(fp8_type):
    @cuda.jit
    def kernel(xn, made):
        i = cuda.grid(1)
        if i < xn.size:
            n = xn[i]
            made[i, 0] = float32(fp8_type(n))
            made[i, 1] = float32(fp8_type(uint64(n)))
            made[i, 2] = float32(fp8_type(int32(n)))
            made[i, 3] = float32(fp8_type(uint32(n)))
            made[i, 4] = float32(fp8_type(int16(n)))
            made[i, 5] = float32(fp8_type(uint16(n)))
    return kernel


def same_floats(got, expected):
    return (got.view(np.uint32) == expected.view(np.uint32)) | (np.isnan(got) & np.isnan(expected))


def assert_all(ok, what, inputs, got, expected):
    wrong = np.flatnonzero(~ok)
    if wrong.size:
        i = wrong[0]
        pytest.fail("%s: %d of %d differ, first input %r: got %r, expected %r" % (
            what, wrong.size, ok.size, inputs[i], got[i], expected[i]))


@pytest.mark.parametrize("index", range(3), ids=lambda i: SCALAR_TYPES[i].__name__)
def test_constructors_and_conversions_match_cuda_fp8_h(cuda_reference, index):
    xd, _, from_double, _ = cuda_reference
    reference = from_double[:, index]
    n = xd.size
    made, floats = np.zeros((n, 4), np.float32), np.zeros((n, 2), np.float32)
    doubles, halves, ints = np.zeros(n), np.zeros(n, np.float16), np.zeros((n, 9), np.int64)
    conversions_kernel(SCALAR_TYPES[index])[(n + 127) // 128, 128](xd, made, floats, doubles,
                                                                  halves, ints)
    for column, field in enumerate(("of_float", "of_double", "of_half", "of_bfloat16")):
        expected = decode(reference[field], index)
        assert_all(same_floats(made[:, column], expected), field, xd, made[:, column], expected)
    to_float = reference["to_float"].view(np.float32)
    assert_all(floats[:, 0].view(np.uint32) == reference["to_float"], "to_float", xd,
               floats[:, 0], to_float)
    to_bfloat16 = reference["to_bfloat16"].view(np.float32)
    assert_all(same_floats(floats[:, 1], to_bfloat16), "to_bfloat16", xd, floats[:, 1],
               to_bfloat16)
    assert_all(doubles.view(np.uint64) == reference["to_double"], "to_double", xd, doubles,
               reference["to_double"].view(np.float64))
    to_half = reference["to_half"].view(np.float16)
    assert_all((halves.view(np.uint16) == reference["to_half"]) |
               (np.isnan(halves) & np.isnan(to_half)), "to_half", xd, halves, to_half)
    for column, field in enumerate(INTEGER_COLUMNS):
        expected = reference[field].astype(np.int64) if field != "to_ull" else \
            reference[field].view(np.int64)
        assert_all(ints[:, column] == expected, field, xd, ints[:, column], expected)


@pytest.mark.parametrize("index", range(3), ids=lambda i: SCALAR_TYPES[i].__name__)
def test_integer_constructors_match_cuda_fp8_h(cuda_reference, index):
    _, xn, _, from_int = cuda_reference
    made = np.zeros((xn.size, 6), np.float32)
    integer_kernel(SCALAR_TYPES[index])[(xn.size + 127) // 128, 128](xn, made)
    for column, field in enumerate(FROM_INT.names):
        expected = decode(from_int[:, index][field], index)
        assert_all(same_floats(made[:, column], expected), field, xn, made[:, column], expected)


@cuda.jit
def packed_kernel(out, xf, xd):
    i = cuda.grid(1)
    if i < xd.size:
        j, k, m = (i + 1) % xd.size, (i + 2) % xd.size, (i + 3) % xd.size
        f2, d2 = cuda.float32x2(xf[i], xf[j]), cuda.float64x2(xd[i], xd[j])
        f4 = cuda.float32x4(xf[i], xf[j], xf[k], xf[m])
        d4 = cuda.float64x4(xd[i], xd[j], xd[k], xd[m])
        out[i, 0] = fp8x2_e4m3(f2).__x
        out[i, 1] = fp8x2_e5m2(d2).__x
        out[i, 2] = fp8x2_e8m0(f2).__x
        out[i, 3] = fp8x4_e4m3(d4).__x
        out[i, 4] = fp8x4_e5m2(f4).__x
        out[i, 5] = fp8x4_e8m0(d4).__x
        out[i, 6] = fp8x4_e8m0().__x


def test_pairs_and_quads_pack_lane_i_in_byte_i(cuda_reference):
    """fp8x2_*(float32x2 / float64x2) and fp8x4_*(float32x4 / float64x4) hold each lane's code,
    as the scalar constructor makes it, lane i in byte i (.__x)."""
    xd, _, from_double, _ = cuda_reference
    with np.errstate(over="ignore", invalid="ignore"):
        xf = xd.astype(np.float32)
    out = np.ones((xd.size, 7), np.uint64)
    packed_kernel[(xd.size + 127) // 128, 128](out, xf, xd)

    def packed(field, index, lanes):
        codes = from_double[:, index][field].astype(np.uint64)
        return sum(np.roll(codes, -lane) << np.uint64(8 * lane) for lane in range(lanes))

    expected = [packed("of_float", 0, 2), packed("of_double", 1, 2), packed("of_float", 2, 2),
                packed("of_double", 0, 4), packed("of_float", 1, 4), packed("of_double", 2, 4),
                np.zeros(xd.size, np.uint64)]
    for column, want in enumerate(expected):
        assert_all(out[:, column] == want, "column %d" % column, xd, out[:, column], want)


def test_numba_cuda_test_suite_values():
    """What numba-cuda's tests/cudapy/test_fp8_bindings.py checks on a GPU, and the bfloat16_raw
    functions: cvt_e8m0_to_bf16raw's bits, the FP8 and E8M0 codes of a bfloat16_raw, and the
    bfloat16 of it."""
    @cuda.jit
    def kernel(out, bits, codes, x):
        out[0] = float32(fp8_e5m2(int8(2)))
        out[1] = float32(fp8_e4m3(uint8(2)))
        out[2] = float32(fp8_e8m0(float16(2.0)))
        out[3] = float32(fp8_e4m3(float32(2.5)))
        out[4] = int64(fp8_e8m0(float32(16.0)))
        out[5] = int64(int32(fp8_e4m3(float32(-6.0))))
        out[6] = float32(fp8_e8m0(float32(float("nan"))))
        for k in range(3):
            raw = cvt_e8m0_to_bf16raw(x[k])
            bits[k] = raw.x
            codes[k, 0] = cvt_bfloat16raw_to_fp8(raw, saturation_t.NOSAT,
                                                 fp8_interpretation_t.E5M2)
            codes[k, 1] = cvt_bfloat16raw_to_fp8(raw, saturation_t.SATFINITE,
                                                 fp8_interpretation_t.E4M3)
            codes[k, 2] = cvt_bfloat16raw_to_e8m0(raw, saturation_t.NOSAT,
                                                  cudaRoundMode.cudaRoundZero)
            codes[k, 3] = cvt_bfloat16raw_to_e8m0(raw, saturation_t.SATFINITE,
                                                  cudaRoundMode.cudaRoundPosInf)
            out[7 + k] = float32(bfloat16(raw))  # cuda_bf16.h's __nv_bfloat16(raw)

    out, bits, codes = np.zeros(10), np.zeros(3, np.uint16), np.zeros((3, 4), np.uint8)
    kernel[1, 1](out, bits, codes, np.array([127, 0, 254], np.uint8))
    assert list(out[:6]) == [2.0, 2.0, 2.0, 2.5, 16.0, -6.0] and np.isnan(out[6])
    assert list(out[7:]) == [1.0, 2.0**-127, 2.0**127]
    assert [hex(b) for b in bits] == ["0x3f80", "0x40", "0x7f00"]
    assert codes.tolist() == [[0x3C, 0x38, 127, 127], [0, 0, 0, 0], [0x7C, 0x7E, 254, 254]]


def test_bfloat16_raw_agrees_with_the_float_functions():
    """A bfloat16_raw converts as the float of its bits: every E8M0 code's bfloat16_raw gives
    the codes cvt_float_to_fp8 / cvt_float_to_e8m0 give that float."""
    @cuda.jit
    def kernel(out, x):
        i = cuda.grid(1)
        if i < x.size:
            raw = cvt_e8m0_to_bf16raw(x[i])
            f = cuda.libdevice.int_as_float(int32(raw.x) << 16)
            for s in range(2):
                out[i, s] = cvt_bfloat16raw_to_fp8(raw, s, i % 2)
                out[i, 2 + s] = cvt_float_to_fp8(f, s, i % 2)
                out[i, 4 + s] = cvt_bfloat16raw_to_e8m0(raw, s, 1 + i % 2)
                out[i, 6 + s] = cvt_float_to_e8m0(f, s, 1 + i % 2)

    out = np.zeros((256, 8), np.uint8)
    kernel[2, 128](out, np.arange(256, dtype=np.uint8))
    np.testing.assert_array_equal(out[:, :2], out[:, 2:4])
    np.testing.assert_array_equal(out[:, 4:6], out[:, 6:8])


@pytest.mark.parametrize("body, message", [
    ("out[0] = fp8_e4m3(1.0) + fp8_e4m3(2.0)", "unsupported operand types for \\+"),
    ("out[0] = -fp8_e4m3(1.0)", "bad operand type for unary -"),
    ("out[0] = fp8_e4m3(1.0)", "cannot convert fp8_e4m3 to float32"),
    ("out[0] = fp8_e4m3(1.0) == fp8_e4m3(1.0)", "unsupported operand types for =="),
    ("out[0] = abs(fp8_e5m2(1.0))", "function abs does not accept fp8_e5m2"),
    ("out[0] = fp8_e4m3(1.0).__x", "unknown attribute '__x' of fp8_e4m3"),
    ("out[0] = fp8_e4m3(1j)", "fp8_e4m3\\(\\) does not accept complex128"),
    ("out[0] = fp8x2_e4m3(1.0).__x", "fp8x2_e4m3\\(\\) does not accept float64 \\(it takes "
                                     "float32x2 or float64x2\\)"),
    ("out[0] = fp8x4_e8m0(cuda.float32x2(1.0, 2.0)).__x", "does not accept float32x2"),
    ("out[0] = float32(fp8x2_e5m2(cuda.float32x2(1.0, 2.0)))",
     "cannot convert fp8x2_e5m2 to float32"),
    ("out[0] = cvt_bfloat16raw_to_fp8(1.0, saturation_t.NOSAT, fp8_interpretation_t.E4M3)",
     "does not accept float64 \\(signature cvt_bfloat16raw_to_fp8\\(x: bfloat16_raw"),
    ("out[0] = cvt_e8m0_to_bf16raw(uint8(1), 2).x", "expects 1 argument, got 2"),
])
def test_what_the_types_refuse(body, message):
    namespace = dict(globals())
    exec("def kernel(out):\n    " + body, namespace)
    with pytest.raises(CompileError, match=message):
        cuda.jit("void(float32[:])")(namespace["kernel"])


@cuda.jit(device=True)
def halved(v):
    return fp8_e4m3(float32(v) / 2)


def test_values_pass_through_device_functions_and_locals():
    @cuda.jit
    def kernel(out, x):
        v = fp8_e4m3(x[0])
        if x[0] > 0:
            v = halved(v)
        out[0] = float32(v)
        out[1] = 1.0 if v else 0.0

    out = np.zeros(2, np.float32)
    kernel[1, 1](out, np.array([3.0], np.float32))
    assert list(out) == [1.5, 1.0]


@pytest.mark.parametrize("cc", [(7, 5), (9, 0)])
def test_ptx_assembles(cc, tmp_path):
    if PTXAS is None:
        pytest.skip("ptxas is not installed")
    for index, fp8_type in enumerate(SCALAR_TYPES):
        ptx, _ = cuda.compile_ptx(conversions_kernel(fp8_type),
                                  "void(float64[:], float32[:, :], float32[:, :], float64[:], "
                                  "float16[:], int64[:, :])", cc=cc)
        path = tmp_path / ("k%d.ptx" % index)
        path.write_text(ptx)
        run = subprocess.run([PTXAS, "-arch=sm_%d%d" % cc, str(path), "-o", "/dev/null"],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
