"""Issue 5, the simulator runtime: warps with grid sync, fiber stacks on machines with many
cores, large local arrays, array shapes that overflow, and fork() during a launch. Probes that
used to kill the process run in a subprocess; each asserts on the exit status and the message."""
import importlib.util
import os
import tempfile
import textwrap

import numpy as np
import pytest

from simt import cuda, float64, int64
from simt.errors import CompileError

from conftest import on_small_thread_stack

FULL = 0xFFFFFFFF


def run_probe(python, source, env=None):
    return python(["-c", textwrap.dedent(source)], env=env)


# --- warps and grid sync -------------------------------------------------------------------------


def test_shuffle_then_grid_sync_as_the_issue_shows():
    @cuda.jit
    def shift_then_swap(a, out):
        g = cuda.cg.this_grid()
        i = cuda.grid(1)
        s = cuda.shfl_down_sync(FULL, a[i], 1)
        g.sync()
        out[i] = s + a[(i + 32) % a.size]

    blocks, threads = 4, 64
    n = blocks * threads
    a = np.arange(n, dtype=np.int64) * 7
    out = np.zeros(n, np.int64)
    shift_then_swap[blocks, threads](a, out)
    i = np.arange(n)
    shifted = np.where(i % 32 < 31, a[np.minimum(i + 1, n - 1)], a)
    np.testing.assert_array_equal(out, shifted + a[(i + 32) % n])


