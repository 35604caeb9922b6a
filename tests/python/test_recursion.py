"""Recursive device functions: self and mutual recursion, with explicit signatures or without
(a recursive call has the type of the returns typed so far, as Numba types it from a base case);
runaway recursion is a compile error; recursion too deep for a thread's stack a RecursionError;
local arrays in recursive functions are refused."""
import numpy as np
import pytest
from simt import CompileError, cuda


@cuda.jit("int64(int64)", device=True)
def fib_declared(n):
    if n < 2:
        return n
    return fib_declared(n - 1) + fib_declared(n - 2)


@cuda.jit(device=True)
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@cuda.jit(device=True)
def countdown_sum(n):
    if n > 0:  # the recursive return comes before the base case
        return n + countdown_sum(n - 1)
    return 0.5


@cuda.jit(device=True)
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@cuda.jit(device=True)
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@cuda.jit(device=True)
def fill_from(a, i):
    if i < a.size:
        a[i] = i * i
        fill_from(a, i + 1)


def test_recursive_functions_compute_what_python_does():
    @cuda.jit
    def k(out, filled):
        i = cuda.grid(1)
        if i < 12:
            out[i, 0] = fib_declared(i)
            out[i, 1] = fib(i)
            out[i, 2] = countdown_sum(i)
            out[i, 3] = is_even(i)
        if i == 0:
            fill_from(filled, 0)

    out = np.zeros((12, 4))
    filled = np.zeros(20, np.int64)
    k[1, 32](out, filled)

    def py_fib(n):
        return n if n < 2 else py_fib(n - 1) + py_fib(n - 2)

    assert out[:, 0].tolist() == [py_fib(n) for n in range(12)] == out[:, 1].tolist()
    assert out[:, 2].tolist() == [n * (n + 1) / 2 + 0.5 for n in range(12)]
    assert out[:, 3].tolist() == [n % 2 == 0 for n in range(12)]
    assert filled.tolist() == [i * i for i in range(20)]


def test_runaway_recursion_is_a_compile_error():
    @cuda.jit(device=True)
    def forever(x):
        return forever(x)

    @cuda.jit
    def k(out):
        out[0] = forever(1)

    with pytest.raises(CompileError, match="cannot type infer runaway recursion"):
        k[1, 1](np.zeros(1))


def test_recursion_deeper_than_a_threads_stack_raises_recursion_error():
    @cuda.jit(device=True)
    def depth(n):
        if n == 0:
            return 0
        return 1 + depth(n - 1)

    @cuda.jit
    def k(out, n):
        out[cuda.grid(1)] = depth(n)

    out = np.zeros(4, np.int64)
    k[1, 4](out, 150)
    assert out.tolist() == [150] * 4
    with pytest.raises(RecursionError, match=r"maximum recursion depth exceeded.*tid=\[0, 0, 0\]|"
                                             r"tid=\[0, 0, 0\].*maximum recursion depth"):
        k[1, 4](out, 10000)


def test_local_arrays_in_recursive_functions_are_refused():
    @cuda.jit(device=True)
    def with_scratch(n):
        scratch = cuda.local.array(4, np.int64)
        scratch[0] = n
        if n == 0:
            return scratch[0]
        return with_scratch(n - 1) + scratch[0]

    @cuda.jit
    def k(out):
        out[0] = with_scratch(3)

    with pytest.raises(CompileError, match="local arrays in recursive device functions"):
        k[1, 1](np.zeros(1))
