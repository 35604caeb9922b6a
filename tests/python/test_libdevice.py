"""numba.cuda.libdevice on simt: every one of the 317 functions (ir/libdevice.def, Numba's
table) runs in a kernel on the simulator, checked against NumPy, math, SciPy or exact rational
arithmetic (integer functions, conversions and rounding modes exactly, floating-point functions
within CUDA's documented ulp bounds), and compiles to PTX that ptxas accepts. Numba's own tests
of libdevice run with tests/numba_suite/run.py test_libdevice."""
import decimal
import functools
import importlib.util
import math
import os
import shutil
import subprocess
import sys
import zlib
from fractions import Fraction

import numpy as np
import pytest

from simt import cuda
from simt.compiler import sourcegen
from simt import libdevice as simt_libdevice
from simt.cuda import libdevice
from simt.errors import CompileError

from conftest import run_python

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUNCTIONS = simt_libdevice.functions
NAMES = list(FUNCTIONS)
DTYPES = {"int16": np.int16, "int32": np.int32, "int64": np.int64, "float32": np.float32,
          "float64": np.float64}
N = 256  # values per function

PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas"
                                   if os.access("/usr/local/cuda/bin/ptxas", os.X_OK) else None)
LIBDEVICE = os.environ.get("SIMT_LIBDEVICE") or os.path.join(
    os.environ.get("CUDA_HOME", "/usr/local/cuda"), "nvvm", "libdevice", "libdevice.10.bc")


def signature(name):
    """([input dtypes], [result dtypes]) of a libdevice function, as Numba types a call."""
    result, params = FUNCTIONS[name]
    inputs = [DTYPES[ty] for _, ty, is_output in params if not is_output]
    results = ([] if result == "none" else [DTYPES[result]]) + \
        [DTYPES[ty] for _, ty, is_output in params if is_output]
    return inputs, results


# ---- the table

