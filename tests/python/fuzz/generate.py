"""Seeded random CUDA kernel generator for differential fuzzing (simt vs Numba's simulator).

`generate(seed)` returns the source of a module defining device functions, one kernel and `run()`,
which launches the kernel on seeded inputs and returns {name: array} of every output. The same seed
always gives the same text.

The kernels avoid behaviour that legitimately differs between a GPU (Numba's typing) and Numba's
simulator (NumPy scalar arithmetic); see README.md. The main tools for that:
- every integer intermediate stays within int32 range (tracked with intervals), so Numba's int64
  promotion and NumPy's int32 arithmetic give the same values;
- locals have one declared type and every assignment converts to it explicitly, so the simulator's
  runtime scalar types follow Numba's unified types;
- two unsigned operands never meet in an operator (Numba types that uint64, whose mix with int64
  is float64), unsigned values are never negated, inverted or shifted;
- math.* functions get float64 arguments (math.f(float32) is float32 in Numba, double in the
  simulator), float32 is never raised to a power, min/max/ternaries get operands of one type;
- no division by zero, no NaN or infinity, float-to-int conversions only of values in range.
"""
import random

INT_LIM = 2**31 - 1
FLOAT_LIM = 1e15
LOCAL_RANGE = {"i32": (-30000, 30000), "i64": (-2000000, 2000000), "u32": (0, 60000),
               "f32": (-1e5, 1e5), "f64": (-1e6, 1e6)}
CAST = {"i32": "int32", "i64": "int64", "u32": "uint32", "f32": "float32", "f64": "float64",
        "bool": "bool"}
INTS = ("i32", "i64", "u32")
FLOATS = ("f32", "f64")
N_SLOTS = 16


class Val:
    """A generated expression: its source, its Numba type and an interval containing its value."""

    def __init__(self, code, ty, lo=0, hi=1):
        self.code, self.ty, self.lo, self.hi = code, ty, lo, hi

    def is_int(self):
        return self.ty in INTS

    def is_float(self):
        return self.ty in FLOATS


def int_result(a, b):
    """Numba's type for an integer binary operator (both unsigned never reaches here)."""
    return "i64"


def float_result(a, b):
    if a.ty == "f32" and b.ty == "f32":
        return "f32"
    return "f64"


def num_result(a, b):
    if a.is_int() and b.is_int():
        return int_result(a, b)
    return float_result(a, b)


def span(*vals):
    return min(vals), max(vals)


class Scope:
    def __init__(self, parent=None):
        self.locals = {} if parent is None else dict(parent.locals)
        self.loop_vars = [] if parent is None else list(parent.loop_vars)
        self.in_loop = False if parent is None else parent.in_loop
        self.loop_budget = 400 if parent is None else parent.loop_budget


