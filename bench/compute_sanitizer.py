#!/usr/bin/python3
"""The tests/check corpus under NVIDIA's compute-sanitizer on a real GPU, for the comparison in
docs/checkers.md: each corpus script runs unchanged with Numba's CUDA target (numba-cuda) under
each of compute-sanitizer's tools (racecheck, initcheck, synccheck, memcheck), and this prints,
per script and tool, the tool's summary line and its first report line.

Needs a machine with an NVIDIA GPU, compute-sanitizer on the PATH (or --sanitizer) and a Python
with numba-cuda; simt is not used. `--log FILE` also writes every run's whole output.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "check")
TOOLS = ("racecheck", "initcheck", "synccheck", "memcheck")
# What a run says when it found something: compute-sanitizer's summaries and report headers.
SUMMARY = re.compile(r"========= (ERROR SUMMARY: .*|RACECHECK SUMMARY: .*)")
REPORT = re.compile(r"========= (Error|Warning|Invalid|Uninitialized|Barrier|Race|Program hit)"
                    r".*")


def run(sanitizer, python, script, tool, timeout):
    command = [sanitizer, "--tool", tool]
    if tool == "racecheck":
        command += ["--racecheck-report", "hazard"]
    command += [python, os.path.basename(script)]
    env = dict(os.environ, NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS="0")
    try:
        done = subprocess.run(command, cwd=CORPUS, capture_output=True, text=True,
                              timeout=timeout, env=env)
        output, status = done.stdout + done.stderr, done.returncode
    except subprocess.TimeoutExpired:
        output, status = "timed out after %g s" % timeout, None
    lines = output.splitlines()
    return {
        "script": os.path.basename(script), "tool": tool, "status": status,
        "summary": [m.group(1) for line in lines for m in [SUMMARY.match(line)] if m],
        "first_report": next((m.group(0)[10:] for line in lines for m in [REPORT.match(line)]
                              if m), ""),
        "output": output,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sanitizer", default="compute-sanitizer")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--log", help="write every run's output here")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    scripts = sorted(glob.glob(os.path.join(CORPUS, "*.py")))
    runs = [(s, t) for s in scripts for t in TOOLS]
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda st: run(args.sanitizer, args.python, st[0], st[1],
                                               args.timeout), runs))
    for r in results:
        print("%-32s %-9s %-4s %s | %s" % (r["script"], r["tool"], r["status"],
                                           "; ".join(r["summary"]), r["first_report"]))
    if args.log:
        with open(args.log, "w") as f:
            for r in results:
                f.write("#### %s --tool %s (exit %s)\n%s\n" % (r["script"], r["tool"],
                                                              r["status"], r["output"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{k: v for k, v in r.items() if k != "output"} for r in results], f,
                      indent=1)


if __name__ == "__main__":
    main()
