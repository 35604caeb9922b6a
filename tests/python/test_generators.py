"""The kernel generators: cuda.reduce, CUDA vectorize and guvectorize (simt.vectorizers, and
numba.vectorize / numba.guvectorize with target 'cuda' or 'gpu' under the import hook)."""
import textwrap

import numpy as np
import pytest

from simt import CompileError, cuda
from simt.vectorizers import guvectorize, vectorize
from conftest import run_python


# -- cuda.reduce ------------------------------------------------------------------------------

@cuda.reduce
def sum_reduce(a, b):
    return a + b


@cuda.reduce
def max_reduce(a, b):
    return max(a, b)


def test_reduce_is_numbas_spelling():
    assert cuda.reduce is cuda.Reduce
    assert isinstance(sum_reduce, cuda.Reduce)


@pytest.mark.parametrize("n", [1, 2, 127, 128, 129, 1234, 128 * 64 + 5, 128 * 70, 100003])
def test_reduce_sums_like_numpy(n):
    values = np.arange(n, dtype=np.float64) + 1
    got = sum_reduce(values)
    assert got == values.sum()
    assert isinstance(got, np.float64)


def test_reduce_int32_keeps_the_dtype_and_max_needs_its_init():
    values = np.random.default_rng(3).integers(-10**6, 10**6, 50000).astype(np.int32)
    got = max_reduce(values, init=np.iinfo(np.int32).min)
    assert got == values.max() and got.dtype == np.int32
    assert max_reduce(-np.abs(values) - 1) == 0  # init defaults to 0, folded in once


def test_reduce_size_and_init():
    values = np.arange(1000, dtype=np.float64)
    assert sum_reduce(values, size=300) == values[:300].sum()
    assert sum_reduce(values, init=0.5) == values.sum() + 0.5
    assert sum_reduce(values, size=5, init=100) == 110.0
    assert sum_reduce(np.arange(10, dtype=np.int64), init=2.9) == 47  # init takes the dtype


def test_reduce_result_into_a_device_array():
    values = np.arange(1234, dtype=np.float64) + 1
    res = cuda.device_array(3, dtype=np.float64)
    res.copy_to_device(np.full(3, -1.0))
    assert sum_reduce(values, res=res) is None
    assert res.copy_to_host().tolist() == [values.sum(), -1.0, -1.0]
    d_values = cuda.to_device(values)
    res.copy_to_device(np.zeros(3))
    sum_reduce(d_values, res=res)
    assert res.copy_to_host()[0] == values.sum()
    assert sum_reduce(d_values) == values.sum()
    np.testing.assert_array_equal(d_values.copy_to_host(), values)  # input left alone


def test_reduce_of_nothing_is_init():
    empty = np.zeros(0, dtype=np.float32)
    got = sum_reduce(empty, init=4)
    assert got == 4 and got.dtype == np.float32
    assert sum_reduce(np.arange(10.0), size=0) == 0.0
    res = cuda.to_device(np.array([7.0]))
    assert sum_reduce(np.zeros(0), res=res, init=1.0) == 1.0
    assert res.copy_to_host()[0] == 7.0  # as in Numba, res is not written


@cuda.jit(device=True)
def product(a, b):
    return a * b


@cuda.jit
def a_kernel(a, b):
    pass


def test_reduce_with_a_jitted_device_function():
    assert cuda.reduce(product)(np.arange(1.0, 11.0)) == 0.0  # init 0 folded in
    assert cuda.reduce(product)(np.arange(1.0, 11.0), init=1) == 3628800.0
    with pytest.raises(TypeError, match="a_kernel is a kernel; a device function is needed"):
        cuda.reduce(a_kernel)(np.ones(3))


def test_reduce_needs_a_1d_array():
    with pytest.raises(TypeError, match="only support 1D array"):
        sum_reduce(np.ones((2, 2)))


def test_reduce_compiles_once_per_dtype():
    sum_reduce(np.ones(10, dtype=np.float32))
    sum_reduce(np.ones(20, dtype=np.float32))
    keys = [key for key in cuda.Reduce._cache if key[0] is sum_reduce._functor]
    assert sorted(str(dtype) for _, dtype in keys).count("float32") == 1


