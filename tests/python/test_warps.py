"""Warp intrinsics (cuda.shfl_*_sync, the votes, ballot, match, syncwarp, activemask,
lanemask_lt) against NumPy/Python references, and the faults of bad masks."""
import numpy as np
import pytest

from simt import cuda

FULL = 0xFFFFFFFF


def warps_of(values, block):
    """The values grouped by warp: lanes are linear thread ids of a block in groups of 32."""
    out = []
    for start in range(0, len(values), block):
        chunk = values[start:start + block]
        out += [chunk[w:w + 32] for w in range(0, len(chunk), 32)]
    return out


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_shfl_down_tree_reduction(dtype):
    @cuda.jit
    def warp_sum(a, out):
        i = cuda.grid(1)
        v = a[i]
        for offset in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(0xffffffff, v, offset)
        if cuda.laneid == 0:
            out[i // 32] = v

    a = np.arange(512).astype(dtype) - 100
    out = np.zeros(16, dtype)
    warp_sum[4, 128](a, out)
    np.testing.assert_array_equal(out, a.reshape(16, 32).sum(axis=1))


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64, np.float32,
                                   np.float64])
def test_shuffle_modes_follow_ptx(dtype):
    @cuda.jit
    def k(a, idx, up, down, xor):
        i = cuda.grid(1)
        lane = cuda.laneid
        idx[i] = cuda.shfl_sync(0xffffffff, a[i], (lane * 7 + 35) % 64)
        up[i] = cuda.shfl_up_sync(0xffffffff, a[i], 3)
        down[i] = cuda.shfl_down_sync(0xffffffff, a[i], 5)
        xor[i] = cuda.shfl_xor_sync(0xffffffff, a[i], lane % 4 + 1)

    a = (np.arange(64) * 3 + 1).astype(dtype)
    outs = [np.zeros_like(a) for _ in range(4)]
    k[1, 64](a, *outs)
    idx, up, down, xor = (o.tolist() for o in outs)
    for i in range(64):
        lane, base = i % 32, i // 32 * 32
        assert idx[i] == a[base + ((lane * 7 + 35) % 64) % 32]  # src_lane % 32
        assert up[i] == (a[i - 3] if lane >= 3 else a[i])  # below lane 0: own value
        assert down[i] == (a[i + 5] if lane + 5 < 32 else a[i])  # above lane 31: own value
        assert xor[i] == a[base + (lane ^ (lane % 4 + 1))]


def test_shfl_of_uint64_is_float64_as_in_numba():
    @cuda.jit
    def k(a, out):
        out[cuda.laneid] = cuda.shfl_sync(0xffffffff, a[cuda.laneid], 0)

    a = np.full(32, 2**53 + 1, np.uint64)  # not representable in float64
    out = np.zeros(32, np.uint64)
    k[1, 32](a, out)
    assert out.tolist() == [2**53] * 32


def test_votes_and_ballot_with_full_and_partial_warps():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        p = a[i] > 0
        out[i, 0] = cuda.all_sync(0xffffffff, p)
        out[i, 1] = cuda.any_sync(0xffffffff, p)
        out[i, 2] = cuda.eq_sync(0xffffffff, p)
        out[i, 3] = cuda.ballot_sync(0xffffffff, p)

    rng = np.random.default_rng(3)
    a = rng.integers(-1, 2, 200).astype(np.int32)
    a[:32] = 1  # a warp where every predicate holds
    a[32:64] = 0  # ... and one where none does
    out = np.zeros((200, 4), np.int64)
    k[2, 100](a, out)  # blocks of 100 threads: warps of 32, 32, 32 and 4 lanes
    i = 0
    for warp in warps_of(a.tolist(), 100):
        preds = [v > 0 for v in warp]
        ballot = sum(1 << lane for lane, p in enumerate(preds) if p)
        ballot = ballot - 2**32 if ballot >= 2**31 else ballot  # Numba types it int32
        for _ in warp:
            assert out[i].tolist() == [all(preds), any(preds), all(preds) or not any(preds),
                                       ballot]
            i += 1


