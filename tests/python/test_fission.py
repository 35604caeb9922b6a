"""Loop fission at barriers (analysis/fission.h): kernels whose barriers sit in block-uniform
control flow run region by region over their block's threads; each kernel here runs both ways,
by fission and as fibers (SIMT_FISSION=0), and must give NumPy's results either way."""
import numpy as np
import pytest

from simt import cuda

from numba import float32, float64, int32, int64


def run_both(monkeypatch, kernel, griddim, blockdim, make_args):
    """Runs `kernel` by fission and as fibers, each on fresh arguments from `make_args()`;
    returns the two argument tuples after the launches."""
    results = []
    for fission in ("1", "0"):
        monkeypatch.setenv("SIMT_FISSION", fission)
        args = make_args()
        kernel[griddim, blockdim](*args)
        results.append(args)
    return results


def strategy_of(kernel):
    """How the simulator ran the kernel's compiled variants."""
    return {k.block_strategy for k in kernel._variants.values()}


def assert_same(results, expected=None):
    fission, fibers = results
    for a, b in zip(fission, fibers):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
    if expected is not None:
        expected(fission)


@cuda.jit
def tree_sum(values, partials):
    sh = cuda.shared.array(128, float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[tid] = values[i] if i < values.size else 0
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        partials[cuda.blockIdx.x] = sh[0]


def test_tree_reduction(monkeypatch):
    values = np.arange(1000, dtype=np.float32) % 7
    results = run_both(monkeypatch, tree_sum, 8, 128,
                       lambda: (values.copy(), np.zeros(8, np.float32)))
    padded = np.zeros(1024, np.float32)
    padded[:1000] = values
    assert_same(results, lambda r: np.testing.assert_array_equal(
        r[1], padded.reshape(8, 128).sum(1)))
    assert strategy_of(tree_sum) == {"fission", "fibers"}


TILE = 8


@cuda.jit
def tiled_matmul(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float64)
    sB = cuda.shared.array((TILE, TILE), float64)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    if x >= C.shape[0] and y >= C.shape[1]:
        return  # threads that returned count as arrived at later barriers
    acc = 0.0
    for t in range(cuda.gridDim.x):
        sA[tx, ty] = A[x, ty + t * TILE] if x < A.shape[0] and ty + t * TILE < A.shape[1] else 0
        sB[tx, ty] = B[tx + t * TILE, y] if y < B.shape[1] and tx + t * TILE < B.shape[0] else 0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[tx, j] * sB[j, ty]
        cuda.syncthreads()
    if x < C.shape[0] and y < C.shape[1]:
        C[x, y] = acc


def test_tiled_matmul_with_early_return(monkeypatch):
    rng = np.random.default_rng(1)
    A = rng.random((24, 24))
    B = rng.random((24, 24))
    results = run_both(monkeypatch, tiled_matmul, (3, 3), (TILE, TILE),
                       lambda: (A, B, np.zeros((24, 24))))
    assert_same(results, lambda r: np.testing.assert_allclose(r[2], A @ B, rtol=1e-12))
    assert "fission" in strategy_of(tiled_matmul)


@cuda.jit
def barrier_votes(flags, out):
    tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y *
                                                cuda.threadIdx.z)
    f = flags[cuda.blockIdx.x, tid]
    count = cuda.syncthreads_count(f)
    everyone = cuda.syncthreads_and(f)
    out[cuda.blockIdx.x, tid, 0] = count
    out[cuda.blockIdx.x, tid, 1] = everyone
    out[cuda.blockIdx.x, tid, 2] = cuda.syncthreads_or(f) + 10 * tid
    if cuda.syncthreads_or(f):
        out[cuda.blockIdx.x, tid, 3] = 1
    rounds = 0
    left = f
    while cuda.syncthreads_count(left) > 0:
        left = 0 if left == 0 else left - 1
        rounds += 1
    out[cuda.blockIdx.x, tid, 4] = rounds


