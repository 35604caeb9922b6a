#!/usr/bin/python3
"""The cost of `simt check`: bench/kernels.py's kernels launched under each checker alone
(racecheck, initcheck, synccheck, memcheck) and under all four, against release simt on the same
kernel and problem size, all timed side by side in one process; and the memory racecheck's shadow
state takes on a 2^24-element float32 array (in a fresh process, for a clean peak RSS).

Prints a table; --write puts it in the "## simt check overhead" section of docs/benchmarks.md.
"""
import argparse
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
from run import (BARRIER_FREE, KERNELS, TPB, Problem, find_simt_path, fmt,  # noqa: E402
                 machine_info, print_aligned)

# Targets of the issue, against release simt on the same kernel.
MAX_RACECHECK_RATIO = 30.0
MAX_INITCHECK_RATIO = 10.0
MAX_SHADOW_RATIO = 4.0  # racecheck's peak shadow memory against the array it shadows

# Sizes at which a racechecked launch takes 0.1-0.3 s on a 2-vCPU VM (matmul: the matrix edge).
SIZES = {"vector_add": 1 << 20, "matmul": 128, "reduction": 1 << 18}
QUICK_SIZES = {"vector_add": 1 << 16, "matmul": 32, "reduction": 1 << 14}
SHADOW_ELEMENTS_LOG2 = 24
QUICK_SHADOW_ELEMENTS_LOG2 = 20

CHECKERS = ("racecheck", "initcheck", "synccheck", "memcheck")
ALL_FOUR = "all four"
# A release sample repeats its launch (milliseconds each) for this long and takes the mean:
# one launch is within the noise of this machine. A checked launch takes longer than this alone.
MIN_SAMPLE_S = 0.2
SECTION = "## simt check overhead"


class Variant:
    """One way of launching a kernel on a problem: release (loop fission allowed or not) or under
    checkers.

    Each variant has its own device arrays, made while its Session checks (the device_array
    output is then poisoned and tracked by initcheck, as a user's would be), and its own compiled
    code: the dispatcher keys its kernels by whether checking is on and by SIMT_FISSION."""

    def __init__(self, name, function, problem, tools=None, fission=True):
        self.name = name
        self.function = function
        self.problem = problem
        self.blocks = problem.full_blocks
        self.tools = tools
        self.fission = fission
        self.session = None
        self.strategy = None  # how its code runs a block: flat, fission or fibers
        self.inputs = self.output = self.args = None

    def activate(self):
        from simt.tools import check
        os.environ["SIMT_FISSION"] = "1" if self.fission else "0"
        check.resume(self.session)  # None: release

    def prepare(self):
        """Starts the Session, makes the arrays, compiles (the first launch) and checks the
        output, so that timed launches run compiled code."""
        from simt.tools import check
        from simt import cuda
        if self.tools:
            self.session = check.enable(tools=list(self.tools), quiet=True)
        self.activate()
        try:
            self.inputs, output = self.problem.inputs(self.blocks)
            self.output = cuda.device_array(output.shape, output.dtype)
            self.args = self.problem.args([cuda.to_device(a) for a in self.inputs], self.output)
            self.launch()
            self.strategy = next(iter(self.function.overloads.values())).block_strategy
            self.verify()
        finally:
            check.disable()

    def launch(self):
        from simt import cuda
        grid, block = self.problem.launch_shape(self.blocks)
        self.function[grid, block](*self.args)
        cuda.synchronize()

    def verify(self):
        self.problem.check(self.blocks, self.inputs, self.output.copy_to_host())

    def time_launch(self):
        """Seconds of one launch: the mean of launches back to back for at least MIN_SAMPLE_S."""
        self.activate()
        launches, started = 0, time.perf_counter()
        while True:
            self.launch()
            launches += 1
            elapsed = time.perf_counter() - started
            if elapsed >= MIN_SAMPLE_S:
                return elapsed / launches

    def findings(self):
        """What its checkers found and were not told to ignore, as they print it."""
        if self.session is None:
            return []
        return ["%s: %s" % (self.name, self.session.format(f))
                for f in self.session.findings() if not f["suppressed"]]


def variants_of(kernel, function, problem):
    release = [Variant("release", function, problem)]
    if kernel not in BARRIER_FREE:  # SIMT_FISSION changes only kernels with barriers
        release.append(Variant("release fibers", function, problem, fission=False))
    checked = [Variant(tool, function, problem, tools=[tool]) for tool in CHECKERS]
    return release + checked + [Variant(ALL_FOUR, function, problem, tools=list(CHECKERS))]


