"""Kernels of the differential fuzzer (tests/python/fuzz/generate.py) run once under `simt check`
(all four checkers, in-order schedule): no finding of any severity, and the release run's results.

Every generated kernel is race-free and reads only initialised memory by construction, so the
test asserts on every seed:
- each thread stores only to its own row of the outputs (`out_*[i, slot]`, i = cuda.grid(1); the
  grid has exactly one thread per row);
- the accumulators `acc_i`/`acc_f` are only updated by atomics (one operation per row);
- a shared-memory exchange is `sh[tid] = x; syncthreads(); x = sh[(tid + k) % tpb];
  syncthreads()` at the kernel's top level, every thread of the (full) block taking part, and only
  in kernels without early returns;
- the local array `la` is filled before the first statement that reads it; inputs are only read.
"""
import json
import os
import re
import sys

import numpy as np
import pytest

from conftest import run_python

FUZZ = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz")
sys.path.insert(0, FUZZ)
import generate  # noqa: E402

RUNNER = os.path.join(FUZZ, "runner.py")
SEEDS = range(64)


def _write(sources, directory):
    paths = []
    for stem, src in sorted(sources.items()):
        path = os.path.join(str(directory), stem + ".py")
        with open(path, "w") as f:
            f.write(src)
        paths.append(path)
    return paths


def _check(paths, directory):
    """The modules run by `simt check` with a JSON report: (results, report)."""
    out = os.path.join(str(directory), "checked.npz")
    report = os.path.join(str(directory), "report.json")
    proc = run_python(["-m", "simt", "check", "--report", report, "--error-exitcode", "0",
                       RUNNER, out] + paths)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(report) as f:
        return dict(np.load(out)), json.load(f)


def _describe(finding):
    where = ", ".join("%s by thread %s at %s:%d" % (a["action"], a["thread"],
                                                    os.path.basename(a["file"] or "?"), a["line"])
                      for a in finding["accesses"])
    return "%s %s: %s %s (%s)" % (finding["tool"], finding["severity"], finding["kind"],
                                  finding["subject"], where)


@pytest.fixture(scope="module")
def fuzz_run(tmp_path_factory):
    directory = tmp_path_factory.mktemp("fuzz_check")
    paths = _write({"fz_%d" % s: generate.generate(s) for s in SEEDS}, directory)
    results, report = _check(paths, directory)
    release = os.path.join(str(directory), "release.npz")
    proc = run_python(["-m", "simt", "run", RUNNER, release] + paths, env={"SIMT_CHECK": "0"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return results, report, dict(np.load(release))


def test_every_kernel_was_launched_checked(fuzz_run):
    _, report, _ = fuzz_run
    assert report["tools"] == ["racecheck", "initcheck", "synccheck", "memcheck"]
    assert report["launches"] == len(SEEDS)


def test_race_free_kernels_have_no_findings(fuzz_run):
    _, report, _ = fuzz_run
    assert report["findings"] == [], "\n".join(map(_describe, report["findings"]))


def test_checked_results_equal_release_results(fuzz_run):
    results, _, release = fuzz_run
    assert not [k for k in results if k.endswith("/error")]
    assert sorted(results) == sorted(release)
    assert {k.split("/")[0] for k in results} == {"fz_%d" % s for s in SEEDS}
    for key in sorted(results):
        assert results[key].dtype == release[key].dtype, key
        np.testing.assert_array_equal(results[key], release[key], err_msg=key)


def test_generated_exchange_without_barriers_is_reported(tmp_path):
    """The checkers see the generated kernels: one whose shared-memory exchanges lose their
    barriers shows hazards on the shared arrays (racecheck) and reads of elements other threads
    have yet to write (initcheck), and nothing else."""
    seed = next(s for s in SEEDS if "    cuda.syncthreads()\n" in generate.generate(s))
    src = generate.generate(seed).replace("    cuda.syncthreads()\n", "")
    _, report = _check(_write({"fz_racy_%d" % seed: src}, tmp_path), tmp_path)
    assert {f["tool"] for f in report["findings"]} == {"racecheck", "initcheck"}
    for finding in report["findings"]:
        assert re.match(r"(on|of) shared array `sh_[if]`", finding["subject"]), _describe(finding)
