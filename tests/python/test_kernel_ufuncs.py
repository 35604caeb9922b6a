"""NumPy ufuncs called in kernels and device functions (numba-cuda's cudapy/test_ufuncs.py):
np.<ufunc>(inputs) of scalars gives a scalar; np.<ufunc>(inputs, out) of scalars or arrays
writes the out array, the inputs broadcast onto its shape. Compared with NumPy; the loop is chosen
as Numba chooses it (the first one the inputs cast to safely, float16 loops skipped)."""
import numpy as np
import pytest

import simt
from simt import cuda


@cuda.jit
def unary(x, out):
    np.sin(x, out)


def make_kernel(name, nin):
    args = ", ".join("a%d" % i for i in range(nin))
    namespace = {"np": np}
    exec("def k(%s, out):\n    np.%s(%s, out)\n" % (args, name, args), namespace)
    return cuda.jit(namespace["k"])


UNARY = ["sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
         "arccosh", "arctanh", "exp", "log", "log2", "log10", "sqrt"]
INPUTS = [np.linspace(-0.9, 0.9, 7), np.linspace(-0.9, 0.9, 12).reshape(3, 4).astype(np.float32),
          np.asfortranarray(np.linspace(0.1, 0.9, 6).reshape(2, 3)),
          np.array([-0.5 - 0.5j, 0.25j, 0.5 + 0.5j], np.complex64),
          np.array([[-0.5 - 0.5j, 0.3, 0.5 + 0.5j]], np.complex128)]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("x", INPUTS, ids=lambda x: "%s-%dd" % (x.dtype, x.ndim))
def test_unary_math_on_arrays_matches_numpy(name, x):
    ufunc = getattr(np, name)
    with np.errstate(all="ignore"):
        expected = ufunc(x)
    out = np.zeros_like(expected)
    make_kernel(name, 1)[1, 1](x, out)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("x", [np.int32(-1), np.uint64(3), np.float32(0.5), np.complex128(1j)])
def test_scalar_input_fills_the_out_array(x):
    out = np.zeros(3, np.result_type(np.sin(x)))
    unary[1, 1](x, out)
    np.testing.assert_allclose(out, np.full(3, np.sin(x)), rtol=1e-6)


@pytest.mark.parametrize("name", ["greater", "greater_equal", "less", "less_equal", "equal",
                                  "not_equal"])
def test_comparisons_match_numpy(name):
    k = make_kernel(name, 2)
    ufunc = getattr(np, name)
    cases = [(np.array([1, -1, 2, 0]), np.array([1, 2, -3, 0])),
             (np.array([-1, 0, 1], np.int64), np.array([0, 0, 1], np.uint64)),
             (np.array([0, 1, 2], np.uint64), np.int64(-1)),
             (np.array([1 + 1j, 1 + 2j, 2 + 0j, 1j]), np.array([1 + 2j, 1 + 1j, 1 + 9j, 1j])),
             (np.array([0.5, np.nan, 2.0], np.float32), np.float32(1.0))]
    for a, b in cases:
        out = np.zeros(np.shape(a), np.bool_)
        k[1, 1](a, b, out)
        np.testing.assert_array_equal(out, ufunc(a, b), err_msg="%r %r" % (a, b))


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "logical_and",
                                  "logical_or", "logical_xor", "add", "subtract", "multiply",
                                  "arctan2", "hypot"])
def test_binary_ufuncs_match_numpy(name):
    k = make_kernel(name, 2)
    ufunc = getattr(np, name)
    cases = [(np.array([1.0, np.nan, 3.0, -0.0]), np.array([2.0, 1.0, np.nan, 0.0])),
             (np.array([3, -7, 0], np.int16), np.array([2, 5, 0], np.int16)),
             (np.array([1 + 1j, np.nan + 0j, 2j]), np.array([1 + 2j, 1j, 2j]))]
    for a, b in cases:
        if name in ("arctan2", "hypot") and a.dtype.kind == "c":
            continue
        if name == "subtract" and a.dtype == np.bool_:
            continue
        expected = ufunc(a, b)
        out = np.zeros_like(expected)
        k[1, 1](a, b, out)
        np.testing.assert_allclose(out, expected, rtol=1e-6, err_msg="%r %r" % (a, b))


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                                  "right_shift"])
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int64])
def test_bitwise_match_numpy(name, dtype):
    if "shift" in name and dtype == np.bool_:
        pytest.skip("NumPy has no bool shifts")
    a = np.array([0, 1, 5, 7], dtype)
    b = np.array([1, 1, 3, 2], dtype)
    expected = getattr(np, name)(a, b)
    out = np.zeros_like(expected)
    make_kernel(name, 2)[1, 1](a, b, out)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("name", ["invert", "bitwise_not", "logical_not", "isnan", "isinf",
                                  "isfinite", "negative", "conjugate", "deg2rad", "degrees"])
