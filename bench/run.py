#!/usr/bin/python3
"""simt benchmark suite: simt against Numba's CUDA simulator and plain C++ loops.

Runs the kernels of bench/kernels.py with simt and with Numba's simulator (each kernel in a fresh
subprocess), times bench/baselines.cpp built with g++ -O2, verifies every result with NumPy, prints
a table and writes it with the machine information to docs/benchmarks.md.
"""
import argparse
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
KERNELS = ("vector_add", "matmul", "reduction")
BARRIER_FREE = ("vector_add",)
# The barrier kernels' algorithms fissioned by hand at their barriers (bench/baselines.cpp).
FISSIONED_BASELINES = {"matmul": "tiled_matmul", "reduction": "block_sum"}
TPB = 256
TILE = 16

# Targets the simulator is held to.
MIN_SPEEDUP_VS_NUMBA = 50000.0
MAX_RATIO_VS_CPP = 1.0  # the flat kernel against g++ -O2's loop
MIN_TWO_CORE_SPEEDUP = 1.8  # SIMT_THREADS=2 against SIMT_THREADS=1
MAX_RATIO_VS_FISSIONED_CPP = 2.0
MAX_COMPILE_MS = 100.0
FIRST_CALL_RUNS = 5
TIMED_S = 1.0  # the least time a simt worker spends on its timed launches
# The debugger's variant (SIMT_DEBUG=1: every thread on a fiber, a hook at every statement and
# memory access), with no breakpoint set.
MIN_DEBUG_SPEEDUP_VS_NUMBA = 100.0
MAX_DEBUG_RATIO_ON_BARRIER_KERNELS = 20.0