# -- vectorize --------------------------------------------------------------------------------

@vectorize(['float32(float32, float32)'])
def rel_diff(x, y):
    return 2 * (x - y) / (x + y)


@vectorize(['int32(int32, int32)', 'float64(float64, float64)'], target='gpu')
def add(a, b):
    return a + b


def test_vectorize_matches_numpy():
    a = np.arange(1000, dtype=np.float32)
    b = a * 2 + 1
    got = rel_diff(a, b)
    assert isinstance(got, np.ndarray) and got.dtype == np.float32 and got.shape == (1000,)
    np.testing.assert_allclose(got, 2 * (a - b) / (a + b), rtol=1e-6)
    assert rel_diff.__name__ == "rel_diff"


def test_vectorize_dispatches_on_the_argument_dtypes():
    i = np.arange(10, dtype=np.int32)
    f = np.linspace(0, 1, 10)
    assert add(i, i).dtype == np.int32 and add(i, i).tolist() == (2 * i).tolist()
    assert add(f, f).dtype == np.float64
    np.testing.assert_array_equal(add(f, f), 2 * f)
    with pytest.raises(TypeError, match="No matching version.  GPU ufunc requires array "
                                        "arguments to have the exact types"):
        add(i.astype(np.float32), i.astype(np.float32))
    with pytest.raises(TypeError, match="No matching version"):
        add(i, f)



def test_vectorize_signature_spellings():
    """Every spelling Numba's sigutils.normalize_signature takes: text, signature objects,
    argument types alone (a tuple, or text) whose return type is the function's (int32 + int32
    is int64 there, as in Numba); one signature object alone, or a list of them."""
    from simt.types import float32, float64, int32, void

    @vectorize([float32(float32, float32), "float64(float64, float64)", (int32, int32),
                "(int64, float64)"])
    def plus(x, y):
        return x + y

    @vectorize(float64(float64))
    def negate(x):
        return -x

    @guvectorize(void(float64[:], float64[:]), "(n)->()")
    def total(a, out):
        t = 0.0
        for x in a:
            t += x
        out[0] = t

    @guvectorize([(float32[:], float32[:])], "(n)->()")
    def first(a, out):
        out[0] = a[0]

    i = np.arange(4, dtype=np.int32)
    assert plus(i, i).dtype == np.int64 and plus(i, i).tolist() == (2 * i).tolist()
    assert plus(i.astype(np.float32), i.astype(np.float32)).dtype == np.float32
    mixed = plus(i.astype(np.int64), np.full(4, 0.5))
    assert mixed.dtype == np.float64 and mixed.tolist() == [0.5, 1.5, 2.5, 3.5]
    np.testing.assert_array_equal(negate(np.ones(3)), -np.ones(3))
    np.testing.assert_array_equal(total(np.ones((2, 5))), [5.0, 5.0])
    np.testing.assert_array_equal(first(np.arange(6, dtype=np.float32).reshape(2, 3)), [0, 3])

def test_vectorize_scalars():
    x = np.arange(10, dtype=np.float32)
    np.testing.assert_allclose(rel_diff(x, np.float32(1.2)), 2 * (x - 1.2) / (x + 1.2),
                               rtol=1e-6)
    np.testing.assert_allclose(rel_diff(3.0, x), 2 * (3 - x) / (3 + x), rtol=1e-6)
    assert add(np.int32(2), np.int32(3)).tolist() == [5]  # all scalars: a 1-element array
    assert add(np.arange(3, dtype=np.int32), 10).tolist() == [10, 11, 12]
    with pytest.raises(TypeError, match="ambiguous signature. Too many untyped scalars"):
        add(1, 2)


def test_vectorize_broadcasting_and_shapes():
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    np.testing.assert_array_equal(add(x, np.arange(4.0)), x + np.arange(4.0))
    col = np.arange(3.0).reshape(3, 1)
    row = np.arange(4.0).reshape(1, 4)
    np.testing.assert_array_equal(add(col, row), col + row)
    np.testing.assert_array_equal(add(x[:, ::2], x[:, 1::2]), x[:, ::2] + x[:, 1::2])
    np.testing.assert_array_equal(add(x.T, x.T), 2 * x.T)
    assert add(np.zeros(0), np.zeros(0)).shape == (0,)
    with pytest.raises(ValueError, match="failed to broadcast argument #1"):
        add(np.zeros(3), np.zeros(4))


