"""Arrays a kernel allocates, as numba-cuda's NRT lets it: np.empty, np.zeros, np.ones, np.full,
their *_like forms, np.copy and array.copy(), also returned from device functions; compared with
NumPy. A negative extent is a ValueError and an impossible size a MemoryError, each naming the
line, thread and block; the GPU backend allocates with CUDA's device-side malloc."""
import numpy as np
import pytest
from simt import CompileError, cuda


@cuda.jit
def fill_kinds(out, n):
    i = cuda.grid(1)
    if i >= out.shape[1]:
        return
    empty = np.empty(n, np.int32)
    for k in range(n):
        empty[k] = k
    zeros = np.zeros((2, n), dtype=np.float32)
    ones = np.ones(n)
    full = np.full(n, 2.5)
    out[0, i] = empty[i]
    out[1, i] = zeros[1, i]
    out[2, i] = ones[i]
    out[3, i] = full[i]


def test_allocations_hold_numpy_values_in_every_thread():
    n = 6
    out = np.full((4, n), -1.0)
    fill_kinds[2, 4](out, n)
    expected = np.stack([np.arange(n), np.zeros(n), np.ones(n), np.full(n, 2.5)])
    assert (out == expected).all()


@cuda.jit
def like_kinds(a, out):
    e = np.empty_like(a)
    z = np.zeros_like(a)
    o = np.ones_like(a, dtype=np.int64)
    f = np.full_like(a, 7)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            e[i, j] = a[i, j] * 2
            out[i, j] = e[i, j] + z[i, j] + o[i, j] * 10 + f[i, j] * 100


def test_like_forms_take_shape_and_dtype():
    a = np.arange(12.0).reshape(3, 4)
    out = np.zeros_like(a)
    like_kinds[1, 1](a, out)
    assert (out == a * 2 + 10 + 700).all()


@cuda.jit
def copy_of_view(a, out):
    q = a[::-1, 1:].copy()
    a[0, 0] = -1  # the copy is independent of a
    r = np.copy(q)
    q[0, 0] = 99
    for i in range(q.shape[0]):
        for j in range(q.shape[1]):
            out[i, j] = r[i, j]
    out[0, 0] += q[0, 0] * 0


def test_copy_of_a_strided_view_is_c_contiguous_and_independent():
    a = np.arange(12).reshape(3, 4)
    expected = a[::-1, 1:].copy()
    out = np.zeros((3, 3), np.int64)
    copy_of_view[1, 1](a, out)
    assert (out == expected).all()
    assert a[0, 0] == -1


CONSTANT = np.array([1, 2, 3])[::-1]


def test_copy_of_a_global_array_as_numba_cudas_test_array_copy():
    @cuda.jit
    def kernel(out):
        q = CONSTANT.copy()
        for i in range(len(out)):
            out[i] = q[i]

    out = np.zeros(3)
    kernel[1, 1](out)
    assert (out == CONSTANT).all()


@cuda.jit(device=True)
def tail(x):
    return x[5:]


@cuda.jit(device=True)
def squares(n):
    r = np.empty(n, np.int64)
    for k in range(n):
        r[k] = k * k
    return r


@cuda.jit
def returns(out):
    x = np.empty(10, np.int64)
    x[5] = 1
    out[0] = tail(x)[0]
    s = squares(4)
    out[1] = s[3]


def test_device_functions_take_and_return_allocated_arrays():
    out = np.zeros(2, np.int64)
    returns[1, 1](out)
    assert list(out) == [1, 9]


@cuda.jit
def in_a_loop(out, rounds):
    i = cuda.grid(1)
    total = 0.0
    for r in range(rounds):
        t = np.full((3,), r, dtype=np.float64)
        total += t.sum()
    out[i] = total


def test_allocation_in_a_loop_of_many_threads():
    out = np.zeros(256)
    in_a_loop[4, 64](out, 50)
    assert (out == 3 * sum(range(50))).all()


@cuda.jit
def sized(out, n):
    x = np.empty(n)
    out[0] = x.size


