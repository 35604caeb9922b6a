"""Frontend features Numba's own CUDA tests use: operator-module functions (called directly or
bound to names), lambdas compiled as device functions, locals assigned once as array shapes, and
constant arrays of a structured dtype."""
import math
import operator

import numpy as np
import pytest

from simt import cuda
from simt.errors import CompileError

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.pow, operator.iadd, operator.isub, operator.imul,
          operator.itruediv, operator.ifloordiv, operator.imod, operator.ipow]
INTEGER = [operator.lshift, operator.rshift, operator.and_, operator.or_, operator.xor,
           operator.ilshift, operator.irshift, operator.iand, operator.ior, operator.ixor]
COMPARE = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]
UNARY = [operator.neg, operator.pos, operator.abs, operator.not_, operator.truth]


def apply_binary(op, a, b):
    @cuda.jit
    def kernel(out, x, y):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = op(x[i], y[i])

    out = np.zeros(a.size, dtype=np.result_type(op(a[:1], b[:1])))
    kernel[1, 32](out, a, b)
    return out


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.__name__)
def test_binary_operator_functions_bound_to_a_name(op):
    a = np.array([1.5, 2.0, -3.0, 7.25])
    b = np.array([0.5, 3.0, 2.0, -1.5])
    np.testing.assert_allclose(apply_binary(op, a, b), op(a.copy(), b))


@pytest.mark.parametrize("op", INTEGER, ids=lambda op: op.__name__)
def test_integer_operator_functions(op):
    a = np.array([1, 12, 255, 1000], dtype=np.int64)
    b = np.array([3, 2, 4, 1], dtype=np.int64)
    np.testing.assert_array_equal(apply_binary(op, a, b), op(a.copy(), b))


@pytest.mark.parametrize("op", COMPARE, ids=lambda op: op.__name__)
def test_comparison_operator_functions(op):
    a = np.array([1.0, 2.0, 3.0])
    b = np.array([2.0, 2.0, 2.0])
    np.testing.assert_array_equal(apply_binary(op, a, b), op(a, b))


@pytest.mark.parametrize("op", UNARY, ids=lambda op: op.__name__)
def test_unary_operator_functions(op):
    @cuda.jit
    def kernel(out, x):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = op(x[i])

    x = np.array([-2.0, 0.0, 3.5])
    out = np.zeros(3)
    kernel[1, 32](out, x)
    np.testing.assert_array_equal(out, [float(op(v)) for v in x])


@cuda.jit
def operator_module_kernel(out, x):
    out[0] = operator.mul(x[0], x[1])
    out[1] = operator.getitem(x, 2)
    out[2] = operator.contains((1.0, 2.0), x[1])
    out[3] = operator.invert(7)


def test_operator_module_attributes():
    out = np.zeros(4)
    operator_module_kernel[1, 1](out, np.array([3.0, 2.0, 9.0]))
    np.testing.assert_array_equal(out, [6.0, 9.0, 1.0, -8.0])


def test_math_function_bound_to_a_name():
    fn = math.sin

    @cuda.jit
    def kernel(out):
        out[0] = fn(0.5)

    out = np.zeros(1)
    kernel[1, 1](out)
    assert out[0] == pytest.approx(math.sin(0.5))


def test_unsupported_operator_function_is_reported():
    op = operator.setitem

    @cuda.jit
    def kernel(a):
        op(a, 0, 1.0)

    with pytest.raises(CompileError, match=r"simt: operator.setitem is not supported yet"):
        kernel[1, 1](np.zeros(1))


def test_operator_function_argument_count_is_checked():
    @cuda.jit
    def kernel(a):
        a[0] = operator.add(a[0])

    with pytest.raises(CompileError, match=r"function operator.add expects 2 arguments, got 1"):
        kernel[1, 1](np.zeros(1))


add_lambda = cuda.jit(device=True)(lambda a, b: a + b)
scale, shift = (cuda.jit(device=True)(lambda x: x * 2), cuda.jit(device=True)(lambda x: x + 100))
spread = cuda.jit(device=True)(lambda x, k=3: (
    x * k
    - 1))