def test_shuffles_votes_syncthreads_and_grid_syncs_mixed_over_several_blocks():
    @cuda.jit
    def rounds(values, out, ballots):
        g = cuda.cg.this_grid()
        shared = cuda.shared.array(128, int64)
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        v = values[i]
        for r in range(3):
            # A warp sum, then a block sum of the warp sums, then a grid-wide exchange.
            w = v
            for offset in (16, 8, 4, 2, 1):
                w += cuda.shfl_down_sync(FULL, w, offset)
            ballot = cuda.ballot_sync(FULL, v % 2 == 1)
            if cuda.laneid == 0:
                shared[t // 32] = w
                ballots[r, i // 32] = ballot & 0xFFFFFFFF
            cuda.syncthreads()
            block_total = 0
            for k in range(cuda.blockDim.x // 32):
                block_total += shared[k]
            cuda.syncthreads()
            values[i] = block_total + t
            g.sync()
            v = values[(i + cuda.blockDim.x) % values.size] + cuda.any_sync(FULL, t == 5)
            g.sync()
        out[i] = v

    blocks, threads = 6, 128
    n = blocks * threads
    rng = np.random.default_rng(5)
    values = rng.integers(0, 1000, n).astype(np.int64)
    expected_values = values.copy()
    out = np.zeros(n, np.int64)
    ballots = np.zeros((3, n // 32), np.int64)
    rounds[blocks, threads](values, out, ballots)

    v = expected_values.copy()
    t = np.arange(n) % threads
    expected_ballots = np.zeros((3, n // 32), np.int64)
    for r in range(3):
        bits = (v % 2 == 1).reshape(-1, 32)
        expected_ballots[r] = (bits * (1 << np.arange(32))).sum(axis=1)
        block_total = np.repeat(v.reshape(blocks, threads).sum(axis=1), threads)
        written = block_total + t
        warp_has_lane5 = np.repeat(((np.arange(n) % threads == 5).reshape(-1, 32)).any(axis=1), 32)
        v = written[(np.arange(n) + threads) % n] + warp_has_lane5
    np.testing.assert_array_equal(out, v)
    np.testing.assert_array_equal(ballots, expected_ballots)


def test_a_lane_at_the_grid_sync_while_its_warp_shuffles_is_a_deadlock_fault():
    @cuda.jit
    def split(out):
        g = cuda.cg.this_grid()
        i = cuda.grid(1)
        if cuda.laneid == 3:
            g.sync()
        else:
            out[i] = cuda.shfl_down_sync(FULL, i, 1)
            g.sync()

    with pytest.raises(RuntimeError, match=r"lane 3 \(thread \(3, 0, 0\)\), which waits at grid "
                                           r"sync"):
        split[2, 32](np.zeros(64, np.int64))


# --- fiber stacks with many workers --------------------------------------------------------------

MANY_WORKERS = """
import numpy as np
from simt import cuda, int64

@cuda.jit
def block_reverse(a, out):
    s = cuda.shared.array(1024, int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i]
    cuda.syncthreads()
    out[i] = s[cuda.blockDim.x - 1 - t]

a = np.arange(32 * 1024, dtype=np.int64)
out = np.zeros_like(a)
expected = a.reshape(32, 1024)[:, ::-1].ravel()
for launch in range(6):
    out[:] = 0
    block_reverse[32, 1024](a, out)
    assert (out == expected).all(), launch

@cuda.jit
def compiled_afterwards(a):
    a[cuda.grid(1)] *= 2

compiled_afterwards[32, 1024](a)
assert (a == np.arange(32 * 1024) * 2).all()
with open("/proc/self/maps") as maps:
    print("mappings", sum(1 for _ in maps))
"""


def test_a_1024_thread_syncthreads_kernel_launches_again_and_again_with_128_workers(python):
    result = run_probe(python, MANY_WORKERS, env={"SIMT_THREADS": "128"})
    assert result.returncode == 0, result.stderr
    mappings = int(result.stdout.split()[-1])
    # The stacks of 16 workers' blocks at once: far from vm.max_map_count (65530).
    assert mappings < 40000


def test_fiber_stacks_are_sized_for_the_deepest_chain_of_local_arrays():
    @cuda.jit(device=True)
    def leaf(x, k):
        scratch = cuda.local.array(65536, float64)  # 512 KiB
        scratch[k] = x
        scratch[65535 - k] = 2 * x
        return scratch[k] + scratch[65535 - k]

    @cuda.jit(device=True)
    def middle(x):
        local = cuda.local.array(65536, float64)
        local[65535] = leaf(x, 1) + leaf(x, 2)
        return local[65535]

    @cuda.jit
    def deep(out):
        local = cuda.local.array(65536, float64)
        i = cuda.grid(1)
        local[0] = middle(float64(i))
        cuda.syncthreads()
        out[i] = local[0]

    out = np.zeros(1024, np.float64)
    deep[1, 1024](out)  # 1.5 MiB of local arrays on each of 1024 fiber stacks
    np.testing.assert_array_equal(out, 6.0 * np.arange(1024))


def test_a_block_whose_fiber_stacks_exceed_the_budget_is_refused_at_launch():
    lines = "\n".join(f"    a{k} = cuda.local.array(65536, float64)\n    a{k}[i] = {k}.0\n"
                       f"    total += a{k}[i]" for k in range(16))
    source = ("from simt import cuda, float64\n"
              "def eight_mib(out):\n    i = cuda.grid(1) % 1024\n    total = 0.0\n" + lines +
              "\n    cuda.syncthreads()\n    out[cuda.grid(1)] = total\n")
    with tempfile.TemporaryDirectory() as folder:
        # simt reads a kernel's source from its file: 16 arrays of 512 KiB, written out.
        path = os.path.join(folder, "eight_mib_kernel.py")
        with open(path, "w") as f:
            f.write(source)
        spec = importlib.util.spec_from_file_location("eight_mib_kernel", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        kernel = cuda.jit(module.eight_mib)
        out = np.zeros(1024)
        with pytest.raises(ValueError, match=r"needs 1024 fiber stacks of 8448 KiB at once \(8448 "
                                             r"MiB\), more than the \d+ stacks and 8192 MiB simt "
                                             r"allows"):
            kernel[1, 1024](out)
        out = np.zeros(64)
        kernel[2, 32](out)  # 32 threads per block fit
        np.testing.assert_array_equal(out, sum(range(16)))


# --- large local arrays --------------------------------------------------------------------------


def test_a_local_array_over_512_kib_is_a_compile_error_naming_it():
    @cuda.jit
    def huge(out):
        scratch = cuda.local.array(1048576, float64)  # 8 MiB per thread
        scratch[0] = 1.0
        out[0] = scratch[0]

    with pytest.raises(CompileError) as error:
        huge[1, 1](np.zeros(1))
    message = str(error.value)
    assert ("cuda.local.array(1048576, float64) takes 8388608 bytes per thread, more than the "
            "524288 bytes (512 KiB) of local memory a thread may have") in message
    assert "test_hardening_runtime.py" in message and "^" in message


def fill_and_sum(n):
    @cuda.jit
    def kernel(out):
        scratch = cuda.local.array(n, float64)
        i = cuda.grid(1)
        for k in range(n):
            scratch[k] = k + i
        total = 0.0
        for k in range(0, n, 997):
            total += scratch[k]
        out[i] = total

    return kernel


def expected_fill_and_sum(n, threads):
    ks = np.arange(0, n, 997)
    return np.array([(ks + i).sum() for i in range(threads)], np.float64)


def test_a_512_kib_local_array_in_a_flat_kernel_runs_on_a_small_thread_stack():
    n = 65536  # 512 KiB of float64 per thread
    kernel = fill_and_sum(n)
    out = np.zeros(64)
    on_small_thread_stack(lambda: kernel[2, 32](out))  # smaller than the array: not used
    np.testing.assert_array_equal(out, expected_fill_and_sum(n, 64))


def test_local_arrays_of_300_kib_per_thread_with_a_barrier_run_on_fiber_stacks():
    @cuda.jit(device=True)
    def fill(scratch, i):
        for k in range(scratch.size):
            scratch[k] = k * 2 + i

    @cuda.jit
    def with_barrier(out):
        scratch = cuda.local.array(38400, float64)  # 300 KiB
        i = cuda.grid(1)
        fill(scratch, i)
        cuda.syncthreads()
        out[i] = scratch[38399] + scratch[1]

    out = np.zeros(256)
    with_barrier[4, 64](out)
    i = np.arange(256)
    np.testing.assert_array_equal(out, (38399 * 2 + i) + (2 + i))


# --- array shapes that overflow ------------------------------------------------------------------


@pytest.mark.parametrize("kind, shape, what", [
    ("local", "(4294967296, 4294967296)", "has more elements than an int64 can count"),
    ("local", "(2147483648, 2147483648, 4)", "has more elements than an int64 can count"),
    ("local", "4611686018427387904", "takes more bytes than an int64 can count"),
    ("shared", "(1099511627776, 1073741824)", "has more elements than an int64 can count"),
    ("shared", "(1073741824, 1073741824)", "takes more bytes than an int64 can count"),
])
def test_array_shapes_whose_size_overflows_int64_are_compile_errors(python, kind, shape, what):
    result = run_probe(python, f"""
        import numpy as np
        from simt import cuda, float64
        from simt.errors import CompileError

        @cuda.jit
        def k(out):
            a = cuda.{kind}.array({shape}, float64)
            a[0] = 1.0
            out[0] = a[0]

        try:
            k[1, 1](np.zeros(1))
        except CompileError as e:
            print(e)
        """)
    assert result.returncode == 0, result.stderr
    assert what in result.stdout
    assert f"cuda.{kind}.array(" in result.stdout


def test_shared_memory_beyond_the_launch_limit_stays_a_launch_error():
    @cuda.jit
    def big_shared(out):
        s = cuda.shared.array(1048576, float64)  # 8 MiB
        s[0] = 1.0
        out[0] = s[0]

    with pytest.raises(ValueError, match="bytes of shared memory per block exceeds the limit"):
        big_shared[1, 1](np.zeros(1))


def test_shared_arrays_whose_total_passes_int64_are_a_launch_error():
    @cuda.jit
    def huge_total(out):
        a = cuda.shared.array(1 << 59, int64)  # 2**62 bytes each: their sum passes int64
        b = cuda.shared.array(1 << 59, int64)
        a[0] = 1
        b[0] = 2
        out[0] = a[0] + b[0]

    with pytest.raises(ValueError, match="bytes of shared memory per block exceeds the limit"):
        huge_total[1, 1](np.zeros(1, dtype=np.int64))


# --- fork() ---------------------------------------------------------------------------------------

FORK_WHILE_LAUNCHING = """
import os, threading, time
import numpy as np
from simt import cuda, int64

@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1

@cuda.jit
def block_sums(a, out):
    s = cuda.shared.array(64, int64)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    if t == 0:
        total = 0
        for j in range(64):
            total += s[j]
        out[cuda.blockIdx.x] = total

x = np.arange(16 * 64, dtype=np.int64)
expected = x.reshape(16, 64).sum(axis=1)
add_one[64, 64](np.zeros(4096, np.int64))
block_sums[16, 64](x, np.zeros(16, np.int64))

stop = False
def launch_again_and_again():
    a, sums = np.zeros(4096, np.int64), np.zeros(16, np.int64)
    while not stop:
        add_one[64, 64](a)
        block_sums[16, 64](x, sums)

other = threading.Thread(target=launch_again_and_again)
other.start()
failed = []
for child in range(50):
    pid = os.fork()
    if pid == 0:
        a, sums = np.zeros(4096, np.int64), np.zeros(16, np.int64)
        add_one[64, 64](a)
        block_sums[16, 64](x, sums)
        os._exit(0 if (a == 1).all() and (sums == expected).all() else 3)
    deadline = time.monotonic() + 20
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            status = "hung"
            break
        time.sleep(0.002)
    if status != 0:
        failed.append((child, status))
stop = True
other.join()
print("failed", failed)
"""


def test_children_forked_while_another_thread_launches_launch_and_exit(python):
    result = run_probe(python, FORK_WHILE_LAUNCHING, env={"SIMT_THREADS": "8"})
    assert result.returncode == 0, result.stderr
    assert "failed []" in result.stdout
