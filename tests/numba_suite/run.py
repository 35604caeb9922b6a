#!/usr/bin/python3
"""Runs Numba's own CUDA test files (numba/cuda/tests/{cudapy,cudadrv,doc_examples,cudasim,
nocuda}/test_*.py) on simt and prints a table of the results per file: a tool for measuring
compatibility, not part of `make test`.

Each file runs in its own pytest subprocess with the import hook installed by a sitecustomize
module, so the Python subprocesses that some tests start (test_print) run on simt too. With
--compare each file also runs under Numba's simulator (NUMBA_ENABLE_CUDASIM=1), and the tests that
pass there but not on simt are listed.

    tests/numba_suite/run.py                    # every test file of the five folders
    tests/numba_suite/run.py --folders cudapy --compare
    tests/numba_suite/run.py test_atomics test_print
    tests/numba_suite/run.py --stage build/python --timeout 300 test_math
    tests/numba_suite/run.py --one-process --compare   # numba.runtests in one process
    tests/numba_suite/run.py --python /tmp/venv-nc/bin/python --folders cudadrv --compare

--python runs another interpreter's host (a venv of scripts/host_venv.sh): with numba-cuda, its
numba_cuda/numba/cuda/tests, compared with numba-cuda's simulator.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON = "/usr/bin/python3"
COUNTS = ("passed", "failed", "errors", "skipped", "xfailed")
HOOK = "import simt.hook\nsimt.hook.install()\n"
# What a numba-cuda host's test processes and the processes they start also import (see it).
NUMBA_CUDA_SITE = "import numba_cuda_plugin\n"
FOLDERS = ("cudapy", "cudadrv", "doc_examples", "cudasim", "nocuda")
NUMBA_CUDA_FOLDERS = FOLDERS + ("core", "nrt")
SUITE_DIR = os.path.dirname(os.path.abspath(__file__))
OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS) (\S+::\S+)")


def host_of(stage):
    """(the host's numba.cuda tests folder, whether the host is numba-cuda), as simt.base.host finds
    them under PYTHON."""
    script = ("import sys, os; sys.path.insert(0, sys.argv[1]); from simt import host; "
              "print(os.path.join(host.cuda_folder(), 'tests')); print(host.is_numba_cuda())")
    out = subprocess.run([PYTHON, "-c", script, stage], capture_output=True, text=True,
                         check=True).stdout.split()
    return out[0], out[1] == "True"


def pytest_options(numba_cuda):
    """numba-cuda's test files live inside its package, beside no conftest.py: they import as
    modules of numba.cuda.tests (not as top-level modules of a folder pytest adds to sys.path)
    with the plugin that stands in for numba-cuda's conftest.py."""
    return ["--import-mode=importlib", "-p", "numba_cuda_plugin"] if numba_cuda else []


def test_files(names, tests, folders):
    if not names:
        return [path for folder in folders
                for path in sorted(glob.glob(os.path.join(tests, folder, "test_*.py")))]
    paths = []
    for name in names:
        candidates = [name] if os.path.sep in name else [
            os.path.join(tests, folder, name if name.endswith(".py") else name + ".py")
            for folder in folders]
        found = [path for path in candidates if os.path.exists(path)]
        if not found:
            sys.exit("run.py: no such test file: %s" % name)
        paths.append(found[0])
    return paths


def summary_counts(output, words=COUNTS):
    """The counts from pytest's last summary line ("3 failed, 17 passed, 1 skipped in 0.7s")."""
    counts = dict.fromkeys(words, 0)
    lines = [line for line in output.splitlines() if re.search(r" in [\d.]+s", line)]
    if lines:
        for number, word in re.findall(r"(\d+) (\w+)", lines[-1]):
            word = {"error": "errors"}.get(word, word)
            if word in counts:
                counts[word] = int(number)
    return counts


def environment(run_dir, stage, simulator):
    """The environment of a run on simt (the hook in run_dir, the package in stage) or on
    Numba's simulator (with this folder's pytest plugins importable)."""
    env = dict(os.environ)
    for name in ("SIMT_ENABLE", "SIMT_CHECK"):
        env.pop(name, None)
    folders = [run_dir, stage, SUITE_DIR] if not simulator else [run_dir, SUITE_DIR]
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    else:
        env.pop("NUMBA_ENABLE_CUDASIM", None)
        env["SIMT_VERIFY_IR"] = "1"  # every kernel's typed IR verified after the typer
    env["PYTHONPATH"] = os.pathsep.join(folders + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def run_file(path, run_dir, stage, timeout, simulator=False, log=None, options=()):
    """(counts, seconds, note, {test id in the file: outcome}) of one test file: on simt (the
    hook in run_dir), or on Numba's simulator (run_dir without it). pytest's output goes to the
    file log too, where one is named."""
    env = environment(run_dir, stage, simulator)
    command = [PYTHON, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "--rootdir",
               run_dir, "-c", os.devnull, "--confcutdir", run_dir, *options, path]
    start = time.monotonic()
    outcomes = {}
    try:
        proc = subprocess.run(command, cwd=run_dir, env=env, capture_output=True, text=True,
                              timeout=timeout)
        counts = summary_counts(proc.stdout)
        if log:
            with open(log, "w") as f:
                f.write(proc.stdout + proc.stderr)
        note = "" if any(counts.values()) else "no summary (exit %d)" % proc.returncode
        for line in proc.stdout.splitlines():
            found = OUTCOME.match(line)
            if found:
                outcomes[found.group(2).partition("::")[2]] = found.group(1)
    except subprocess.TimeoutExpired:
        counts, note = dict.fromkeys(COUNTS, 0), "timed out after %ds" % timeout
    return counts, time.monotonic() - start, note, outcomes


RUNTESTS_SUMMARY = re.compile(r"^Ran (\d+) tests? in ([\d.]+)s")
RUNTESTS_COUNTS = re.compile(r"(failures|errors|skipped|expected failures|unexpected successes)="
                             r"(\d+)")


# `numba.runtests -v` names each test "test_x (package.module.Class.test_x)" (a docstring's first
# line may follow on the next line), then its outcome after " ... ", or on a line of its own after
# what the test printed.
RUNTESTS_TEST = re.compile(r"^(\w+) \(([\w.]+)\)")
RUNTESTS_OUTCOME = re.compile(r"(?: \.\.\. |^)(ok|FAIL|ERROR|skipped|expected failure|"
                              r"unexpected success)\b")


def passed_test_ids(output):
    """The ids of the tests `numba.runtests -v` reports ok, in the order they ran."""
    passed, current = [], None
    for line in output.splitlines():
        named = RUNTESTS_TEST.match(line)
        if named:
            current = named.group(2)
            if not current.endswith("." + named.group(1)):
                current += "." + named.group(1)
        outcome = RUNTESTS_OUTCOME.search(line)
        if current and outcome:
            if outcome.group(1) == "ok":
                passed.append(current)
            current = None
    return passed


def run_one_process(run_dir, stage, timeout, simulator=False, tests=("numba.cuda.tests",)):
    """(tests run, passed, {outcome: count}, seconds, ids of the tests passed) of `python3 -m
    numba.runtests -v` over `tests` (test ids or packages) in one process: on simt (the hook in
    run_dir), or on Numba's simulator."""
    env = environment(run_dir, stage, simulator)
    start = time.monotonic()
    proc = subprocess.run([PYTHON, "-m", "numba.runtests", "-v"] + list(tests), cwd=run_dir,
                          env=env, capture_output=True, text=True, timeout=timeout)
    seconds = time.monotonic() - start
    ran, counts = 0, {}
    for line in proc.stderr.splitlines():
        found = RUNTESTS_SUMMARY.match(line)
        if found:
            ran = int(found.group(1))
        if line.startswith(("FAILED (", "OK (")):
            counts = {name: int(n) for name, n in RUNTESTS_COUNTS.findall(line)}
    return ran, ran - sum(counts.values()), counts, seconds, passed_test_ids(proc.stderr)


def one_process(args):
    with tempfile.TemporaryDirectory(prefix="simt-numba-suite-") as hook_dir, \
            tempfile.TemporaryDirectory(prefix="simt-numba-suite-sim-") as plain_dir:
        with open(os.path.join(hook_dir, "sitecustomize.py"), "w") as f:
            f.write(HOOK)
        runs = [("simt", hook_dir, False)] + ([("Numba's simulator", plain_dir, True)]
                                              if args.compare else [])
        for label, run_dir, simulator in runs:
            ran, passed, counts, seconds, _ = run_one_process(
                run_dir, os.path.abspath(args.stage), args.timeout * 4, simulator)
            print("numba.runtests numba.cuda.tests on %s: %d tests, %d passed (%s), %.1f s"
                  % (label, ran, passed, ", ".join("%s %d" % kv for kv in sorted(counts.items())),
                     seconds), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="test file names (test_atomics) or paths")
    parser.add_argument("--python", default="/usr/bin/python3",
                        help="the interpreter whose numba.cuda host runs (default: %(default)s)")
    parser.add_argument("--stage", default=os.path.join(REPO, "build", "python"),
                        help="the folder holding the built simt package")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per file")
    parser.add_argument("--folders",
                        help="folders of numba/cuda/tests (default: %s; numba-cuda's also %s)"
                        % (",".join(FOLDERS), ",".join(NUMBA_CUDA_FOLDERS[len(FOLDERS):])))
    parser.add_argument("--compare", action="store_true",
                        help="also run each file under Numba's simulator")
    parser.add_argument("--logs", help="a folder to keep each file's pytest output in (simt's)")
    parser.add_argument("--one-process", action="store_true",
                        help="run numba.runtests numba.cuda.tests in one process instead")
    args = parser.parse_args()
    global PYTHON
    PYTHON = args.python
    if args.one_process:
        one_process(args)
        return
    if args.logs:
        os.makedirs(args.logs, exist_ok=True)

    tests, numba_cuda = host_of(os.path.abspath(args.stage))
    folders = args.folders or ",".join(NUMBA_CUDA_FOLDERS if numba_cuda else FOLDERS)
    paths = test_files(args.files, tests, folders.split(","))
    options = pytest_options(numba_cuda)
    totals = dict.fromkeys(COUNTS, 0)
    simulator_passed = 0
    only_simulator = []  # tests that pass on Numba's simulator but not on simt
    header = "%-40s" % "file" + "".join("%9s" % c for c in COUNTS) + "%9s" % "seconds" + (
        "%11s" % "sim passed" if args.compare else "")
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory(prefix="simt-numba-suite-") as hook_dir, \
            tempfile.TemporaryDirectory(prefix="simt-numba-suite-sim-") as plain_dir:
        for name in ("conftest.py", "sitecustomize.py"):
            with open(os.path.join(hook_dir, name), "w") as f:
                f.write(HOOK + (NUMBA_CUDA_SITE if numba_cuda else ""))
        if numba_cuda:
            with open(os.path.join(plain_dir, "sitecustomize.py"), "w") as f:
                f.write(NUMBA_CUDA_SITE)
        for path in paths:
            name = os.path.join(os.path.basename(os.path.dirname(path)),
                                os.path.basename(path)[:-3])
            log = os.path.join(args.logs, name.replace(os.sep, ".") + ".log") if args.logs else None
            counts, seconds, note, outcomes = run_file(path, hook_dir, os.path.abspath(args.stage),
                                                       args.timeout, log=log, options=options)
            for c in COUNTS:
                totals[c] += counts[c]
            line = "%-40s" % name + "".join("%9d" % counts[c] for c in COUNTS) + "%9.1f" % seconds
            if args.compare:
                sim_log = log and log[:-len(".log")] + ".sim.log"
                sim_counts, _, _, sim_outcomes = run_file(path, plain_dir, None, args.timeout,
                                                          simulator=True, log=sim_log,
                                                          options=options)
                simulator_passed += sim_counts["passed"]
                only_simulator += sorted(
                    name + "::" + test for test, outcome in sim_outcomes.items()
                    if outcome == "PASSED" and outcomes.get(test) != "PASSED")
                line += "%11d" % sim_counts["passed"]
            print(line + ("  " + note if note else ""), flush=True)
    print("-" * len(header))
    print("%-40s" % "total" + "".join("%9d" % totals[c] for c in COUNTS) + "%9s" % "" +
          ("%11d" % simulator_passed if args.compare else ""))
    if args.compare:
        print("\n%d tests pass on Numba's simulator but not on simt%s" % (
            len(only_simulator), ":" if only_simulator else ""))
        for test in only_simulator:
            print("  " + test)


if __name__ == "__main__":
    main()
