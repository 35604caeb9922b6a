"""cuda.jit and the Dispatcher's host-side behaviour: decorator forms, launch configurations and
their errors (these need no compiled kernel: they fail before anything compiles)."""
import pickle

import numpy as np
import pytest

from simt import cuda, float32
from simt.compiler.dispatcher import Dispatcher
from simt.errors import CompileError


def vector_add(r, x, y):
    """Adds two vectors."""
    i = cuda.grid(1)
    if i < r.size:
        r[i] = x[i] + y[i]


def test_decorator_forms_without_signatures():
    for kernel in (cuda.jit(vector_add), cuda.jit()(vector_add),
                   cuda.jit(debug=True, opt=False, fastmath=True, lineinfo=True,
                            cache=True)(vector_add)):
        assert isinstance(kernel, Dispatcher)
        assert kernel.py_func is vector_add
        assert kernel.__name__ == "vector_add" and kernel.__doc__ == "Adds two vectors."
        assert kernel.overloads == {} and kernel.definitions == {}
        assert not kernel.device


def test_jit_refuses_what_it_cannot_do():
    with pytest.raises(TypeError):
        cuda.jit(cuda.jit(vector_add))
    with pytest.raises(ValueError, match="declare_device needs the function's name"):
        cuda.declare_device("not a name", "int32(int32)")


def test_calling_without_a_launch_configuration():
    kernel = cuda.jit(vector_add)
    with pytest.raises(ValueError, match="launch configuration was not specified"):
        kernel(np.zeros(3), np.zeros(3), np.zeros(3))


def test_device_functions_are_not_callable_from_the_host():
    @cuda.jit(device=True)
    def add(a, b):
        return a + b

    assert add.device and add.py_func(1, 2) == 3
    with pytest.raises(TypeError, match="device function"):
        add(1, 2)
    with pytest.raises(RuntimeError, match="Cannot compile a device function as a kernel"):
        add[1, 1]
    with pytest.raises(RuntimeError, match="Cannot inspect SASS of a device function"):
        add.inspect_sass()


def test_launch_configuration_parsing():
    kernel = cuda.jit(vector_add)
    config = kernel[4, 128]
    assert config.griddim == (4, 1, 1) and config.blockdim == (128, 1, 1)
    config = kernel[(2, 3), (4, 5, 6)]
    assert config.griddim == (2, 3, 1) and config.blockdim == (4, 5, 6)
    config = kernel[np.int64(2), (np.int32(3), np.uint8(2))]
    assert config.griddim == (2, 1, 1) and config.blockdim == (3, 2, 1)
    assert type(config.griddim[0]) is int
    config = kernel[1, 32, cuda.stream(), 256]
    assert config.sharedmem == 256
    config = kernel[[2, 2], [8, 8], 0]
    assert config.griddim == (2, 2, 1)
    assert kernel[4, 128] is kernel[4, 128]


@pytest.mark.parametrize("config, error", [
    ((1,), ValueError),
    ((1, 2, 0, 0, 0), ValueError),
    (("1", 32), TypeError),
    ((1, 32.0), TypeError),
    (((1, 2, 3, 4), 32), ValueError),
    ((1, (1, 1, 1, 1)), ValueError),
    ((1, 32, 0, -1), ValueError),
    ((1, 32, 0, 1.5), TypeError),
])
def test_bad_launch_configurations(config, error):
    kernel = cuda.jit(vector_add)
    with pytest.raises(error):
        kernel[config]


def test_forall_with_no_tasks_does_nothing():
    cuda.jit(vector_add).forall(0)(np.zeros(0), np.zeros(0), np.zeros(0))
    with pytest.raises(ValueError):
        cuda.jit(vector_add).forall(-1)


def test_kernel_parameters_must_be_positional():
    def bad(a, **rest):
        pass

    with pytest.raises(simt_compile_error()):
        cuda.jit(bad)


def test_a_kernel_of_star_args_is_called_not_launched():
    # numba-cuda's test_make_function_to_jit_function: a @cuda.jit function of *args called
    # from a kernel is a device function; launched, it is refused
    @cuda.jit
    def consumer(func, *args):
        return func(*args)

    with pytest.raises(simt_compile_error(), match=r"not \*args \(consumer\)"):
        consumer[1, 1](1, 2)


def simt_compile_error():
    from simt.errors import CompileError
    return CompileError


def test_argument_wrappers_pass_their_array():
    host = np.zeros(3)
    assert cuda.In(host)._host is host
    d = cuda.to_device(host)
    assert cuda.InOut(d)._host is d._host


def test_kernel_signatures_must_return_void():
    with pytest.raises(TypeError, match="returns void"):
        cuda.jit("float32(float32[:])")(vector_add)


