"""End-to-end: array views, for loops over iterables, loop else clauses, tuple indexing and
device-function keyword/default arguments (the cases Numba's simulator also runs are in
diff_cases.py)."""
import math

import numpy as np
import pytest

import simt
from simt import cuda

SHIFT = 0.25


@cuda.jit(device=True)
def scaled_sum(v, scale=2.0, shift=SHIFT, count=False):
    s = 0.0
    for x in v:
        s += x
    if count:
        s += len(v)
    return s * scale + shift


def test_views_behave_like_numpy_views():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            v = a[i, ::-2]
            for j in range(v.size):
                out[i, j] = v[j]
            w = a[i, 7:-100:-3]
            out[i, 4] = w.size
            out[i, 5] = w[w.size - 1]

    a = np.arange(40.0).reshape(5, 8)
    out = np.zeros((5, 6))
    k[1, 8](a, out)
    for i in range(5):
        view = a[i, ::-2]
        np.testing.assert_array_equal(out[i, :4], view)
        w = a[i, 7:-100:-3]
        assert out[i, 4] == w.size and out[i, 5] == w[-1]


def test_stores_through_views_and_slices_reach_the_array():
    @cuda.jit
    def k(a):
        row = a[1]
        row[2] = 5
        a[2, 1::2] = 7
        a[:, 0] = -1
        col = a[:, 3]
        col[-1] = 9

    a = np.zeros((4, 5), np.int32)
    k[1, 1](a)
    expected = np.zeros((4, 5), np.int32)
    expected[1, 2] = 5
    expected[2, 1::2] = 7
    expected[:, 0] = -1
    expected[-1, 3] = 9
    np.testing.assert_array_equal(a, expected)


def test_device_function_keyword_and_default_arguments():
    @cuda.jit
    def k(a, out):
        out[0] = scaled_sum(a)
        out[1] = scaled_sum(a, 1.0)
        out[2] = scaled_sum(a, shift=1.0)
        out[3] = scaled_sum(v=a[1:], count=True, scale=3)
        out[4] = scaled_sum(a[::2], 1.0, 0.0, True)

    a = np.arange(1.0, 6.0)
    out = np.zeros(5)
    k[1, 1](a, out)
    s = a.sum()
    np.testing.assert_allclose(out, [s * 2 + SHIFT, s + SHIFT, s * 2 + 1, (s - 1 + 4) * 3 + SHIFT,
                                     a[::2].sum() + 3])


@cuda.jit(device=True)
def biased(x, bias=None, label="plain"):
    if bias is None:
        return x * 2  # what follows is not typed for an omitted bias (Numba prunes it too)
    return x * 2 + bias


@cuda.jit(device=True)
def fill(a, value):
    for i in range(a.size):
        a[i] = value


def test_none_defaults_and_none_variables_as_numba_types_them():
    @cuda.jit
    def k(a, out):
        out[0] = biased(1.0)
        out[1] = biased(1.0, 0.5)
        out[2] = biased(1.0, None)
        out[3] = biased(2.0, bias=1.0, label="named")
        result = fill(a, 7.0)  # a function returning nothing: None
        nothing = None
        out[4] = result is None
        out[5] = nothing is not None

    a, out = np.zeros(3), np.full(6, -1.0)
    k[1, 1](a, out)
    assert out.tolist() == [2.0, 2.5, 2.0, 5.0, 1.0, 0.0]
    assert a.tolist() == [7.0, 7.0, 7.0]


def test_tuples_order_and_slice_as_python_does():
    @cuda.jit
    def k(out, a):
        t = (a[0], a[1], a[2], a[3])
        out[0] = (a[0], a[1]) < (a[0], a[2])
        out[1] = (a[0], a[1]) <= (a[0], a[1])
        out[2] = (a[0], a[1]) > (a[0], a[1])
        out[3] = (a[0], a[1]) >= (a[2],)
        out[4] = (1, 2) < (1, 2, 3)
        out[5] = (1, a[4]) < (1, a[4])  # NaN: the first elements that differ decide
        out[6] = (2, 1.5) > (1, 9)
        out[7] = t[-1] + t[1:][0] + len(t[::2])
        reversed_ = t[::-1]
        out[8] = reversed_[0] * 1000 + reversed_[3]
        out[9] = len(t[5:]) + len(t[1:3]) * 10 + len(t[-2::-2]) * 100 + t[-2::-2][1]
        mixed = (1, 2.5, 3)[1:]
        out[10] = mixed[0] + mixed[1]

    out = np.zeros(11)
    a = np.array([1.0, 2.0, 3.0, 4.0, np.nan])
    k[1, 1](out, a)
    t = tuple(a[:4])
    assert out.tolist() == [1, 1, 0, 0, 1, 0, 1, t[-1] + t[1:][0] + len(t[::2]), 4001,
                            len(t[5:]) + len(t[1:3]) * 10 + len(t[-2::-2]) * 100 + t[-2::-2][1],
                            5.5]