def measure_kernel(kernel, size, rounds):
    """{variant: median seconds of a launch} and what the checkers found, for `kernel` at
    `size`; variants take turns within each round (its order rotated), so that the load of the
    machine falls on all of them alike."""
    import kernels
    from simt.tools import check
    function = {"vector_add": kernels.vector_add, "matmul": kernels.matmul,
                "reduction": kernels.block_sum}[kernel]
    problem = Problem(kernel, size)
    variants = variants_of(kernel, function, problem)
    for variant in variants:
        variant.prepare()
    samples = {v.name: [] for v in variants}
    for round_index in range(rounds):
        shift = round_index % len(variants)
        for variant in variants[shift:] + variants[:shift]:
            samples[variant.name].append(variant.time_launch())
    check.disable()
    os.environ["SIMT_FISSION"] = "1"
    for variant in variants:
        variant.verify()  # the last launch's output
    return {
        "kernel": kernel,
        "size": size,
        "threads": problem.threads(problem.full_blocks),
        "strategy": variants[0].strategy,
        "seconds": {name: statistics.median(times) for name, times in samples.items()},
        "findings": [finding for v in variants for finding in v.findings()],
    }


# ---------------------------------------------------------------------------------------------
# Racecheck's shadow memory: a fresh process, one checked launch over the whole array.


def neighbour_sum_kernel():
    from simt import cuda

    @cuda.jit
    def neighbour_sum(values):
        # Each thread writes its element, then adds its neighbour's in the block: barriers order
        # the write, the neighbour's read and the update, so racecheck finds nothing.
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        values[i] = np.float32(t)
        cuda.syncthreads()
        neighbour = values[i - t + (t + 1) % cuda.blockDim.x]
        cuda.syncthreads()
        values[i] += neighbour

    return neighbour_sum


def shadow_worker(elements_log2):
    """Prints the shadow measurement as JSON: racecheck's peak shadow bytes and the rise of
    the process's peak RSS over one launch on a float32 array of 2^elements_log2 elements."""
    from simt.tools import check
    from simt import cuda
    neighbour_sum = neighbour_sum_kernel()
    elements = 1 << elements_log2
    session = check.enable(tools=["racecheck"], quiet=True)
    # Compile first (on a small array: the same types, so the same code): LLVM's memory and the
    # compile must not count.
    neighbour_sum[4, TPB](cuda.device_array(4 * TPB, np.float32))
    # That array's memory (and its shadow) goes back now, not at a later flush of the memory
    # manager's deferred deallocations (Numba's, which simt keeps).
    gc.collect()
    cuda.current_context().memory_manager.deallocations.clear()
    values = cuda.device_array(elements, np.float32)
    values[:] = np.float32(0)  # its pages touched before the baseline, with no temporary copy
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    started = time.perf_counter()
    neighbour_sum[elements // TPB, TPB](values)
    cuda.synchronize()
    seconds = time.perf_counter() - started
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    check.disable()
    result = values.copy_to_host()
    t = np.arange(elements) % TPB
    np.testing.assert_array_equal(result, (t + (t + 1) % TPB).astype(np.float32))
    print("SHADOW_RESULT " + json.dumps({
        "elements": elements, "array_bytes": elements * 4,
        "peak_shadow_bytes": session.checker.peak_shadow_bytes,
        "rss_increase_bytes": rss_after - rss_before, "seconds": seconds,
        "findings": len(session.findings())}))


def measure_shadow(elements_log2):
    command = [sys.executable, os.path.abspath(__file__), "--shadow-worker", str(elements_log2)]
    proc = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ))
    for line in proc.stdout.splitlines():
        if line.startswith("SHADOW_RESULT "):
            return json.loads(line[len("SHADOW_RESULT "):])
    raise RuntimeError("the shadow measurement failed (exit %d):\n%s%s"
                       % (proc.returncode, proc.stdout, proc.stderr[-4000:]))


# ---------------------------------------------------------------------------------------------
# Report.


def ratio(result, name, against):
    seconds = result["seconds"]
    return seconds[name] / seconds[against] if against in seconds else None


def ms(seconds):
    return fmt(seconds * 1e3, 2 if seconds < 0.1 else 1)