def test_non_contiguous_host_inputs_where_numba_copies_them_as_they_are():
    # deviceufunc.py: 1-d host inputs and gufunc inputs go through cuda.to_device (ValueError
    # unless one region), inputs of more dimensions are ravelled (copied) first
    x = np.arange(10.0)
    for call in (lambda: add(x[::2], x[1::2]), lambda: add(x[::-1], 1.0),
                 lambda: add.reduce(x[::2]), lambda: sum_reduce(x[::2]),
                 lambda: add_scalar(x[::2], 1.0), lambda: add_scalar(x.reshape(2, 5)[:, ::2], 1.0)):
        with pytest.raises(ValueError, match="non-contiguous buffer"):
            call()
    m = np.arange(12.0).reshape(2, 6)
    np.testing.assert_array_equal(add(m[:, ::2], m[:, 1::2]), m[:, ::2] + m[:, 1::2])
    with pytest.raises(ValueError, match=r"incompatible strides: \(8,\) vs. \(16,\)"):
        add(x[:5], x[5:], out=np.zeros(10)[::2])  # copy_to_host into a 1-d host out
    np.testing.assert_array_equal(add_scalar(np.ascontiguousarray(x[::2]), 1.0), x[::2] + 1)
    d = cuda.to_device(x)
    np.testing.assert_array_equal(add(d[::2], d[1::2]).copy_to_host(), x[::2] + x[1::2])


def test_vectorize_device_arrays_in_and_out():
    x = np.arange(8, dtype=np.float64)
    d_x = cuda.to_device(x)
    got = add(d_x, x)
    assert isinstance(got, cuda.DeviceNDArray)
    np.testing.assert_array_equal(got.copy_to_host(), 2 * x)
    d_m = cuda.to_device(x.reshape(2, 4))
    got = add(d_m, 1.0)
    assert isinstance(got, cuda.DeviceNDArray) and got.shape == (2, 4)
    np.testing.assert_array_equal(got.copy_to_host(), x.reshape(2, 4) + 1)


def test_vectorize_out():
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    out = np.zeros((2, 3))
    assert add(x, x, out=out) is out
    np.testing.assert_array_equal(out, 2 * x)
    d_out = cuda.device_array((2, 3))
    got = add(x, 1.0, out=d_out, stream=cuda.stream())
    assert isinstance(got, cuda.DeviceNDArray)
    np.testing.assert_array_equal(d_out.copy_to_host(), x + 1)
    strided = np.zeros((2, 6))[:, ::2]
    add(x, x, out=strided)
    np.testing.assert_array_equal(strided, 2 * x)
    with pytest.raises(ValueError, match=r"out has shape \(5,\); the result has shape \(2, 3\)"):
        add(x, x, out=np.zeros(5))
    with pytest.raises(TypeError, match="out has dtype float32; the result has dtype float64"):
        add(x, x, out=np.zeros((2, 3), np.float32))


def test_vectorize_argument_count():
    with pytest.raises(TypeError, match="add takes 2 arguments, 3 given"):
        add(np.zeros(2), np.zeros(2), np.zeros(2))


def test_vectorize_reduce_method():
    assert add.reduce(np.arange(11, dtype=np.int32)) == 55
    d = cuda.to_device(np.arange(1.0, 8.0))
    assert add.reduce(d) == 28.0
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(1.0, 8.0))
    with pytest.raises(TypeError, match="Reduction on an empty array"):
        add.reduce(np.zeros(0))


def test_vectorize_signature_errors():
    def f(x):
        return x

    with pytest.raises(TypeError, match="needs a scalar return type"):
        vectorize(['void(float32)'])(f)
    with pytest.raises(TypeError, match="take scalar arguments; got array"):
        vectorize(['float32(float32[:])'])(f)
    with pytest.raises(ValueError, match="vectorize targets are 'cuda' and 'gpu', not 'cpu'"):
        vectorize(['float32(float32)'], target='cpu')
    with pytest.raises(KeyError, match="does not support option: 'fastmath'"):
        vectorize(['float32(float32)'], fastmath=True)(f)
    with pytest.raises(TypeError, match="caching is not supported"):
        vectorize(['float32(float32)'], cache=True)(f)