def test_ballot_compaction():
    @cuda.jit
    def compact(a, out, count):
        i = cuda.grid(1)
        keep = a[i] % 3 == 0
        ballot = cuda.ballot_sync(0xffffffff, keep)
        before = cuda.popc(ballot & cuda.lanemask_lt())
        base = 0
        if cuda.laneid == 0:
            base = cuda.atomic.add(count, 0, cuda.popc(ballot))
        base = cuda.shfl_sync(0xffffffff, base, 0)
        if keep:
            out[base + before] = a[i]

    a = np.random.default_rng(5).permutation(1024).astype(np.int32)
    out = np.full(1024, -1, np.int32)
    count = np.zeros(1, np.int32)
    compact[8, 128](a, out, count)
    kept = a[a % 3 == 0]
    assert count[0] == kept.size
    assert sorted(out[:kept.size].tolist()) == sorted(kept.tolist())
    # Within a warp, compaction keeps the order.
    for warp in warps_of(a.tolist(), 128):
        chosen = [v for v in warp if v % 3 == 0]
        if chosen:
            start = out.tolist().index(chosen[0])
            assert out[start:start + len(chosen)].tolist() == chosen


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_match_any_groups_equal_values(dtype):
    @cuda.jit
    def k(a, any_mask, all_mask, all_pred):
        i = cuda.grid(1)
        any_mask[i] = cuda.match_any_sync(0xffffffff, a[i])
        m, p = cuda.match_all_sync(0xffffffff, a[i])
        all_mask[i] = m
        all_pred[i] = p

    a = (np.arange(96) % 5).astype(dtype)
    a[64:] = 7  # the last warp is uniform
    any_mask, all_mask = np.zeros(96, np.int64), np.zeros(96, np.int64)
    all_pred = np.zeros(96, np.bool_)
    k[1, 96](a, any_mask, all_mask, all_pred)
    for i in range(96):
        base = i // 32 * 32
        same = sum(1 << l for l in range(32) if a[base + l] == a[i])
        assert any_mask[i] == (same - 2**32 if same >= 2**31 else same)
        uniform = i >= 64
        assert all_mask[i] == (-1 if uniform else 0)
        assert all_pred[i] == uniform


def test_syncwarp_orders_shared_memory_within_a_warp():
    @cuda.jit
    def k(out):
        buf = cuda.shared.array(32, np.int32)
        lane = cuda.laneid
        buf[lane] = lane * lane
        cuda.syncwarp()
        out[lane] = buf[31 - lane]
        cuda.syncwarp(0xffffffff)

    out = np.zeros(32, np.int32)
    k[1, 32](out)
    assert out.tolist() == [(31 - l) ** 2 for l in range(32)]


def test_activemask_and_lanemask_lt():
    @cuda.jit
    def k(active, below):
        i = cuda.grid(1)
        below[i] = cuda.lanemask_lt()
        if i % 3 == 0:
            return
        active[i] = cuda.activemask()

    active, below = np.zeros(40, np.uint32), np.zeros(40, np.uint32)
    k[1, 40](active, below)
    assert below.tolist() == [(1 << (i % 32)) - 1 for i in range(40)]
    for i in range(40):
        base, lanes = (0, 32) if i < 32 else (32, 8)
        expect = sum(1 << l for l in range(lanes) if (base + l) % 3 != 0)
        assert active[i] == (0 if i % 3 == 0 else expect)


def test_lanemask_lt_in_a_kernel_run_as_a_loop_over_threads():
    # No collective: the block runs as a plain loop over its threads (vectorised), whose lane
    # ids are the loop's, not a context's.
    @cuda.jit
    def k(below, lanes):
        i = cuda.grid(1)
        below[i] = cuda.lanemask_lt()
        lanes[i] = cuda.laneid

    below, lanes = np.zeros(72, np.uint32), np.zeros(72, np.uint32)
    k[2, 36](below, lanes)
    expected_lanes = [t % 36 % 32 for t in range(72)]
    assert lanes.tolist() == expected_lanes
    assert below.tolist() == [(1 << lane) - 1 for lane in expected_lanes]


