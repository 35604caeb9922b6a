"""End-to-end: kernels compiled from Python source, run on the simulator, through simt.cuda."""
import io
import math
import os
import textwrap
import time

import numpy as np
import pytest

import simt
from simt import cuda, float32, void
from conftest import run_python

SCALE = 3
OFFSETS = np.array([10.0, 20.0, 30.0])


@cuda.jit
def vector_add(r, x, y):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = x[i] + y[i]


@cuda.jit
def increment_2d(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


@cuda.jit
def reciprocal(x):
    i = cuda.grid(1)
    if i > x.shape[0]:
        return
    x[i] = 1 / x[i]


def test_vector_add_writes_numpy_arrays_in_place():
    n = 1000
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 0.5, dtype=np.float32)
    r = np.zeros(n, dtype=np.float32)
    vector_add[(n + 127) // 128, 128](r, x, y)
    np.testing.assert_array_equal(r, x + y)


def test_increment_2d_with_tuple_configurations():
    a = np.zeros((33, 17))
    increment_2d[(3, 2), (16, 16)](a)
    np.testing.assert_array_equal(a, np.ones((33, 17)))


def test_device_arrays_round_trip():
    n = 300
    d_x = cuda.to_device(np.arange(n, dtype=np.float64))
    d_y = cuda.to_device(np.ones(n))
    d_r = cuda.device_array(n)
    vector_add[3, 128](d_r, d_x, d_y)
    np.testing.assert_array_equal(d_r.copy_to_host(), np.arange(n) + 1.0)


def test_one_compilation_per_argument_type_tuple():
    @cuda.jit
    def fill(a, value):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = value

    a32, a64 = np.zeros(4, np.float32), np.zeros(4)
    fill[1, 4](a32, 1)
    fill[1, 4](a32, 2)
    fill[1, 4](a64, 2.5)
    assert len(fill.overloads) == 2
    assert (simt.typeof(a32), simt.int64) in fill.overloads
    assert a32.tolist() == [2, 2, 2, 2] and a64.tolist() == [2.5] * 4


def test_explicit_string_signature_compiles_eagerly_and_converts():
    @cuda.jit("void(float32[:], int32)")
    def scale(a, k):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= k

    assert len(scale.overloads) == 1
    a = np.ones(8, np.float32)
    scale[1, 8](a, 3)
    scale[1, 8](a, np.int64(2))
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        scale[1, 8](a, 2.9)  # Numba's ctypes.c_int32(2.9)
    np.testing.assert_array_equal(a, np.full(8, 6, np.float32))
    with pytest.raises(TypeError):
        scale[1, 8](np.ones(8), 3)
    with pytest.raises(TypeError):
        scale[1, 8](a, "3")
    assert len(scale.overloads) == 1


def test_type_object_signatures_and_lists_of_signatures():
    @cuda.jit(void(float32[::1], float32))
    def add_c(a, v):
        a[cuda.grid(1)] += v

    a = np.zeros(4, np.float32)
    add_c[1, 4](a, 1.5)
    assert a.tolist() == [1.5] * 4
    with pytest.raises(TypeError):
        add_c[1, 2](np.zeros(8, np.float32)[::2], 1.0)

    @cuda.jit(["void(int32[:])", "void(float64[:])"])
    def twice(a):
        a[cuda.grid(1)] *= 2

    i, f = np.arange(4, dtype=np.int32), np.arange(4.0)
    twice[1, 4](i)
    twice[1, 4](f)
    assert i.tolist() == [0, 2, 4, 6] and f.tolist() == [0.0, 2.0, 4.0, 6.0]
    with pytest.raises(TypeError, match="No matching definition"):
        twice[1, 4](np.zeros(4, np.float32))


def test_numba_type_objects_are_accepted():
    numba = pytest.importorskip("numba")

    @cuda.jit(numba.void(numba.int64[:], numba.int64))
    def put(a, v):
        a[cuda.grid(1)] = v

    a = np.zeros(2, np.int64)
    put[1, 2](a, 9)
    assert a.tolist() == [9, 9]


def test_non_contiguous_views_are_passed_with_their_strides():
    a = np.zeros((6, 8))
    d = cuda.to_device(a)
    view = d[::2, 1::3]
    increment_2d[1, (8, 8)](view)
    expected = np.zeros((6, 8))
    expected[::2, 1::3] = 1
    np.testing.assert_array_equal(d.copy_to_host(), expected)


def test_scalar_argument_kinds():
    @cuda.jit
    def store(out, a, b, c, d):
        out[0] = a
        out[1] = b
        out[2] = c
        out[3] = d

    out = np.zeros(4)
    store[1, 1](out, True, np.float32(0.5), np.int16(-3), 2**40)
    assert out.tolist() == [1.0, 0.5, -3.0, 2.0**40]
    with pytest.raises(simt.CompileError, match="cannot convert complex128 to float64"):
        store[1, 1](out, 1j, 0, 0, 0)


def test_closure_and_global_constants():
    bias = 0.25

    @cuda.jit
    def apply(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = a[i] * SCALE + OFFSETS[i % 3] + bias + math.pi

    a = np.ones(6)
    apply[1, 6](a)
    np.testing.assert_allclose(a, 3 + OFFSETS[np.arange(6) % 3] + 0.25 + math.pi)


def test_device_functions():
    @cuda.jit(device=True)
    def clamp(x, lo, hi):
        return min(max(x, lo), hi)

    @cuda.jit
    def clamp_all(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = clamp(a[i], -1.0, 1.0)

    a = np.array([-3.0, -0.5, 0.5, 3.0])
    clamp_all[1, 4](a)
    assert a.tolist() == [-1.0, -0.5, 0.5, 1.0]


def test_shared_memory_and_syncthreads():
    @cuda.jit
    def block_sum(a, out):
        tile = cuda.shared.array(64, dtype=np.float64)
        t = cuda.threadIdx.x
        tile[t] = a[cuda.grid(1)]
        cuda.syncthreads()
        s = 32
        while s > 0:
            if t < s:
                tile[t] += tile[t + s]
            cuda.syncthreads()
            s //= 2
        if t == 0:
            out[cuda.blockIdx.x] = tile[0]

    a = np.arange(256.0)
    out = np.zeros(4)
    block_sum[4, 64](a, out)
    np.testing.assert_array_equal(out, a.reshape(4, 64).sum(axis=1))


def test_atomics_across_blocks():
    @cuda.jit
    def count(hits):
        cuda.atomic.add(hits, 0, 1)

    hits = np.zeros(1, np.int64)
    count[64, 128](hits)
    assert hits[0] == 64 * 128


def test_forall_and_specialize():
    n = 1000
    x, y, r = np.arange(n, dtype=np.float64), np.ones(n), np.zeros(n)
    vector_add.forall(n)(r, x, y)
    np.testing.assert_array_equal(r, x + 1)

    special = vector_add.specialize(r, x, y)
    assert special.specialized and len(special.overloads) == 1
    special[8, 128](r, y, y)
    assert (r == 2).all()
    with pytest.raises(TypeError):
        special[1, 1](np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32))


def test_inspection():
    @cuda.jit
    def bump(a):
        a[cuda.threadIdx.x, 0] += 1

    bump[1, 2](np.zeros((2, 2)))
    ir = bump.inspect_ir()
    assert list(ir) == [(simt.float64[:, ::1],)]
    assert "bump" in ir[(simt.float64[:, ::1],)]
    assert "define" in bump.inspect_llvm(signature=(simt.float64[:, ::1],))
    assert list(bump.inspect_llvm()) == list(ir)
    out = io.StringIO()
    bump.inspect_types(file=out)
    assert "bump (array(float64, 2d, C))" in out.getvalue()


def test_argument_count_is_checked_before_launch():
    r = np.zeros(4)
    with pytest.raises(TypeError, match="takes 3 arguments, 2 given"):
        vector_add[1, 4](r, r)


@pytest.mark.parametrize("griddim, blockdim", [
    (1, 2048), (0, 32), (1, 0), (1, (32, 32, 2)), (1, (1, 1, 65)), (-1, 32)])
def test_bad_launch_configurations_raise_before_running(griddim, blockdim):
    r = np.zeros(4)
    with pytest.raises(ValueError):
        vector_add[griddim, blockdim](r, np.ones(4), np.ones(4))
    assert not r.any()


def test_grids_of_2_to_the_31_threads_along_an_axis_are_refused():
    # cuda.grid() is int32 arithmetic; simt compiles it assuming it cannot wrap.
    r = np.zeros(4)
    with pytest.raises(ValueError, match=r"threads along x \(grid 2097152 x block 1024\) are "
                                         r"not supported yet: at most 2\*\*31 - 1"):
        vector_add[2 ** 21, 1024](r, np.ones(4), np.ones(4))


def test_index_error_names_the_thread_and_the_line():
    x = np.arange(1.0, 11.0)
    with pytest.raises(IndexError) as info:
        reciprocal[1, 32](x)
    text = str(info.value)
    line = reciprocal.py_func.__code__.co_firstlineno + 5
    # Numba's first line (its dispatcher's, for kernels built with debug=True)
    assert text.startswith("In function 'reciprocal', file %s, line %d, tid=[10, 0, 0] "
                           "ctaid=[0, 0, 0]: index 10 is out of bounds for axis 0 with size 10"
                           % (os.path.abspath(__file__), line))
    assert 'File "%s", line %d, in reciprocal' % (__file__, line) in text
    # The source line, and a caret under the faulting expression (the load of x[10]).
    assert text.endswith("\n    x[i] = 1 / x[i]\n               ^")
    # The process goes on and the kernel runs again.
    vector_add[1, 4](np.zeros(4), np.ones(4), np.ones(4))


def test_run_time_exceptions_map_to_python_classes():
    @cuda.jit(debug=True, opt=False)  # Numba's Python error model: integer // 0 raises
    def divide(a, b):
        i = cuda.grid(1)
        a[i] = a[i] // b[i]

    with pytest.raises(ZeroDivisionError, match=r"tid=\[1, 0, 0\]"):
        divide[1, 2](np.array([4, 4]), np.array([2, 0]))

    @cuda.jit
    def checks(a):
        assert a[0] > 0, "a[0] must be positive"

    with pytest.raises(AssertionError, match="a\\[0\\] must be positive"):
        checks[1, 1](np.zeros(1))

    @cuda.jit
    def raises(a):
        if a[0] == 0:
            raise ValueError("zero")

    with pytest.raises(ValueError, match="zero"):
        raises[1, 1](np.zeros(1))


class OutOfRange(ValueError):
    """A user's exception class, raised from a kernel as itself."""


def test_kernels_raise_user_exception_classes():
    @cuda.jit
    def checks(a):
        i = cuda.grid(1)
        if a[i] < 0:
            raise OutOfRange("negative value")
        if a[i] > 100:
            raise OutOfRange

    checks[1, 2](np.array([1.0, 2.0]))
    with pytest.raises(OutOfRange, match=r"tid=\[1, 0, 0\] ctaid=\[0, 0, 0\]: negative value"):
        checks[1, 2](np.array([1.0, -2.0]))
    with pytest.raises(OutOfRange, match=r"tid=\[0, 0, 0\]"):
        checks[1, 2](np.array([101.0, 2.0]))


def test_compile_errors_point_at_the_source():
    @cuda.jit
    def broken(a):
        a[0] = undefined_name + 1  # noqa: F821

    with pytest.raises(simt.CompileError) as info:
        broken[1, 1](np.zeros(1))
    error = info.value
    assert error.file == __file__
    assert error.line == broken.py_func.__code__.co_firstlineno + 2
    assert "undefined_name" in str(error)
    assert "%s:%d:" % (__file__, error.line) in str(error)


def test_print_output_keeps_its_order_with_python_prints(tmp_path):
    script = tmp_path / "printing.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        from numba import cuda

        @cuda.jit
        def hello(a):
            print("kernel", a[0])

        print("before")
        hello[1, 1](np.array([7]))
        print("after")
        """))
    proc = run_python(["-m", "simt", "run", str(script)])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:3] == ["before", "kernel 7", "after"]


def test_launch_overhead_of_a_cached_kernel():
    @cuda.jit
    def touch(a, b, c):
        if cuda.grid(1) == 0:
            a[0] = b[0] + c[0]

    a, b, c = np.zeros(4), np.ones(4), np.ones(4)
    launch = touch[1, 1]
    launch(a, b, c)
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(1000):
            launch(a, b, c)
        samples.append((time.perf_counter() - start) / 1000)
    best = min(samples)
    print("launch overhead: %.1f us" % (best * 1e6))
    assert best < 50e-6  # target < 20 us; the margin absorbs a loaded machine


def test_star_arguments_must_be_tuples():
    @cuda.jit
    def k(a):
        a[0] = max(*a)

    with pytest.raises(simt.CompileError, match=r"'\*' arguments must be tuples, not array\(float64"):
        k[1, 1](np.zeros(3))


@pytest.mark.parametrize("view, error", [
    (lambda a: a[:, ::2].view(np.int16), "the last axis must be contiguous"),
    (lambda a: a[:, :3].view(np.int64), "its size must be a divisor of the total size in bytes"),
])
def test_dtype_views_that_numpy_refuses_raise_its_value_error(view, error):
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    with pytest.raises(ValueError, match=error):
        view(a)  # NumPy's refusal, which the kernel's must match
    source = {
        "the last axis must be contiguous": "a[:, ::2].view(np.int16)",
        "its size must be a divisor of the total size in bytes": "a[:, :3].view(np.int64)",
    }[error]
    namespace = {"np": np, "cuda": cuda}
    exec("def k(a, out):\n    out[0] = %s.size\n" % source, namespace)
    kernel = cuda.jit(namespace["k"])
    with pytest.raises(ValueError, match=error) as info:
        kernel[1, 1](a, np.zeros(1, np.int64))
    assert "tid=[0, 0, 0]" in str(info.value)


def test_a_loop_variable_read_after_its_loop_keeps_one_type():
    @cuda.jit
    def k(out):
        for v in ((1.0, 2.0), (3.0, 4.0)):
            out[0] += v[0]
        for v in (1.0, 2.0):
            out[1] += v
        out[2] = v  # read after the loop: one variable, whose types do not unify

    with pytest.raises(simt.CompileError, match=r"cannot assign float64 to 'v', which holds "
                                                r"UniTuple\(float64 x 2\)"):
        k[1, 1](np.zeros(3))