def test_negative_extent_is_a_value_error_naming_the_line():
    out = np.zeros(1)
    with pytest.raises(ValueError, match="negative dimensions not allowed") as info:
        sized[1, 1](out, -3)
    assert "x = np.empty(n)" in str(info.value) or "line" in str(info.value)


def test_impossible_size_is_a_memory_error_naming_thread_and_block():
    out = np.zeros(1)
    with pytest.raises(MemoryError, match=r"tid=\[0, 0, 0\] ctaid=\[0, 0, 0\].*overflows"):
        sized[1, 1](out, 2**61)
    with pytest.raises(MemoryError, match="Allocation failed"):
        sized[1, 1](out, 2**40)
    sized[1, 1](out, 0)  # an empty array is fine
    assert out[0] == 0


def test_index_past_an_allocated_array_is_an_index_error():
    @cuda.jit
    def kernel(out):
        x = np.zeros(3)
        out[0] = x[3]

    with pytest.raises(IndexError):
        kernel[1, 1](np.zeros(1))


def test_shapes_must_be_integers():
    @cuda.jit
    def kernel(out):
        x = np.empty(2.5)
        out[0] = x[0]

    with pytest.raises(CompileError, match="shapes must be integers"):
        kernel[1, 1](np.zeros(1))


def test_gpu_backend_allocates_with_device_malloc_and_frees_after_the_launch():
    import shutil
    import subprocess

    @cuda.jit
    def kernel(out, n):
        x = np.zeros(n)
        y = x.copy()
        out[0] = x[0] + y[n - 1]

    ptx, _ = cuda.compile_ptx(kernel.py_func, "void(float64[:], int64)")
    assert "call.uni" in ptx and "malloc," in ptx
    # the kernel the GPU backend launches after each launch, freeing the list's blocks
    assert ".entry kernel__simt_free_arrays()" in ptx and "free," in ptx
    if shutil.which("ptxas"):
        for cc in ("sm_75", "sm_90"):
            subprocess.run(["ptxas", "-arch=" + cc, "-", "-o", "/dev/null"], input=ptx,
                           text=True, check=True)


def test_gpu_device_function_compiled_alone_refuses_allocation():
    def device(n):
        x = np.zeros(n)
        return x[0]

    with pytest.raises(CompileError, match=r"allocating an array .* is not supported by the GPU "
                                           r"target in a device function"):
        cuda.compile_ptx(device, "float64(int64)", device=True)


def test_allocation_counts_are_numba_cudas_nrt_statistics():
    from simt import _simt

    @cuda.jit
    def kernel():
        for _ in range(10):
            np.empty(2)

    allocated, freed = _simt.kernel_allocation_counts()
    kernel[1, 3]()
    now_allocated, now_freed = _simt.kernel_allocation_counts()
    assert now_allocated - allocated == 30 and now_freed - freed == 30


def test_a_blocks_arrays_are_freed_when_the_block_finishes():
    @cuda.jit
    def kernel(out, n):
        x = np.empty(n, np.uint8)  # 256 MiB a block: 64 blocks together pass the 4 GiB limit
        x[n - 1] = 1
        out[cuda.blockIdx.x] = x[n - 1]

    out = np.zeros(64, np.uint8)
    kernel[64, 1](out, 256 << 20)
    assert (out == 1).all()


def test_memory_error_names_the_thread_in_a_kernel_with_barriers():
    @cuda.jit
    def kernel(out, n):
        t = cuda.threadIdx.x
        size = n if t == 5 else 1
        x = np.zeros(size)
        cuda.syncthreads()
        out[t] = x[0]

    with pytest.raises(MemoryError, match=r"tid=\[5, 0, 0\] ctaid=\[[01], 0, 0\]"):
        kernel[2, 8](np.zeros(8), 2**61)


def test_python_float_is_a_float64_dtype_as_in_numba():
    @cuda.jit
    def kernel(out):
        a = np.zeros(2, dtype=float)
        out[0] = a[1] + 0.5

    out = np.zeros(1)
    kernel[1, 1](out)
    assert out[0] == 0.5
