#!/usr/bin/python3
"""Runs Numba's own CUDA test files (numba/cuda/tests/cudapy/test_*.py) on simt and prints a table
of the results per file: a tool for measuring compatibility, not part of `make test`.

Each file runs in its own pytest subprocess with the import hook installed by a sitecustomize
module, so the Python subprocesses that some tests start (test_print) run on simt too.

    tests/numba_suite/run.py                    # every cudapy test file
    tests/numba_suite/run.py test_atomics test_print
    tests/numba_suite/run.py --stage build/python --timeout 300 test_math
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


def numba_cudapy_folder():
    out = subprocess.run([PYTHON, "-c", "import numba, os; print(os.path.dirname(numba.__file__))"],
                         capture_output=True, text=True, check=True).stdout.strip()
    return os.path.join(out, "cuda", "tests", "cudapy")


def test_files(names, folder):
    if not names:
        return sorted(glob.glob(os.path.join(folder, "test_*.py")))
    paths = []
    for name in names:
        path = name if os.path.sep in name else os.path.join(
            folder, name if name.endswith(".py") else name + ".py")
        if not os.path.exists(path):
            sys.exit("run.py: no such test file: %s" % path)
        paths.append(path)
    return paths


def summary_counts(output):
    """The counts from pytest's last summary line ("3 failed, 17 passed, 1 skipped in 0.7s")."""
    counts = dict.fromkeys(COUNTS, 0)
    lines = [line for line in output.splitlines() if re.search(r" in [\d.]+s", line)]
    if lines:
        for number, word in re.findall(r"(\d+) (\w+)", lines[-1]):
            word = {"error": "errors"}.get(word, word)
            if word in counts:
                counts[word] = int(number)
    return counts


def run_file(path, hook_dir, stage, timeout):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([hook_dir, stage, env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    command = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", hook_dir,
               "-c", os.devnull, "--confcutdir", hook_dir, path]
    start = time.monotonic()
    try:
        proc = subprocess.run(command, cwd=hook_dir, env=env, capture_output=True, text=True,
                              timeout=timeout)
        counts = summary_counts(proc.stdout)
        note = "" if any(counts.values()) else "no summary (exit %d)" % proc.returncode
    except subprocess.TimeoutExpired:
        counts, note = dict.fromkeys(COUNTS, 0), "timed out after %ds" % timeout
    return counts, time.monotonic() - start, note


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="test file names (test_atomics) or paths")
    parser.add_argument("--stage", default=os.path.join(REPO, "build", "python"),
                        help="the folder holding the built simt package")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per file")
    args = parser.parse_args()

    paths = test_files(args.files, numba_cudapy_folder())
    totals = dict.fromkeys(COUNTS, 0)
    header = "%-40s" % "file" + "".join("%9s" % c for c in COUNTS) + "%9s" % "seconds"
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory(prefix="simt-numba-suite-") as hook_dir:
        for name in ("conftest.py", "sitecustomize.py"):
            with open(os.path.join(hook_dir, name), "w") as f:
                f.write(HOOK)
        for path in paths:
            counts, seconds, note = run_file(path, hook_dir, os.path.abspath(args.stage),
                                             args.timeout)
            for c in COUNTS:
                totals[c] += counts[c]
            print("%-40s" % os.path.basename(path)[:-3] + "".join("%9d" % counts[c]
                                                                 for c in COUNTS)
                  + "%9.1f" % seconds + ("  " + note if note else ""), flush=True)
    print("-" * len(header))
    print("%-40s" % "total" + "".join("%9d" % totals[c] for c in COUNTS))


if __name__ == "__main__":
    main()