class Problem:
    """One kernel at one size: inputs, a launch of `blocks` blocks, and the check of its output.

    `size` is the full problem (elements, or the matrix edge for matmul). A launch of fewer
    blocks does the same work per thread on a prefix of the problem, so per-thread costs of a
    scaled-down run compare with those of a full one.
    """

    def __init__(self, kernel, size):
        self.kernel = kernel
        self.size = size
        if kernel == "matmul":
            if size % TILE:
                raise ValueError("matmul size must be a multiple of %d" % TILE)
            self.full_blocks = (size // TILE) ** 2
        else:
            self.full_blocks = (size + TPB - 1) // TPB

    def launch_shape(self, blocks):
        if self.kernel == "matmul":
            per_row = self.size // TILE
            if blocks <= per_row:
                return (blocks, 1), (TILE, TILE)
            return (per_row, blocks // per_row), (TILE, TILE)
        return blocks, TPB

    def threads(self, blocks):
        grid, block = self.launch_shape(blocks)
        return int(np.prod(grid)) * int(np.prod(block))

    def elements(self):
        """Work items of the C++ loop: output elements (matmul) or input elements."""
        return self.size * self.size if self.kernel == "matmul" else self.size

    def inputs(self, blocks):
        """Host arrays (inputs, output) for a launch of `blocks` blocks."""
        if self.kernel == "matmul":
            a = input_values(self.size * self.size, 1000).reshape(self.size, self.size)
            b = input_values(self.size * self.size, 777).reshape(self.size, self.size)
            return [a, b], np.zeros((self.size, self.size), np.float32)
        n = min(self.size, blocks * TPB)
        if self.kernel == "vector_add":
            return [input_values(n, 1000), input_values(n, 777)], np.zeros(n, np.float32)
        return [input_values(n, 1000)], np.zeros(blocks, np.float32)

    def args(self, inputs, output):
        """Kernel arguments in the kernel's parameter order."""
        if self.kernel == "vector_add":
            return [output] + inputs
        return inputs + [output]

    def check(self, blocks, inputs, output):
        if self.kernel == "vector_add":
            np.testing.assert_array_equal(output, inputs[0] + inputs[1])
        elif self.kernel == "matmul":
            (gx, gy), _ = self.launch_shape(blocks)
            rows, cols = gy * TILE, gx * TILE
            expected = inputs[0][:rows].astype(np.float64) @ inputs[1][:, :cols]
            np.testing.assert_allclose(output[:rows, :cols], expected, rtol=1e-4)
        else:
            values = np.zeros(blocks * TPB, np.float64)
            values[: inputs[0].size] = inputs[0]
            expected = values.reshape(blocks, TPB).sum(axis=1)
            np.testing.assert_allclose(output, expected, rtol=1e-5)

    def cpp_checksum(self):
        """What baselines.cpp must print as its checksum (it sums the output in double): the
        hand-fissioned baselines compute the same outputs (block_sum's partials sum to the
        reduction's total)."""
        if self.kernel == "vector_add":
            n = self.size
            return float((input_values(n, 1000) + input_values(n, 777)).astype(np.float64).sum())
        if self.kernel == "matmul":
            n = self.size
            a = input_values(n * n, 1000).reshape(n, n).astype(np.float64)
            b = input_values(n * n, 777).reshape(n, n).astype(np.float64)
            return float((a @ b).sum())
        return float(input_values(self.size, 1000).astype(np.float64).sum())


def input_values(n, period):
    """The inputs baselines.cpp builds: (i % period) / period in float32."""
    return (np.arange(n) % period).astype(np.float32) / np.float32(period)


# ---------------------------------------------------------------------------------------------
# Worker: runs in a fresh subprocess, imports one backend, times one kernel, prints JSON.


def worker(backend, kernel, size, blocks, repeats, target_s):
    if backend == "numba":
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    if backend == "simt-debug":
        os.environ["SIMT_DEBUG"] = "1"
    if backend == "simt-fibers":
        os.environ["SIMT_FISSION"] = "0"
    if backend.startswith("simt-threads-"):  # the worker pool's size, for the scaling columns
        os.environ["SIMT_THREADS"] = backend[len("simt-threads-"):]
    os.environ["BENCH_BACKEND"] = backend
    sys.path.insert(0, BENCH_DIR)
    import kernels

    cuda = kernels.cuda
    function = {"vector_add": kernels.vector_add, "matmul": kernels.matmul,
                "reduction": kernels.block_sum}[kernel]
    problem = Problem(kernel, size)

    arrays = {}

    def launch(count, check=True):
        """One timed launch of `count` blocks. Its device arrays are made at the first launch of
        `count` blocks and used again by the next ones (as the C++ loops use theirs). `check`:
        the output is zeroed before the launch and checked after it (outside the time); timed
        launches run back to back, as the C++ loops do, and the last one is checked."""
        if count not in arrays:
            inputs, output = problem.inputs(count)
            arrays[count] = inputs, output, [cuda.to_device(a) for a in
                                             problem.args(inputs, output)]
        inputs, output, device_args = arrays[count]
        out_index = 0 if kernel == "vector_add" else len(device_args) - 1
        if check:
            device_args[out_index].copy_to_device(output)
        grid, block = problem.launch_shape(count)
        cuda.synchronize()
        start = time.perf_counter()
        function[grid, block](*device_args)
        cuda.synchronize()
        seconds = time.perf_counter() - start
        if check:
            problem.check(count, inputs, device_args[out_index].copy_to_host())
        return seconds

    result = {"backend": backend, "kernel": kernel}
    if backend == "numba":
        # Numba's simulator runs a Python thread per CUDA thread: size the measured launch from
        # growing probes (the first also warms up) so that it takes about target_s.
        probe_blocks, probe = 1, launch(1)
        while probe < target_s / 8 and probe_blocks * 2 <= problem.full_blocks:
            probe_blocks *= 2
            probe = launch(probe_blocks)
        blocks = max(1, min(problem.full_blocks, int(target_s * probe_blocks / probe)))
        if kernel == "matmul":
            per_row = size // TILE
            blocks = blocks if blocks <= per_row else blocks // per_row * per_row
        best = launch(blocks)
    else:
        # The first call compiles and launches, as a user's first call does: nothing ran in this
        # process before it, and tiers are left as they are by default. The timed launches run
        # the full level's code: launches go on until the kernel has queued its recompile.
        result["first_call_s"] = launch(blocks)
        if backend == "simt-first":
            print("BENCH_RESULT " + json.dumps(result))
            return
        from simt import _simt
        compiled = next(iter(function.overloads.values()))
        for _ in range(1000):
            if compiled.tier == "full":
                break
            _simt.finish_tier_ups()
            launch(blocks)
        assert compiled.tier == "full", "the kernel was never recompiled at its full level"
        # The best of at least repeats + 1 launches and TIMED_S seconds of them (as the C++
        # loops are timed): on a shared machine, a few launches may all land in a busy moment.
        times, started = [], time.perf_counter()
        while len(times) <= repeats or time.perf_counter() - started < TIMED_S:
            times.append(launch(blocks, check=False))
        times.append(launch(blocks))
        best = min(times)
    result.update(blocks=blocks, threads=problem.threads(blocks), best_s=best)
    print("BENCH_RESULT " + json.dumps(result))


# ---------------------------------------------------------------------------------------------
# Driver.


def run_worker(backend, kernel, size, blocks, repeats, target_s, env):
    command = [sys.executable, os.path.abspath(__file__), "--worker", backend, kernel,
               "--size", str(size), "--blocks", str(blocks), "--repeats", str(repeats),
               "--target-s", str(target_s)]
    proc = subprocess.run(command, env=env, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("BENCH_RESULT "):
            return json.loads(line[len("BENCH_RESULT "):])
    raise RuntimeError("%s %s failed (exit %d):\n%s%s" % (backend, kernel, proc.returncode,
                                                            proc.stdout, proc.stderr[-4000:]))


def simt_env(simt_path):
    """Environment for the simt workers: simt importable, an empty compile cache."""
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    env.pop("SIMT_ENABLE", None)
    for name in ("SIMT_OPT_TIER", "SIMT_TIER_UP_MS", "SIMT_THREADS"):
        env.pop(name, None)
    if simt_path:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (simt_path, env.get("PYTHONPATH")) if p)
    return env


def find_simt_path():
    """None when simt is importable as is; else the first build tree that holds it."""
    probe = subprocess.run([sys.executable, "-c", "import simt"], capture_output=True)
    if probe.returncode == 0:
        return None
    builds = sorted(b for b in os.listdir(ROOT) if b.startswith("build"))
    for build in sorted(builds, key=lambda b: b != "build"):
        package = os.path.join(ROOT, build, "python", "simt")
        if os.path.isdir(package) and any(f.startswith("_simt") and f.endswith(".so")
                                          for f in os.listdir(package)):
            return os.path.dirname(package)
    return None


def build_baselines(directory):
    binary = os.path.join(directory, "baselines")
    subprocess.run(["g++", "-O2", "-std=c++20", "-pthread", "-o", binary,
                    os.path.join(BENCH_DIR, "baselines.cpp")], check=True)
    return binary


def run_baseline(binary, problem, baseline=None, threads=1):
    """Seconds of the C++ loop `baseline` (default: the kernel's plain loop) on the problem, its
    work split between `threads` threads."""
    out = subprocess.run([binary, baseline or problem.kernel, str(problem.size), str(threads)],
                         check=True, capture_output=True, text=True).stdout.split()
    seconds, checksum = float(out[0]), float(out[1])
    expected = problem.cpp_checksum()
    # The reduction adds 2^20 floats into one float sequentially: allow float32 rounding drift.
    rtol = 1e-2 if problem.kernel == "reduction" else 1e-5
    if not math.isclose(checksum, expected, rel_tol=rtol):
        raise AssertionError("C++ %s checksum %r, expected %r" % (problem.kernel, checksum,
                                                                 expected))
    return seconds


def machine_info():
    model = "unknown"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    gxx = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout
    return {
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "nproc": os.cpu_count(),
        "load": "%.1f" % os.getloadavg()[0],
        "cpu": model,
        "python": "%s (%s)" % (platform.python_version(), sys.executable),
        "numpy": np.__version__,
        "numba": package_version("numba"),
        "gxx": gxx.splitlines()[0] if gxx else "unknown",
    }


def package_version(name):
    try:
        module = __import__(name)
        return module.__version__
    except ImportError:
        return "not installed"


def fmt(value, digits=1):
    if value is None:
        return "n/a"
    if value >= 100:
        return "{:,.0f}".format(value)
    return "%.*f" % (digits, value)


def rows_of(results):
    rows = []
    for kernel in KERNELS:
        r = results[kernel]
        simt_ns, numba_ns, cpp_ns = r.get("simt_ns"), r.get("numba_ns"), r.get("cpp_ns")
        debug_ns = r.get("debug_ns")
        fibers_ns, fissioned_ns = r.get("fibers_ns"), r.get("fissioned_cpp_ns")
        rows.append({
            "kernel": kernel,
            "simt_ns": simt_ns,
            "fibers_ns": fibers_ns,
            "fission_speedup": fibers_ns / simt_ns if fibers_ns and simt_ns else None,
            "fissioned_cpp_ns": fissioned_ns,
            "fissioned_ratio": simt_ns / fissioned_ns if simt_ns and fissioned_ns else None,
            "debug_ns": debug_ns,
            # The debugger's instrumentation cost: against release code run the same way (the
            # barrier kernels' fibers, as the debug variant runs every kernel).
            "debug_ratio": debug_ns / (fibers_ns or simt_ns) if debug_ns and simt_ns else None,
            "debug_speedup": numba_ns / debug_ns if debug_ns and numba_ns else None,
            "numba_ns": numba_ns,
            "cpp_ns": cpp_ns,
            "speedup": numba_ns / simt_ns if simt_ns and numba_ns else None,
            "ratio": simt_ns / cpp_ns if simt_ns and cpp_ns else None,
            "first_ms": r.get("first_ms"),
            "one_core_ns": r.get("threads-1_ns"),
            "two_core_ns": r.get("threads-2_ns"),
            "two_core_speedup": (r["threads-1_ns"] / r["threads-2_ns"]
                                 if r.get("threads-1_ns") and r.get("threads-2_ns") else None),
            "cpp_two_thread_speedup": r.get("cpp_two_thread_speedup"),
        })
    return rows


HEADER = ("kernel", "simt per-thread ns", "numba-sim per-thread ns", "C++ per-element ns",
          "simt vs numba-sim speedup", "simt / C++ ratio", "hand-fissioned C++ per-thread ns",
          "simt / hand-fissioned C++ ratio", "simt as fibers per-thread ns",
          "fission vs fibers speedup", "simt first-call ms", "1 worker per-thread ns",
          "2 workers per-thread ns", "2 workers vs 1 speedup",
          "its C++ on 2 threads vs 1 speedup", "debug variant per-thread ns", "debug / release ratio (fibers on barrier kernels)",
          "debug vs numba-sim speedup")


def table_cells(row):
    return (row["kernel"], fmt(row["simt_ns"], 2), fmt(row["numba_ns"]), fmt(row["cpp_ns"], 2),
            fmt(row["speedup"]) + ("x" if row["speedup"] else ""), fmt(row["ratio"], 2),
            fmt(row["fissioned_cpp_ns"], 2), fmt(row["fissioned_ratio"], 2),
            fmt(row["fibers_ns"], 2),
            fmt(row["fission_speedup"], 1) + ("x" if row["fission_speedup"] else ""),
            fmt(row["first_ms"]), fmt(row["one_core_ns"], 2), fmt(row["two_core_ns"], 2),
            fmt(row["two_core_speedup"], 2) + ("x" if row["two_core_speedup"] else ""),
            fmt(row["cpp_two_thread_speedup"], 2) + ("x" if row["cpp_two_thread_speedup"] else ""),
            fmt(row["debug_ns"], 2),
            fmt(row["debug_ratio"], 1),
            fmt(row["debug_speedup"]) + ("x" if row["debug_speedup"] else ""))


def targets_of(rows):
    """(target, kernel, measured, met) for every target that applies to a kernel."""
    checks = []
    for row in rows:
        checks.append(("simt >= %gx faster than Numba's simulator" % MIN_SPEEDUP_VS_NUMBA,
                       row["kernel"], row["speedup"], lambda v: v >= MIN_SPEEDUP_VS_NUMBA, "x"))
        if row["kernel"] in BARRIER_FREE:
            checks.append(("flat kernel at <= %gx the g++ -O2 loop's time" % MAX_RATIO_VS_CPP,
                           row["kernel"], row["ratio"], lambda v: v <= MAX_RATIO_VS_CPP, "x"))
        else:
            checks.append(("barrier kernel within %gx of the hand-fissioned C++"
                           % MAX_RATIO_VS_FISSIONED_CPP, row["kernel"], row["fissioned_ratio"],
                           lambda v: v <= MAX_RATIO_VS_FISSIONED_CPP, "x"))
        checks.append(("first call (compile and launch) < %g ms" % MAX_COMPILE_MS,
                       row["kernel"], row["first_ms"], lambda v: v < MAX_COMPILE_MS, " ms"))
        checks.append(("2 workers >= %gx 1 worker" % MIN_TWO_CORE_SPEEDUP, row["kernel"],
                       row["two_core_speedup"], lambda v: v >= MIN_TWO_CORE_SPEEDUP, "x"))
        checks.append(("debug variant >= %gx faster than Numba's simulator"
                       % MIN_DEBUG_SPEEDUP_VS_NUMBA, row["kernel"], row["debug_speedup"],
                       lambda v: v >= MIN_DEBUG_SPEEDUP_VS_NUMBA, "x"))
        if row["kernel"] not in BARRIER_FREE:
            checks.append(("debug variant within %gx of release fibers on barrier kernels"
                           % MAX_DEBUG_RATIO_ON_BARRIER_KERNELS, row["kernel"],
                           row["debug_ratio"],
                           lambda v: v <= MAX_DEBUG_RATIO_ON_BARRIER_KERNELS, "x"))
    return [(name, kernel, "n/a" if v is None else fmt(v, 2) + unit,
             "not measured" if v is None else ("met" if ok(v) else "not met"))
            for name, kernel, v, ok, unit in checks]


def print_aligned(cells):
    """Rows of text cells as aligned columns, the first row a header: the first column left
    aligned, the others right."""
    widths = [max(len(c[i]) for c in cells) for i in range(len(cells[0]))]
    for i, line in enumerate(cells):
        print(" | ".join(c.rjust(w) if j else c.ljust(w) for j, (c, w) in
                         enumerate(zip(line, widths))))
        if i == 0:
            print("-+-".join("-" * w for w in widths))


def print_table(rows, targets):
    print_aligned([HEADER] + [table_cells(r) for r in rows])
    print()
    for name, kernel, measured, met in targets:
        print("%-46s %-10s %-36s %s" % (name, kernel, measured, met))


BREAKPOINT_SCRIPT = """import numpy as np
from simt import cuda


@cuda.jit
def vadd(a, b, c):
    i = cuda.grid(1)
    c[i] = a[i] + b[i]


n = 1 << 20
a = np.ones(n, np.float32)
a[1000000] = 1e6
vadd[n // 256, 256](a, a, np.zeros(n, np.float32))
"""
# The conditions timed, each stopping thread 1000000 of BREAKPOINT_SCRIPT's launch, with the
# most seconds each may take (the first: thread ids; the second: an array element).
CONDITIONAL_BREAKS = (("i == 1000000", 2.0), ("a[i] == 1e6", 1.0))


def conditional_breakpoint(env, condition, repeats=3):
    """Seconds from `simt debug` starting until `break 8 if CONDITION` in a 2^20-thread vector
    add has stopped thread 1000000 (the best of `repeats` runs; each in a fresh process, compile
    included), or None when it failed."""
    best = None
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "vadd.py")
        commands = os.path.join(tmp, "commands.txt")
        with open(script, "w") as f:
            f.write(BREAKPOINT_SCRIPT)
        with open(commands, "w") as f:
            f.write("break vadd.py:8 if %s\ncontinue\nkill\n" % condition)
        for _ in range(repeats):
            start = time.perf_counter()
            run = subprocess.run([sys.executable, "-m", "simt", "debug", "-x", commands,
                                  "--batch", script], env=env, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            if "Thread (64,0,0) block (3906,0,0) hit Breakpoint 1" not in run.stdout:
                print(run.stdout + run.stderr, file=sys.stderr)
                return None
            best = seconds if best is None else min(best, seconds)
    return best


def compile_scaling(env):
    """bench/compile_scaling.py's rows (first-compile seconds by kernel shape and size), from a
    fresh process; None when it failed."""
    script = os.path.join(ROOT, "bench", "compile_scaling.py")
    run = subprocess.run([sys.executable, script, "--json"], env=env, capture_output=True,
                         text=True)
    if run.returncode != 0:
        print(run.stdout + run.stderr, file=sys.stderr)
        return None
    return json.loads(run.stdout.strip().splitlines()[-1])


def compile_targets(scaling):
    """The compile-time targets of bench/compile_scaling.py, judged on wall time."""
    from compile_scaling import TARGETS
    checks = []
    for shape, size, limit in TARGETS:
        row = next((r for r in scaling or () if (r["shape"], r["size"]) == (shape, size)), None)
        name = "first compile of %s %d < %g s" % (shape, size, limit)
        checks.append((name, "compile_scaling", "n/a" if row is None else
                       "%.2f s" % row["wall_s"],
                       "not measured" if row is None else
                       ("met" if row["wall_s"] < limit else "not met")))
    return checks


def scaling_markdown(scaling):
    if not scaling:
        return ["", "## Compile time against kernel size", "", "Not measured (the run failed)."]
    lines = ["", "## Compile time against kernel size", "",
             "`bench/compile_scaling.py`: generated kernels compiled for the first time "
             "(`SIMT_CACHE=0`) in one warmed-up process, each result checked against NumPy. "
             "`elif`: an if/elif chain of N branches; `straight`: N statements updating one "
             "accumulator; `locals`: N statements each assigning a new local; `arrays`: N "
             "augmented assignments to `out[i]` (bounds-checked loads and stores).",
             "", "| shape | size | wall s | CPU s |", "|---|---|---|---|"]
    lines += ["| %s | %d | %.3f | %.3f |" % (r["shape"], r["size"], r["wall_s"], r["cpu_s"])
              for r in scaling]
    return lines


def markdown(rows, targets, info, sizes, numba_threads, numba_target_s, quick, scaling,
             release_launches):
    lines = ["# simt benchmarks", "",
             "Generated by `bench/run.py`%s on %s. Machine: %s, %d cores (`nproc`), load "
             "average %s at the end of the run; %s; Python %s; NumPy %s; Numba %s."
             % (" --quick" if quick else "", info["date"], info["cpu"], info["nproc"],
                info["load"], info["gxx"], info["python"], info["numpy"], info["numba"]),
             "", "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(table_cells(r)) + " |" for r in rows]
    lines += ["", "## Targets", "", "| target | kernel | measured | met |", "|---|---|---|---|"]
    lines += ["| %s | %s | %s | %s |" % t for t in targets]
    lines += ["", "## What is measured", "",
              "- Kernels (bench/kernels.py, the same source for simt and Numba's simulator):",
              "  `vector_add` on %d float32 (one thread per element, %d threads per block); "
              "`matmul`, %dx%d float32 with %dx%d shared-memory tiles and `cuda.syncthreads`; "
              "`reduction`, a shared-memory tree sum of %d float32 per block of %d threads, "
              "block partials written to an output array."
              % (sizes["vector_add"], TPB, sizes["matmul"], sizes["matmul"], TILE, TILE,
                 sizes["reduction"], TPB),
              "- simt: device arrays from `cuda.to_device`, made once and used by every launch "
              "(back to back, as the C++ loops run; the output zeroed before the last, which is "
              "checked); the best of at least %g s of launches (and of at least %d) of the "
              "kernel's full-level code (after its tier-up), each ended by `cuda.synchronize()`, "
              "divided by the threads launched. simt uses its worker pool (one thread per core). "
              "First call: compile and first launch in a fresh process with an empty compile "
              "cache and the default tiers (the launch runs the Quick tier's code, moving to the "
              "full level's between blocks if its recompile, queued after 20 ms or at once for "
              "2^20 threads, is ready in time), the median of %d such processes. 1 and 2 "
              "workers: the same timing with `SIMT_THREADS=1` and `SIMT_THREADS=2`."
              % (TIMED_S, release_launches, FIRST_CALL_RUNS),
              "- simt as fibers (`SIMT_FISSION=0`): the barrier kernels with one fiber per "
              "thread instead of loop fission, timed as simt is.",
              "- simt's debug variant (`SIMT_DEBUG=1`, as under `simt debug` with no breakpoint "
              "set): the same kernels compiled with the debugger's instrumentation (every thread "
              "on its own fiber, a hook before every statement and memory access, locals in "
              "memory), timed as simt is.",
              "- The conditional breakpoints: `simt debug -x FILE --batch` on a 2^20-thread "
              "vector add with `break LINE if i == 1000000` and with `break LINE if a[i] == 1e6` "
              "(the element of thread 1000000 alone is 1e6), from the process's start until that "
              "thread stops (compile included; the controller evaluates both conditions itself), "
              "best of 3 runs.",
              "- Numba's simulator (`NUMBA_ENABLE_CUDASIM=1`, a fresh process per kernel): one "
              "launch scaled down to about %g s by launching fewer blocks with the same work per "
              "thread (%s threads), divided by the threads launched."
              % (numba_target_s, ", ".join(
                  "%s %s" % (k, "{:,}".format(numba_threads[k]) if numba_threads.get(k) else "n/a")
                  for k in KERNELS)),
              "- C++ (bench/baselines.cpp, `g++ -O2`, one thread): the best of repeated runs of "
              "a plain loop nest, divided by the elements: `vector_add` per element, `matmul` "
              "per output element (naive i-j-k triple loop, no tiling), `reduction` per input "
              "element (sequential float sum). Hand-fissioned C++: the barrier kernels' own "
              "algorithms split by hand at their barriers (a loop over a block's threads per "
              "barrier-free stretch; `tiled_matmul`: 16x16 tiles, `block_sum`: the tree sum "
              "per block of 256, its `tid < stride` loops bounded by the stride), per thread "
              "of the kernel. Its C++ on 2 threads: the kernel's own algorithm (`vector_add`, "
              "`tiled_matmul`, `block_sum`) with its elements, rows of tiles or blocks split "
              "between two std::threads, against one: what a second core of this machine gives.",
              "- Every result is checked against NumPy in every run (C++ through a checksum)."]
    lines += scaling_markdown(scaling) + [""]
    return "\n".join(lines)


# docs/benchmarks.md from this line on is kept as it is: the results of bench/compile_latency.py
# and bench/ci_suite.py, which take their own runs.
KEPT_SECTIONS = "<!-- bench/compile_latency.py and bench/ci_suite.py: kept by bench/run.py -->"


def kept_sections(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return ""
    start = text.find(KEPT_SECTIONS)
    return "" if start < 0 else "\n" + text[start:]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("--no-numba", action="store_true", help="skip Numba's simulator")
    parser.add_argument("--output", help="markdown report (default docs/benchmarks.md; "
                        "--quick writes none unless given)")
    parser.add_argument("--simt-path", help="directory that holds the simt package")
    parser.add_argument("--worker", nargs=2, metavar=("BACKEND", "KERNEL"), help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--blocks", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--repeats", type=int, default=5, help=argparse.SUPPRESS)
    parser.add_argument("--target-s", type=float, default=10.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], args.worker[1], args.size, args.blocks, args.repeats,
               args.target_s)
        return 0

    sizes = ({"vector_add": 1 << 16, "matmul": 64, "reduction": 1 << 16} if args.quick else
             {"vector_add": 1 << 20, "matmul": 256, "reduction": 1 << 20})
    numba_target_s = 1.0 if args.quick else 10.0
    repeats = 3 if args.quick else 10
    # Release launches take milliseconds on a shared machine whose noise is of that order: the
    # best of more of them.
    release_repeats = 3 if args.quick else 40
    output = args.output or (None if args.quick else os.path.join(ROOT, "docs", "benchmarks.md"))
    simt_path = args.simt_path or find_simt_path()
    env = simt_env(simt_path)
    failures = []
    results = {k: {} for k in KERNELS}
    numba_threads = {}
    started = time.perf_counter()

    with tempfile.TemporaryDirectory() as tmp:
        binary = build_baselines(tmp)
        # An empty cache directory: the first call must compile.
        env["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
        for kernel in KERNELS:
            problem = Problem(kernel, sizes[kernel])
            try:
                results[kernel]["cpp_ns"] = run_baseline(binary, problem) / problem.elements() * 1e9
                if kernel in FISSIONED_BASELINES:
                    seconds = run_baseline(binary, problem, FISSIONED_BASELINES[kernel])
                    results[kernel]["fissioned_cpp_ns"] = (
                        seconds / problem.threads(problem.full_blocks) * 1e9)
                # The kernel's own algorithm on one and on two threads: how much a second core
                # gives on this machine (memory bandwidth bounds the flat kernels' gain).
                own = FISSIONED_BASELINES.get(kernel, kernel)
                results[kernel]["cpp_two_thread_speedup"] = (
                    run_baseline(binary, problem, own) / run_baseline(binary, problem, own, 2))
            except (subprocess.CalledProcessError, AssertionError) as error:
                failures.append("C++ %s: %s" % (kernel, error))
            try:
                r = run_worker("simt", kernel, problem.size, problem.full_blocks, release_repeats,
                               0, env)
                results[kernel]["simt_ns"] = r["best_s"] / r["threads"] * 1e9
                # The first call, in fresh processes with empty caches: the median of several.
                first = []
                for run in range(FIRST_CALL_RUNS):
                    cache = os.path.join(tmp, "first-call-cache-%s-%d" % (kernel, run))
                    r = run_worker("simt-first", kernel, problem.size, problem.full_blocks, 0, 0,
                                   dict(env, SIMT_CACHE_DIR=cache))
                    first.append(r["first_call_s"] * 1e3)
                results[kernel]["first_ms"] = statistics.median(first)
                for workers in ("threads-1", "threads-2"):
                    r = run_worker("simt-" + workers, kernel, problem.size, problem.full_blocks,
                                   release_repeats, 0, env)
                    results[kernel][workers + "_ns"] = r["best_s"] / r["threads"] * 1e9
                r = run_worker("simt-debug", kernel, problem.size, problem.full_blocks, repeats,
                               0, env)
                results[kernel]["debug_ns"] = r["best_s"] / r["threads"] * 1e9
                if kernel not in BARRIER_FREE:
                    r = run_worker("simt-fibers", kernel, problem.size, problem.full_blocks,
                                   repeats, 0, env)
                    results[kernel]["fibers_ns"] = r["best_s"] / r["threads"] * 1e9
            except RuntimeError as error:
                failures.append(str(error))
            if not args.no_numba:
                try:
                    r = run_worker("numba", kernel, problem.size, 0, 0, numba_target_s,
                                   dict(os.environ, NUMBA_ENABLE_CUDASIM="1"))
                    results[kernel]["numba_ns"] = r["best_s"] / r["threads"] * 1e9
                    numba_threads[kernel] = r["threads"]
                except RuntimeError as error:
                    failures.append(str(error))
            print("%s done (%.0f s)" % (kernel, time.perf_counter() - started), flush=True)

    scaling = compile_scaling(env)
    if scaling is None:
        failures.append("bench/compile_scaling.py failed")
    rows = rows_of(results)
    targets = targets_of(rows) + compile_targets(scaling)
    for condition, max_s in CONDITIONAL_BREAKS:
        breakpoint_s = conditional_breakpoint(env, condition)
        if breakpoint_s is None:
            failures.append("the conditional breakpoint run (%s) failed" % condition)
        targets.append((
            "`break LINE if %s` in a 2^20-thread vector add stops < %g s (whole session)"
            % (condition, max_s), "debugger",
            "n/a" if breakpoint_s is None else "%.2f s" % breakpoint_s,
            "not measured" if breakpoint_s is None else
            ("met" if breakpoint_s < max_s else "not met")))
    print()
    print_table(rows, targets)
    if output:
        kept = kept_sections(output)
        with open(output, "w") as f:
            f.write(markdown(rows, targets, machine_info(), sizes, numba_threads,
                             numba_target_s, args.quick, scaling, release_repeats + 1) + kept)
        print("\nwrote", output)
    sys.stdout.flush()
    for failure in failures:
        print("\nFAILED: " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