REPEATS = 3


def test_tuples_concatenate_and_repeat():
    @cuda.jit
    def k(out, a):
        t = (a[0], a[1]) + (a[2], 4.0)
        out[0] = t[3] + t[2] * 10 + len(t) * 100
        ones = (1.0,) * REPEATS
        out[1] = len(ones) + ones[2]
        mixed = 2 * (a[0], 7)
        out[2] = len(mixed) * 100 + mixed[3]
        out[3] = len((a[0],) * 0)

    out = np.zeros(4)
    k[1, 1](out, np.array([1.0, 2.0, 3.0]))
    assert out.tolist() == [434.0, 4.0, 407.0, 0.0]

    @cuda.jit
    def huge(out):
        out[0] = len((1.0, 2.0) * 10**9)  # refused before it is built

    with pytest.raises(simt.CompileError, match="a tuple of more than 4096 elements"):
        huge[1, 1](np.zeros(1))


def test_transposed_arrays_are_views():
    @cuda.jit
    def k(m, out, cube):
        t = m.T
        out[0] = t[2, 0]
        out[1] = t.shape[0] * 10 + t.shape[1]
        out[2] = m.transpose()[1, 1]
        t[0, 1] = -1.0  # stores through to m[1, 0]
        out[3] = cube.T[3, 2, 1]
        out[4] = m[0].T[1]  # 1-D: the array itself

    m = np.arange(6.0).reshape(2, 3)
    cube = np.arange(24.0).reshape(2, 3, 4)
    out = np.zeros(5)
    k[1, 1](m, out, cube)
    assert out.tolist() == [2.0, 32.0, 4.0, cube.T[3, 2, 1], 1.0]
    assert m[1, 0] == -1.0


def test_zero_slice_step_raises_value_error():
    @cuda.jit
    def k(a, step):
        v = a[::step]
        a[0] = v.size

    with pytest.raises(ValueError, match="slice step cannot be zero"):
        k[1, 1](np.zeros(4), 0)
    a = np.zeros(4)
    k[1, 1](a, -3)
    assert a[0] == 2


def test_view_index_out_of_range_raises_index_error():
    @cuda.jit
    def k(a, i):
        row = a[i]
        row[0] = 1

    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 3"):
        k[1, 1](np.zeros((3, 2)), 3)
    a = np.zeros((3, 2))
    k[1, 1](a, -1)
    assert a[2, 0] == 1


def test_tuple_index_out_of_range_raises_index_error():
    @cuda.jit
    def k(a, i):
        t = (1.0, 2.0, 3.0)
        a[0] = t[i]

    a = np.zeros(1)
    k[1, 1](a, -3)
    assert a[0] == 1.0
    with pytest.raises(IndexError, match="tuple index out of range"):
        k[1, 1](a, 3)


def test_zero_range_step_in_zip_raises_value_error():
    @cuda.jit
    def k(a, step):
        for x, y in zip(range(0, 10, step), a):
            a[0] = x

    with pytest.raises(ValueError, match="range\\(\\) arg 3 must not be zero"):
        k[1, 1](np.zeros(3), 0)


def test_while_else_with_a_test_that_needs_statements():
    @cuda.jit
    def k(a, out):
        n = 0
        while 0 <= a[n] < 3:  # the chained test needs a temporary: a loop with a break
            n += 1
            if a[n] == 100:
                break
        else:
            out[0] = 1
        out[1] = n

    out = np.zeros(2)
    k[1, 1](np.array([0.0, 1.0, 5.0, 100.0]), out)
    np.testing.assert_array_equal(out, [1, 2])
    out = np.zeros(2)
    k[1, 1](np.array([0.0, 100.0, 5.0]), out)
    np.testing.assert_array_equal(out, [0, 1])