def test_vectorize_compile_errors_come_at_decoration():
    def bad(x):
        return undefined_name + x  # noqa: F821

    with pytest.raises(CompileError, match="undefined_name"):
        vectorize(['float64(float64)'])(bad)


def test_vectorize_without_signatures_matches_nothing():
    @vectorize
    def twice(x):
        return 2 * x

    with pytest.raises(TypeError, match="No matching version"):
        twice(np.ones(3))


# -- guvectorize ------------------------------------------------------------------------------

@guvectorize(["void(float32[:,:], float32[:,:], float32[:,:])",
              "void(float64[:,:], float64[:,:], float64[:,:])"], '(m,n),(n,p)->(m,p)')
def matmulcore(A, B, C):
    m, n = A.shape
    n, p = B.shape
    for i in range(m):
        for j in range(p):
            C[i, j] = 0
            for k in range(n):
                C[i, j] += A[i, k] * B[k, j]


@guvectorize(["void(float64[:], float64, float64[:])"], '(n),()->(n)', target='gpu')
def add_scalar(x, y, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + y


@guvectorize(["void(int64[:], int64[:])"], '(n)->()')
def total(x, out):
    s = 0
    for i in range(x.shape[0]):
        s += x[i]
    out[0] = s


def _batch(dtype=np.float32, batch=100):
    rng = np.random.default_rng(0)
    return rng.random((batch, 2, 4)).astype(dtype), rng.random((batch, 4, 5)).astype(dtype)


def test_guvectorize_batched_matmul():
    A, B = _batch()
    C = matmulcore(A, B)
    assert isinstance(C, np.ndarray) and C.shape == (100, 2, 5) and C.dtype == np.float32
    np.testing.assert_allclose(C, A @ B, rtol=1e-5)
    A64, B64 = _batch(np.float64)
    C64 = matmulcore(A64, B64)
    assert C64.dtype == np.float64
    np.testing.assert_allclose(C64, A64 @ B64, rtol=1e-12)


def test_guvectorize_loop_dimensions_broadcast():
    A, B = _batch(np.float64, batch=12)
    np.testing.assert_allclose(matmulcore(A[0], B[0]), A[0] @ B[0])  # no loop dimension
    np.testing.assert_allclose(matmulcore(A[0], B), A[0] @ B)  # A pinned
    np.testing.assert_allclose(matmulcore(A[:1], B), A[:1] @ B)
    A4 = A.reshape(3, 4, 2, 4)
    B4 = B.reshape(3, 4, 4, 5)
    C4 = matmulcore(A4, B4)
    assert C4.shape == (3, 4, 2, 5)
    np.testing.assert_allclose(C4, A4 @ B4)
    assert matmulcore(A[:0], B[:0]).shape == (0, 2, 5)


def test_guvectorize_device_arrays_and_out():
    A, B = _batch()
    d_C = matmulcore(cuda.to_device(A), B)
    assert isinstance(d_C, cuda.DeviceNDArray)
    np.testing.assert_allclose(d_C.copy_to_host(), A @ B, rtol=1e-5)
    out = np.zeros((100, 2, 5), np.float32)
    assert matmulcore(A, B, out=out) is out
    np.testing.assert_allclose(out, A @ B, rtol=1e-5)
    out[:] = 0
    assert matmulcore(A, B, out) is out  # the output passed positionally
    np.testing.assert_allclose(out, A @ B, rtol=1e-5)
    d_out = cuda.device_array((100, 2, 5), np.float32)
    assert matmulcore(A, B, out=d_out, stream=cuda.stream()) is d_out
    np.testing.assert_allclose(d_out.copy_to_host(), A @ B, rtol=1e-5)


def test_guvectorize_scalar_and_zero_dimensional_cores():
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(add_scalar(x, 0.5), x + 0.5)
    np.testing.assert_array_equal(add_scalar(x, np.array([1.0, 2.0, 3.0])),
                                  x + np.array([[1.0], [2.0], [3.0]]))
    sums = total(np.arange(12).reshape(3, 4))
    assert sums.shape == (3,) and sums.tolist() == [6, 22, 38]


def test_guvectorize_casts_host_inputs_to_a_compatible_signature():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    got = add_scalar(x, 1)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, x + 1)
    with pytest.raises(TypeError, match="compatible signature is possible by casting but "
                                        ".*does not support .astype()"):
        add_scalar(cuda.to_device(x), 1.0)
    # Numba's rule (deviceufunc._search_matching_signature) first: a signature whose declared
    # dtypes cast safely to the inputs' takes them, converted (int64 takes float64 values)
    assert total(np.arange(4.0)).tolist() == 6
    assert total(np.arange(4, dtype=np.int32)).tolist() == 6  # then NumPy's
    with pytest.raises(TypeError, match="no matching signature"):
        total(np.arange(4).astype("M8[s]"))