def test_unary_ufuncs_match_numpy(name):
    ufunc = getattr(np, name)
    for x in [np.array([0, 1, -3], np.int8), np.array([True, False]),
              np.array([1.5, np.nan, -np.inf]), np.array([1 + 1j, np.nan * 1j])]:
        try:
            expected = ufunc(x)
        except TypeError:
            continue  # no loop in NumPy either
        if name in ("deg2rad", "degrees") and x.dtype.kind in "bc":
            continue
        out = np.zeros_like(expected)
        make_kernel(name, 1)[1, 1](x, out)
        np.testing.assert_array_equal(out, expected)


def test_scalar_calls_type_as_numbas_loops():
    @cuda.jit
    def k(out8, out32, b):
        x = np.int8(3)
        y = np.int32(3)
        out8[0] = np.sin(x)  # int8 takes the float32 loop (float16's is skipped)
        out32[0] = np.sin(y)  # int32 the float64 one
        b[0] = np.greater(np.int64(-1), np.uint64(0))
        b[1] = np.maximum(np.float64(np.nan), 1.0) != np.maximum(np.float64(np.nan), 1.0)
        b[2] = np.fmax(np.float64(np.nan), 1.0) == 1.0
        out32[1] = np.log2(np.complex128(8)).real

    out8, out32, b = np.zeros(1, np.float32), np.zeros(2), np.zeros(3, np.bool_)
    k[1, 1](out8, out32, b)
    assert out8[0] == np.float32(np.sin(np.float32(3)))
    assert out32[0] == np.sin(3.0)
    assert b.tolist() == [False, True, True]
    assert out32[1] == pytest.approx(3.0)


def test_broadcasting_and_the_returned_out_array():
    @cuda.jit
    def k(row, col, out, total):
        r = np.add(row, col, out=out)
        total[0] = r.sum()

    row, col = np.arange(4.0), np.arange(3.0).reshape(3, 1)
    out, total = np.zeros((3, 4)), np.zeros(1)
    k[1, 1](row, col, out, total)
    np.testing.assert_array_equal(out, row + col)
    assert total[0] == (row + col).sum()


def test_device_function_calls_a_ufunc():
    @cuda.jit(device=True)
    def hyp(a, b, out):
        np.hypot(a, b, out)

    @cuda.jit
    def k(a, b, out):
        hyp(a, b, out)

    a, b = np.array([3.0, 5.0]), np.array([4.0, 12.0])
    out = np.zeros(2)
    k[1, 1](a, b, out)
    np.testing.assert_array_equal(out, [5.0, 13.0])


def test_shapes_that_do_not_broadcast_raise_value_error():
    out = np.zeros(3)
    with pytest.raises(ValueError, match="broadcast"):
        unary[1, 1](np.zeros(4), out)


def test_errors_name_the_case():
    @cuda.jit
    def allocates(x, y):
        y[0] = np.sin(x)[0]

    with pytest.raises(simt.CompileError, match="out array"):
        allocates[1, 1](np.zeros(3), np.zeros(3))

    @cuda.jit
    def no_loop(x, out):
        np.sin(x, out)

    with pytest.raises(simt.CompileError, match="can't resolve ufunc sin"):
        no_loop[1, 1](np.zeros(3), np.zeros(3, np.int32))

    @cuda.jit
    def no_float_loop(x, out):
        np.bitwise_and(x, x, out)

    with pytest.raises(simt.CompileError, match="can't resolve ufunc bitwise_and"):
        no_float_loop[1, 1](np.zeros(3), np.zeros(3))