def test_activemask_names_the_lanes_of_a_branch():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if a[i] > 0:
            mask = cuda.activemask()
            out[i] = cuda.shfl_down_sync(mask, a[i], 1)  # sources outside the mask: own value

    a = np.array([1, 2, 0, 3, 4, 0, 0, 5] * 4, np.int32)
    out = np.zeros(32, np.int32)
    k[1, 32](a, out)
    expect = [(a[i + 1] if i + 1 < 32 and a[i + 1] > 0 else a[i]) if a[i] > 0 else 0
              for i in range(32)]
    assert out.tolist() == expect


def test_device_functions_with_warp_operations():
    @cuda.jit(device=True)
    def warp_max(v):
        for offset in (16, 8, 4, 2, 1):
            v = max(v, cuda.shfl_xor_sync(0xffffffff, v, offset))
        return v

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        out[i] = warp_max(a[i])

    a = np.random.default_rng(1).normal(size=64)
    out = np.zeros(64)
    k[2, 32](a, out)
    assert out.tolist() == [a[:32].max()] * 32 + [a[32:].max()] * 32


def test_warp_operations_mix_with_syncthreads():
    @cuda.jit
    def block_sum(a, out):
        partial = cuda.shared.array(4, np.float64)
        i = cuda.grid(1)
        v = a[i]
        for offset in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(0xffffffff, v, offset)
        warp = cuda.threadIdx.x // 32
        if cuda.laneid == 0:
            partial[warp] = v
        cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            out[cuda.blockIdx.x] = partial[0] + partial[1] + partial[2] + partial[3]

    a = np.arange(1024, dtype=np.float64)
    out = np.zeros(8)
    block_sum[8, 128](a, out)
    np.testing.assert_array_equal(out, a.reshape(8, 128).sum(axis=1))


def fault_of(kernel, threads, *args):
    with pytest.raises(RuntimeError) as info:
        kernel[1, threads](*args)
    return str(info.value)


def test_mask_without_the_calling_lane_is_an_error():
    @cuda.jit
    def k(out):
        out[cuda.laneid] = cuda.shfl_sync(0xffff0000, 1, 0)

    message = fault_of(k, 32, np.zeros(32, np.int32))
    assert "simt: lane 0 calls shfl_sync with mask 0xffff0000, which does not name it" in message
    assert "tid=[0, 0, 0]" in message


def test_lane_that_exited_is_an_error_at_the_call_site():
    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        if i >= 20:
            return
        out[i] = cuda.shfl_down_sync(0xffffffff, i, 1)

    message = fault_of(k, 32, np.zeros(32, np.int32))
    assert "simt: lane 20 named in the mask of shfl_down_sync has exited" in message
    assert "out[i] = cuda.shfl_down_sync(0xffffffff, i, 1)" in message


def test_lanes_at_different_warp_operations_is_an_error():
    @cuda.jit
    def k(out):
        lane = cuda.laneid
        if lane < 16:
            out[lane] = cuda.ballot_sync(0xffffffff, True)
        else:
            out[lane] = cuda.any_sync(0xffffffff, True)

    message = fault_of(k, 32, np.zeros(32, np.int32))
    assert "wait at different warp operations: lane 0 (thread (0, 0, 0)) at ballot_sync" in message
    assert "lane 16 (thread (16, 0, 0)) at any_sync" in message


def test_warp_operation_waiting_for_a_lane_at_syncthreads_is_a_deadlock():
    @cuda.jit
    def k(out):
        lane = cuda.laneid
        if lane == 3:
            cuda.syncthreads()
        else:
            cuda.syncwarp()
        out[lane] = 1

    message = fault_of(k, 32, np.zeros(32, np.int32))
    assert "simt: deadlock in block (0, 0, 0): lane 0 (thread (0, 0, 0)) waits at syncwarp" in message
    assert "for lane 3 (thread (3, 0, 0)), which waits at syncthreads at" in message


def test_partial_last_warp_with_full_mask_takes_only_existing_lanes():
    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        out[i] = cuda.ballot_sync(0xffffffff, True)

    out = np.zeros(40, np.int64)
    k[1, 40](out)
    assert out.tolist() == [-1] * 32 + [0xFF] * 8
