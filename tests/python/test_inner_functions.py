"""Nested defs and lambdas inside kernels and device functions, inlined where they are called as
Numba inlines closures: their parameters are their own, every other name the enclosing
function's (read where the call happens)."""
import numpy as np
import pytest
from simt import CompileError, cuda


def test_lambdas_and_nested_defs_are_inlined_closures():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        scale = 3.0
        square = lambda v: v * v  # noqa: E731

        def affine(y, bias=1.0):
            """a docstring is allowed"""
            return y * scale + bias

        if i < a.size:
            out[i] = square(a[i]) + affine(a[i]) + affine(2.0, bias=0.0) + \
                (lambda z: z + scale)(1.0)

    a, out = np.arange(4.0), np.zeros(4)
    k[1, 4](a, out)
    np.testing.assert_array_equal(out, a * a + a * 3 + 1 + 6 + 4)


@cuda.jit(device=True)
def through_device_function(x):
    twice = lambda v: 2 * v  # noqa: E731
    return twice(twice(x))


def test_scopes_are_lexical_and_device_functions_inline_too():
    @cuda.jit
    def k(out):
        x = 100
        outer = lambda x: inner(x + 1)  # noqa: E731
        inner = lambda y: x + y  # noqa: E731 -- this x is the kernel's, not outer's parameter
        out[0] = outer(1)
        out[1] = through_device_function(3)
        out[2] = (lambda a: (lambda b: a * b)(3))(5)  # a lambda written inside sees its scope

    out = np.zeros(3, np.int64)
    k[1, 1](out)
    assert out.tolist() == [102, 12, 15]


def test_unsupported_nested_functions_are_compile_errors():
    @cuda.jit
    def long_body(out, x):
        def f(v):  # a device function of its own (test_escaping_closures.py): constants only
            w = v + x
            return w
        out[0] = f(1)

    with pytest.raises(CompileError, match="Cannot capture the non-constant value associated "
                                           "with variable 'x'"):
        long_body[1, 1](np.zeros(1), 2)

    @cuda.jit
    def as_value(out):
        f = lambda v: v  # noqa: E731
        out[0] = f

    with pytest.raises(CompileError, match="only supported called, not as values"):
        as_value[1, 1](np.zeros(1))

    @cuda.jit
    def missing(out):
        f = lambda v, w: v + w  # noqa: E731
        out[0] = f(1)

    with pytest.raises(CompileError, match=r"<lambda>\(\) missing required argument 'w'"):
        missing[1, 1](np.zeros(1))

    @cuda.jit
    def star(out):
        f = lambda *v: v[0]  # noqa: E731
        out[0] = f(1)

    with pytest.raises(CompileError, match=r"lambdas with \*args or \*\*kwargs are not supported"):
        star[1, 1](np.zeros(1))


@cuda.jit(device=True)
def total(*values):
    s = 0
    for v in values:
        s += v
    return s


@cuda.jit(device=True)
def weighted(weight, *values):
    return weight * len(values) + total(*values)


def test_device_functions_take_star_args_as_a_tuple():
    @cuda.jit
    def k(out, a):
        out[0] = total(a[0], a[1], 10)
        out[1] = total()
        out[2] = weighted(3, 5.0, 6.0)
        out[3] = weighted(3)

    out = np.zeros(4)
    k[1, 1](out, np.array([1, 2]))  # ints, as 10: a tuple of one type iterates (Numba's rule)
    assert out.tolist() == [13.0, 0.0, 17.0, 0.0]


def test_literal_unroll_runs_the_body_once_per_element_of_any_type():
    from numba import literal_unroll

    @cuda.jit
    def k(out):
        acc = 0.0
        for v in literal_unroll((1, 2.5, np.float32(0.5), True)):
            acc += v * 2
        out[0] = acc
        for w in literal_unroll((3, 4)):
            out[w - 2] = w
        else:
            out[3] = 7

    out = np.zeros(4)
    k[1, 1](out)
    assert out.tolist() == [10.0, 3.0, 4.0, 7.0]

    @cuda.jit
    def leaves(out):
        for v in literal_unroll((1, 2.5)):
            if v > 1:
                break
            out[0] = v

    with pytest.raises(CompileError, match="break and continue in a literal_unroll loop"):
        leaves[1, 1](np.zeros(1))


def test_intrinsics_are_refused_naming_why():
    from numba.extending import intrinsic

    @intrinsic
    def add_one(typingctx, x):
        raise AssertionError("not called")

    @cuda.jit
    def k(out):
        out[0] = add_one(1)

    with pytest.raises(CompileError, match=r"@intrinsic functions \(numba.extending.intrinsic\)"
                                           r".*'add_one' is not supported"):
        k[1, 1](np.zeros(1))
