"""Device functions that return a value on some paths and None on others (explicitly, or by
falling off their end) return Numba's OptionalType: `is None` tests it, a use of its value
raises TypeError when it is None (as Numba's simulator raises one), and a condition on it is
false when None. The differential case optional_returns compares results with Numba's
simulator."""
import numpy as np
import pytest
from simt import cuda


@cuda.jit(device=True)
def halve_even(x):
    if x % 2 == 0:
        return x // 2


def test_a_value_that_is_none_raises_type_error_where_used():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        out[i] = halve_even(a[i]) + 1

    out = np.zeros(4, np.int64)
    k[1, 4](np.array([2, 4, 6, 8]), out)
    assert out.tolist() == [2, 3, 4, 5]
    with pytest.raises(TypeError, match=r"expected int64, got None"):
        k[1, 4](np.array([2, 3, 6, 8]), out)


def test_is_none_of_values_that_are_never_none():
    @cuda.jit
    def k(out):
        x = 3
        out[0] = x is None
        out[1] = x is not None
        out[2] = halve_even(4) is None
        out[3] = halve_even(5) is None

    out = np.zeros(4, np.int64)
    k[1, 1](out)
    assert out.tolist() == [0, 1, 0, 1]


def test_returning_an_array_on_some_paths_only_is_still_refused():
    from simt import CompileError

    @cuda.jit(device=True)
    def row_or_none(a, i):
        if i >= 0:
            return a[i]
        return None

    @cuda.jit
    def k(a, out):
        out[0] = row_or_none(a, 0)[0]

    with pytest.raises(CompileError, match="returning a value on some paths and None"):
        k[1, 1](np.ones((2, 2)), np.zeros(1))
