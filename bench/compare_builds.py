#!/usr/bin/python3
"""Two builds of simt side by side: the guard of a change that must not change speed (a
refactor). Each round runs, for both builds in turn (the order alternating between rounds), the
bench kernels' release launches (bench/run.py's simt worker: per-thread ns of the full level's
code, steady state) and a fresh process's compile of each kernel with no cache
(bench/compile_latency.py's worker, default tiers); the table gives each number's median over the
rounds and the head/base ratio. Results are checked against NumPy in every run.

    bench/compare_builds.py --base /tmp/base/build/python [--head build/python] [--rounds 5]
                            [--write]

--write puts the table in the "## Refactor guard" section of docs/benchmarks.md.
"""
import argparse
import json
import os
import statistics
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

import compile_latency  # noqa: E402
import run as bench_run  # noqa: E402
from check_overhead import write_section  # noqa: E402

SECTION = "## Refactor guard"
SIZES = {"vector_add": 1 << 20, "matmul": 256, "reduction": 1 << 20}
REPEATS = 10


def release_ns(stage, kernel):
    """Per-thread ns of `kernel`'s best steady-state release launch under the build `stage`."""
    problem = bench_run.Problem(kernel, SIZES[kernel])
    result = bench_run.run_worker("simt", kernel, problem.size, problem.full_blocks, REPEATS, 1.0,
                                  bench_run.simt_env(stage))
    return result["best_s"] / result["threads"] * 1e9


def compile_ms(stage):
    """Milliseconds of each kernel's first compile in a fresh process with no cache."""
    worker = compile_latency.WORKER % {"bench": BENCH, "trivial": compile_latency.TRIVIAL}
    sample = json.loads(compile_latency.run(worker, stage, {"SIMT_CACHE": "0"}))
    return {name: sample[name] for name in compile_latency.KERNELS}


def one_round(stage):
    numbers = {"%s ns/thread" % k: release_ns(stage, k) for k in bench_run.KERNELS}
    numbers.update({"%s compile ms" % k: ms for k, ms in compile_ms(stage).items()})
    return numbers


def measure(stages, rounds):
    """{build: {measure: [values]}}, the builds taking turns to go first."""
    samples = {name: {} for name in stages}
    for index in range(rounds):
        order = list(stages) if index % 2 == 0 else list(reversed(stages))
        for name in order:
            for key, value in one_round(stages[name]).items():
                samples[name].setdefault(key, []).append(value)
        print("round %d of %d done" % (index + 1, rounds), file=sys.stderr, flush=True)
    return samples


def table(samples, rounds, base_label, head_label):
    lines = [SECTION, "",
             "`bench/compare_builds.py`: %s against %s, the median of %d rounds that alternate "
             "which build goes first (release: best steady-state launch per thread of the full "
             "level's code; compile: a fresh process, no cache, default tiers). A ratio near 1 "
             "is noise; this machine is shared." % (head_label, base_label, rounds), "",
             "| measure | base | head | head / base |", "|---|---|---|---|"]
    for key in samples["base"]:
        base = statistics.median(samples["base"][key])
        head = statistics.median(samples["head"][key])
        lines.append("| %s | %.2f | %.2f | %.2f |" % (key, base, head, head / base))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the base build's staged python folder")
    parser.add_argument("--head", default=os.path.join(ROOT, "build", "python"),
                        help="the changed build's staged python folder")
    parser.add_argument("--base-label", default="base", help="names the base build (a commit)")
    parser.add_argument("--head-label", default="head", help="names the changed build")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--write", action="store_true",
                        help="update the '%s' section of docs/benchmarks.md" % SECTION[3:])
    args = parser.parse_args()
    stages = {"base": os.path.abspath(args.base), "head": os.path.abspath(args.head)}
    samples = measure(stages, args.rounds)
    section = table(samples, args.rounds, args.base_label, args.head_label)
    print(section)
    if args.write:
        write_section(os.path.join(ROOT, "docs", "benchmarks.md"), section)


if __name__ == "__main__":
    main()