def test_guvectorize_scalar_arguments_of_another_integer_type():
    # Numba's test_gufunc_scalar: scalar cores declared int32 take Python ints and np.int64
    @guvectorize(["void(int32, int32[:])"], "()->()")
    def twice(inp, out):
        out[0] = inp * 2

    @guvectorize(["void(int32, int32[:], int32[:])"], "(),(t)->(t)")
    def scale(a, b, out):
        for i in range(b.size):
            out[i] = a * b[i]

    assert twice(10) == 20
    b = np.arange(10, dtype=np.int32)
    np.testing.assert_array_equal(scale(np.int64(2), b), 2 * b)


def test_guvectorize_shape_errors():
    A, B = _batch(batch=4)
    with pytest.raises(ValueError, match=r"arg #2: shape\[1\] mismatch argument"):
        matmulcore(A, A)
    with pytest.raises(ValueError, match="arg #1: insufficient inner dimension"):
        matmulcore(A[0, 0], B)
    with pytest.raises(ValueError, match="arg #2: outer dimension mismatch"):
        matmulcore(A, B[:3])
    with pytest.raises(ValueError, match="output shape mismatch"):
        matmulcore(A, B, out=np.zeros((4, 5, 2), np.float32))
    with pytest.raises(TypeError, match="out has dtype float64; the gufunc's output is float32"):
        matmulcore(A, B, out=np.zeros((4, 2, 5)))
    with pytest.raises(ValueError, match="cannot specify 'out' as both a positional and "
                                         "keyword argument"):
        matmulcore(A, B, np.zeros((4, 2, 5), np.float32), out=np.zeros((4, 2, 5), np.float32))
    with pytest.raises(TypeError, match="invalid number of input argument"):
        matmulcore(A)


def test_guvectorize_declaration_errors():
    def core(a, b):
        pass

    with pytest.raises(ValueError, match="bad gufunc signature '\\(n\\)->\\(n': expected a "
                                         "layout like"):
        guvectorize(["void(float64[:], float64[:])"], "(n)->(n")(core)
    with pytest.raises(ValueError, match="CUDA gufuncs have exactly one output"):
        guvectorize(["void(float64[:], float64[:])"], "(n)->(n),(n)")(core)
    with pytest.raises(TypeError, match="has 3 arguments; the layout '\\(n\\)->\\(n\\)' has 2"):
        guvectorize(["void(float64[:], float64[:], float64[:])"], "(n)->(n)")(core)
    with pytest.raises(ValueError, match="gufunc signature mismatch: ndim>0 for scalar"):
        guvectorize(["void(float64, float64[:])"], "(n)->(n)")(core)
    with pytest.raises(TypeError, match="The following target options are not supported: "
                                        "'is_dynamic'"):
        guvectorize(["void(float64[:], float64[:])"], "(n)->(n)", is_dynamic=True)(core)


def test_guvectorize_runs_one_kernel_over_the_batch():
    # One generated kernel per signature, each thread calling the core on its sub-arrays (views).
    from simt.compiler.dispatcher import Dispatcher
    kernels = [kernel for _, kernel in matmulcore.kernelmap.values()]
    assert kernels and all(isinstance(k, Dispatcher) for k in kernels)


# -- numba.vectorize / numba.guvectorize under the import hook --------------------------------