HEADER = ("kernel", "threads", "release ms (how it runs)", "release as fibers ms") + CHECKERS + (
    ALL_FOUR,)


def table_cells(result):
    seconds = result["seconds"]
    cells = [result["kernel"], "{:,}".format(result["threads"]),
             "%s (%s)" % (ms(seconds["release"]), result["strategy"]),
             ms(seconds["release fibers"]) if "release fibers" in seconds else "n/a"]
    for name in CHECKERS + (ALL_FOUR,):
        against_fibers = ratio(result, name, "release fibers")
        cells.append("%s ms: %sx%s" % (
            ms(seconds[name]), fmt(ratio(result, name, "release")),
            "" if against_fibers is None else " (%sx)" % fmt(against_fibers)))
    return cells


def targets_of(results, shadow):
    """(target, kernel, measured, met) rows."""
    rows = []
    for result in results:
        for tool, limit in (("racecheck", MAX_RACECHECK_RATIO),
                            ("initcheck", MAX_INITCHECK_RATIO)):
            # Also against release code that runs as checked code does (every thread a fiber):
            # what the checker itself costs.
            for against, text in (("release", "release"), ("release fibers", "release as fibers")):
                value = ratio(result, tool, against)
                if value is not None:
                    rows.append(("%s <= %gx %s" % (tool, limit, text), result["kernel"],
                                 fmt(value) + "x", "met" if value <= limit else "not met"))
    if shadow:
        value = shadow["peak_shadow_bytes"] / shadow["array_bytes"]
        rows.append(("racecheck shadow <= %gx the array" % MAX_SHADOW_RATIO,
                     "neighbour_sum", "%.4fx" % value,
                     "met" if value <= MAX_SHADOW_RATIO else "not met"))
    return rows


def shadow_text(shadow):
    mib = 1024.0 * 1024.0
    return ("racecheck's shadow on a float32 array of 2^%d elements (%.0f MiB; each thread "
            "writes its element and, after a barrier, adds its neighbour's in the block, %s "
            "threads in one launch of %.1f s): peak shadow %.1f MiB, %.4fx the array (%+.0f KiB "
            "against 4x: shadow is allocated by whole pages; a device array of 64 KiB or more "
            "starts at a page, and the shadow of freed arrays is given back); the process's peak "
            "RSS rose %.1f MiB (%.2fx the array) over the launch."
            % (int(np.log2(shadow["elements"])), shadow["array_bytes"] / mib,
               "{:,}".format(shadow["elements"]), shadow["seconds"],
               shadow["peak_shadow_bytes"] / mib,
               shadow["peak_shadow_bytes"] / shadow["array_bytes"],
               (shadow["peak_shadow_bytes"] - 4 * shadow["array_bytes"]) / 1024.0,
               shadow["rss_increase_bytes"] / mib,
               shadow["rss_increase_bytes"] / shadow["array_bytes"]))


def print_report(results, shadow, targets):
    print_aligned([HEADER] + [table_cells(r) for r in results])
    print("\n(checked: median ms of a launch: x release (x release as fibers))")
    if shadow:
        print("\n" + shadow_text(shadow))
    print()
    for target in targets:
        print("%-44s %-14s %-10s %s" % target)