def test_syncthreads_reductions_and_3d_blocks(monkeypatch):
    flags = np.zeros((3, 24), np.int32)
    flags[0] = 1
    flags[1, ::5] = np.arange(5) + 1
    results = run_both(monkeypatch, barrier_votes, 3, (2, 3, 4),
                       lambda: (flags, np.zeros((3, 24, 5), np.int64)))

    def check(r):
        out = r[1]
        np.testing.assert_array_equal(out[:, :, 0], np.repeat((flags != 0).sum(1), 24).reshape(3, 24))
        np.testing.assert_array_equal(out[:, 0, 1], [1, 0, 0])
        np.testing.assert_array_equal(out[:, :, 2] - 10 * np.arange(24), np.repeat(
            [1, 1, 0], 24).reshape(3, 24))
        np.testing.assert_array_equal(out[:, 0, 3], [1, 1, 0])
        np.testing.assert_array_equal(out[:, 0, 4], flags.max(1))
    assert_same(results, check)
    assert strategy_of(barrier_votes) == {"fission", "fibers"}


@cuda.jit
def scan_with_locals(data, out, n):
    # Hillis-Steele inclusive scan: a thread's partial value lives across barriers, as does its
    # local array and a parameter it reassigns.
    sh = cuda.shared.array(64, int64)
    tid = cuda.threadIdx.x
    mine = cuda.local.array(2, int64)
    mine[0] = data[tid]
    mine[1] = tid
    n = n + tid  # a parameter that becomes a thread's own
    sh[tid] = mine[0]
    cuda.syncthreads()
    offset = 1
    while offset < cuda.blockDim.x:
        add = sh[tid - offset] if tid >= offset else 0
        cuda.syncthreads()
        sh[tid] += add
        cuda.syncthreads()
        offset *= 2
    out[tid, 0] = sh[tid]
    out[tid, 1] = mine[1] + n


def test_scan_keeps_thread_locals_across_barriers(monkeypatch):
    data = np.arange(64, dtype=np.int64) * 3 + 1
    results = run_both(monkeypatch, scan_with_locals, 1, 64,
                       lambda: (data, np.zeros((64, 2), np.int64), 100))

    def check(r):
        np.testing.assert_array_equal(r[1][:, 0], np.cumsum(data))
        np.testing.assert_array_equal(r[1][:, 1], 100 + 2 * np.arange(64))
    assert_same(results, check)
    assert "fission" in strategy_of(scan_with_locals)


@cuda.jit(device=True)
def lane_value(scale):
    return cuda.threadIdx.x * scale


@cuda.jit
def uniform_control(out, limit):
    sh = cuda.shared.array(32, int32)
    tid = cuda.threadIdx.x
    if cuda.blockIdx.x == 1:
        return  # the whole block returns
    total = 0
    for step in range(limit):
        if step == 3:
            continue
        if step > 5:
            break
        sh[tid] = lane_value(step)
        cuda.syncthreads()
        total += sh[(tid + 1) % 32]
        cuda.syncthreads()
    else:
        total = -1
    k = 0
    while True:
        k += 1
        if k == 2:
            break
        cuda.syncthreads()
    else:
        total = -2
    out[cuda.blockIdx.x, tid] = total * 10 + k


def test_uniform_loops_with_break_continue_else_and_device_calls(monkeypatch):
    results = run_both(monkeypatch, uniform_control, 2, 32,
                       lambda: (np.zeros((2, 32), np.int64), 9))
    expected = sum(((np.arange(32) + 1) % 32) * s for s in (0, 1, 2, 4, 5)) * 10 + 2

    def check(r):
        np.testing.assert_array_equal(r[0][0], expected)
        np.testing.assert_array_equal(r[0][1], 0)
    assert_same(results, check)
    assert "fission" in strategy_of(uniform_control)


@cuda.jit
def all_return_then_loop(out):
    tid = cuda.threadIdx.x
    out[tid] = 1
    if tid >= 0:
        return
    while True:  # never reached by a live thread: the block ends, the loop does not spin
        cuda.syncthreads()