class Generator:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.seed = seed
        self.counter = 0
        self.slots = {"out_i64": 0, "out_i32": 0, "out_f64": 0, "out_f32": 0, "out_b": 0}
        self.devfuncs = []  # (name, param types, return types)
        self.in_kernel = False
        self.tpb = self.r.choice([32, 64])
        self.blocks = self.r.choice([1, 2, 3])
        self.n = self.tpb * self.blocks
        # wide: int64 values up to 2**62; every int32/uint32 leaf is widened to int64 first so the
        # simulator's NumPy int32 arithmetic cannot wrap where Numba's int64 does not
        self.wide = self.chance(0.3)
        self.int_lim = 2**62 if self.wide else INT_LIM
        self.kernel_returns = False  # early returns and barriers do not mix

    def fresh(self, prefix):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    def chance(self, p):
        return self.r.random() < p

    # ---------------------------------------------------------------- conversions
    def local_range(self, ty):
        if self.wide and ty == "i64":
            return (-2**40, 2**40)
        return LOCAL_RANGE[ty]

    def cast(self, v, ty):
        """v converted to ty explicitly (only where the value is in range for ty)."""
        if ty == "bool":
            if v.ty == "bool":
                return v
            return Val("(%s != 0)" % v.code, "bool")
        lo, hi = self.local_range(ty)
        v = self.clamp(v, lo, hi)
        if v.ty == ty:
            return v
        return Val("%s(%s)" % (CAST[ty], v.code), ty, v.lo, v.hi)

    def clamp(self, v, lo, hi):
        """v brought into [lo, hi] by Python-visible operations of v's own type."""
        if v.ty == "bool":
            return Val("int64(%s)" % v.code, "i64", 0, 1)
        if lo <= v.lo and v.hi <= hi:
            return v
        if v.is_int():
            if v.ty == "u32":
                v = Val("int64(%s)" % v.code, "i64", v.lo, v.hi)
            if lo >= 0 or self.chance(0.5):
                m = self.r.choice([7, 13, 100, 1000, hi - max(lo, 0) + 1]) if hi > 1000 else hi + 1
                m = max(1, min(m, hi - max(lo, 0) + 1))
                return Val("(%s %% %d)" % (v.code, m), "i64", 0, m - 1)
            return Val("min(max(%s, %d), %d)" % (v.code, lo, hi), "i64", max(v.lo, lo),
                       min(v.hi, hi))
        # floats: compare against literals of the same type so min/max keep one type
        if v.ty == "f32":
            v = Val("float64(%s)" % v.code, "f64", v.lo, v.hi)
        return Val("min(max(%s, %r), %r)" % (v.code, float(lo), float(hi)), "f64",
                   max(v.lo, lo), min(v.hi, hi))

    def to_f64(self, v):
        if v.ty == "f64":
            return v
        if v.ty == "bool":
            return Val("float64(int64(%s))" % v.code, "f64", 0.0, 1.0)
        return Val("float64(%s)" % v.code, "f64", v.lo, v.hi)

    def same_type(self, vals, ty):
        return [v if v.ty == ty else self.cast(v, ty) for v in vals]

    # ---------------------------------------------------------------- leaves
    def int_leaf(self, scope):
        v = self.int_leaf_raw(scope)
        if self.wide and v.ty in ("i32", "u32"):
            return Val("int64(%s)" % v.code, "i64", v.lo, v.hi)
        if self.wide and v.ty == "i64" and v.lo == v.hi and self.chance(0.2):
            k = self.r.choice([2**40 + 7, -(2**35) - 3, 2**53 + 1, 123456789012])
            return Val(str(k) if k >= 0 else "(%d)" % k, "i64", k, k)
        return v

    def int_leaf_raw(self, scope):
        choices = ["lit", "lit", "arr", "arr", "local", "local", "local", "tid"]
        if scope.loop_vars:
            choices += ["loopvar", "loopvar"]
        if self.in_kernel:
            choices += ["localarr"]
        c = self.r.choice(choices)
        if c == "lit":
            k = self.r.choice([0, 1, 2, 3, 5, 7, -1, -3, 10, 31, 100, -100, 1000, 65535])
            return Val(str(k) if k >= 0 else "(%d)" % k, "i64", k, k)
        if c == "tid":
            if not self.in_kernel:
                return self.int_leaf(scope) if self.has_locals(scope) else Val("2", "i64", 2, 2)
            return self.r.choice([Val("i", "i32", 0, self.n - 1),
                                  Val("tid", "i32", 0, self.tpb - 1),
                                  Val("cuda.blockIdx.x", "i32", 0, self.blocks - 1),
                                  Val("cuda.blockDim.x", "i32", self.tpb, self.tpb),
                                  Val("cuda.gridDim.x", "i32", self.blocks, self.blocks),
                                  Val("cuda.gridsize(1)", "i32", self.n, self.n),
                                  Val("ia32.shape[0]", "i64", self.n, self.n),
                                  Val("fa64.size", "i64", self.n, self.n),
                                  Val("len(iu32)", "i64", self.n, self.n)])
        if c == "loopvar":
            name, lo, hi = self.r.choice(scope.loop_vars)
            return Val(name, "i64", lo, hi)
        if c == "localarr":
            return Val("la[%s]" % self.index(scope, 4), "i64", *self.local_range("i64"))
        if c == "local":
            names = [n for n, t in scope.locals.items() if t in INTS]
            if names:
                n = self.r.choice(names)
                t = scope.locals[n]
                return Val(n, t, *self.local_range(t))
        if not self.in_kernel:
            return Val(str(self.r.choice([4, 9])), "i64", 4, 9)
        arr, ty, lo, hi = self.r.choice([("ia32", "i32", -1000, 1000),
                                         ("ia64", "i64", -100000, 100000),
                                         ("iu32", "u32", 0, 5000)])
        return Val("%s[%s]" % (arr, self.index(scope, self.n)), ty, lo, hi)

    def has_locals(self, scope):
        return bool(scope.locals)

    def index(self, scope, size):
        """An index into an array of `size` elements: in range, sometimes negative."""
        if size == self.n and self.in_kernel:
            c = self.r.choice(["i", "i", "rev", "neg", "shift"])
            if c == "i":
                return "i"
            if c == "rev":
                return "%d - i" % (size - 1)
            if c == "neg":
                return "-1 - i"
        v = self.int_expr(scope, 1)
        if v.ty == "u32":
            v = Val("int64(%s)" % v.code, "i64", v.lo, v.hi)
        if self.chance(0.3):
            return "(%s) %% %d - %d" % (v.code, size, size)
        return "(%s) %% %d" % (v.code, size)

    def float_leaf(self, scope):
        c = self.r.choice(["lit", "arr", "arr", "local", "local", "local", "fromint", "pi"])
        if c == "lit":
            x = self.r.choice([0.0, 0.5, 1.0, 1.5, -2.25, 3.0, 10.0, -0.125, 1e3, 2.5])
            return Val(repr(x) if x >= 0 else "(%r)" % x, "f64", x, x)
        if c == "pi":
            return Val("math.pi", "f64", 3.14159, 3.1416)
        if c == "local":
            names = [n for n, t in scope.locals.items() if t in FLOATS]
            if names:
                n = self.r.choice(names)
                return Val(n, scope.locals[n], *LOCAL_RANGE[scope.locals[n]])
        if c == "fromint":
            v = self.int_leaf(scope)
            return Val("float(%s)" % v.code, "f64", v.lo, v.hi)
        if not self.in_kernel:
            return Val("0.75", "f64", 0.75, 0.75)
        arr, ty, lo, hi = self.r.choice([("fa32", "f32", -100.0, 100.0),
                                         ("fa64", "f64", -1000.0, 1000.0)])
        return Val("%s[%s]" % (arr, self.index(scope, self.n)), ty, lo, hi)

    # ---------------------------------------------------------------- expressions
    def int_expr(self, scope, depth):
        if depth <= 0 or self.chance(0.25):
            return self.int_leaf(scope)
        for _ in range(4):
            v = self.try_int_expr(scope, depth)
            if v is not None and v.lo >= -self.int_lim and v.hi <= self.int_lim:
                return v
        return self.int_leaf(scope)

    def signed(self, v):
        if v.ty == "u32":
            return Val("int64(%s)" % v.code, "i64", v.lo, v.hi)
        return v

    def try_int_expr(self, scope, depth):
        c = self.r.choice(["+", "-", "*", "//", "%", "**", "<<", ">>", "&", "|", "^", "neg", "inv",
                           "abs", "minmax", "ternary", "conv", "conv", "call", "floor", "andor"])
        a = self.int_expr(scope, depth - 1)
        if c in ("+", "-", "*", "//", "%", "&", "|", "^"):
            b = self.int_expr(scope, depth - 1)
            if a.ty == "u32" and b.ty == "u32":
                b = self.signed(b)
            if c == "+":
                return Val("(%s + %s)" % (a.code, b.code), "i64", a.lo + b.lo, a.hi + b.hi)
            if c == "-":
                return Val("(%s - %s)" % (a.code, b.code), "i64", a.lo - b.hi, a.hi - b.lo)
            if c == "*":
                lo, hi = span(a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi)
                return Val("(%s * %s)" % (a.code, b.code), "i64", lo, hi)
            if c in ("//", "%"):
                if b.lo <= 0 <= b.hi:
                    if b.ty == "u32":
                        b = Val("(%s + 1)" % b.code, "i64", b.lo + 1, b.hi + 1)
                    else:
                        m = max(abs(b.lo), abs(b.hi))
                        b = Val("(abs(%s) + 1)" % b.code, "i64" if b.ty != "i32" else "i64", 1,
                                m + 1)
                m = max(abs(a.lo), abs(a.hi))
                if c == "//":
                    return Val("(%s // %s)" % (a.code, b.code), "i64", -m - 1, m + 1)
                d = max(abs(b.lo), abs(b.hi))
                return Val("(%s %% %s)" % (a.code, b.code), "i64", -d, d)
            bits = max(abs(a.lo), abs(a.hi), abs(b.lo), abs(b.hi)).bit_length()
            if a.lo >= 0 and b.lo >= 0:
                return Val("(%s %s %s)" % (a.code, c, b.code), "i64", 0, 2**bits - 1)
            return Val("(%s %s %s)" % (a.code, c, b.code), "i64", -2**bits, 2**bits - 1)
        if c == "**":
            e = self.r.choice([0, 1, 2, 3])
            lo, hi = span(a.lo**e, a.hi**e, 0 if a.lo <= 0 <= a.hi and e else a.lo**e)
            return Val("(%s ** %d)" % (a.code, e), "i64", lo, hi)
        if c in ("<<", ">>"):
            a = self.signed(a)
            if self.chance(0.5):
                k = self.r.randint(0, 8)
                kc, klo, khi = str(k), k, k
            else:
                kv = self.int_expr(scope, depth - 1)
                kc, klo, khi = "(%s & 7)" % kv.code, 0, 7
            if c == "<<":
                lo, hi = span(a.lo << klo, a.lo << khi, a.hi << klo, a.hi << khi)
                return Val("(%s << %s)" % (a.code, kc), "i64", lo, hi)
            return Val("(%s >> %s)" % (a.code, kc), "i64", min(a.lo, 0) if a.lo < 0 else 0,
                       max(a.hi, 0))
        if c == "neg":
            a = self.signed(a)
            return Val("(-%s)" % a.code, "i64", -a.hi, -a.lo)
        if c == "inv":
            a = self.signed(a)
            return Val("(~%s)" % a.code, "i64", -a.hi - 1, -a.lo - 1)
        if c == "abs":
            a = self.signed(a)
            return Val("abs(%s)" % a.code, a.ty, 0 if a.lo <= 0 <= a.hi else min(abs(a.lo), abs(
                a.hi)), max(abs(a.lo), abs(a.hi)))
        if c == "minmax":
            b = self.int_expr(scope, depth - 1)
            ty = a.ty if a.ty == b.ty else "i64"
            a, b = self.same_type([a, b], ty)
            f = self.r.choice(["min", "max"])
            lo, hi = (min(a.lo, b.lo), min(a.hi, b.hi)) if f == "min" else (max(a.lo, b.lo),
                                                                            max(a.hi, b.hi))
            return Val("%s(%s, %s)" % (f, a.code, b.code), ty, lo, hi)
        if c == "ternary":
            b = self.int_expr(scope, depth - 1)
            ty = a.ty if a.ty == b.ty else "i64"
            a, b = self.same_type([a, b], ty)
            cond = self.bool_expr(scope, depth - 1)
            return Val("(%s if %s else %s)" % (a.code, cond.code, b.code), ty, min(a.lo, b.lo),
                       max(a.hi, b.hi))
        if c == "andor":
            b = self.int_expr(scope, depth - 1)
            ty = a.ty if a.ty == b.ty else "i64"
            a, b = self.same_type([a, b], ty)
            return Val("(%s %s %s)" % (a.code, self.r.choice(["and", "or"]), b.code), ty,
                       min(a.lo, b.lo), max(a.hi, b.hi))
        if c == "conv":
            f = self.to_f64(self.clamp(self.float_expr(scope, depth - 1), -1e6, 1e6))
            # math.floor/ceil/trunc return floats in Numba's CUDA typing (ints in Python)
            conv = self.r.choice(["%s", "%s", "math.floor(%s)", "math.ceil(%s)", "math.trunc(%s)"])
            conv = conv % f.code
            return Val("%s(%s)" % (self.r.choice(["int", "round"]) if conv == f.code else "int",
                                   conv), "i64", int(f.lo) - 1, int(f.hi) + 1)
        if c == "floor":
            b = self.bool_expr(scope, depth - 1)
            return Val("int64(%s)" % b.code, "i64", 0, 1)
        if c == "call":
            return self.call_scalar(scope, depth, want="int")
        return None

    def float_expr(self, scope, depth):
        if depth <= 0 or self.chance(0.25):
            return self.float_leaf(scope)
        for _ in range(4):
            v = self.try_float_expr(scope, depth)
            if v is not None and v.lo >= -FLOAT_LIM and v.hi <= FLOAT_LIM:
                return v
        return self.float_leaf(scope)

    def any_num(self, scope, depth):
        return self.int_expr(scope, depth) if self.chance(0.3) else self.float_expr(scope, depth)

    def try_float_expr(self, scope, depth):
        c = self.r.choice(["+", "-", "*", "/", "/", "//", "%", "**", "neg", "abs", "math1",
                           "math1", "math2", "minmax", "ternary", "f32", "call"])
        a = self.any_num(scope, depth - 1)
        if c in ("+", "-", "*", "/", "//", "%"):
            b = self.any_num(scope, depth - 1)
            if a.is_int() and b.is_int():
                a = self.to_f64(a)
            if c == "+":
                return Val("(%s + %s)" % (a.code, b.code), num_result(a, b), a.lo + b.lo,
                           a.hi + b.hi)
            if c == "-":
                return Val("(%s - %s)" % (a.code, b.code), num_result(a, b), a.lo - b.hi,
                           a.hi - b.lo)
            if c == "*":
                lo, hi = span(a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi)
                return Val("(%s * %s)" % (a.code, b.code), num_result(a, b), lo, hi)
            if b.lo <= 0.25 and b.hi >= -0.25:
                b = self.to_f64(b) if b.is_int() or b.ty == "bool" else b
                m = max(abs(b.lo), abs(b.hi))
                b = Val("(abs(%s) + 0.5)" % b.code, "f64", 0.5, m + 0.5)
            m = max(abs(a.lo), abs(a.hi))
            d = min(abs(b.lo), abs(b.hi))
            dm = max(abs(b.lo), abs(b.hi))
            if c == "/":
                return Val("(%s / %s)" % (a.code, b.code), num_result(a, b), -m / d, m / d)
            if c == "//":
                return Val("(%s // %s)" % (a.code, b.code), num_result(a, b), -m / d - 1,
                           m / d + 1)
            return Val("(%s %% %s)" % (a.code, b.code), num_result(a, b), -dm, dm)
        if c == "**":
            a = self.to_f64(a)
            m = max(abs(a.lo), abs(a.hi))
            e = self.r.choice([0.5, 2.0, 1.5, 3, 2, 0.25])
            return Val("(abs(%s) ** %r)" % (a.code, e), "f64", 0.0, (m + 1)**e)
        if c == "neg":
            if not a.is_float():
                a = self.to_f64(a)
            return Val("(-%s)" % a.code, a.ty, -a.hi, -a.lo)
        if c == "abs":
            if not a.is_float():
                a = self.to_f64(a)
            return Val("abs(%s)" % a.code, a.ty, 0.0, max(abs(a.lo), abs(a.hi)))
        if c == "math1":
            a = self.to_f64(a)
            f = self.r.choice(["sin", "cos", "atan", "tanh", "exp", "log", "sqrt", "fabs", "tan",
                               "log1p", "expm1", "asinh", "erf", "floor", "ceil", "trunc"])
            m = max(abs(a.lo), abs(a.hi))
            if f in ("sin", "cos", "tanh", "erf"):
                return Val("math.%s(%s)" % (f, a.code), "f64", -1.0, 1.0)
            if f == "trunc" and self.chance(0.5):  # round(x, n); float64() keeps NumPy's round
                n = self.r.choice([-2, -1, 0, 1, 2, 3])
                return Val("round(float64(%s), %d)" % (a.code, n), "f64", a.lo - 100, a.hi + 100)
            if f in ("floor", "ceil", "trunc"):
                return Val("math.%s(%s)" % (f, a.code), "f64", a.lo - 1, a.hi + 1)
            if f == "atan":
                return Val("math.atan(%s)" % a.code, "f64", -1.6, 1.6)
            if f in ("exp", "expm1"):
                a = self.clamp(a, -20.0, 20.0)
                return Val("math.%s(%s)" % (f, a.code), "f64", -1.0, 5e8)
            if f in ("log", "log1p"):
                return Val("math.%s(abs(%s) + 1.0)" % (f, a.code), "f64", 0.0, 40.0)
            if f == "sqrt":
                return Val("math.sqrt(abs(%s))" % a.code, "f64", 0.0, m**0.5 + 1)
            if f == "asinh":
                return Val("math.asinh(%s)" % a.code, "f64", -40.0, 40.0)
            if f == "tan":
                a = self.clamp(a, -1.5, 1.5)
                return Val("math.tan(%s)" % a.code, "f64", -15.0, 15.0)
            return Val("math.fabs(%s)" % a.code, "f64", 0.0, m)
        if c == "math2":
            a, b = self.to_f64(a), self.to_f64(self.any_num(scope, depth - 1))
            f = self.r.choice(["atan2", "hypot", "copysign", "fmod", "pow"])
            ma, mb = max(abs(a.lo), abs(a.hi)), max(abs(b.lo), abs(b.hi))
            if f == "atan2":
                return Val("math.atan2(%s, %s)" % (a.code, b.code), "f64", -3.2, 3.2)
            if f == "hypot":
                return Val("math.hypot(%s, %s)" % (a.code, b.code), "f64", 0.0, ma + mb)
            if f == "copysign":
                return Val("math.copysign(%s, %s)" % (a.code, b.code), "f64", -ma, ma)
            if f == "fmod":
                return Val("math.fmod(%s, abs(%s) + 0.5)" % (a.code, b.code), "f64", -mb - 1,
                           mb + 1)
            b = self.clamp(b, -3.0, 3.0)
            return Val("math.pow(abs(%s) + 0.5, %s)" % (a.code, b.code), "f64", 0.0,
                       (ma + 0.5)**3 + 8)
        if c == "minmax":
            b = self.float_expr(scope, depth - 1)
            if not a.is_float():
                a = self.to_f64(a)
            ty = a.ty if a.ty == b.ty else "f64"
            a, b = (self.to_f64(a), self.to_f64(b)) if ty == "f64" else (a, b)
            f = self.r.choice(["min", "max"])
            return Val("%s(%s, %s)" % (f, a.code, b.code), ty, min(a.lo, b.lo), max(a.hi, b.hi))
        if c == "ternary":
            b = self.float_expr(scope, depth - 1)
            if not a.is_float():
                a = self.to_f64(a)
            ty = a.ty if a.ty == b.ty else "f64"
            a, b = (self.to_f64(a), self.to_f64(b)) if ty == "f64" else (a, b)
            cond = self.bool_expr(scope, depth - 1)
            return Val("(%s if %s else %s)" % (a.code, cond.code, b.code), ty, min(a.lo, b.lo),
                       max(a.hi, b.hi))
        if c == "f32":
            a = self.clamp(a, -1e6, 1e6)
            return Val("float32(%s)" % a.code, "f32", a.lo - 1, a.hi + 1)
        if c == "call":
            return self.call_scalar(scope, depth, want="float")
        return None

    def bool_expr(self, scope, depth):
        c = self.r.choice(["cmp", "cmp", "cmp", "chain", "not", "andor", "local", "isfin", "arr"])
        if depth <= 0 and c in ("not", "andor", "chain"):
            c = "cmp"
        if c == "local":
            names = [n for n, t in scope.locals.items() if t == "bool"]
            if names:
                return Val(self.r.choice(names), "bool")
            c = "cmp"
        if c == "arr" and self.in_kernel:
            return Val("ba[%s]" % self.index(scope, self.n), "bool")
        if c == "not":
            return Val("(not %s)" % self.bool_expr(scope, depth - 1).code, "bool")
        if c == "andor":
            a, b = self.bool_expr(scope, depth - 1), self.bool_expr(scope, depth - 1)
            return Val("(%s %s %s)" % (a.code, self.r.choice(["and", "or"]), b.code), "bool")
        if c == "andor" and self.chance(0.3):
            a, b = self.bool_expr(scope, depth - 1), self.bool_expr(scope, depth - 1)
            return Val("(%s %s %s)" % (a.code, self.r.choice(["==", "!="]), b.code), "bool")
        if c == "isfin":
            f = self.to_f64(self.float_expr(scope, depth - 1))
            return Val("math.%s(%s)" % (self.r.choice(["isnan", "isinf", "isfinite"]), f.code),
                       "bool")
        ops = ["<", "<=", ">", ">=", "==", "!="]
        if c == "chain":
            vals = [self.any_num(scope, depth - 1) for _ in range(3)]
            return Val("(%s %s %s %s %s)" % (vals[0].code, self.r.choice(ops), vals[1].code,
                                             self.r.choice(ops), vals[2].code), "bool")
        a, b = self.any_num(scope, depth - 1), self.any_num(scope, depth - 1)
        return Val("(%s %s %s)" % (a.code, self.r.choice(ops), b.code), "bool")

    def expr_of(self, ty, scope, depth):
        if ty in INTS:
            return self.int_expr(scope, depth)
        if ty in FLOATS:
            return self.float_expr(scope, depth)
        return self.bool_expr(scope, depth)

    # ---------------------------------------------------------------- device functions
    def call_scalar(self, scope, depth, want):
        funcs = [f for f in self.devfuncs if len(f[2]) == 1 and
                 ((f[2][0] in INTS) == (want == "int"))]
        if not funcs:
            return None
        name, params, rets = self.r.choice(funcs)
        args = self.call_args(scope, depth, params)
        return Val("%s(%s)" % (name, args), rets[0], *self.local_range(rets[0]))

    def call_args(self, scope, depth, params):
        out = []
        for p in params:
            v = self.expr_of(p, scope, depth - 1)
            out.append(self.cast(v, p).code)
        return ", ".join(out)

    def gen_devfunc(self):
        name = "dev%d" % len(self.devfuncs)
        nparams = self.r.randint(1, 3)
        params = [self.r.choice(["i64", "i64", "f64", "f64", "i32", "f32", "u32"])
                  for _ in range(nparams)]
        rets = [self.r.choice(["i64", "f64", "i32", "f32"]) for _ in range(self.r.choice([1, 1,
                                                                                          2]))]
        scope = Scope()
        pnames = ["p%d" % k for k in range(nparams)]
        lines = ["@cuda.jit(device=True)", "def %s(%s):" % (name, ", ".join(pnames))]
        body = []
        # parameters are read-only: copies are the locals the body changes
        for pn, pt in zip(pnames, params):
            scope.locals[pn + "_"] = pt
            body.append("%s_ = %s" % (pn, self.cast(Val(pn, pt, *self.local_range(pt)), pt).code))
        self.declare_locals(scope, body, 2)
        self.block(scope, body, 1, self.r.randint(2, 5), can_return=rets)
        body.append(self.return_stmt(scope, rets))
        lines += ["    " + b for b in body]
        self.devfuncs.append((name, params, rets))
        return lines

    def return_stmt(self, scope, rets):
        vals = [self.cast(self.expr_of(t, scope, 2), t).code for t in rets]
        return "return " + (vals[0] if len(vals) == 1 else "(%s)" % ", ".join(vals))

    # ---------------------------------------------------------------- statements
    def declare_locals(self, scope, body, count):
        for _ in range(count):
            ty = self.r.choice(["i32", "i64", "i64", "u32", "f32", "f64", "f64", "bool"])
            name = self.fresh("v")
            body.append("%s = %s" % (name, self.cast(self.expr_of(ty, scope, 2), ty).code))
            scope.locals[name] = ty

    def assign(self, scope, body):
        names = list(scope.locals)
        if not names:
            return
        n = self.r.choice(names)
        ty = scope.locals[n]
        if ty in ("i64", "f64") and self.chance(0.25):
            if ty == "i64":
                op = self.r.choice(["//= 3", "%= 7", ">>= 1", "&= 255", "//= -2", "-= %s // 2" % n])
            else:
                op = self.r.choice(["*= 0.5", "/= 3.0", "*= -0.75", "-= %s / 2.0" % n])
            body.append("%s %s" % (n, op))
            return
        body.append("%s = %s" % (n, self.cast(self.expr_of(ty, scope, self.r.randint(1, 4)),
                                              ty).code))

    def store(self, scope, body):
        arr = self.r.choice(["out_i64", "out_i32", "out_f64", "out_f32", "out_b"])
        ty = {"out_i64": "i64", "out_i32": "i32", "out_f64": "f64", "out_f32": "f32",
              "out_b": "bool"}[arr]
        slot = self.slot(arr)
        v = self.expr_of(ty, scope, self.r.randint(1, 4))
        if ty in INTS:
            v = self.clamp(v, *self.local_range(ty))
        if ty in ("i64", "f64") and self.chance(0.3):
            body.append("%s[i, %d] %s= %s" % (arr, slot, self.r.choice("+-"), v.code))
        else:
            body.append("%s[i, %d] = %s" % (arr, slot, v.code))

    def slot(self, arr):
        s = self.slots[arr]
        self.slots[arr] = (s + 1) % N_SLOTS
        return s

    def block(self, scope, body, depth, count, can_return=None, in_loop=False):
        for _ in range(count):
            self.statement(scope, body, depth, can_return, in_loop)

    def indent(self, lines):
        return ["    " + x for x in lines] or ["    pass"]

    def statement(self, scope, body, depth, can_return, in_loop):
        choices = ["assign", "assign", "assign", "if", "for", "while"]
        if self.in_kernel:
            choices += ["store", "store", "atomic", "localarr"]
        if self.devfuncs:
            choices += ["tuplecall"]
        if in_loop:
            choices += ["breakcont"]
        if can_return is not None or self.kernel_returns:
            choices += ["return"]
        if depth >= 3:
            choices = [c for c in choices if c not in ("if", "for", "while")]
        c = self.r.choice(choices)
        if c == "assign" and self.chance(0.1):
            for ty in set(scope.locals.values()):
                names = [n for n, t in scope.locals.items() if t == ty]
                if len(names) >= 2:
                    a, b = self.r.sample(names, 2)
                    body.append("%s, %s = %s, %s" % (a, b, b, a))
                    return
        if c == "assign":
            self.assign(scope, body)
        elif c == "store":
            self.store(scope, body)
        elif c == "localarr":
            v = self.clamp(self.int_expr(scope, 2), *self.local_range("i64"))
            body.append("la[%s] = %s" % (self.index(scope, 4), v.code))
        elif c == "atomic":
            # one array per operation: mixing add and max on one element depends on the order
            if self.chance(0.5):
                v = self.clamp(self.signed(self.int_expr(scope, 2)), -1000000, 1000000)
                row, f = self.r.choice([(0, "add"), (0, "add"), (0, "sub"), (1, "max"),
                                        (2, "min")])
                body.append("cuda.atomic.%s(acc_i, (%d, %s), %s)" % (f, row, self.index(scope, 4),
                                                                     v.code))
            else:
                v = self.to_f64(self.float_expr(scope, 2))
                row, f = self.r.choice([(0, "max"), (1, "min")])
                body.append("cuda.atomic.%s(acc_f, (%d, %s), %s)" % (f, row, self.index(scope, 4),
                                                                     v.code))
        elif c == "return":
            cond = self.bool_expr(scope, 2)
            body.append("if %s:" % cond.code)
            body.append("    " + (self.return_stmt(scope, can_return) if can_return else "return"))
        elif c == "breakcont":
            cond = self.bool_expr(scope, 2)
            body.append("if %s:" % cond.code)
            body.append("    " + self.r.choice(["break", "continue"]))
        elif c == "tuplecall":
            name, params, rets = self.r.choice(self.devfuncs)
            targets = [self.fresh("t") for _ in rets]
            body.append("%s = %s(%s)" % (", ".join(targets), name,
                                        self.call_args(scope, 2, params)))
            for t, rt in zip(targets, rets):
                dst = [n for n, ty in scope.locals.items() if ty == rt]
                if dst:
                    body.append("%s = %s" % (self.r.choice(dst), t))
                elif self.in_kernel:
                    arr = {"i64": "out_i64", "i32": "out_i32", "f64": "out_f64",
                           "f32": "out_f32"}[rt]
                    body.append("%s[i, %d] = %s" % (arr, self.slot(arr), t))
        elif c == "if":
            sub = Scope(scope)
            body.append("if %s:" % self.bool_or_num(scope).code)
            inner = []
            self.block(sub, inner, depth + 1, self.r.randint(1, 3), can_return, in_loop)
            body += self.indent(inner)
            for _ in range(self.r.choice([0, 0, 1, 2])):
                body.append("elif %s:" % self.bool_or_num(scope).code)
                inner = []
                self.block(sub, inner, depth + 1, self.r.randint(1, 2), can_return, in_loop)
                body += self.indent(inner)
            if self.chance(0.5):
                body.append("else:")
                inner = []
                self.block(sub, inner, depth + 1, self.r.randint(1, 2), can_return, in_loop)
                body += self.indent(inner)
        elif c == "for":
            self.for_loop(scope, body, depth, can_return)
        elif c == "while":
            if scope.loop_budget < 8:
                return self.assign(scope, body)
            limit = self.r.randint(1, min(8, scope.loop_budget // 4))
            w = self.fresh("w")
            body.append("%s = 0" % w)
            sub = Scope(scope)
            sub.loop_budget = scope.loop_budget // limit
            if self.chance(0.3):
                body.append("while True:")
                inner = ["%s += 1" % w, "if %s > %d:" % (w, limit), "    break"]
            else:
                body.append("while %s < %d:" % (w, limit))
                inner = ["%s += 1" % w]
            self.block(sub, inner, depth + 1, self.r.randint(1, 3), can_return, True)
            body += self.indent(inner)

    def bool_or_num(self, scope):
        if self.chance(0.15):
            return self.int_expr(scope, 1)
        return self.bool_expr(scope, 2)

    def for_loop(self, scope, body, depth, can_return):
        if scope.loop_budget < 4:
            return self.assign(scope, body)
        step = self.r.choice([1, 1, 1, 2, 3, -1, -2])
        start = self.r.randint(-5, 10)
        count = self.r.randint(0, min(10, scope.loop_budget // 2))
        stop = start + step * count + (self.r.choice([0, 1]) if abs(step) > 1 else 0)
        k = self.fresh("k")
        form = self.r.choice(["full", "full", "two", "one", "expr"])
        if form == "one" and step == 1 and start == 0:
            rng = "range(%d)" % stop
        elif form == "two" and step == 1:
            rng = "range(%d, %d)" % (start, stop)
        elif form == "expr" and step > 0:
            v = self.int_expr(scope, 1)
            v = self.signed(v)
            rng = "range(%d, %d + (%s) %% 3, %d)" % (start, stop, v.code, step)
            stop += 3 * step
        else:
            rng = "range(%d, %d, %d)" % (start, stop, step)
        lo, hi = min(start, stop), max(start, stop)
        body.append("for %s in %s:" % (k, rng))
        sub = Scope(scope)
        sub.loop_vars.append((k, lo, hi))
        sub.loop_budget = scope.loop_budget // max(1, count + 1)
        inner = []
        self.block(sub, inner, depth + 1, self.r.randint(1, 3), can_return, True)
        body += self.indent(inner)

    # ---------------------------------------------------------------- kernel and module
    def shared_exchange(self, scope, body):
        names = [n for n, t in scope.locals.items() if t in ("i64", "f64")]
        if not names:
            return
        n = self.r.choice(names)
        sh = "sh_f" if scope.locals[n] == "f64" else "sh_i"
        body.append("%s[tid] = %s" % (sh, n))
        body.append("cuda.syncthreads()")
        off = self.r.randint(1, self.tpb - 1)
        body.append("%s = %s[(tid + %d) %% %d]" % (n, sh, off, self.tpb))
        body.append("cuda.syncthreads()")

    def kernel(self):
        self.in_kernel = True
        scope = Scope()
        body = ["i = cuda.grid(1)", "tid = cuda.threadIdx.x",
                "sh_i = cuda.shared.array(%d, int64)" % self.tpb,
                "sh_f = cuda.shared.array(%d, float64)" % self.tpb,
                "la = cuda.local.array(4, int64)", "for q in range(4):",
                "    la[q] = q + i"]
        self.declare_locals(scope, body, self.r.randint(3, 6))
        self.kernel_returns = self.chance(0.25)
        for _ in range(self.r.randint(4, 12)):
            if self.chance(0.15) and not self.kernel_returns:
                self.shared_exchange(scope, body)
            else:
                self.statement(scope, body, 0, None, False)
        for n, ty in scope.locals.items():
            arr = {"i32": "out_i32", "i64": "out_i64", "u32": "out_i64", "f32": "out_f32",
                   "f64": "out_f64", "bool": "out_b"}[ty]
            body.append("%s[i, %d] = %s" % (arr, self.slot(arr), n))
        body.append("out_i64[i, %d] = la[%d]" % (self.slot("out_i64"), self.r.randint(0, 3)))
        return (["@cuda.jit",
                 "def kernel(ia32, ia64, iu32, fa32, fa64, ba, out_i64, out_i32, out_f64, "
                 "out_f32, out_b, acc_i, acc_f):"] + ["    " + b for b in body])

    def module(self):
        lines = ["# generated by tests/python/fuzz/generate.py, seed %d" % self.seed,
                 "import math", "", "import numpy as np",
                 "from numba import cuda, float32, float64, int32, int64, uint32", "", ""]
        for _ in range(self.r.choice([0, 1, 1, 2, 3])):
            lines += self.gen_devfunc() + ["", ""]
        lines += self.kernel() + ["", ""]
        lines += RUN_TEMPLATE.format(seed=self.seed, n=self.n, blocks=self.blocks,
                                     tpb=self.tpb, slots=N_SLOTS).splitlines()
        return "\n".join(lines) + "\n"


RUN_TEMPLATE = """def run():
    rng = np.random.default_rng({seed})
    n = {n}
    ia32 = rng.integers(-1000, 1001, n).astype(np.int32)
    ia64 = rng.integers(-100000, 100001, n).astype(np.int64)
    iu32 = rng.integers(0, 5001, n).astype(np.uint32)
    fa32 = rng.uniform(-100, 100, n).astype(np.float32)
    fa64 = rng.uniform(-1000, 1000, n)
    fa64 = np.where(rng.random(n) < 0.3, np.round(fa64 * 4) / 4, fa64)
    fa32 = np.where(rng.random(n) < 0.3, np.round(fa32 * 2) / 2, fa32).astype(np.float32)
    ba = rng.random(n) < 0.5
    outs = dict(out_i64=np.zeros((n, {slots}), np.int64), out_i32=np.zeros((n, {slots}), np.int32),
                out_f64=np.zeros((n, {slots}), np.float64),
                out_f32=np.zeros((n, {slots}), np.float32), out_b=np.zeros((n, {slots}), np.bool_),
                acc_i=np.zeros((3, 4), np.int64), acc_f=np.zeros((2, 4), np.float64))
    kernel[{blocks}, {tpb}](ia32, ia64, iu32, fa32, fa64, ba, *outs.values())
    return outs
"""


def generate(seed):
    return Generator(seed).module()


if __name__ == "__main__":
    import sys
    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0))
