#!/usr/bin/python3
"""Runs numba-cuda-mlir's repository test files (test_*.py under the folders given) on simt, one
pytest process per file, and prints a table of the results per file and per folder: a tool for
measuring compatibility, not part of `make test`.

numba-cuda-mlir's wheel ships no tests, so they come from its repository (a checkout, or files
saved from it: docs/compatibility.md names the commit measured). The files run under
NUMBA_ENABLE_CUDASIM=1, which serves numba-cuda-mlir (a host without a simulator) from simt, in a
venv of scripts/host_venv.sh numba-cuda-mlir, with numba_cuda_mlir_plugin.py in place of the
repository's conftest.py.

    tests/numba_suite/mlir_run.py --python build/venv-hosts/numba-cuda-mlir/bin/python \\
        --logs /tmp/mlir-logs CHECKOUT/tests/doc_examples CHECKOUT/tests/numba_cuda_tests
"""
import argparse
import collections
import glob
import os
import subprocess
import sys

SUITE_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, SUITE_DIR)
import run  # noqa: E402  (its pytest output parsing)

REPO = run.REPO
COUNTS = run.COUNTS + ("xpassed",)


def environment(stage):
    env = dict(os.environ)
    for name in ("SIMT_ENABLE", "SIMT_CHECK"):
        env.pop(name, None)
    env["NUMBA_ENABLE_CUDASIM"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([stage, SUITE_DIR])
    return env


def run_file(python, path, stage, timeout, log_dir):
    """(counts, note, failed test ids) of one test file, run from its folder."""
    command = [python, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "-p",
               "numba_cuda_mlir_plugin", "-c", os.devnull, "--rootdir", os.path.dirname(path),
               path]
    try:
        proc = subprocess.run(command, cwd=os.path.dirname(path), env=environment(stage),
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict.fromkeys(COUNTS, 0), "timed out after %ds" % timeout, []
    if log_dir:
        name = path.strip(os.sep).replace(os.sep, "__")
        with open(os.path.join(log_dir, name + ".log"), "w") as f:
            f.write(proc.stdout + proc.stderr)
    counts = run.summary_counts(proc.stdout, COUNTS)
    note = "" if any(counts.values()) else "no summary (exit %d)" % proc.returncode
    failed = [found.group(2) for found in map(run.OUTCOME.match, proc.stdout.splitlines())
              if found and found.group(1) in ("FAILED", "ERROR")]
    return counts, note, failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", help="folders (searched recursively) or files")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter of a numba-cuda-mlir venv")
    parser.add_argument("--stage", default=os.path.join(REPO, "build", "python"),
                        help="the folder holding the built simt package")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per file")
    parser.add_argument("--logs", help="a folder to keep each file's pytest output in")
    args = parser.parse_args()
    if args.logs:
        os.makedirs(args.logs, exist_ok=True)
    paths = []
    for folder in args.folders:
        paths += [folder] if folder.endswith(".py") else sorted(
            glob.glob(os.path.join(folder, "**", "test_*.py"), recursive=True))
    totals = collections.defaultdict(collections.Counter)
    print("| file | " + " | ".join(COUNTS) + " | note |")
    print("|---|" + "---|" * (len(COUNTS) + 1))
    for path in paths:
        counts, note, failed = run_file(os.path.abspath(args.python), os.path.abspath(path),
                                        os.path.abspath(args.stage),
                                        args.timeout, args.logs)
        totals[os.path.basename(os.path.dirname(path))].update(counts)
        print("| %s | %s | %s |" % (os.path.relpath(path), " | ".join(
            str(counts[word]) for word in COUNTS), note), flush=True)
        for test in failed:
            print("|   %s |%s" % (test, " |" * (len(COUNTS) + 1)), flush=True)
    print("\n| folder | " + " | ".join(COUNTS) + " |")
    print("|---|" + "---|" * len(COUNTS))
    for folder, counts in sorted(totals.items()):
        print("| %s | %s |" % (folder, " | ".join(str(counts[word]) for word in COUNTS)))


if __name__ == "__main__":
    main()
