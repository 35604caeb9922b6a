"""Nested defs passed to device functions or too big to inline become device functions of
their own (Numba's make_function -> JIT function, numba-cuda's
test_make_function_to_jit_function), and top-level `if`s of constant conditions are pruned
before parameters are split (test_ssa's test_issue5219)."""
import numpy as np
import pytest

from simt import cuda
from simt.errors import CompileError

_OFFSET = 123


@cuda.jit
def consumer(func, *args):
    return func(*args)


@cuda.jit
def consumer2arg(func1, func2):
    return func2(func1)


def test_a_nested_def_passed_to_a_device_function():
    @cuda.jit
    def kernel(out, x):
        y = 10

        def add(z):
            return y + z + _OFFSET

        def ten():
            return 10

        def call(f):
            return f()

        out[0] = consumer(add, x)
        out[1] = consumer(ten)
        out[2] = consumer2arg(ten, call)

    out = np.zeros(3, np.int64)
    kernel[1, 1](out, 5)
    assert out.tolist() == [138, 10, 10]


def test_a_nested_def_of_several_statements_with_defaults_and_keywords():
    @cuda.jit
    def specialised(func, *args):
        x, y, z = args
        return func(x, y, z, second=1000) + func(x, y, z, first=1000, second=1000)

    @cuda.jit
    def kernel(out):
        t = 12

        def inner(a, b, c, first=123, second=456):
            z = 4
            return first + second + z + t + a + b + c

        out[0] = inner(1, 2, 5, 91, 53)
        out[1] = specialised(inner, 1, 2, 3)
        out[2] = consumer(inner, 1, 2, 3)

    out = np.zeros(3, np.int64)
    kernel[1, 1](out)
    assert out.tolist() == [168, (123 + 1000 + 22) + (2000 + 22), 123 + 456 + 22]


def test_a_nested_def_of_star_args_called_from_a_device_function():
    @cuda.jit
    def kernel(out, x):
        def total(*z):
            if len(z) == 1:
                tmp = z[0]
            else:
                tmp = z[0] + z[1]
            return tmp + 1

        out[0] = consumer(total, x) + consumer(total, x, x)

    out = np.zeros(1, np.int64)
    kernel[1, 1](out, 5)
    assert out[0] == 6 + 11


def test_an_escaping_nested_def_captures_only_constants():
    @cuda.jit
    def kernel(out, x):
        def inner(v):
            return v + x  # x is a parameter of the enclosing kernel: no constant

        out[0] = consumer(inner, 1)

    with pytest.raises(CompileError, match="Cannot capture the non-constant value associated "
                                           "with variable 'x'"):
        kernel[1, 1](np.zeros(1, np.int64), 2)


B_IS_TUPLE = True


def test_a_parameter_rebound_in_a_branch_pruned_as_constant():
    @cuda.jit(device=True)
    def first(a, b):
        if B_IS_TUPLE is True:
            b = b[0]
        return b + a

    @cuda.jit(device=True)
    def second(a, b):
        if not B_IS_TUPLE:
            return a
        else:
            b = b[1]
        return b * a

    @cuda.jit
    def kernel(out, a, b):
        out[0] = first(a, b)
        out[1] = second(a, b)

    out = np.zeros(2, np.int64)
    kernel[1, 1](out, 3, (2, 7))
    assert out.tolist() == [5, 21]


def apply_twice(func, *args):
    return func(func(*args))


def test_a_nested_def_passed_to_an_overload():
    # numba-cuda's test_with_overload / test_basic_apply_like_case: an @overload function is
    # given an opaque type for a function argument
    from numba.core import types
    from numba.core.extending import overload

    given = []

    @overload(apply_twice, target="generic")
    def apply_twice_ol(func, *args):
        given.append(func)
        if len(args) == 1:
            return lambda func, *args: func(func(*args))

    @cuda.jit
    def kernel(out, x):
        y = 10

        def add(z):
            return y + z

        out[0] = apply_twice(add, x)

    out = np.zeros(1, np.int64)
    kernel[1, 1](out, 5)
    assert out[0] == 25
    assert isinstance(given[0], types.Opaque)


def test_an_escaping_nested_def_compiles_to_ptx():
    def kernel(out, x):
        y = 10

        def add(z):
            w = z * 2
            return y + w

        out[0] = consumer(add, x)

    ptx, _ = cuda.compile_ptx(kernel, "void(int64[:], int64)")
    assert ".entry" in ptx