def test_numbas_performance_warnings_come_when_asked_for(monkeypatch):
    """Numba warns of low occupancy and implicit copies on a GPU by default; simt models no GPU
    performance, so it gives them only when their variable is set."""
    import warnings

    from numba.core.errors import NumbaPerformanceWarning

    @cuda.jit
    def touch(a):
        a[0] = 1

    with warnings.catch_warnings(record=True) as quiet:
        warnings.simplefilter("always")
        touch[1, 1](np.zeros(1))
    assert not [w for w in quiet if issubclass(w.category, NumbaPerformanceWarning)]
    monkeypatch.setenv("NUMBA_CUDA_WARN_ON_IMPLICIT_COPY", "1")
    monkeypatch.setenv("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "1")
    with warnings.catch_warnings(record=True) as asked:
        warnings.simplefilter("always")
        touch[1, 1](np.zeros(1))
        touch[1, 1](cuda.mapped_array(1))
    messages = [str(w.message) for w in asked if issubclass(w.category, NumbaPerformanceWarning)]
    assert messages == ["Grid size 1 will likely result in GPU under-utilization due to low "
                        "occupancy.",
                        "Host array used in CUDA kernel will incur copy overhead to/from device.",
                        "Grid size 1 will likely result in GPU under-utilization due to low "
                        "occupancy."]


def test_device_functions_with_declared_signatures_convert_their_arguments():
    # As Numba: a call converts its arguments to the signature Numba's overload selection picks
    # (float32 channels to int32, truncating) and returns the declared type.
    @cuda.jit("int32(int32, int32, int32, int32)", device=True)
    def rgba(r, g, b, a):
        return ((r & 0xFF) << 16) | ((g & 0xFF) << 8) | (b & 0xFF) | ((a & 0xFF) << 24)

    @cuda.jit(["float64(float64)", "int64(int64)"], device=True)
    def half(x):
        return x / 2  # an int64 argument gives int64: the quotient truncated

    @cuda.jit("float32(float32[:], int64)", device=True)
    def pick(values, i):
        return values[i]

    @cuda.jit
    def caller(out, channels, ints):
        out[0] = rgba(channels[0], channels[1], channels[2], channels[3])
        out[1] = half(ints[0])       # int64: 7 // 2
        out[2] = half(channels[1])   # float32 converts best to float64: 1.25
        out[3] = pick(channels, 2.9)  # an 'A' array parameter takes a C array; 2.9 -> 2

    out = np.zeros(4)
    caller[1, 1](out, np.array([1.9, 2.5, 3.0, 4.0], np.float32), np.array([7]))
    assert out.tolist() == [0x04010203, 3.0, 1.25, 3.0]


def test_a_call_no_declared_signature_accepts_is_a_compile_error():
    @cuda.jit("float64(float64[:])", device=True)
    def first(values):
        return values[0]

    @cuda.jit
    def caller(out, ints):
        out[0] = first(ints)

    with pytest.raises(CompileError, match=r"Invalid use of type\(CUDADispatcher\(first\)\) "
                                           r"with parameters \(array\(int64, 1d, C\)\): no declared "
                                           r"signature accepts them. Known signatures:\n "
                                           r"\* \(array\(float64, 1d, A\)\) -> float64"):
        caller[1, 1](np.zeros(1), np.arange(3))


def test_a_call_no_declared_signature_accepts_is_numbas_typing_error():
    # numba-cuda's test_explicit_signatures_device: its TypingError class and wording
    errors = pytest.importorskip("numba.core.errors")

    @cuda.jit(["(int64, int64)", "(float64, float64)"], device=True)
    def add(x, y):
        return x + y

    @cuda.jit
    def caller(r, x, y):
        r[0] = add(x, y)

    with pytest.raises(errors.TypingError) as raised:
        caller[1, 1](np.zeros(1, np.complex128), 1j, 1j)
    assert "Invalid use of" in str(raised.value)
    assert "with parameters (complex128, complex128)" in str(raised.value)
    assert " * (int64, int64)\n * (float64, float64)" in str(raised.value)


@pytest.mark.parametrize("setting, title, content", [
    ("DUMP_IR", "IR DUMP: dumped", "kernel dumped("),
    ("DUMP_LLVM", "LLVM DUMP dumped", "define "),
    ("DUMP_ASSEMBLY", "ASSEMBLY dumped", ".entry "),
])
def test_numba_dump_settings_print_each_new_kernel(monkeypatch, capsys, setting, title, content):
    # Numba's NUMBA_DUMP_IR / _LLVM / _ASSEMBLY, read from Numba's config where it is loaded
    from numba.core import config

    @cuda.jit
    def dumped(a):
        a[cuda.grid(1)] += 1.5

    monkeypatch.setattr(config, setting, True)
    dumped[1, 4](np.zeros(4))
    dumped[1, 4](np.zeros(4))  # compiled once: dumped once
    out = capsys.readouterr().out
    assert out.count(title.center(80, "-")) == 1
    assert content in out and out.rstrip().endswith("=" * 80)
    for other in ("IR DUMP", "LLVM DUMP", "ASSEMBLY"):
        assert (other in out) == title.startswith(other)


def test_declared_signatures_refuse_compile_time_arguments_and_other_returns():
    @cuda.jit("float64(int64)", device=True)
    def scratch_sum(n):
        scratch = cuda.local.array(n, np.float64)  # n a compile-time size: a literal argument
        for k in range(n):
            scratch[k] = k
        return scratch[n - 1]

    @cuda.jit
    def sizes(out):
        out[0] = scratch_sum(4)

    with pytest.raises(CompileError, match="compile-time arguments to scratch_sum, a device "
                                           "function with declared signatures, are not "
                                           "supported"):
        sizes[1, 1](np.zeros(1))

    @cuda.jit("int64(int64)", device=True)
    def pair(x):
        return x, x

    @cuda.jit
    def pairs(out):
        out[0] = pair(3)

    with pytest.raises(CompileError, match=r"pair returns UniTuple\(int64 x 2\), not int64 as its "
                                           "signature declares"):
        pairs[1, 1](np.zeros(1))


def test_signatures_nopython_signatures_and_stats_are_numbas(monkeypatch, tmp_path):
    # numba/core/dispatcher.py: signatures is list(self.overloads) (argument-type tuples),
    # nopython_signatures their Signature objects, stats _CompileStats(cache_path, cache_hits,
    # cache_misses) with a miss per compiled overload (Numba's NullCache without cache=True)
    import numba

    def store(out, n):
        out[0] = n

    eager = cuda.jit("void(float64[:], int32)")(store)
    assert eager.signatures == [tuple(eager.overloads)[0]]
    assert [str(t) for t in eager.signatures[0]] == ["array(float64, 1d, A)", "int32"]
    assert [str(s) for s in eager.nopython_signatures] == ["(array(float64, 1d, A), int32) -> none"]
    assert eager.nopython_signatures[0].args == eager.signatures[0]
    assert eager.stats.cache_path is None and not eager.stats.cache_hits
    assert eager.stats.cache_misses[(numba.float64[:], numba.int32)] == 1
    assert type(eager.stats).__name__ == "_CompileStats" and eager.stats._fields == (
        "cache_path", "cache_hits", "cache_misses")

    lazy = cuda.jit(store)
    assert lazy.signatures == [] and lazy.nopython_signatures == []
    assert not lazy.stats.cache_misses
    out = np.zeros(1)
    lazy[1, 1](out, 3)
    lazy[1, 1](out, 4)  # the same overload: no new compile
    lazy[1, 1](out, 4.5)
    assert lazy.signatures == list(lazy.overloads)
    assert [", ".join(map(str, sig)) for sig in lazy.signatures] == [
        "array(float64, 1d, C), int64", "array(float64, 1d, C), float64"]
    assert [str(s) for s in lazy.nopython_signatures] == [
        "(array(float64, 1d, C), int64) -> none", "(array(float64, 1d, C), float64) -> none"]
    assert dict(lazy.stats.cache_misses) == {sig: 1 for sig in lazy.signatures}
    assert lazy.stats.cache_misses[(numba.float64[::1], numba.float64)] == 1
    assert lazy.stats.cache_misses[(numba.float64[::1], numba.int8)] == 0

    device = cuda.jit("float64(float64)", device=True)(lambda x: x)
    assert [[str(t) for t in sig] for sig in device.signatures] == [["float64"]]
    assert [str(s) for s in device.nopython_signatures] == ["(float64) -> float64"]
    assert cuda.jit(device=True)(store).signatures == []
    monkeypatch.setenv("SIMT_CACHE_DIR", str(tmp_path))  # cache=True: simt's compile cache
    monkeypatch.delenv("SIMT_CACHE", raising=False)
    assert cuda.jit(cache=True)(store).stats.cache_path == str(tmp_path)
    monkeypatch.setenv("SIMT_CACHE", "0")
    assert cuda.jit(cache=True)(store).stats.cache_path is None


@cuda.jit((float32, float32), device=True)
def add_pair(a, b):  # argument types alone: Numba infers the return type
    return a + b


@cuda.jit(float32(float32, float32[:]), device=True)
def plus_first(a, w):
    return a + w[0]


@cuda.jit("(float32[:], float32[:])", device=True)
def first_difference(a, b):  # a signature string without a return type: inferred too
    return a[0] - b[0]


def test_declared_device_signatures_infer_returns_and_take_arrays_of_any_memory():
    @cuda.jit
    def k(inp, out, w):
        out[0] = add_pair(inp[0], inp[1])
        shared = cuda.shared.array(2, float32)
        shared[0] = w[0]
        out[1] = plus_first(np.float32(1.0), shared)
        local = cuda.local.array(2, float32)
        local[0] = 5
        out[2] = plus_first(np.float32(1.0), local)
        out[3] = first_difference(w, inp)

    out = np.zeros(4, np.float32)
    k[1, 1](np.array([1, 0.5], np.float32), out, np.array([2, 3], np.float32))
    assert out.tolist() == [1.5, 3.0, 6.0, 1.0]
    assert pickle.loads(pickle.dumps(add_pair))._inferred_returns == {0}