def test_unsupported_iteration_is_a_compile_error():
    @cuda.jit
    def k(a):
        for x in (1, 2.5):
            a[0] = x

    with pytest.raises(simt.CompileError, match="iterates only over tuples whose elements"):
        k[1, 1](np.zeros(1))


def test_array_reductions_as_numba_computes_them():
    @cuda.jit
    def k(a, m, b, u8, out):
        out[0] = a.sum()
        out[1] = a.prod()
        out[2] = a.min()
        out[3] = a.max()
        out[4] = a.mean()
        out[5] = m.sum()
        out[6] = m[1].mean()
        out[7] = np.sum(m[:, 1])
        out[8] = np.amax(m) + np.amin(m) * 10
        out[9] = b.sum()
        out[10] = u8.sum()  # in 64 bits, as Numba's (NumPy's uint8 sum would not wrap either)
        out[11] = u8.mean()
        local = cuda.local.array(4, np.float32)
        for i in range(4):
            local[i] = i * 0.5
        out[12] = local.max() + local.sum()

    a = np.array([3.0, 1.0, 4.0, 1.5])
    m = np.arange(6.0).reshape(2, 3)
    b = np.array([True, False, True])
    u8 = np.array([200, 100, 250], np.uint8)
    out = np.zeros(13)
    k[1, 1](a, m, b, u8, out)
    assert out.tolist() == [a.sum(), a.prod(), a.min(), a.max(), a.mean(), m.sum(), m[1].mean(),
                            m[:, 1].sum(), m.max(), 2, 550, u8.mean(), 4.5]

    @cuda.jit
    def extremes(x, out):
        out[0] = x.min()
        out[1] = x.max()

    out = np.zeros(2)
    extremes[1, 1](np.array([1.0, np.nan, 0.5]), out)  # the first NaN met
    assert np.isnan(out).all()
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum"):
        extremes[1, 1](np.zeros(0), out)


def test_list_displays_iterated_or_searched_are_tuples_as_cpython_compiles_them():
    @cuda.jit
    def k(grid, out, t):
        x = cuda.grid(1)
        if x < grid.size:
            if grid[x] not in [3, 4]:
                out[x] = 1
            if grid[x] in [t[0], t[1]]:
                out[x] += 10
            for v in [1, 2]:
                out[x] += v * 100

    out = np.zeros(4)
    k[1, 4](np.arange(4), out, (0, 1))
    assert out.tolist() == [311, 311, 301, 300]


def test_branches_on_constant_conditions_are_pruned_as_numba_prunes_them():
    @cuda.jit
    def k(a, out, t):
        if a.ndim == 2:
            out[0] = a.shape[1]  # not typed for a 1-D a
        else:
            out[0] = a.shape[0]
        if len(t) == 3 and not False:
            out[1] = t[2]  # not typed for a 2-tuple
        else:
            out[1] = t[0]
        out[2] = a.shape[1] if a.ndim > 1 else -1

    out = np.zeros(3)
    k[1, 1](np.zeros(5), out, (7, 8))
    assert out.tolist() == [5, 7, -1]


def test_compile_time_values_bound_to_names():
    @cuda.jit
    def k(a, out):
        dtype = a.dtype
        root = math.sqrt
        error = ValueError
        i = cuda.grid(1)
        if i < a.size:
            out[i] = dtype.type(0.25) * root(a[i]) + a.dtype.type(1)
            if out[i] < 0:
                raise error("negative")

    a = np.full(4, 4.0, np.float32)
    out = np.zeros(4, np.float32)
    k[1, 4](a, out)
    assert out.tolist() == [1.5] * 4


def test_prange_is_range_in_kernels():
    import numba
    from numba import prange

    @cuda.jit
    def k(out):
        for i in numba.prange(3):
            out[i] = i
        for j in prange(3, 5):
            out[j] = j * 10

    out = np.zeros(5)
    k[1, 1](out)
    assert out.tolist() == [0, 1, 2, 30, 40]