@cuda.jit
def lambda_kernel(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = add_lambda(x[i], 1.0) + scale(x[i]) + shift(x[i]) + spread(x[i])


def test_lambdas_compile_as_device_functions():
    x = np.arange(5, dtype=np.float64)
    out = np.zeros(5)
    lambda_kernel[1, 32](out, x)
    np.testing.assert_array_equal(out, (x + 1) + x * 2 + (x + 100) + (x * 3 - 1))


def test_reduce_with_a_lambda():
    a = np.arange(100, dtype=np.float64)
    plus = lambda a, b: a + b  # noqa: E731
    plus.__name__ = "plus"  # reduce names its generated kernel after the function
    assert cuda.reduce(plus)(a) == a.sum()


def test_lambda_errors_point_into_the_lambda():
    bad = cuda.jit(device=True)(lambda x: x.nothing)

    @cuda.jit
    def kernel(a):
        a[0] = bad(a[0])

    with pytest.raises(CompileError, match=r"unknown attribute 'nothing'") as info:
        kernel[1, 1](np.zeros(1))
    assert info.value.line == bad.py_func.__code__.co_firstlineno


SIZE = 8


@cuda.jit
def local_shape_kernel(out):
    n = 16
    shape = (2, SIZE)
    m = n
    sm = cuda.shared.array(m, np.int32)
    lm = cuda.local.array(shape, np.float64)
    i = cuda.threadIdx.x
    sm[i] = i
    lm[1, 7] = 2.0
    cuda.syncthreads()
    out[i] = sm[n - 1 - i] + lm[1, 7]


def test_locals_assigned_once_are_constant_shapes():
    out = np.zeros(16)
    local_shape_kernel[1, 16](out)
    np.testing.assert_array_equal(out, np.arange(15, -1, -1) + 2.0)


def test_a_shape_is_the_definition_reaching_it():
    @cuda.jit
    def rebound(out):
        n = 4
        n = 8  # Numba's SSA: the shape reads this definition alone, a constant
        sm = cuda.shared.array(n, np.int32)
        out[0] = sm.size

    out = np.zeros(1)
    rebound[1, 1](out)
    assert out[0] == 8

    @cuda.jit
    def either(out):
        n = 4
        if out[0] > 0:
            n = 8  # both definitions reach the shape: not a constant
        sm = cuda.shared.array(n, np.int32)
        out[0] = sm.size

    with pytest.raises(CompileError, match="array shapes must be constant integers"):
        either[1, 1](np.zeros(1))


CONST_RECORDS = np.array(
    [(1, 2, 3, 0xDEADBEEF, 8), (4, 5, 6, 0xBEEFDEAD, 10)],
    dtype=np.dtype([("a", np.uint8), ("b", np.uint8), ("x", np.uint8), ("y", np.uint32),
                    ("z", np.uint8)], align=True))
PACKED_RECORDS = np.array([(1.5, 2), (3.5, 4)], dtype=[("x", float), ("y", int)])


@cuda.jit
def const_record_kernel(a, y, x, n):
    c = cuda.const.array_like(CONST_RECORDS)
    p = PACKED_RECORDS
    i = cuda.grid(1)
    if i < c.size:
        a[i] = c[i]['a'] + c[i].z
        y[i] = c[i]['y']
        x[i] = p[i].x + p[i]['y']
    n[0] = len(p)


def test_const_arrays_of_records():
    a, y, x, n = np.zeros(2), np.zeros(2, np.uint32), np.zeros(2), np.zeros(1)
    const_record_kernel[1, 2](a, y, x, n)
    np.testing.assert_array_equal(a, CONST_RECORDS["a"] + CONST_RECORDS["z"])
    np.testing.assert_array_equal(y, CONST_RECORDS["y"])
    np.testing.assert_array_equal(x, PACKED_RECORDS["x"] + PACKED_RECORDS["y"])
    assert n[0] == 2


def test_resolver_descriptions():
    from simt._simt import GlobalValue
    from simt.compiler.resolver import describe
    assert describe(operator.add) == GlobalValue.member("operator", "add")
    assert describe(operator) == GlobalValue.module("operator")
    assert describe(math.sin) == GlobalValue.member("math", "sin")
    records = describe(PACKED_RECORDS)
    dtype, shape, data = records.args
    assert (records.kind, shape, data) == ("array", (2,), PACKED_RECORDS.tobytes())
    assert dtype == "Record(x[type=float64;offset=0],y[type=int64;offset=8];16;False)"


def test_const_record_arrays_with_nested_records_and_arrays_of_records():
    nested = np.zeros(2, dtype=[("d", [("x", np.uint8)])])
    nested[1]["d"]["x"] = 7

    @cuda.jit
    def kernel(out):
        out[0] = nested[1]['d']['x'] + nested[1].d.x

    out = np.zeros(1)
    kernel[1, 1](out)
    assert out[0] == 14
    arrays_of_records = np.zeros(2, dtype=[("d", [("x", np.uint8)], (2,))])
    arrays_of_records[1]["d"][1]["x"] = 5

    @cuda.jit
    def nested_arrays(out):
        out[0] = arrays_of_records[1]['d'][1]['x']

    nested_arrays[1, 1](out)
    assert out[0] == 5


def test_jit_functions_in_user_modules():
    import types

    inner = types.ModuleType("inner")
    inner.scale = cuda.jit(device=True)(lambda x: x * 3)
    inner.OFFSET = 5
    mymod = types.ModuleType("mymod")
    mymod.inner = inner
    mymod.add = cuda.jit(device=True)(lambda a, b: a + b)

    @cuda.jit
    def kernel(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = mymod.add(a[i], 1) + mymod.inner.scale(a[i]) + mymod.inner.OFFSET

    a = np.arange(10, dtype=np.float64)
    expected = a + 1 + a * 3 + 5
    kernel[1, 32](a)
    np.testing.assert_array_equal(a, expected)


def test_unusable_user_module_members_are_reported():
    import types

    mymod = types.ModuleType("mymod")
    mymod.name = object()

    @cuda.jit
    def uses_member(a):
        a[0] = mymod.name

    with pytest.raises(CompileError, match=r"simt: 'mymod.name' is not supported yet"):
        uses_member[1, 1](np.zeros(1))

    @cuda.jit
    def calls_module(a):
        a[0] = mymod(1)

    with pytest.raises(CompileError, match=r"'module' object is not callable"):
        calls_module[1, 1](np.zeros(1))


ERROR_PAIR = __import__("collections").namedtuple("ERROR_PAIR", ["x", "y"])
NOT_A_STRING = 3


@pytest.mark.parametrize("body, message", [
    ("raise ValueError(NOT_A_STRING)", "exception arguments other than one constant string"),
    ("raise ValueError('a', 'b')", "exception arguments other than one constant string"),
    ("assert out[0] == 0, NOT_A_STRING", "assert messages other than a constant string"),
    ("t = (1, 2, 3)\n    out[0] = t[:out.size][0]", "a tuple is sliced by constant integers only"),
    ("out[0] = len((1, 2) * out.size)", "a tuple is repeated a constant number of times only"),
    ("for v in literal_unroll((1, 2), (3,)):\n        out[0] = v",
     r"literal_unroll\(\) takes one argument"),
    ("for v, w in literal_unroll(((1, 2), (3, 4))):\n        out[0] = v",
     "a literal_unroll loop binds one name"),
    ("for v in literal_unroll(out):\n        out[0] = v", "literal_unroll of array"),
    ("for i, v in enumerate(()):\n        out[0] = v",
     r"enumerate\(\) or zip\(\) of an empty tuple"),
    ("f = lambda v: g(v)\n    g = lambda v: f(v)\n    out[0] = f(1)",
     "nested functions calling each other 32 deep"),
    ("out[0] = ERROR_PAIR", "namedtuple classes are not supported as values"),
    ("out[0] = max(out)", r"max\(\) of one array\(float64, 1d, C\) is not supported"),
    ("out[0] = min(())", r"min\(\) arg is an empty sequence"),
    ("c = cuda.local.array(2, np.complex128)\n    out[0] = c.max().real",
     r"max\(\) of complex arrays is not supported"),
])
def test_compile_errors_of_the_newer_constructs_name_the_rule(body, message):
    source = "@cuda.jit\ndef kernel(out):\n    %s\n" % body
    scope = {"cuda": cuda, "np": np, "ERROR_PAIR": ERROR_PAIR, "NOT_A_STRING": NOT_A_STRING,
             "literal_unroll": __import__("numba").literal_unroll}
    exec(compile(source, "<errors>", "exec"), scope)
    with pytest.raises(CompileError, match=message):
        scope["kernel"][1, 1](np.zeros(1))
