#!/usr/bin/python3
"""A CI suite of small kernels, run as a user's CI runs it: Numba's own CUDA test files
(numba/cuda/tests/cudapy/test_*.py), one pytest process per file, under Numba's simulator
(NUMBA_ENABLE_CUDASIM=1) and under simt with a cold compile cache (a fresh SIMT_CACHE_DIR) and then
a warm one (the same directory again). The totals count the files that pass under both simulators
(no failure, no error, pytest's exit status 0), all in one run of this script.

    bench/ci_suite.py                      # every cudapy test file
    bench/ci_suite.py test_laplace test_sm # some of them
    bench/ci_suite.py --stage build/python --timeout 300
    bench/ci_suite.py --one-process --rounds 3   # numba.runtests numba.cuda.tests, one process

--one-process times `python3 -m numba.runtests numba.cuda.tests` (all five folders in one
process) under simt and under Numba's simulator, side by side in each round, and prints the
medians (issue 10's target: simt's run takes less time than the simulator's); then both again on
just the tests the simulator passed in that round (the same work on both).
"""
import argparse
import importlib.util
import os
import subprocess
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)


def numba_suite():
    """tests/numba_suite/run.py: how the compatibility suite finds and runs Numba's test files."""
    spec = importlib.util.spec_from_file_location(
        "numba_suite", os.path.join(REPO, "tests", "numba_suite", "run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_file(suite, path, root, env, timeout, collect_only=False):
    """(passed cleanly, wall seconds) of one pytest process over `path`; `collect_only`: the
    process only imports the file and collects its tests (Python, pytest, Numba and the file's
    own imports: what a process costs before any kernel compiles or runs)."""
    command = [suite.PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", root,
               "-c", os.devnull, "--confcutdir", root, path] + (
                   ["--collect-only"] if collect_only else [])
    start = time.monotonic()
    try:
        proc = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, time.monotonic() - start
    seconds = time.monotonic() - start
    if collect_only:
        return proc.returncode == 0, seconds
    counts = suite.summary_counts(proc.stdout)
    return (proc.returncode == 0 and counts["failed"] == 0 and counts["errors"] == 0
            and counts["passed"] > 0), seconds


def one_process(suite, stage, rounds, timeout):
    """Medians over `rounds` side-by-side rounds of numba.runtests in one process, printed: simt's
    and Numba's simulator's runs of the whole suite, and of the same tests (those the simulator
    passed in the round's whole run): (tests passed, seconds) each."""
    import statistics
    labels = ("simt, whole suite", "Numba's simulator, whole suite",
              "simt, the tests the simulator passes", "Numba's simulator, the same tests")
    runs = {label: [] for label in labels}
    with tempfile.TemporaryDirectory(prefix="simt-ci-suite-") as hook_dir, \
            tempfile.TemporaryDirectory(prefix="simt-ci-suite-sim-") as plain_dir:
        with open(os.path.join(hook_dir, "sitecustomize.py"), "w") as f:
            f.write(suite.HOOK)
        for _ in range(rounds):
            *_, seconds, simulator_passed = suite.run_one_process(plain_dir, stage, timeout, True)
            runs[labels[1]].append((len(simulator_passed), seconds))
            _, passed, _, seconds, _ = suite.run_one_process(hook_dir, stage, timeout)
            runs[labels[0]].append((passed, seconds))
            for label, run_dir, simulator in ((labels[2], hook_dir, False),
                                              (labels[3], plain_dir, True)):
                *_, seconds, passed_ids = suite.run_one_process(run_dir, stage, timeout, simulator,
                                                               simulator_passed)
                runs[label].append((len(passed_ids), seconds))
    print("| run | tests passed | median s | rounds s |")
    print("|---|---|---|---|")
    for label, results in runs.items():
        print("| %s | %d | %.1f | %s |" % (
            label, statistics.median(p for p, _ in results),
            statistics.median(s for _, s in results), ", ".join("%.1f" % s for _, s in results)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="test file names (test_sm) or paths")
    parser.add_argument("--stage", default=os.path.join(REPO, "build", "python"),
                        help="the folder holding the built simt package")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per file and run")
    parser.add_argument("--one-process", action="store_true",
                        help="time numba.runtests numba.cuda.tests in one process instead")
    parser.add_argument("--rounds", type=int, default=3, help="--one-process: side-by-side rounds")
    args = parser.parse_args()
    suite = numba_suite()
    if args.one_process:
        one_process(suite, os.path.abspath(args.stage), args.rounds, args.timeout * 4)
        return
    paths = suite.test_files(args.files, suite.numba_cudapy_folder())

    # Bytecode is written and used, as for installed packages.
    base = {k: v for k, v in os.environ.items()
            if k not in ("NUMBA_ENABLE_CUDASIM", "SIMT_ENABLE", "SIMT_CACHE", "SIMT_CACHE_DIR",
                         "SIMT_OPT_TIER", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    results = {}
    with tempfile.TemporaryDirectory(prefix="simt-ci-suite-") as work:
        numba_root = os.path.join(work, "numba")
        simt_root = os.path.join(work, "simt")
        os.mkdir(numba_root)
        os.mkdir(simt_root)
        for name in ("conftest.py", "sitecustomize.py"):
            with open(os.path.join(simt_root, name), "w") as f:
                f.write(suite.HOOK)
        numba_env = dict(base, NUMBA_ENABLE_CUDASIM="1")
        simt_env = dict(base, PYTHONPATH=os.pathsep.join([simt_root, os.path.abspath(args.stage)]),
                        SIMT_CACHE_DIR=os.path.join(work, "cache"))
        runs = (("numba-sim", numba_root, numba_env), ("simt cold", simt_root, simt_env),
                ("simt warm", simt_root, simt_env))
        # One run of every file after another: the warm run finds every file's kernels cached.
        for label, root, env in runs:
            for path in paths:
                results[label, path] = run_file(suite, path, root, env, args.timeout)
        floors = {label: {path: run_file(suite, path, root, env, args.timeout, True)[1]
                          for path in paths} for label, root, env in runs[:2]}

    labels = [label for label, _, _ in runs]
    print("| file | " + " | ".join(label + " s" for label in labels) +
          " | numba-sim collect-only s | simt collect-only s |")
    print("|---|" + "---|" * (len(labels) + 2))
    both = [p for p in paths if results["numba-sim", p][0] and results["simt cold", p][0]
            and results["simt warm", p][0]]
    for path in paths:
        cells = ["%.2f%s" % (results[label, path][1], "" if results[label, path][0] else " (fails)")
                 for label in labels]
        cells += ["%.2f" % floors[label][path] for label in floors]
        print("| %s | %s |" % (os.path.basename(path)[:-3], " | ".join(cells)))
    totals = {label: sum(results[label, p][1] for p in both) for label in labels}
    floor = {label: sum(floors[label][p] for p in both) for label in floors}
    floor["simt warm"] = floor["simt cold"]
    print()
    print("%d of %d files pass under both simulators; their total wall time, and that beyond "
          "each process's collect-only time (starting Python, pytest and Numba, importing the "
          "file):" % (len(both), len(paths)))
    for label in labels:
        beyond, numba_beyond = totals[label] - floor[label], totals["numba-sim"] - floor["numba-sim"]
        print("- %s: %.1f s (%.2fx Numba's simulator); collect-only %.1f s; beyond it %.1f s "
              "(%.2fx)" % (label, totals[label], totals[label] / totals["numba-sim"], floor[label],
                           beyond, beyond / numba_beyond if numba_beyond > 0 else float("nan")))


if __name__ == "__main__":
    main()
