"""Cooperative groups: cuda.cg.this_grid(), GridGroup.sync() across blocks, and the cooperative
launch's limit (max_cooperative_grid_blocks)."""
import numpy as np
import pytest

from simt import cuda, float64
from simt.errors import CompileError


@cuda.jit
def two_phase(a, out):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    a[i] = i * 3
    g.sync()
    # A value written by a thread of another block before the barrier.
    out[i] = a[a.size - 1 - i]


def only_overload(dispatcher):
    (kernel,) = dispatcher.overloads.values()
    return kernel


def test_every_thread_reads_what_another_block_wrote_before_the_grid_sync():
    blocks, threads = 8, 32
    n = blocks * threads
    a, out = np.zeros(n, np.int64), np.zeros(n, np.int64)
    two_phase[blocks, threads](a, out)
    assert (out == (n - 1 - np.arange(n)) * 3).all()
    assert only_overload(two_phase).cooperative


def test_grid_wide_reduction_in_rounds():
    # Each round halves the live range; every round reads values other blocks wrote.
    @cuda.jit
    def reduce_sum(values, total):
        g = cuda.cg.this_grid()
        i = cuda.grid(1)
        n = values.size
        while n > 1:
            half = (n + 1) // 2
            if i < n - half:
                values[i] += values[i + half]
            g.sync()
            n = half
        if i == 0:
            total[0] = values[0]

    values = np.random.default_rng(3).integers(-1000, 1000, 16 * 64).astype(np.int64)
    expected = values.sum()
    total = np.zeros(1, np.int64)
    reduce_sum[16, 64](values, total)
    assert total[0] == expected


def test_grid_sync_with_shared_memory_and_syncthreads_in_a_device_function():
    @cuda.jit(device=True)
    def block_sum(x, shared):
        t = cuda.threadIdx.x
        shared[t] = x
        cuda.syncthreads()
        stride = cuda.blockDim.x // 2
        while stride > 0:
            if t < stride:
                shared[t] += shared[t + stride]
            cuda.syncthreads()
            stride //= 2
        return shared[0]

    @cuda.jit(device=True)
    def grid_barrier(g):
        return g.sync()

    @cuda.jit
    def normalise(values, partials, out):
        shared = cuda.shared.array(128, float64)
        i = cuda.grid(1)
        s = block_sum(values[i], shared)
        if cuda.threadIdx.x == 0:
            partials[cuda.blockIdx.x] = s
        status = grid_barrier(cuda.cg.this_grid())
        total = 0.0
        for b in range(partials.size):
            total += partials[b]
        out[i] = values[i] / total + status

    values = np.random.default_rng(5).uniform(1, 2, 6 * 128)
    partials, out = np.zeros(6), np.zeros_like(values)
    normalise[6, 128](values, partials, out)
    np.testing.assert_allclose(partials, values.reshape(6, 128).sum(axis=1))
    np.testing.assert_allclose(out, values / values.sum())


def test_max_cooperative_grid_blocks_and_the_too_large_launch():
    a, out = np.zeros(64, np.int64), np.zeros(64, np.int64)
    two_phase[2, 32](a, out)
    kernel = only_overload(two_phase)
    sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
    # Compute capability 8.0: 32 blocks, 64 warps and 164 KiB of shared memory per multiprocessor,
    # and at most 8192 resident threads on the simulator.
    assert kernel.max_cooperative_grid_blocks(32) == min(32 * sms, 256)
    assert kernel.max_cooperative_grid_blocks((16, 16)) == min(8 * sms, 32)
    assert kernel.max_cooperative_grid_blocks([32, 32, 1]) == min(2 * sms, 8)
    assert kernel.max_cooperative_grid_blocks(32, 80 * 1024) == min(2 * sms, 256)
    limit = kernel.max_cooperative_grid_blocks(64)
    n = (limit + 1) * 64
    with pytest.raises(ValueError) as error:
        two_phase[limit + 1, 64](np.zeros(n, np.int64), np.zeros(n, np.int64))
    assert str(error.value) == (
        "simt: cooperative launch too large: kernel two_phase uses grid sync, so all of its "
        "blocks must be resident at once, and %d blocks exceed the %d blocks of 64 threads that "
        "can be (see max_cooperative_grid_blocks)" % (limit + 1, limit))
    n = limit * 64
    a, out = np.zeros(n, np.int64), np.zeros(n, np.int64)
    two_phase[limit, 64](a, out)
    assert (out == (n - 1 - np.arange(n)) * 3).all()


def test_kernels_without_grid_sync_are_not_cooperative():
    @cuda.jit
    def k(a):
        cuda.syncthreads()
        a[cuda.grid(1)] = 1

    a = np.zeros(4096 * 32, np.int64)
    k[4096, 32](a)  # far more blocks than a cooperative launch may have
    assert a.all()
    assert not only_overload(k).cooperative


def test_a_fault_while_the_grid_waits_is_raised():
    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        g = cuda.cg.this_grid()
        g.sync()
        if i == 77:
            a[a.size + i] = 1
        g.sync()
        a[i] = 1

    a = np.zeros(4 * 32, np.int64)
    with pytest.raises(IndexError, match=r"tid=\[13, 0, 0\] ctaid=\[2, 0, 0\]: index 205 is out"):
        k[4, 32](a)
    assert not a.any()  # nobody got past the second grid sync


def test_syncthreads_against_grid_sync_is_an_error_naming_both_lines():
    @cuda.jit
    def k(a):
        if cuda.threadIdx.x == 0 and cuda.blockIdx.x == 1:
            cuda.syncthreads()
        else:
            cuda.cg.this_grid().sync()
        a[cuda.grid(1)] = 1

    with pytest.raises(RuntimeError) as error:
        k[2, 8](np.zeros(16, np.int64))
    first = k.py_func.__code__.co_firstlineno  # the decorator's line
    assert ("simt: threads of block (1, 0, 0) wait at different barriers: thread (1, 0, 0) at "
            "grid sync %s:%d and thread (0, 0, 0) at syncthreads %s:%d"
            % (__file__, first + 5, __file__, first + 3)) in str(error.value)


def test_grid_group_typing_errors():
    @cuda.jit
    def rank(a):
        a[0] = cuda.cg.this_grid().thread_rank

    with pytest.raises(CompileError, match="unknown attribute 'thread_rank' of GridGroup"):
        rank[1, 1](np.zeros(1, np.int64))

    @cuda.jit
    def sync_arg(a):
        cuda.cg.this_grid().sync(a[0])

    with pytest.raises(CompileError, match="function GridGroup.sync expects 0 arguments, got 1"):
        sync_arg[1, 1](np.zeros(1, np.int64))


def test_grid_sync_result_is_int32_zero():
    @cuda.jit
    def k(out):
        r = cuda.cg.this_grid().sync()
        out[cuda.grid(1)] = r + 5

    out = np.zeros(8, np.int64)
    k[2, 4](out)
    assert (out == 5).all()
    assert "r: int32" in only_overload(k).ir()


def test_cg_this_grid_is_kernel_only():
    with pytest.raises(NotImplementedError, match="cuda.cg.this_grid is only usable inside a kernel"):
        cuda.cg.this_grid()