def test_block_ends_when_every_thread_returned(monkeypatch):
    results = run_both(monkeypatch, all_return_then_loop, 1, 16,
                       lambda: (np.zeros(16, np.int32),))
    assert_same(results, lambda r: np.testing.assert_array_equal(r[0], 1))


@cuda.jit
def divergent_barrier(out):
    tid = cuda.threadIdx.x
    if tid < 4:
        cuda.syncthreads()
    else:
        cuda.syncthreads()
    out[tid] = tid


def test_barrier_under_thread_dependent_branch_keeps_fibers():
    out = np.zeros(8, np.int32)
    with pytest.raises(Exception, match="barrier|syncthreads"):
        divergent_barrier[1, 8](out)
    kernel = next(iter(divergent_barrier._variants.values()))
    assert kernel.block_strategy == "fibers"
    assert "thread-dependent branch" in kernel.fission_obstacle
    assert "line" in kernel.fission_obstacle


@cuda.jit
def faulting_region(values, out):
    sh = cuda.shared.array(16, float32)
    tid = cuda.threadIdx.x
    sh[tid] = tid
    cuda.syncthreads()
    out[tid] = values[tid * 2] + sh[15 - tid]


def test_fault_in_a_region_names_the_thread(monkeypatch):
    messages = []
    for fission in ("1", "0"):
        monkeypatch.setenv("SIMT_FISSION", fission)
        out = np.zeros(16, np.float32)
        with pytest.raises(IndexError) as info:
            faulting_region[2, 16](np.zeros(20, np.float32), out)
        messages.append(str(info.value))
        # no write after the fault: thread 10 faulted, threads after it never stored
        assert not out[10:].any()
    assert messages[0] == messages[1]
    assert "tid=[10, 0, 0]" in messages[0] and "ctaid=[0, 0, 0]" in messages[0]


@cuda.jit
def warp_kernel(out):
    tid = cuda.threadIdx.x
    v = cuda.shfl_down_sync(0xFFFFFFFF, tid, 1)
    cuda.syncthreads()
    out[tid] = v


def test_warp_collectives_keep_fibers():
    out = np.zeros(32, np.int32)
    warp_kernel[1, 32](out)
    kernel = next(iter(warp_kernel._variants.values()))
    assert kernel.block_strategy == "fibers"
    assert kernel.fission_obstacle == "a warp collective"


@cuda.jit
def flat_kernel(out):
    out[cuda.grid(1)] = 1


def test_kernels_without_barriers_stay_flat():
    out = np.zeros(8, np.int32)
    flat_kernel[1, 8](out)
    assert next(iter(flat_kernel._variants.values())).block_strategy == "flat"
    assert out.all()


@cuda.jit
def guarded_regions(out, n, lo, hi):
    # Each if is a whole region whose first condition bounds threadIdx.x (alone or as
    # cuda.grid(1)): the region loops over that range only, and must still honour the rest.
    i = cuda.grid(1)
    tid = cuda.threadIdx.x
    if i < n:
        out[i, 0] = 1
    if n > i and i % 3 == 0:
        out[i, 1] = 1
    if tid <= lo:
        out[i, 2] = 1
    if tid > hi:
        out[i, 3] = 1
    if hi <= tid:
        out[i, 4] = 1
    if tid == lo:
        out[i, 5] = 1
    if i >= n:
        return
    out[i, 6] = 1


@pytest.mark.parametrize("n, lo, hi", [(50, 3, 20), (0, -5, 100), (1000, 63, 0), (37, 64, -1)])
def test_thread_loops_bounded_by_guards(monkeypatch, n, lo, hi):
    threads = 3 * 64
    results = run_both(monkeypatch, guarded_regions, 3, 64,
                       lambda: (np.zeros((threads, 7), np.int8), n, lo, hi))
    i = np.arange(threads)
    tid = i % 64
    expected = np.stack([i < n, (i < n) & (i % 3 == 0), tid <= lo, tid > hi, tid >= hi,
                         tid == lo, i < n], axis=1).astype(np.int8)
    assert_same(results, lambda r: np.testing.assert_array_equal(r[0], expected))
    assert strategy_of(guarded_regions) == {"flat"}
