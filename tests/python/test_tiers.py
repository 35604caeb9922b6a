"""Tiered compilation (sim/host_backend.h): a release kernel's first launch runs Quick-tier code, a
kernel whose launches ran SIMT_TIER_UP_MS in all is recompiled at its full level in the
background, both tiers give the same results, the on-disk cache keeps the best tier it has, and a
process exits (or forks) cleanly while a recompile runs."""
import math
import re
import threading

import numpy as np
import pytest

from simt import _simt, cuda


def both_tiers(monkeypatch, py_func):
    """Dispatchers of `py_func`, the first compiled (at its first launch, before the next is
    made) at the Quick tier, the second at the full level: in that order, as a process answers a
    Quick request with Full code once it has some."""
    for tier in ("quick", "full"):
        monkeypatch.setenv("SIMT_OPT_TIER", tier)
        yield cuda.jit(py_func)


def arithmetic(out_f, out_i, x, n):
    i = cuda.grid(1)
    if i < out_f.size:
        v = x[i]
        acc = 0.0
        for k in range(1 + i % 7):
            acc += math.sqrt(abs(v) + k) / (v + 0.5) + math.exp(-v * k) * math.sin(v)
        out_f[i] = acc * 1e-3 + abs(v) ** 1.5
        j = i - n // 2
        out_i[i] = (j // 3) * 1000 + (j % -7) + (j << 2) ^ (j >> 1)


def block_reduce(x, out):
    s = cuda.shared.array(64, np.float32)
    t = cuda.threadIdx.x
    s[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    k = 32
    while k > 0:
        if t < k:
            s[t] += s[t + k]
        cuda.syncthreads()
        k //= 2
    if t == 0:
        cuda.atomic.add(out, 0, s[0])
        out[cuda.blockIdx.x + 1] = s[0]


def out_of_bounds(x):
    i = cuda.grid(1)
    x[i * 2] = i


def test_quick_and_full_code_give_the_same_results(monkeypatch):
    n = 1000
    x = np.random.RandomState(3).uniform(-3, 3, n)
    results = []
    for kernel in both_tiers(monkeypatch, arithmetic):
        out_f, out_i = np.zeros(n), np.zeros(n, np.int64)
        kernel[8, 128](out_f, out_i, x, n)
        results.append((kernel, out_f, out_i))
    (quick, qf, qi), (full, ff, fi) = results
    assert [next(iter(k.overloads.values())).tier for k in (quick, full)] == ["quick", "full"]
    assert qf.tobytes() == ff.tobytes() and (qi == fi).all()


def test_a_barrier_kernel_gives_the_same_results_at_both_tiers(monkeypatch):
    x = np.random.RandomState(4).rand(64 * 16).astype(np.float32)
    outs = []
    for kernel in both_tiers(monkeypatch, block_reduce):
        out = np.zeros(17, np.float32)
        kernel[16, 64](x, out)
        outs.append(out[1:])  # the atomic sum's order varies between launches
    assert outs[0].tobytes() == outs[1].tobytes()


def test_a_fault_reads_the_same_at_both_tiers(monkeypatch):
    messages = []
    for kernel in both_tiers(monkeypatch, out_of_bounds):
        with pytest.raises(IndexError) as raised:
            kernel[1, 32](np.zeros(40))
        messages.append(str(raised.value))
    assert messages[0] == messages[1]
    assert "index 40 is out of bounds" in messages[0]


def test_fastmath_opt_false_and_debug_kernels_are_compiled_at_their_own_level(monkeypatch):
    monkeypatch.setenv("SIMT_OPT_TIER", "auto")

    def scale(x):
        x[cuda.grid(1)] *= 2.0

    for options in (dict(fastmath=True), dict(opt=False)):
        kernel = cuda.jit(**options)(scale)
        assert kernel.compile("void(float64[::1])").tier == "full", options
    kernel = cuda.jit(scale)
    assert kernel.compile("void(float64[::1])").tier == "quick"


def test_an_unknown_SIMT_OPT_TIER_is_refused(monkeypatch):
    monkeypatch.setenv("SIMT_OPT_TIER", "fastest")

    def noop(x):
        x[0] = 1

    with pytest.raises(ValueError, match="SIMT_OPT_TIER must be auto, quick or full"):
        cuda.jit(noop).compile("void(int64[::1])")


def test_launches_from_many_threads_run_through_the_recompile(monkeypatch):
    monkeypatch.setenv("SIMT_OPT_TIER", "auto")
    monkeypatch.setenv("SIMT_TIER_UP_MS", "0")  # recompiled after the first launch

    def affine(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = x[i] * 3.0 - 1.0

    kernel = cuda.jit(affine)
    compiled = kernel.compile("void(float64[::1], float64[::1])")
    assert compiled.tier == "quick"
    x = np.arange(4096.0)
    failures = []

    def launch():
        for _ in range(30):
            r = np.zeros_like(x)
            kernel[16, 256](r, x)
            if not (r == x * 3.0 - 1.0).all():
                failures.append(r)

    threads = [threading.Thread(target=launch) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    _simt.finish_tier_ups()
    assert not failures
    assert compiled.tier == "full"


def test_a_launch_of_a_million_threads_queues_its_recompile_without_waiting(monkeypatch):
    """It runs the Quick code (switching to the full code between blocks if that is ready in
    time); the recompile it queued gives the next launches the full code."""
    monkeypatch.setenv("SIMT_OPT_TIER", "auto")
    monkeypatch.setenv("SIMT_TIER_UP_MS", "1e9")  # never for the run time

    def negate(r):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = -r[i] + 0.25

    kernel = cuda.jit(negate)
    compiled = kernel.compile("void(float32[::1])")
    small = np.ones(1024, np.float32)
    kernel[4, 256](small)
    assert compiled.tier == "quick"
    big = np.ones(1 << 20, np.float32)
    kernel[(1 << 20) // 256, 256](big)
    assert (big == -0.75).all() and (small == -0.75).all()
    _simt.finish_tier_ups()
    assert compiled.tier == "full"


# One kernel, run in a fresh process per step: its tier before and after a launch, and the
# on-disk cache's events.
SCRIPT = """
import sys
import numpy as np
from simt import _simt, cuda

@cuda.jit
def tiered(r, x):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = x[i] * 2.0 + 1.0

compiled = tiered.compile("void(float64[::1], float64[::1])")
before = compiled.tier
x = np.arange(100.0)
r = np.zeros_like(x)
tiered[4, 32](r, x)
assert (r == x * 2.0 + 1.0).all()
_simt.finish_tier_ups()
print(before, compiled.tier)
"""


def cache_events(stderr):
    return {kind: re.findall(r"compile cache: %s ([0-9a-f]{32})" % kind, stderr)
            for kind in ("hit", "miss", "stored")}


def test_the_cache_keeps_the_best_tier(python, tmp_path):
    script = tmp_path / "tiered.py"
    script.write_text(SCRIPT)
    env = {"SIMT_CACHE_DIR": str(tmp_path / "cache"), "SIMT_CACHE_DEBUG": "1",
           "SIMT_OPT_TIER": "auto", "SIMT_TIER_UP_MS": "1e9"}

    def run(**extra):
        proc = python([str(script)], env={**env, **extra})
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.split(), cache_events(proc.stderr)

    tiers, events = run()  # a short run: Quick code, stored
    assert tiers == ["quick", "quick"]
    assert len(events["miss"]) == 1 and events["stored"] == events["miss"]
    tiers, events = run()  # the Quick code from the cache
    assert tiers == ["quick", "quick"]
    assert len(events["hit"]) == 1 and not events["stored"]
    key = events["hit"][0]
    tiers, events = run(SIMT_TIER_UP_MS="0")  # recompiled: the Full code replaces it
    assert tiers == ["quick", "full"] and events["stored"] == [key]
    tiers, events = run()  # the Full code from the cache, at once
    assert tiers == ["full", "full"] and events["hit"] == [key] and not events["stored"]


def test_SIMT_OPT_TIER_quick_never_recompiles(python, tmp_path):
    script = tmp_path / "tiered.py"
    script.write_text(SCRIPT)
    proc = python([str(script)], env={"SIMT_OPT_TIER": "quick", "SIMT_TIER_UP_MS": "0",
                                      "SIMT_CACHE": "0"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["quick", "quick"]
    proc = python([str(script)], env={"SIMT_OPT_TIER": "full", "SIMT_CACHE": "0"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["full", "full"]


# Kernels whose O3 compiles take a while (a flat one, then one with barriers), launched once so
# their recompiles start; then the process exits (or forks) while they run.
LONG_COMPILE = """
import os
import sys
import numpy as np
from simt import cuda

body = "".join("        out[i] += x[(i + %d) %% n] * %d.5\\n" % (k, k) for k in range(400))
source = "def big(out, x, n):\\n    i = cuda.grid(1)\\n    if i < n:\\n" + body
namespace = {"cuda": cuda}
exec(compile(source, "<big>", "exec"), namespace)
big = cuda.jit(namespace["big"])
x = np.arange(64.0)
out = np.zeros_like(x)
big[2, 32](out, x, 64)
expected = sum(np.roll(x, -k) * (k + 0.5) for k in range(400))
assert np.allclose(out, expected)

@cuda.jit
def spin(out, n):
    s = cuda.shared.array(64, np.float64)
    t = cuda.threadIdx.x
    k = 0
    while k < n:
        s[t] = k + t
        cuda.syncthreads()
        out[t] += s[(t + 1) % 64]
        cuda.syncthreads()
        k += 1

spun = np.zeros(64)
spin[1, 64](spun, 3)
assert spun[0] == 1 + 2 + 3
if sys.argv[1] == "fork":
    pid = os.fork()
    if pid == 0:
        out2 = np.zeros_like(x)
        big[2, 32](out2, x, 64)
        os._exit(0 if (out2 == out).all() else 1)
    assert os.waitpid(pid, 0)[1] == 0
print("ok")
"""


@pytest.mark.parametrize("how", ["exit", "fork"])
def test_the_process_exits_cleanly_while_a_recompile_runs(python, tmp_path, how):
    script = tmp_path / "long_compile.py"
    script.write_text(LONG_COMPILE)
    proc = python([str(script), how], env={"SIMT_OPT_TIER": "auto", "SIMT_TIER_UP_MS": "0",
                                           "SIMT_CACHE": "0"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok" and proc.stderr == ""


def test_importing_simt_cuda_does_not_load_the_compiler(python):
    proc = python(["-c", "import sys\nfrom simt import cuda\n"
                   "print('simt._simt' in sys.modules, 'LLVM' in open('/proc/self/maps').read())\n"
                   "cuda.libdevice.popc\nprint('simt._simt' in sys.modules)"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "False", "True"]
