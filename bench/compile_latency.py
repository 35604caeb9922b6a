#!/usr/bin/python3
"""What a short test process pays before its first kernel runs: `from simt import cuda`, loading
the compiler, and compiling each bench kernel (bench/kernels.py) and a trivial flat kernel, with
no compile cache and from a warm one, at the Quick tier (the default, sim/host_backend.h) and at
the full level (SIMT_OPT_TIER=full, what every compile was before tiers). Every number is the
median of fresh processes; every kernel's result is checked against NumPy.

    bench/compile_latency.py [--stage build/python] [--runs 7]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
PYTHON = "/usr/bin/python3"

# Milliseconds of `import numpy` (which simt.cuda imports), then of `from simt import cuda`, then
# of loading the compiler (which simt.cuda's import did before it was lazy).
IMPORT = """
import time
start = time.perf_counter()
import numpy
after_numpy = time.perf_counter()
from simt import cuda
after_simt = time.perf_counter()
from simt import _simt
cuda.libdevice
print((after_numpy - start) * 1e3, (after_simt - after_numpy) * 1e3,
      (time.perf_counter() - after_simt) * 1e3)
"""

TRIVIAL = """
from simt import cuda

@cuda.jit
def trivial(r, x):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = x[i] * 2 + 1
"""

# Compiles every kernel once in a fresh process and prints, as JSON, the milliseconds of the
# process's first compile (which loads the compiler and starts the JIT) and of each kernel's.
WORKER = """
import json, sys, time
import numpy as np
sys.path.insert(0, %(bench)r)
from simt import cuda
import kernels
exec(%(trivial)r)

def warm_up():
    @cuda.jit
    def unrelated(r):
        r[0] = 7
    r = np.zeros(1, np.int64)
    start = time.perf_counter()
    unrelated[1, 1](r)
    assert r[0] == 7
    return (time.perf_counter() - start) * 1e3

n = 1 << 12
x = np.arange(n, dtype=np.float32)
y = np.ones(n, dtype=np.float32)
m = 64
A = np.random.RandomState(0).rand(m, m).astype(np.float32)
B = np.random.RandomState(1).rand(m, m).astype(np.float32)

def check_trivial():
    r = np.zeros_like(x)
    trivial[n // 64, 64](r, x)
    assert (r == x * 2 + 1).all()

def check_vector_add():
    r = np.zeros_like(x)
    kernels.vector_add[n // kernels.TPB, kernels.TPB](r, x, y)
    assert (r == x + y).all()

def check_matmul():
    C = np.zeros((m, m), np.float32)
    t = kernels.TILE
    kernels.matmul[(m // t, m // t), (t, t)](A, B, C)
    assert np.allclose(C, A @ B, rtol=1e-4)

def check_block_sum():
    partials = np.zeros(n // kernels.TPB, np.float32)
    kernels.block_sum[n // kernels.TPB, kernels.TPB](x, partials)
    assert np.allclose(partials, x.reshape(-1, kernels.TPB).sum(axis=1))

cases = {
    "trivial": (trivial, "void(float32[::1], float32[::1])", check_trivial),
    "vector_add": (kernels.vector_add, "void(float32[::1], float32[::1], float32[::1])",
                   check_vector_add),
    "matmul": (kernels.matmul, "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])",
               check_matmul),
    "reduction": (kernels.block_sum, "void(float32[::1], float32[::1])", check_block_sum),
}
result = {"first compile": warm_up()}
for name, (kernel, sig, check) in cases.items():
    start = time.perf_counter()
    compiled = kernel.compile(sig)
    result[name] = (time.perf_counter() - start) * 1e3
    result[name + " tier"] = compiled.tier
    check()
print(json.dumps(result))
"""

KERNELS = ("trivial", "vector_add", "matmul", "reduction")


def run(code, stage, env):
    full_env = dict(os.environ, PYTHONPATH=stage, **env)
    # Bytecode is written and used, as for an installed package (and for NumPy's).
    for name in ("SIMT_ENABLE", "NUMBA_ENABLE_CUDASIM", "SIMT_OPT_TIER", "SIMT_CACHE",
                 "PYTHONDONTWRITEBYTECODE"):
        if name not in env:
            full_env.pop(name, None)
    proc = subprocess.run([PYTHON, "-c", code], env=full_env, capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != 0:
        sys.exit("compile_latency.py: a worker failed:\n" + proc.stderr)
    return proc.stdout.strip().splitlines()[-1]


def medians(samples):
    return {key: statistics.median(s[key] for s in samples) for key in samples[0]
            if not key.endswith(" tier")}


def measure(stage, runs, tier, cached):
    """Medians over `runs` fresh processes; `cached`: a cache directory filled by one run first
    (else no cache)."""
    worker = WORKER % {"bench": BENCH, "trivial": TRIVIAL}
    env = {"SIMT_OPT_TIER": tier}
    samples = []
    with tempfile.TemporaryDirectory(prefix="simt-bench-cache-") as cache:
        if cached:
            env["SIMT_CACHE_DIR"] = cache
            run(worker, stage, env)
        else:
            env["SIMT_CACHE"] = "0"
        for _ in range(runs):
            samples.append(json.loads(run(worker, stage, env)))
    tiers = {samples[-1][k + " tier"] for k in KERNELS}
    return medians(samples), tiers


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stage", default=os.path.join(REPO, "build", "python"),
                        help="the folder holding the built simt package")
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per number")
    args = parser.parse_args()
    stage = os.path.abspath(args.stage)

    run(IMPORT, stage, {})  # writes the bytecode
    imports = [[float(ms) for ms in run(IMPORT, stage, {}).split()] for _ in range(args.runs)]
    numpy, simt, compiler = (statistics.median(column) for column in zip(*imports))
    print("`from simt import cuda`: %.1f ms: `import numpy` %.1f ms, then simt's modules %.1f ms;"
          " loading the compiler (at the first compile) %.1f ms more"
          % (numpy + simt, numpy, simt, compiler))
    print()
    print("| compile (median of %d processes) | first compile in the process ms | %s |"
          % (args.runs, " | ".join(k + " ms" for k in KERNELS)))
    print("|---|---|" + "---|" * len(KERNELS))
    for label, tier, cached in (("no cache, auto (Quick tier)", "auto", False),
                                ("no cache, SIMT_OPT_TIER=full", "full", False),
                                ("warm disk cache, auto", "auto", True),
                                ("warm disk cache, SIMT_OPT_TIER=full", "full", True)):
        numbers, tiers = measure(stage, args.runs, tier, cached)
        print("| %s (code: %s) | %.1f | %s |" % (
            label, "/".join(sorted(tiers)), numbers["first compile"],
            " | ".join("%.1f" % numbers[k] for k in KERNELS)), flush=True)


if __name__ == "__main__":
    main()
