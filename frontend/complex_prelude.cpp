// The complex prelude: Numba's Python implementations of complex operations (see the header).
#include "frontend/complex_prelude.h"

#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <set>

namespace simt {

namespace {

// Transcribed from numba/cuda/cudaimpl.py (round_to_impl: CPython's fallback double_round),
// numba/cpython/cmathimpl.py and numbers.py (complex_div) and numba/cuda/mathimpl.py (cpow).
// round_ndigits defines pow2 on both paths (Numba's uses it on one only). Kept as close to them as
// simt's typing allows: sqrt takes its threshold, which depends on the float type, and cpow its 1j
// of the operands' type.
constexpr const char *kSource = R"PY(def round_ndigits(x, ndigits):
    if math.isinf(x) or math.isnan(x):
        return x
    if ndigits >= 0:
        if ndigits > 22:
            pow1 = 10.0 ** (ndigits - 22)
            pow2 = 1e22
        else:
            pow1 = 10.0 ** ndigits
            pow2 = 1.0
        y = (x * pow1) * pow2
        if math.isinf(y):
            return x
    else:
        pow1 = 10.0 ** (-ndigits)
        pow2 = 1.0
        y = x / pow1
    z = round(y)
    if math.fabs(y - z) == 0.5:
        z = 2.0 * round(y / 2.0)
    if ndigits >= 0:
        z = (z / pow2) / pow1
    else:
        z *= pow1
    return z

def cdiv(a, b):
    areal = a.real
    aimag = a.imag
    breal = b.real
    bimag = b.imag
    if not breal and not bimag:
        raise ZeroDivisionError("complex division by zero")
    if abs(breal) >= abs(bimag):
        if not breal:
            return complex(NAN, NAN)
        ratio = bimag / breal
        denom = breal + bimag * ratio
        return complex((areal + aimag * ratio) / denom, (aimag - areal * ratio) / denom)
    else:
        if not bimag:
            return complex(NAN, NAN)
        ratio = breal / bimag
        denom = breal * ratio + bimag
        return complex((areal * ratio + aimag) / denom, (aimag * ratio - areal) / denom)

def cpow(a, b, one_j):
    if b.real == 0.0 and b.imag == 0.0:
        return complex(1.0, 0.0)
    elif a.real == 0.0 and b.real == 0.0:
        return complex(0.0, 0.0)
    vabs = math.hypot(a.real, a.imag)
    length = math.pow(vabs, b.real)
    at = math.atan2(a.imag, a.real)
    phase = at * b.real
    if b.imag != 0.0:
        length /= math.exp(at * b.imag)
        phase += b.imag * math.log(vabs)
    return length * (complex(math.cos(phase)) + math.sin(phase) * one_j)

def rect(r, phi):
    if not math.isfinite(phi):
        if not r:
            return abs(r)
        if math.isinf(r):
            return complex(r, phi)
    real = math.cos(phi)
    imag = math.sin(phi)
    if real == 0. and math.isinf(r):
        real /= r
    else:
        real *= r
    if imag == 0. and math.isinf(r):
        imag /= r
    else:
        imag *= r
    return complex(real, imag)

def exp(z):
    x = z.real
    y = z.imag
    if math.isfinite(x):
        if math.isfinite(y):
            c = math.cos(y)
            s = math.sin(y)
            r = math.exp(x)
            return complex(r * c, r * s)
        else:
            return complex(NAN, NAN)
    elif math.isnan(x):
        if y:
            return complex(x, x)
        else:
            return complex(x, y)
    elif x > 0.0:
        if math.isfinite(y):
            real = math.cos(y)
            imag = math.sin(y)
            if real != 0:
                real *= x
            if imag != 0:
                imag *= x
            return complex(real, imag)
        else:
            return complex(x, NAN)
    else:
        if math.isfinite(y):
            r2 = math.exp(x)
            c2 = math.cos(y)
            s2 = math.sin(y)
            return complex(r2 * c2, r2 * s2)
        else:
            zero = 0
            return complex(zero, zero)

def log(z):
    a = math.log(math.hypot(z.real, z.imag))
    b = math.atan2(z.imag, z.real)
    return complex(a, b)

def log_base(z, base):
    return cmath.log(z) / cmath.log(base)

def log10(z):
    w = cmath.log(z)
    return complex(w.real / LN_10, w.imag / LN_10)

def sqrt(z, THRES):
    a = z.real
    b = z.imag
    if a == 0.0 and b == 0.0:
        return complex(abs(b), b)
    if math.isinf(b):
        return complex(abs(b), b)
    if math.isnan(a):
        return complex(a, a)
    if math.isinf(a):
        if a < 0.0:
            return complex(abs(b - b), math.copysign(a, b))
        else:
            return complex(a, math.copysign(b - b, b))
    if abs(a) >= THRES or abs(b) >= THRES:
        a *= 0.25
        b *= 0.25
        scale = True
    else:
        scale = False
    if a >= 0:
        t = math.sqrt((a + math.hypot(a, b)) * 0.5)
        real = t
        imag = b / (2 * t)
    else:
        t = math.sqrt((-a + math.hypot(a, b)) * 0.5)
        real = abs(b) / (2 * t)
        imag = math.copysign(t, b)
    if scale:
        return complex(real * 2, imag)
    else:
        return complex(real, imag)

def cos(z):
    return cmath.cosh(complex(-z.imag, z.real))

def cosh(z):
    x = z.real
    y = z.imag
    if math.isinf(x):
        if math.isnan(y):
            real = abs(x)
            imag = y
        elif y == 0.0:
            real = abs(x)
            imag = y
        else:
            real = math.copysign(x, math.cos(y))
            imag = math.copysign(x, math.sin(y))
        if x < 0.0:
            imag = -imag
        return complex(real, imag)
    return complex(math.cos(y) * math.cosh(x), math.sin(y) * math.sinh(x))

def sin(z):
    r = cmath.sinh(complex(-z.imag, z.real))
    return complex(r.imag, -r.real)

def sinh(z):
    x = z.real
    y = z.imag
    if math.isinf(x):
        if math.isnan(y):
            real = x
            imag = y
        else:
            real = math.cos(y)
            imag = math.sin(y)
            if real != 0.:
                real *= x
            if imag != 0.:
                imag *= abs(x)
        return complex(real, imag)
    return complex(math.cos(y) * math.sinh(x), math.sin(y) * math.cosh(x))

def tan(z):
    r = cmath.tanh(complex(-z.imag, z.real))
    return complex(r.imag, -r.real)

def tanh(z):
    x = z.real
    y = z.imag
    if math.isinf(x):
        real = math.copysign(1., x)
        if math.isinf(y):
            imag = 0.
        else:
            imag = math.copysign(0., math.sin(2. * y))
        return complex(real, imag)
    tx = math.tanh(x)
    ty = math.tan(y)
    cx = 1. / math.cosh(x)
    txty = tx * ty
    denom = 1. + txty * txty
    return complex(tx * (1. + ty * ty) / denom, ((ty / denom) * cx) * cx)

def acos(z):
    if abs(z.real) > FLT_MAX_4 or abs(z.imag) > FLT_MAX_4:
        real = math.atan2(abs(z.imag), z.real)
        imag = math.copysign(math.log(math.hypot(z.real * 0.5, z.imag * 0.5)) + LN_4, -z.imag)
        return complex(real, imag)
    else:
        s1 = cmath.sqrt(complex(1. - z.real, -z.imag))
        s2 = cmath.sqrt(complex(1. + z.real, z.imag))
        real = 2. * math.atan2(s1.real, s2.real)
        imag = math.asinh(s2.real * s1.imag - s2.imag * s1.real)
        return complex(real, imag)

def acosh(z):
    if abs(z.real) > FLT_MAX_4 or abs(z.imag) > FLT_MAX_4:
        real = math.log(math.hypot(z.real * 0.5, z.imag * 0.5)) + LN_4
        imag = math.atan2(z.imag, z.real)
        return complex(real, imag)
    else:
        s1 = cmath.sqrt(complex(z.real - 1., z.imag))
        s2 = cmath.sqrt(complex(z.real + 1., z.imag))
        real = math.asinh(s1.real * s2.real + s1.imag * s2.imag)
        imag = 2. * math.atan2(s1.imag, s2.real)
        return complex(real, imag)

def asinh(z):
    if abs(z.real) > FLT_MAX_4 or abs(z.imag) > FLT_MAX_4:
        real = math.copysign(math.log(math.hypot(z.real * 0.5, z.imag * 0.5)) + LN_4, z.real)
        imag = math.atan2(z.imag, abs(z.real))
        return complex(real, imag)
    else:
        s1 = cmath.sqrt(complex(1. + z.imag, -z.real))
        s2 = cmath.sqrt(complex(1. - z.imag, z.real))
        real = math.asinh(s1.real * s2.imag - s2.real * s1.imag)
        imag = math.atan2(z.imag, s1.real * s2.real - s1.imag * s2.imag)
        return complex(real, imag)

def asin(z):
    r = cmath.asinh(complex(-z.imag, z.real))
    return complex(r.imag, -r.real)

def atan(z):
    r = cmath.atanh(complex(-z.imag, z.real))
    if math.isinf(z.real) and math.isnan(z.imag):
        return complex(r.imag, r.real)
    else:
        return complex(r.imag, -r.real)

def atanh(z):
    if z.real < 0.:
        negate = True
        z = -z
    else:
        negate = False
    ay = abs(z.imag)
    if math.isnan(z.real) or z.real > ATANH_LARGE or ay > ATANH_LARGE:
        if math.isinf(z.imag):
            real = math.copysign(0., z.real)
        elif math.isinf(z.real):
            real = 0.
        else:
            h = math.hypot(z.real * 0.5, z.imag * 0.5)
            real = z.real / 4. / h / h
        imag = -math.copysign(PI_12, -z.imag)
    elif z.real == 1. and ay < ATANH_SMALL:
        if ay == 0.:
            real = INF
            imag = z.imag
        else:
            real = -math.log(math.sqrt(ay) / math.sqrt(math.hypot(ay, 2.)))
            imag = math.copysign(math.atan2(2., -ay) / 2, z.imag)
    else:
        sqay = ay * ay
        zr1 = 1 - z.real
        real = math.log1p(4. * z.real / (zr1 * zr1 + sqay)) * 0.25
        imag = -math.atan2(-2. * z.imag, zr1 * (1 + z.real) - sqay) * 0.5
    if math.isnan(z.imag):
        imag = NAN
    if negate:
        return complex(-real, -imag)
    else:
        return complex(real, imag)
)PY";

class PreludeResolver : public Resolver {
public:
  GlobalValue resolve(const std::string &name) override {
    GlobalValue g;
    if (name == "math" || name == "cmath") {
      g.kind = GlobalValue::Kind::Module;
      g.module_name = name;
      return g;
    }
    const double flt_max = std::numeric_limits<float>::max();
    static const std::map<std::string, double> constants = {
        {"NAN", std::numeric_limits<double>::quiet_NaN()},
        {"INF", std::numeric_limits<double>::infinity()},
        {"LN_10", 2.302585092994045684},
        {"LN_4", std::log(4.0)},
        {"FLT_MAX_4", flt_max / 4},
        {"ATANH_LARGE", std::sqrt(flt_max / 4)},
        {"ATANH_SMALL", std::sqrt(static_cast<double>(std::numeric_limits<float>::min()))},
        {"PI_12", std::numbers::pi / 2}};
    auto c = constants.find(name);
    if (c != constants.end()) {
      g.kind = GlobalValue::Kind::Float;
      g.scalar = Scalar::F64;
      g.float_value = c->second;
    }
    return g;
  }
};

std::map<std::string, std::shared_ptr<FunctionSource>> build_prelude() {
  std::map<std::string, std::shared_ptr<FunctionSource>> functions;
  auto resolver = std::make_shared<PreludeResolver>();
  std::string text = kSource;
  int line = 1;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t next = text.find("\ndef ", pos);
    size_t end = next == std::string::npos ? text.size() : next + 1;
    auto fn = std::make_shared<FunctionSource>();
    fn->source = text.substr(pos, end - pos);
    fn->name = fn->source.substr(4, fn->source.find('(') - 4);
    fn->file = "<simt complex prelude>";
    fn->first_line = line;
    fn->resolver = resolver;
    for (char ch : fn->source)
      line += ch == '\n';
    functions[fn->name] = fn;
    pos = end;
  }
  return functions;
}

} // namespace

bool is_cmath_unary(const std::string &name) {
  static const std::set<std::string> names = {"acos",  "acosh", "asin", "asinh", "atan",
                                              "atanh", "cos",   "cosh", "exp",   "log10",
                                              "sin",   "sinh",  "sqrt", "tan",   "tanh"};
  return names.count(name) != 0;
}

bool is_cmath_function(const std::string &name) {
  static const std::set<std::string> others = {"log",   "phase", "polar",   "rect",
                                               "isnan", "isinf", "isfinite"};
  return is_cmath_unary(name) || others.count(name) != 0;
}

std::shared_ptr<FunctionSource> complex_prelude_function(const std::string &name) {
  static const auto functions = build_prelude();
  auto it = functions.find(name);
  return it == functions.end() ? nullptr : it->second;
}

} // namespace simt