def numbas_libdevice_table():
    """numba/cuda/libdevicefuncs.py's `functions`, read without importing Numba's numba.cuda
    package into this process (whose numba.cuda is simt's only under the import hook)."""
    numba = pytest.importorskip("numba")
    path = os.path.join(os.path.dirname(numba.__file__), "cuda", "libdevicefuncs.py")
    spec = importlib.util.spec_from_file_location("numbas_libdevicefuncs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.functions


def test_the_table_is_numbas():
    numba_funcs = numbas_libdevice_table()
    assert len(FUNCTIONS) == 317
    assert ["__nv_" + name for name in FUNCTIONS] == list(numba_funcs)
    for name, (result, params) in FUNCTIONS.items():
        numba_result, numba_args = numba_funcs["__nv_" + name]
        assert result == str(numba_result), name
        assert params == [(a.name, str(a.ty), a.is_ptr) for a in numba_args], name


def test_the_checked_in_table_is_what_the_generator_writes():
    pytest.importorskip("numba")
    run = subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_libdevice_def.py"),
                          "--check"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_stubs_describe_themselves_and_refuse_host_calls():
    assert set(NAMES) <= set(dir(libdevice))
    assert libdevice.frexp.__doc__.startswith("frexp(x: float64) -> (float64, int32)")
    with pytest.raises(NotImplementedError, match="only usable inside a kernel"):
        libdevice.sad(1, 2, 3)


# ---- kernels: one per function, results written to arrays

def kernel_source(name, prefix, scalar_inputs):
    inputs, results = signature(name)
    outs = ["o%d" % k for k in range(len(results))]
    ins = ["a%d" % k for k in range(len(inputs))]
    values = ", ".join("v%d" % k for k in range(len(results)))
    if scalar_inputs:  # Numba's test's form: scalar arguments, results to element 0
        body = ["    %s = libdevice.%s(%s)" % (values, name, ", ".join(ins))]
        body += ["    o%d[0] = v%d" % (k, k) for k in range(len(results))]
    else:
        body = ["    i = cuda.grid(1)", "    if i < a0.size:",
                "        %s = libdevice.%s(%s)" % (values, name,
                                                    ", ".join(a + "[i]" for a in ins))]
        body += ["        o%d[i] = v%d" % (k, k) for k in range(len(results))]
    return "def %s_%s(%s):\n%s\n" % (prefix, name, ", ".join(outs + ins), "\n".join(body))


@functools.lru_cache(maxsize=None)
def simulator_kernel(name):
    source = kernel_source(name, "run", scalar_inputs=False)
    py = sourcegen.function_from_source(source, "run_" + name,
                                        {"cuda": cuda, "libdevice": libdevice}, "libdevice test")
    return cuda.jit(py)


def run(name, inputs):
    _, results = signature(name)
    outs = [np.zeros(len(inputs[0]), dtype) for dtype in results]
    simulator_kernel(name)[(len(inputs[0]) + 63) // 64, 64](*outs, *inputs)
    return outs


# ---- references

def floats(lo, hi, specials=()):
    def make(rng, dtype):
        x = rng.uniform(lo, hi, N)
        x[:len(specials)] = specials
        return x.astype(dtype)
    return make


def magnitudes(lo_exp, hi_exp, signed=True, specials=()):
    """Random signs and magnitudes 10**U(lo_exp, hi_exp): operands of different exponents."""
    def make(rng, dtype):
        x = 10.0 ** rng.uniform(lo_exp, hi_exp, N)
        if signed:
            x *= rng.choice([-1.0, 1.0], N)
        x[:len(specials)] = specials
        return x.astype(dtype)
    return make


def ints(lo=None, hi=None, specials=()):
    def make(rng, dtype):
        info = np.iinfo(dtype)
        low = info.min if lo is None else lo
        high = info.max if hi is None else hi
        x = rng.integers(low, high, N, dtype=dtype, endpoint=True)
        edges = list(specials) or ([0, 1, -1, info.min, info.max] if lo is None else [])
        x[:len(edges)] = edges
        return x
    return make


def bit_patterns(rng, dtype):
    """Finite floats of every kind (normal, subnormal, zero) from random bits."""
    ints_type = {np.float32: np.int32, np.float64: np.int64}[dtype]
    info = np.iinfo(ints_type)
    bits = rng.integers(info.min, info.max, N, dtype=ints_type, endpoint=True)
    x = bits.view(dtype)
    return np.where(np.isfinite(x), x, dtype(1.5))


SPECIAL_FLOATS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.5, -2.5, 3.5, 1e-310]


def assert_close(got, ref, ulps=0, atol=0.0, rtol=0.0, what=""):
    """got within `ulps` of ref's type's spacing at ref (plus atol + rtol * |ref|); NaN matches
    NaN, infinities match exactly."""
    dtype = got.dtype.type
    ref = np.asarray(ref, np.float64)
    got64 = got.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        spacing = np.abs(np.spacing(ref.astype(dtype))).astype(np.float64)
        ok = (got64 == ref) | (np.isnan(got64) & np.isnan(ref)) | \
            (np.abs(got64 - ref) <= ulps * spacing + atol + rtol * np.abs(ref))
    if not ok.all():
        bad = np.flatnonzero(~ok)[:5]
        pytest.fail("%s: %d of %d differ, e.g. got %s, expected %s (%s)" % (
            what, (~ok).sum(), ok.size, got[bad].tolist(), ref[bad].tolist(), bad.tolist()))


def assert_exact(got, ref, what=""):
    ref = np.asarray(ref)
    if got.dtype.kind == "f":
        ok = (got == ref) | (np.isnan(got) & np.isnan(ref.astype(got.dtype)))
    else:
        ok = got == ref.astype(got.dtype)
    if not ok.all():
        bad = np.flatnonzero(~ok)[:5]
        pytest.fail("%s: %d of %d differ, e.g. got %s, expected %s (at %s)" % (
            what, (~ok).sum(), ok.size, got[bad].tolist(), ref[bad].tolist(), bad.tolist()))


def vectorize(fn, otype=np.float64):
    return np.vectorize(fn, otypes=[otype])


def scipy_special(name):
    def ref(*args):
        special = pytest.importorskip("scipy.special", reason="SciPy gives the reference")
        return getattr(special, name)(*args)
    return ref


class Spec:
    """How one function is tested: its inputs (one maker per input parameter, given the rng and
    the parameter's dtype) and the check of its outputs against the inputs."""

    def __init__(self, inputs, check):
        self.inputs = inputs
        self.check = check


SPECS = {}


def float_name(name):
    return name + "f"


def close(ref, ulps, atol=0.0, rtol=0.0, outputs=None):
    """Each output within `ulps` of ref (computed in float64); `ulps` and `atol` are pairs for
    the float64 and float32 functions."""
    def check(inputs, outs, name):
        refs = ref(*[a.astype(np.float64) if a.dtype.kind == "f" else a for a in inputs])
        refs = refs if isinstance(refs, tuple) else (refs,)
        for k, (got, expected) in enumerate(zip(outs, refs)):
            single = got.dtype == np.float32
            assert_close(got, expected, ulps=ulps[single], atol=atol[single] if atol else 0,
                         rtol=rtol, what="%s output %d" % (name, k))
    return check


def exact(ref):
    """Each output exactly ref's (computed on the inputs' own types)."""
    def check(inputs, outs, name):
        refs = ref(*inputs)
        refs = refs if isinstance(refs, tuple) else (refs,)
        assert len(refs) == len(outs)
        for k, (got, expected) in enumerate(zip(outs, refs)):
            assert_exact(got, expected, what="%s output %d" % (name, k))
    return check


def pair(name, inputs, check, float_inputs=None):
    """name (float64) and name + "f" (float32), tested alike."""
    SPECS[name] = Spec(inputs, check)
    SPECS[float_name(name)] = Spec(float_inputs or inputs, check)


# Transcendental functions: CUDA's documented maximum ulp errors (CUDA Math API, float64 and
# float32), plus 2 ulps in float64 for the reference's own rounding (NumPy's libm, SciPy).
def cuda_ulps(double, single):
    return (double + 2, single + 1)


pair("acos", [floats(-1, 1)], close(np.arccos, cuda_ulps(2, 2)))
pair("acosh", [floats(1, 1e3)], close(np.arccosh, cuda_ulps(3, 4)))
pair("asin", [floats(-1, 1)], close(np.arcsin, cuda_ulps(2, 2)))
pair("asinh", [floats(-1e3, 1e3)], close(np.arcsinh, cuda_ulps(3, 3)))
pair("atan", [floats(-1e3, 1e3)], close(np.arctan, cuda_ulps(2, 2)))
pair("atan2", [floats(-10, 10), floats(-10, 10)], close(np.arctan2, cuda_ulps(2, 3)))
pair("atanh", [floats(-0.99, 0.99)], close(np.arctanh, cuda_ulps(2, 3)))
pair("cbrt", [floats(-1e3, 1e3)], close(np.cbrt, cuda_ulps(1, 1)))
pair("cos", [floats(-100, 100)], close(np.cos, cuda_ulps(2, 2)))
pair("cosh", [floats(-20, 20)], close(np.cosh, cuda_ulps(2, 2)))
pair("erf", [floats(-4, 4)], close(vectorize(math.erf), cuda_ulps(2, 2)))
pair("erfc", [floats(-4, 10)], close(vectorize(math.erfc), cuda_ulps(5, 4)))
pair("erfcinv", [floats(1e-3, 1.999)], close(scipy_special("erfcinv"), cuda_ulps(6, 4)))
pair("erfcx", [floats(-3, 40)], close(scipy_special("erfcx"), cuda_ulps(4, 4)))
pair("erfinv", [floats(-0.999, 0.999)], close(scipy_special("erfinv"), cuda_ulps(5, 2)))
pair("exp", [floats(-50, 50)], close(np.exp, cuda_ulps(1, 2)))
pair("exp10", [floats(-30, 30)], close(lambda x: np.power(10.0, x), cuda_ulps(1, 2)))
pair("exp2", [floats(-100, 100)], close(np.exp2, cuda_ulps(1, 2)))
pair("expm1", [floats(-10, 10)], close(np.expm1, cuda_ulps(1, 1)))
pair("hypot", [floats(-1e3, 1e3), floats(-1e3, 1e3)], close(np.hypot, cuda_ulps(2, 3)))
pair("lgamma", [floats(2.5, 50)], close(scipy_special("gammaln"), cuda_ulps(4, 6)))
pair("log", [magnitudes(-3, 3, signed=False)], close(np.log, cuda_ulps(1, 1)))
pair("log10", [magnitudes(-3, 3, signed=False)], close(np.log10, cuda_ulps(1, 2)))
pair("log1p", [floats(-0.9, 100)], close(np.log1p, cuda_ulps(1, 1)))
pair("log2", [magnitudes(-3, 3, signed=False)], close(np.log2, cuda_ulps(1, 1)))


def normcdf_ref(x):
    """erfc(-x / sqrt(2)) / 2 with the quotient's rounding error corrected to first order (SciPy's
    ndtr keeps that error, amplified by erfc's slope in the lower tail)."""
    out = []
    for v in x.tolist():
        t_exact = -decimal.Decimal(v) / decimal.Decimal(2).sqrt()
        t = float(t_exact)
        error = float(t_exact - decimal.Decimal(t))
        out.append(0.5 * (math.erfc(t) - error * 2 / math.sqrt(math.pi) * math.exp(-t * t)))
    return np.array(out)


pair("normcdf", [floats(-10, 10)], close(normcdf_ref, cuda_ulps(5, 5)))
pair("normcdfinv", [floats(1e-6, 1 - 1e-6)], close(scipy_special("ndtri"), cuda_ulps(8, 5)))
pair("pow", [floats(0.1, 10), floats(-10, 10)], close(np.power, cuda_ulps(2, 4)))
pair("rcbrt", [magnitudes(-3, 3)], close(lambda x: 1 / np.cbrt(x), cuda_ulps(1, 1)))
pair("rsqrt", [magnitudes(-3, 3, signed=False)], close(lambda x: 1 / np.sqrt(x),
                                                        cuda_ulps(1, 2)))
pair("sin", [floats(-100, 100)], close(np.sin, cuda_ulps(2, 2)))
pair("sinh", [floats(-20, 20)], close(np.sinh, cuda_ulps(2, 3)))
pair("tan", [floats(-1.5, 1.5)], close(np.tan, cuda_ulps(2, 4)))
pair("tanh", [floats(-20, 20)], close(np.tanh, cuda_ulps(2, 2)))
pair("tgamma", [floats(0.5, 20)], close(vectorize(math.gamma), cuda_ulps(10, 5)))
pair("powi", [floats(0.5, 4), ints(-12, 12)],
     close(lambda x, n: np.power(x, n.astype(np.float64)), cuda_ulps(2, 2)))
# sin(pi x) and cos(pi x) near their zeros: the reference's own error is absolute
PI = np.longdouble("3.14159265358979323846264338327950288")  # as precise as long double is


def sinpi_ref(x):
    return np.sin(PI * np.fmod(x, 2).astype(np.longdouble)).astype(np.float64)


def cospi_ref(x):
    return np.cos(PI * np.fmod(x, 2).astype(np.longdouble)).astype(np.float64)


pair("sinpi", [floats(-4, 4)], close(sinpi_ref, cuda_ulps(2, 2), atol=(1e-18, 1e-18)))
pair("cospi", [floats(-4, 4)], close(cospi_ref, cuda_ulps(2, 2), atol=(1e-18, 1e-18)))
# Bessel functions: CUDA bounds their error absolutely beyond small arguments
pair("j0", [floats(-20, 20)], close(scipy_special("j0"), (0, 0), atol=(1e-12, 1e-6)))
pair("j1", [floats(-20, 20)], close(scipy_special("j1"), (0, 0), atol=(1e-12, 1e-6)))
pair("y0", [floats(0.1, 20)], close(scipy_special("y0"), (0, 0), atol=(1e-12, 1e-6)))
pair("y1", [floats(0.5, 20)], close(scipy_special("y1"), (0, 0), atol=(1e-12, 1e-6)))
pair("jn", [ints(0, 6), floats(0.1, 20)],
     close(lambda n, x: scipy_special("jv")(n, x), (0, 0), atol=(1e-11, 1e-6), rtol=1e-6))
pair("yn", [ints(0, 4), floats(1, 20)],
     close(lambda n, x: scipy_special("yn")(n, x), (0, 0), atol=(1e-11, 1e-6), rtol=1e-6))

# Exact functions
pair("ceil", [floats(-100, 100, SPECIAL_FLOATS)], exact(np.ceil))
pair("floor", [floats(-100, 100, SPECIAL_FLOATS)], exact(np.floor))
pair("trunc", [floats(-100, 100, SPECIAL_FLOATS)], exact(np.trunc))
pair("rint", [floats(-100, 100, SPECIAL_FLOATS)], exact(np.rint))
pair("nearbyint", [floats(-100, 100, SPECIAL_FLOATS)], exact(np.rint))
pair("fabs", [floats(-100, 100, SPECIAL_FLOATS)], exact(np.abs))
pair("sqrt", [magnitudes(-30, 30, signed=False, specials=[0.0, np.inf, np.nan, -1.0])],
     exact(np.sqrt))


def round_half_away(x):
    whole = np.floor(np.abs(x))
    up = (np.abs(x) - whole) >= 0.5  # exact
    return np.copysign(whole + up, x)


pair("round", [floats(-100, 100, SPECIAL_FLOATS + [0.49999999999999994, 0.5, -0.5])],
     exact(round_half_away))


def logb_ref(x):
    with np.errstate(divide="ignore"):
        e = np.frexp(x)[1].astype(x.dtype) - 1
        return np.where(x == 0, -np.inf, np.where(np.isfinite(x), e, np.abs(x)))


pair("logb", [magnitudes(-30, 30, specials=[0.0, np.inf, -np.inf, np.nan, 1e-310])],
     exact(logb_ref))
pair("copysign", [floats(-10, 10), floats(-10, 10, [-0.0, 0.0])], exact(np.copysign))
pair("fdim", [floats(-10, 10), floats(-10, 10)],
     exact(lambda x, y: np.where(x > y, x - y, x.dtype.type(0))))
pair("fmax", [floats(-10, 10, [np.nan, 1.0]), floats(-10, 10, [1.0, np.nan])], exact(np.fmax))
pair("fmin", [floats(-10, 10, [np.nan, 1.0]), floats(-10, 10, [1.0, np.nan])], exact(np.fmin))
pair("fmod", [floats(-100, 100), floats(-10, 10)], exact(np.fmod))
pair("remainder", [floats(-100, 100), floats(-10, 10)],
     exact(lambda x, y: vectorize(math.remainder)(x, y).astype(x.dtype)))
pair("nextafter", [floats(-10, 10, [0.0, 1.0]), floats(-10, 10, [-1.0, np.inf])],
     exact(np.nextafter))
pair("ldexp", [floats(-10, 10), ints(-40, 40)], exact(np.ldexp))
pair("scalbn", [floats(-10, 10), ints(-40, 40)], exact(np.ldexp))
pair("frexp", [magnitudes(-30, 30, specials=[0.0, 1.0, -0.75])], exact(np.frexp))
pair("modf", [floats(-100, 100, [0.0, -2.5, 3.0])], exact(np.modf))


def ilogb_ref(x):
    e = np.frexp(x)[1] - 1
    e = np.where(np.isinf(x), np.iinfo(np.int32).max, e)
    return np.where((x == 0) | np.isnan(x), np.iinfo(np.int32).min, e)


pair("ilogb", [magnitudes(-30, 30, specials=[0.0, np.inf, -np.inf, np.nan, 1e-310])],
     exact(ilogb_ref))


def remquo_ref(x, y):
    rem = vectorize(math.remainder)(x, y).astype(x.dtype)
    quo = []
    for a, b in zip(x.tolist(), y.tolist()):
        n = round(Fraction(a) / Fraction(b))  # to nearest, ties to even
        low = abs(n) & 7
        quo.append(-low if (a < 0) != (b < 0) else low)
    return rem, np.array(quo, np.int32)


pair("remquo", [floats(-100, 100), floats(-10, 10)], exact(remquo_ref))
pair("sincos", [floats(-100, 100)], close(lambda x: (np.sin(x), np.cos(x)), cuda_ulps(2, 2)))
pair("sincospi", [floats(-4, 4)], close(lambda x: (sinpi_ref(x), cospi_ref(x)), cuda_ulps(2, 2),
                                        atol=(1e-18, 1e-18)))

# fma: rounded once (checked with the rounding-mode functions below)

# The fast_ functions: the precise ones on the simulator
FAST = {"fast_cosf": ([floats(-100, 100)], np.cos), "fast_sinf": ([floats(-100, 100)], np.sin),
        "fast_tanf": ([floats(-1.5, 1.5)], np.tan), "fast_expf": ([floats(-50, 50)], np.exp),
        "fast_exp10f": ([floats(-30, 30)], lambda x: np.power(10.0, x)),
        "fast_logf": ([magnitudes(-3, 3, signed=False)], np.log),
        "fast_log2f": ([magnitudes(-3, 3, signed=False)], np.log2),
        "fast_log10f": ([magnitudes(-3, 3, signed=False)], np.log10),
        "fast_powf": ([floats(0.1, 10), floats(-10, 10)], np.power),
        "fast_fdividef": ([floats(-100, 100), magnitudes(-3, 3)], np.divide),
        "fast_sincosf": ([floats(-100, 100)], lambda x: (np.sin(x), np.cos(x)))}
for _name, (_inputs, _ref) in FAST.items():
    SPECS[_name] = Spec(_inputs, close(_ref, (1, 1)))

# Predicates
PREDICATE_INPUTS = [floats(-10, 10, SPECIAL_FLOATS)]
for _double, _single, _ref in [("isnand", "isnanf", np.isnan), ("isinfd", "isinff", np.isinf),
                               ("isfinited", "finitef", np.isfinite),
                               ("signbitd", "signbitf", np.signbit)]:
    SPECS[_double] = SPECS[_single] = Spec(PREDICATE_INPUTS,
                                           exact(lambda x, f=_ref: f(x).astype(np.int32)))
SPECS["saturatef"] = Spec([floats(-2, 2, [np.nan, np.inf, -np.inf, 0.0, 1.0])],
                          exact(lambda x: np.where(np.isnan(x), np.float32(0), np.clip(x, 0, 1))))

# ---- exact rounding: references from rational arithmetic

MODES = ("rn", "rz", "ru", "rd")


def round_exact(compare, guess, dtype, mode):
    """The `dtype` value that `mode` rounds a real number r to, given compare(q) = the sign of
    q - r for rational q and a float `guess` near r. Beyond the largest finite value, to nearest
    goes to infinity from half an ulp past it (IEEE 754's overflow)."""
    inf = dtype(np.inf)

    def sign_minus_r(v):
        return (1 if v > 0 else -1) if np.isinf(v) else compare(Fraction(float(v)))
    g = dtype(guess)
    if sign_minus_r(g) >= 0:  # walk down to low <= r < high
        high, low = g, np.nextafter(g, -inf)
        while sign_minus_r(low) > 0:
            high, low = low, np.nextafter(low, -inf)
    else:
        low, high = g, np.nextafter(g, inf)
        while sign_minus_r(high) < 0:
            low, high = high, np.nextafter(high, inf)
    for v in (low, high):
        if sign_minus_r(v) == 0:
            return v
    positive = compare(Fraction(0)) < 0
    if mode == "rd" or (mode == "rz" and positive):
        return low
    if mode in ("ru", "rz"):
        return high
    beyond = Fraction(2) ** np.finfo(dtype).maxexp  # where the exponent range ends

    def value(v):
        return (beyond if v > 0 else -beyond) if np.isinf(v) else Fraction(float(v))
    c = compare((value(low) + value(high)) / 2)
    if c != 0:
        return low if c > 0 else high
    bits = {np.float32: np.uint32, np.float64: np.uint64}[dtype]
    return low if int(np.array(low, dtype).view(bits)) % 2 == 0 else high


def exact_value(q):
    return lambda v: (v > q) - (v < q)


def rounded_family(op, dtype, modes=MODES):
    """Checks of the functions op's family (one per mode): each result is the exact result of
    op (a function of Fractions, or (compare_maker, guess) for a square root) rounded by its mode.
    For the directed modes, some results must differ from rounding to nearest (the inputs test
    the mode)."""
    def check_mode(mode):
        def check(inputs, outs, name):
            got = outs[0]
            expected, nearest = [], []
            for values in zip(*[a.tolist() for a in inputs]):
                compare, guess = op(*values)
                expected.append(round_exact(compare, guess, dtype, mode))
                nearest.append(round_exact(compare, guess, dtype, "rn"))
            assert_exact(got, np.array(expected, dtype), what=name)
            if mode != "rn":
                assert (got != np.array(nearest, dtype)).any(), "%s: no input tests the mode" % name
        return check
    return {mode: check_mode(mode) for mode in modes}


def arithmetic(fn, float_fn):
    def op(*values):
        q = fn(*[Fraction(v) for v in values])
        return exact_value(q), float_fn(*values)
    return op


def sqrt_op(x):  # compare q with sqrt(x) through q*q
    return (lambda q: -1 if q < 0 else (q * q > Fraction(x)) - (q * q < Fraction(x))), math.sqrt(x)


def rsqrt_op(x):
    def compare(q):
        if q <= 0:
            return -1
        p = q * q * Fraction(x)
        return (p > 1) - (p < 1)
    return compare, 1 / math.sqrt(x)


OPERANDS = [magnitudes(-3, 3), magnitudes(-3, 3), magnitudes(-3, 3)]
FAMILIES = [
    ("fadd_%s", np.float32, 2, arithmetic(lambda a, b: a + b, lambda a, b: a + b)),
    ("fsub_%s", np.float32, 2, arithmetic(lambda a, b: a - b, lambda a, b: a - b)),
    ("fmul_%s", np.float32, 2, arithmetic(lambda a, b: a * b, lambda a, b: a * b)),
    ("fdiv_%s", np.float32, 2, arithmetic(lambda a, b: a / b, lambda a, b: a / b)),
    ("dadd_%s", np.float64, 2, arithmetic(lambda a, b: a + b, lambda a, b: a + b)),
    ("dmul_%s", np.float64, 2, arithmetic(lambda a, b: a * b, lambda a, b: a * b)),
    ("ddiv_%s", np.float64, 2, arithmetic(lambda a, b: a / b, lambda a, b: a / b)),
    ("fmaf_%s", np.float32, 3, arithmetic(lambda a, b, c: a * b + c, lambda a, b, c: a * b + c)),
    ("fma_%s", np.float64, 3, arithmetic(lambda a, b, c: a * b + c, lambda a, b, c: a * b + c)),
    ("frcp_%s", np.float32, 1, arithmetic(lambda a: 1 / a, lambda a: 1 / a)),
    ("drcp_%s", np.float64, 1, arithmetic(lambda a: 1 / a, lambda a: 1 / a)),
]
for _pattern, _dtype, _arity, _op in FAMILIES:
    for _mode, _check in rounded_family(_op, _dtype).items():
        SPECS[_pattern % _mode] = Spec(OPERANDS[:_arity], _check)
for _name, _dtype in [("fsqrt_%s", np.float32), ("dsqrt_%s", np.float64)]:
    for _mode, _check in rounded_family(sqrt_op, _dtype).items():
        SPECS[_name % _mode] = Spec([magnitudes(-30, 30, signed=False)], _check)
SPECS["frsqrt_rn"] = Spec([magnitudes(-30, 30, signed=False)],
                          rounded_family(rsqrt_op, np.float32, ["rn"])["rn"])
SPECS["fma"] = Spec(OPERANDS, rounded_family(FAMILIES[8][3], np.float64, ["rn"])["rn"])
SPECS["fmaf"] = Spec(OPERANDS, rounded_family(FAMILIES[7][3], np.float32, ["rn"])["rn"])

# Conversions between floating-point types and from integers
for _mode, _check in rounded_family(lambda d: (exact_value(Fraction(d)), d), np.float32).items():
    SPECS["double2float_" + _mode] = Spec([magnitudes(-40, 40)], _check)
INTEGER_SOURCES = [("int2float_%s", np.int32, np.float32, False),
                   ("uint2float_%s", np.int32, np.float32, True),
                   ("ll2float_%s", np.int64, np.float32, False),
                   ("ull2float_%s", np.int64, np.float32, True),
                   ("ll2double_%s", np.int64, np.float64, False),
                   ("ull2double_%s", np.int64, np.float64, True)]
for _pattern, _source, _dtype, _unsigned in INTEGER_SOURCES:
    _bits = 8 * np.dtype(_source).itemsize

    def _op(v, bits=_bits, unsigned=_unsigned):
        v = v % (1 << bits) if unsigned else v
        return exact_value(Fraction(v)), float(v)
    for _mode, _check in rounded_family(_op, _dtype).items():
        SPECS[_pattern % _mode] = Spec([ints()], _check)
SPECS["int2double_rn"] = Spec([ints()], exact(lambda v: v.astype(np.float64)))
SPECS["uint2double_rn"] = Spec([ints()], exact(lambda v: v.view(np.uint32).astype(np.float64)))

# Conversions to integers: rounded as named, saturated, NaN 0 (32 bits) or 0x8000000000000000


def to_integer(x, mode, bits, signed):
    if math.isnan(x):
        return 0 if bits == 32 else -(1 << 63)
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if math.isinf(x):
        value = high if x > 0 else low
    else:
        q = Fraction(x)
        value = {"rn": round(q), "rz": math.trunc(q), "ru": math.ceil(q), "rd": math.floor(q),
                 "away": math.trunc(q + (Fraction(1, 2) if q > 0 else Fraction(-1, 2)))}[mode]
        value = min(max(value, low), high)
    if not signed and value >= 1 << (bits - 1):
        value -= 1 << bits  # the bits, as Numba's signed result type holds them
    return value


def conversion(mode, bits, signed):
    def check(inputs, outs, name):
        expected = [to_integer(x, mode, bits, signed) for x in inputs[0].tolist()]
        assert_exact(outs[0], np.array(expected, outs[0].dtype), what=name)
    return check


def conversion_inputs(bits):
    limit = 2.0 ** (bits - 1)
    ties = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.7, 3.7, -3.7]
    edges = [limit, -limit, 2 * limit, limit * 4, -limit * 4, np.nan, np.inf, -np.inf, 1e30,
             -1e30, -0.0]

    def make(rng, dtype):
        x = np.concatenate([rng.uniform(-100, 100, N // 2),
                            rng.uniform(-2 * limit, 2 * limit, N // 2)])
        x[:len(ties) + len(edges)] = ties + edges
        return x.astype(dtype)
    return make


for _source, _prefix in [(np.float32, "float2"), (np.float64, "double2")]:
    for _target, _bits, _signed in [("int", 32, True), ("uint", 32, False), ("ll", 64, True),
                                    ("ull", 64, False)]:
        for _mode in MODES:
            SPECS["%s%s_%s" % (_prefix, _target, _mode)] = Spec(
                [conversion_inputs(_bits)], conversion(_mode, _bits, _signed))
SPECS["llrint"] = SPECS["llrintf"] = Spec([conversion_inputs(64)], conversion("rn", 64, True))
SPECS["llround"] = SPECS["llroundf"] = Spec([conversion_inputs(64)],
                                            conversion("away", 64, True))


def half_bits(x):
    h = x.astype(np.float16).view(np.uint16)
    return np.where(np.isnan(x), 0x7fff, h).astype(np.uint16).view(np.int16)


SPECS["float2half_rn"] = Spec([magnitudes(-9, 6, specials=[np.nan, np.inf, 65520.0, 65519.0,
                                                          6e-8, 2.9e-8, 3e-8, -0.0])],
                              exact(half_bits))
SPECS["half2float"] = Spec([ints()], exact(lambda h: h.view(np.float16).astype(np.float32)))

# Bits


def bits_check(ref_bits):
    """Compares bit patterns (NaNs and their payloads included)."""
    def check(inputs, outs, name):
        got = outs[0]
        view = {np.dtype(np.float32): np.int32, np.dtype(np.float64): np.int64}.get(got.dtype)
        assert_exact(got.view(view) if view else got, ref_bits(*inputs), what=name)
    return check


SPECS["float_as_int"] = Spec([bit_patterns], bits_check(lambda x: x.view(np.int32)))
SPECS["int_as_float"] = Spec([ints()], bits_check(lambda v: v))
SPECS["double_as_longlong"] = Spec([bit_patterns], bits_check(lambda x: x.view(np.int64)))
SPECS["longlong_as_double"] = Spec([ints()], bits_check(lambda v: v))
SPECS["double2hiint"] = Spec([bit_patterns],
                             bits_check(lambda x: (x.view(np.int64) >> 32).astype(np.int32)))
SPECS["double2loint"] = Spec([bit_patterns], bits_check(
    lambda x: (x.view(np.uint64) & 0xffffffff).astype(np.uint32).view(np.int32)))
SPECS["hiloint2double"] = Spec([ints(), ints()], bits_check(
    lambda hi, lo: ((hi.astype(np.int64) << 32) | lo.view(np.uint32).astype(np.int64))))

# Integer functions, from Python's integers
M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def per_element(fn, dtype):
    """fn on Python ints (the operands as the function reads them), its result wrapped to
    dtype's bits."""
    bits = 8 * np.dtype(dtype).itemsize

    def ref(*arrays):
        out = []
        for values in zip(*[a.tolist() for a in arrays]):
            v = fn(*values) & ((1 << bits) - 1)
            out.append(v - (1 << bits) if v >> (bits - 1) else v)
        return np.array(out, dtype)
    return ref


def unsigned(v, bits=32):
    return v & ((1 << bits) - 1)


def sext24(v):
    v &= 0xffffff
    return v - (1 << 24) if v & 0x800000 else v


def brev(v, bits):
    return int(format(unsigned(v, bits), "0%db" % bits)[::-1], 2)


def byte_perm(x, y, s):
    data = unsigned(x) | unsigned(y) << 32
    return sum(((data >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i) for i in range(4))


def ffs(v, bits):
    v = unsigned(v, bits)
    return (v & -v).bit_length()


INTEGER = {
    "abs": (1, np.int32, abs), "llabs": (1, np.int64, abs),
    "min": (2, np.int32, min), "max": (2, np.int32, max),
    "umin": (2, np.int32, lambda x, y: min(unsigned(x), unsigned(y))),
    "umax": (2, np.int32, lambda x, y: max(unsigned(x), unsigned(y))),
    "llmin": (2, np.int64, min), "llmax": (2, np.int64, max),
    "ullmin": (2, np.int64, lambda x, y: min(unsigned(x, 64), unsigned(y, 64))),
    "ullmax": (2, np.int64, lambda x, y: max(unsigned(x, 64), unsigned(y, 64))),
    "popc": (1, np.int32, lambda v: bin(unsigned(v)).count("1")),
    "popcll": (1, np.int32, lambda v: bin(unsigned(v, 64)).count("1")),
    "clz": (1, np.int32, lambda v: 32 - unsigned(v).bit_length()),
    "clzll": (1, np.int32, lambda v: 64 - unsigned(v, 64).bit_length()),
    "ffs": (1, np.int32, lambda v: ffs(v, 32)), "ffsll": (1, np.int32, lambda v: ffs(v, 64)),
    "brev": (1, np.int32, lambda v: brev(v, 32)), "brevll": (1, np.int64, lambda v: brev(v, 64)),
    "byte_perm": (3, np.int32, byte_perm),
    "hadd": (2, np.int32, lambda x, y: (x + y) >> 1),
    "rhadd": (2, np.int32, lambda x, y: (x + y + 1) >> 1),
    "uhadd": (2, np.int32, lambda x, y: (unsigned(x) + unsigned(y)) >> 1),
    "urhadd": (2, np.int32, lambda x, y: (unsigned(x) + unsigned(y) + 1) >> 1),
    "sad": (3, np.int32, lambda x, y, z: abs(x - y) + z),
    "usad": (3, np.int32, lambda x, y, z: abs(unsigned(x) - unsigned(y)) + z),
    "mul24": (2, np.int32, lambda x, y: sext24(x) * sext24(y)),
    "umul24": (2, np.int32, lambda x, y: (x & 0xffffff) * (y & 0xffffff)),
    "mulhi": (2, np.int32, lambda x, y: (x * y) >> 32),
    "umulhi": (2, np.int32, lambda x, y: (unsigned(x) * unsigned(y)) >> 32),
    "mul64hi": (2, np.int64, lambda x, y: (x * y) >> 64),
    "umul64hi": (2, np.int64, lambda x, y: (unsigned(x, 64) * unsigned(y, 64)) >> 64),
}
for _name, (_arity, _dtype, _fn) in INTEGER.items():
    SPECS[_name] = Spec([ints()] * _arity, exact(per_element(_fn, _dtype)))


# ---- every function on the simulator

@pytest.mark.parametrize("name", NAMES)
def test_function_on_the_simulator(name):
    spec = SPECS.get(name)
    assert spec is not None, "no test of libdevice.%s" % name
    input_types, _ = signature(name)
    assert len(spec.inputs) == len(input_types), name
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    inputs = [make(rng, dtype) for make, dtype in zip(spec.inputs, input_types)]
    with np.errstate(all="ignore"):
        outputs = run(name, inputs)
        spec.check(inputs, outputs, name)


def test_every_function_is_tested():
    assert sorted(SPECS) == sorted(NAMES)


# ---- values CUDA documents exactly

def one(name, *args):
    input_types, _ = signature(name)
    outs = run(name, [np.array([a], dtype) for a, dtype in zip(args, input_types)])
    return tuple(o[0] for o in outs) if len(outs) > 1 else outs[0][0]


def test_documented_special_values():
    for name in ("sinpi", "sinpif"):
        for x in (1.0, 2.0, -3.0, 1e300 if name == "sinpi" else 1e30):  # integers
            assert one(name, x) == 0
        assert one(name, 0.5) == 1 and one(name, -0.5) == -1 and one(name, 1.5) == -1
        assert math.copysign(1, one(name, -0.0)) == -1
    for name in ("cospi", "cospif"):
        for x in (0.5, 1.5, -2.5, 2.0**51 + 0.5 if name == "cospi" else 2.0**22 + 0.5):
            assert one(name, x) == 0
        assert one(name, 1.0) == -1 and one(name, 2.0) == 1 and one(name, 0.0) == 1
        assert one(name, 1e300 if name == "cospi" else 1e30) == 1  # even integers
    assert one("erfinv", 1.0) == np.inf and one("erfinv", -1.0) == -np.inf
    assert np.isnan(one("erfinv", 1.5)) and one("erfinv", 0.0) == 0
    assert one("erfcinv", 0.0) == np.inf and one("erfcinv", 2.0) == -np.inf
    assert one("erfcinv", 1.0) == 0 and np.isnan(one("erfcinv", -0.5))
    assert one("normcdfinv", 0.0) == -np.inf and one("normcdfinv", 1.0) == np.inf
    assert one("normcdfinv", 0.5) == 0
    assert one("normcdf", -37.0) == pytest.approx(normcdf_ref(np.array([-37.0]))[0], rel=1e-14)
    assert one("normcdf", -40.0) == 0 and one("normcdf", 40.0) == 1  # beyond float64's range
    assert one("erfcx", 1e10) == pytest.approx(1 / (1e10 * math.sqrt(math.pi)), rel=1e-15)
    assert one("erfcx", -30.0) == np.inf and one("erfcx", 0.0) == 1
    assert math.isinf(one("rsqrt", -0.0)) and one("rsqrt", -0.0) < 0
    assert one("rcbrt", np.inf) == 0 and one("rcbrt", 0.0) == np.inf
    assert one("saturatef", np.nan) == 0 and one("saturatef", 2.0) == 1
    assert one("ilogb", 0.0) == -2**31 and one("ilogb", np.inf) == 2**31 - 1
    assert one("ilogb", np.nan) == -2**31
    assert one("frexp", np.inf) == (np.inf, 0)
    rem, quo = one("remquo", 1.0, 0.0)
    assert np.isnan(rem) and quo == 0
    # __fdividef: 0 for divisors beyond 2**126, NaN for an infinite dividend then
    assert one("fast_fdividef", 1.0, 2.0**127) == 0
    assert np.isnan(one("fast_fdividef", np.inf, 2.0**127))
    assert one("fast_fdividef", 1.0, 4.0) == 0.25
    assert one("abs", -2**31) == -2**31 and one("llabs", -2**63) == -2**63
    assert one("float2int_rz", np.nan) == 0 and one("float2ll_rz", np.nan) == -2**63
    assert one("double2uint_rn", -3.0) == 0 and one("double2uint_rn", 1e10) == -1  # 0xffffffff
    assert one("float2half_rn", np.float32(1.0)) == 0x3c00


def test_rounding_modes_leave_the_thread_in_round_to_nearest():
    # After a directed rounding, ordinary arithmetic in the kernel still rounds to nearest.
    def kernel(out, x):
        a = libdevice.fadd_ru(x[0], x[1])
        out[0] = x[0] + x[1]
        out[1] = a
    x = np.array([1.0, 1e-8], np.float32)
    out = np.zeros(2, np.float32)
    cuda.jit(kernel)[1, 1](out, x)
    assert out[0] == np.float32(1.0) and out[1] == np.nextafter(np.float32(1), np.float32(2))


# ---- typing and errors

def test_arguments_convert_as_numba_converts_them():
    def kernel(f, i, x):
        f[0] = libdevice.sinf(x[0])  # float64 -> float32
        i[0] = libdevice.sad(x[0], 1, True)  # float64 -> int32 (truncates), bool -> int32
        i[1] = libdevice.float2half_rn(1)  # int64 -> float32; int16 result
        f[1] = libdevice.half2float(i[1])
    f, i = np.zeros(2, np.float32), np.zeros(2, np.int32)
    k = cuda.jit(kernel)
    k[1, 1](f, i, np.array([3.75]))
    assert f[0] == np.float32(math.sin(np.float32(3.75)))
    assert i[0] == abs(3 - 1) + 1 and i[1] == 0x3c00 and f[1] == 1.0
    ir = "\n".join(k.inspect_ir().values())
    assert "@libdevice.sad(int32(x[0]), int32(1), " in ir
    assert "@libdevice.sinf(float32(x[0]))" in ir


def test_module_paths_reach_the_same_functions():
    import simt

    def kernel(out, x):
        out[0] = libdevice.popc(7)
        out[1] = cuda.libdevice.popc(15)
        out[2] = simt.cuda.libdevice.clz(1)
        frac, exponent = simt_libdevice.frexp(x[0])
        out[3] = exponent
    out = np.zeros(4, np.int32)
    cuda.jit(kernel)[1, 1](out, np.array([8.0]))
    assert out.tolist() == [3, 4, 31, 4]


# math.x and cuda.x are libdevice.x (codegen/math.h's table): bit for bit the same values on both
# float types, whatever the function's accuracy (cbrt, where glibc's own is an ulp off, included).
MATH_TWINS = [  # (math's or cuda's call, libdevice's name, arguments)
    ("math.sin", "sin", 1), ("math.cos", "cos", 1), ("math.tan", "tan", 1),
    ("math.asin", "asin", 1), ("math.acos", "acos", 1), ("math.atan", "atan", 1),
    ("math.sinh", "sinh", 1), ("math.cosh", "cosh", 1), ("math.tanh", "tanh", 1),
    ("math.asinh", "asinh", 1), ("math.acosh", "acosh", 1), ("math.atanh", "atanh", 1),
    ("math.exp", "exp", 1), ("math.expm1", "expm1", 1), ("math.log", "log", 1),
    ("math.log2", "log2", 1), ("math.log10", "log10", 1), ("math.log1p", "log1p", 1),
    ("math.erf", "erf", 1), ("math.erfc", "erfc", 1), ("math.lgamma", "lgamma", 1),
    ("math.gamma", "tgamma", 1), ("math.sqrt", "sqrt", 1), ("math.fabs", "fabs", 1),
    ("cuda.cbrt", "cbrt", 1), ("math.atan2", "atan2", 2), ("math.pow", "pow", 2),
    ("math.hypot", "hypot", 2), ("math.copysign", "copysign", 2), ("math.fmod", "fmod", 2),
    ("math.remainder", "remainder", 2), ("np.cbrt", "cbrt", 1), ("np.exp2", "exp2", 1)] + (
        [("math.exp2", "exp2", 1), ("math.cbrt", "cbrt", 1)] if sys.version_info >= (3, 11) else [])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_math_functions_are_their_libdevice_twins(dtype, tmp_path):
    suffix = "f" if dtype == np.float32 else ""
    lines = []
    for k, (call, name, arity) in enumerate(MATH_TWINS):
        args = ", ".join("x[i]" if a == 0 else "y[i]" for a in range(arity))
        lines.append(f"    a[{k}, i] = {call}({args})")
        lines.append(f"    b[{k}, i] = libdevice.{name}{suffix}({args})")
    source = ("import math\nimport numpy as np\nfrom simt import cuda\nfrom simt.cuda import libdevice\n\n\n"
              "@cuda.jit\ndef kernel(a, b, x, y):\n    i = cuda.grid(1)\n" + "\n".join(lines) + "\n")
    path = tmp_path / "twins.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("twins", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(7)
    x = np.concatenate([[27.0, 8.0, -64.0, 0.5, 1e-3, 2.5], rng.uniform(-0.99, 0.99, 58)])
    y = np.concatenate([[3.0, -2.0, 0.25, 7.0, 1.5, -0.5], rng.uniform(0.1, 4.0, 58)])
    x, y = x.astype(dtype), y.astype(dtype)
    a = np.zeros((len(MATH_TWINS), x.size), dtype)
    b = np.full_like(a, np.nan)
    with np.errstate(all="ignore"):
        module.kernel[2, 32](a, b, x, y)
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))
    cube_roots = a[[call for call, *_ in MATH_TWINS].index("cuda.cbrt"), :3]
    assert cube_roots.tolist() == [3.0, 2.0, -4.0]


NUMBA_STYLE = """
import numpy as np
import simt.hook
simt.hook.install()
from numba import cuda
from numba.cuda import libdevice
import numba.cuda.libdevice as numba_libdevice
from numba.cuda.libdevice import frexpf
import simt.cuda.libdevice as hooked_libdevice  # Numba's file, as a submodule of simt.cuda


@cuda.jit
def kernel(out, x):
    out[0] = libdevice.sad(1, 5, 3)
    out[1] = numba_libdevice.usad(1, 5, 3)
    fraction, exponent = frexpf(x[0])
    out[2] = exponent
    out[3] = cuda.libdevice.popc(255)
    out[4] = hooked_libdevice.clz(1)


out = np.zeros(5, np.int32)
kernel[1, 1](out, np.array([8.0], np.float32))
print(out.tolist(), numba_libdevice.sad.__module__)
"""


def test_numba_scripts_reach_libdevice_every_way(tmp_path):
    pytest.importorskip("numba")
    script = tmp_path / "numba_style.py"
    script.write_text(NUMBA_STYLE)
    proc = run_python([str(script)])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["[7,", "7,", "4,", "8,", "31]", "numba.cuda.libdevice"]


@pytest.mark.parametrize("call, message", [
    ("libdevice.sad(1, 2)", "function libdevice.sad expects 3 arguments, got 2 (signature "
                            "libdevice.sad(x: int32, y: int32, z: int32) -> int32)"),
    ("libdevice.frexp(1.0, 2)", "function libdevice.frexp expects 1 argument, got 2 (signature "
                                "libdevice.frexp(x: float64) -> Tuple(float64, int32))"),
    ("libdevice.sad(1, 2, z=3)", "function libdevice.sad takes no keyword arguments"),
    ("libdevice.sinf(x)", "function libdevice.sinf does not accept array(float64, 1d, C) for "
                          "its parameter 'x'"),
    ("libdevice.sinf(1j)", "function libdevice.sinf does not accept complex128"),
    ("libdevice.no_such_function(1)", "module 'numba.cuda.libdevice' has no attribute "
                                      "'no_such_function'"),
])
def test_wrong_calls_are_compile_errors_naming_the_signature(call, message):
    source = "def wrong(r, x):\n    r[0] = %s\n" % call
    kernel = sourcegen.function_from_source(source, "wrong", {"libdevice": libdevice},
                                            "libdevice error test")
    with pytest.raises(CompileError) as info:
        cuda.jit("void(float64[::1], float64[::1])")(kernel)
    assert message in str(info.value)
    assert "^" in str(info.value)  # the caret under the call


# ---- every function to PTX

needs_libdevice = pytest.mark.skipif(not os.path.exists(LIBDEVICE),
                                     reason="CUDA's libdevice is not installed (%s)" % LIBDEVICE)


@needs_libdevice
@pytest.mark.parametrize("name", NAMES)
def test_function_compiles_to_ptx(name, tmp_path):
    input_types, results = signature(name)
    source = kernel_source(name, "ptx", scalar_inputs=True)
    py = sourcegen.function_from_source(source, "ptx_" + name, {"libdevice": libdevice},
                                        "libdevice PTX test")
    types = ["%s[::1]" % np.dtype(t).name for t in results] + \
        [np.dtype(t).name for t in input_types]
    ptx, resty = cuda.compile_ptx(py, "void(%s)" % ", ".join(types))
    assert str(resty) == "none"
    assert "ld.param" in ptx and "st.global" in ptx
    assert "__nv_" not in ptx  # linked from libdevice and internalised
    if PTXAS is None:
        pytest.skip("ptxas is not installed (the CUDA toolkit is not at /usr/local/cuda)")
    path = tmp_path / ("%s.ptx" % name)
    path.write_text(ptx)
    check = subprocess.run([PTXAS, "-arch=sm_75", str(path), "-o", os.devnull],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