HOOKED_SCRIPT = """
import numpy as np
import numba
from numba import cuda, vectorize, guvectorize
import simt.vectorizers

@vectorize(['float32(float32, float32)'], target='cuda')
def rel_diff(x, y):
    return 2 * (x - y) / (x + y)

@vectorize(['float32(float32, float32)'], target='gpu')
def foo(a, b):
    return (a + b) ** 2

@guvectorize(['void(float32[:], float32[:])'], '(n)->(n)', target='gpu')
def double(x, out):
    for i in range(x.shape[0]):
        out[i] = 2 * x[i]

assert isinstance(rel_diff, simt.vectorizers.CUDAUFuncDispatcher), rel_diff
assert isinstance(double, simt.vectorizers.CUDAGeneralizedUFunc), double
a = np.arange(10, dtype=np.float32)
np.testing.assert_allclose(rel_diff(a, a * 2 + 1), 2 * (a - (a * 2 + 1)) / (a + a * 2 + 1),
                           rtol=1e-6)
np.testing.assert_allclose(foo(a, np.float32(1.2)), (a + np.float32(1.2)) ** 2, rtol=1e-6)
assert double(a.reshape(2, 5)).tolist() == (2 * a.reshape(2, 5)).tolist()

@numba.vectorize(['float64(float64)'])
def on_the_cpu(x):
    return x + 1
assert on_the_cpu(1.0) == 2.0  # the cpu target stays Numba's
assert not isinstance(on_the_cpu, simt.vectorizers.CUDAUFuncDispatcher)
print("hooked")
"""


def _hooked_script(tmp_path, prologue):
    path = tmp_path / "hooked.py"
    path.write_text(prologue + HOOKED_SCRIPT)  # kernels compile from source: a file
    return str(path)


def test_numba_vectorize_targets_cuda_and_gpu_build_simt_ufuncs(tmp_path):
    proc = run_python(["-m", "simt", "run", _hooked_script(tmp_path, "")])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "hooked"


def test_hook_installed_after_numba_was_imported(tmp_path):
    script = _hooked_script(tmp_path, "import numba; import simt.hook; simt.hook.install()\n")
    proc = run_python([script], env={"NUMBA_ENABLE_CUDASIM": "1"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "hooked"


def test_numba_vectorize_cuda_after_numba_built_its_own(tmp_path):
    # Numba's own CUDA vectorizer was looked up before the hook: the hook replaces it.
    code = ("import numba\n"
            "from numba.np.ufunc import Vectorize\n"
            "assert 'cuda' in Vectorize.target_registry.ondemand\n"
            "import simt.hook; simt.hook.install()\n"
            "import simt.vectorizers\n"
            "assert Vectorize.target_registry['gpu'] is simt.vectorizers.CUDAVectorize\n"
            "assert Vectorize.target_registry['cuda'] is simt.vectorizers.CUDAVectorize\n")
    proc = run_python(["-c", code])
    assert proc.returncode == 0, proc.stderr


# -- against Numba's simulator ----------------------------------------------------------------

REDUCE_SCRIPT = textwrap.dedent("""
    import numpy as np
    from numba import cuda

    @cuda.reduce
    def sum_reduce(a, b):
        return a + b

    @cuda.reduce
    def max_reduce(a, b):
        return max(a, b)

    values = np.random.default_rng(1).integers(-1000, 1000, 20000)
    print(sum_reduce(values), sum_reduce(np.arange(1234.0) + 1), sum_reduce(values, init=5))
    print(max_reduce(values, init=-5000), max_reduce(values[:100].astype(np.float32)))
    res = cuda.to_device(np.zeros(1))
    sum_reduce(np.arange(300.0), res=res)
    print(res.copy_to_host()[0], sum_reduce(np.zeros(0, np.int32), init=3))
""")


def test_reduce_matches_numba_simulator(tmp_path):
    script = tmp_path / "reduce_script.py"
    script.write_text(REDUCE_SCRIPT)
    oracle = run_python([str(script)], env={"NUMBA_ENABLE_CUDASIM": "1"})
    assert oracle.returncode == 0, oracle.stderr
    ours = run_python(["-m", "simt", "run", str(script)])
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == oracle.stdout
