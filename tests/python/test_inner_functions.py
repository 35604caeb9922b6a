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
    def long_body(out):
        def f(v):
            w = v + 1
            return w
        out[0] = f(1)

    with pytest.raises(CompileError, match="only one whose body is a single return statement"):
        long_body[1, 1](np.zeros(1))

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