def markdown(results, shadow, targets, info, rounds, workers):
    lines = [SECTION, "",
             "Generated by `bench/check_overhead.py` on %s. Machine: %s, %d cores (`nproc`), "
             "load average %s at the end of the run; Python %s; NumPy %s."
             % (info["date"], info["cpu"], info["nproc"], info["load"], info["python"],
                info["numpy"]), "",
             "bench/kernels.py's kernels at sizes where a racechecked launch takes 0.1-0.3 s "
             "(vector_add and reduction: float32 elements, one thread each; matmul: the matrix "
             "edge), each launched by release simt and under each checker in one process, the "
             "variants taking turns. A cell: the median of %d rounds of the time of one launch "
             "(release: the mean of its launches back to back for %g s in a round), compile "
             "excluded (every variant launched and its output checked against NumPy first), "
             "then its ratio to release simt and, in parentheses, to release simt run as fibers "
             "(`SIMT_FISSION=0`; only kernels with barriers run otherwise). Release code is the "
             "full level's (`SIMT_OPT_TIER=full`, as after the tier-up) on %d worker%s. Checked "
             "code is not vectorised; kernels run as loops over their threads (by loop fission "
             "across barriers, which report each barrier's release). Without racecheck, blocks "
             "run on every worker, only accesses of watched pages call into the checkers, and "
             "shared memory's written bytes are flagged by the kernel itself. With racecheck "
             "every shared and global access does, and blocks run one after another on one "
             "worker (so up to the workers' count of its ratios is release simt's parallelism). "
             "The output arrays are `cuda.device_array`s, so initcheck tracks them."
             % (rounds, MIN_SAMPLE_S, workers, "" if workers == 1 else "s"), "",
             "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(table_cells(r)) + " |" for r in results]
    if shadow:
        lines += ["", shadow_text(shadow)]
    lines += ["", "Targets (the issue's, against release simt; the rows against release as fibers "
              "leave out what fibers cost against loop fission, the checkers' own cost on the "
              "kernels with barriers):",
              "", "| target | kernel | measured | met |", "|---|---|---|---|"]
    lines += ["| %s | %s | %s | %s |" % t for t in targets]
    return "\n".join(lines) + "\n"


def write_section(path, section):
    """Puts `section` in place of the file's section of the same heading (its first line; up to
    the next `## ` heading), or at its end: after bench/run.py's KEPT_SECTIONS marker, which
    bench/run.py keeps."""
    heading = section.split("\n", 1)[0]
    with open(path) as f:
        text = f.read()
    start = text.find(heading + "\n")
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(heading))
        text = text[:start] + section + ("" if end < 0 else "\n" + text[end + 1:])
    with open(path, "w") as f:
        f.write(text)


def prepare_environment(args):
    """simt importable, release code at its full level, no checking or debugging from the
    environment; set before simt is imported."""
    simt_path = args.simt_path or find_simt_path()
    if simt_path:
        sys.path.insert(0, simt_path)
    for name in ("SIMT_CHECK", "SIMT_DEBUG", "SIMT_FISSION", "NUMBA_ENABLE_CUDASIM",
                 "BENCH_BACKEND"):
        os.environ.pop(name, None)
    os.environ["SIMT_OPT_TIER"] = "full"
    if args.workers:
        os.environ["SIMT_THREADS"] = str(args.workers)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke run")
    parser.add_argument("--rounds", type=int, help="timed rounds (default 7; --quick 3)")
    parser.add_argument("--kernels", default=",".join(KERNELS),
                        help="comma-separated kernels to time (default: %(default)s)")
    parser.add_argument("--workers", type=int, help="SIMT_THREADS for release simt")
    parser.add_argument("--no-shadow", action="store_true",
                        help="skip the shadow memory measurement")
    parser.add_argument("--write", action="store_true",
                        help="update the '%s' section of docs/benchmarks.md" % SECTION[3:])
    parser.add_argument("--output", default=os.path.join(ROOT, "docs", "benchmarks.md"),
                        help="the markdown file --write updates")
    parser.add_argument("--simt-path", help="directory that holds the simt package")
    parser.add_argument("--shadow-worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    prepare_environment(args)
    if args.shadow_worker:
        shadow_worker(args.shadow_worker)
        return 0

    sizes = QUICK_SIZES if args.quick else SIZES
    rounds = args.rounds or (3 if args.quick else 7)
    shadow = None
    if not args.no_shadow:
        shadow = measure_shadow(QUICK_SHADOW_ELEMENTS_LOG2 if args.quick else
                                SHADOW_ELEMENTS_LOG2)
    results = []
    for kernel in args.kernels.split(","):
        if kernel not in KERNELS:
            parser.error("unknown kernel %r (%s)" % (kernel, ", ".join(KERNELS)))
        started = time.perf_counter()
        results.append(measure_kernel(kernel, sizes[kernel], rounds))
        print("%s done (%.0f s)" % (kernel, time.perf_counter() - started), flush=True)
    from simt import _simt
    workers = _simt.worker_count()
    targets = targets_of(results, shadow)
    print()
    print_report(results, shadow, targets)
    findings = [f for r in results for f in r["findings"]]
    if shadow and shadow["findings"]:
        findings.append("neighbour_sum: %d racecheck findings" % shadow["findings"])
    for finding in findings:
        print("\nUNEXPECTED FINDING " + finding, file=sys.stderr)
    if args.write:
        write_section(args.output, markdown(results, shadow, targets, machine_info(), rounds,
                                            workers))
        print("\nwrote", args.output)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
