"""The differential cases (diff_cases.py) run under `simt check` (all four checkers, in-order
schedule; and without racecheck, as loops over threads on every worker): each kernel computes
what the release run computes, and shows no finding of any severity except the ones listed in
FINDINGS_BY_DESIGN, each a true positive of its case.

Findings are attributed to a case by their accesses' source lines, which lie inside the case's
function (its kernel is defined there)."""
import inspect
import json
import os

import numpy as np
import pytest

import diff_cases
from conftest import run_python

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "diff_cases.py")

# (tool, severity, kind) of every finding a case shows on purpose. Any other finding, and any
# listed one that goes missing, fails test_findings_are_only_those_by_design.
FINDINGS_BY_DESIGN = {
    # Thread 0 stores 9.0 to the whole last row of `out` while thread 5 (same warp, no syncwarp)
    # stores its own values to that row: a real intra-warp write-write race. The in-order
    # simulators let thread 5 win; a lockstep warp would let thread 0's later store win. One
    # finding per pair of lines (out[5, 0] from `out[i, 0] = ...`, out[5, 1:4] from the tuple
    # slice store).
    "ellipsis_indexing_and_tuple_slice_stores": [
        ("racecheck", "warning", "write-after-write hazard"),
        ("racecheck", "warning", "write-after-write hazard"),
    ],
    # The record dtype [("x", int32), ("y", float64)] is packed (itemsize 12), so recs[2].y lies
    # 4 bytes past a multiple of 8: an 8-byte store there faults on a GPU (misaligned address);
    # so do the reads of rec.y (a GPU copies the record argument to memory of its own, where y
    # sits at byte 4), on both of its lines.
    "record_kernel_argument": [
        ("memcheck", "error", "misaligned read of 8 bytes"),
        ("memcheck", "error", "misaligned read of 8 bytes"),
        ("memcheck", "error", "misaligned write of 8 bytes"),
    ],
}


def _case_lines():
    """{case: (first line, last line)} of each case's function in diff_cases.py."""
    spans = {}
    for name, fn in diff_cases.CASES.items():
        lines, first = inspect.getsourcelines(fn)
        spans[name] = (first, first + len(lines) - 1)
    return spans


def _case_of(finding, spans):
    """The case whose function holds the finding's accesses, or None."""
    owners = set()
    for access in finding["accesses"]:
        if not access["file"] or os.path.abspath(os.path.join(HERE, access["file"])) != SCRIPT:
            return None
        owners |= {name for name, (first, last) in spans.items()
                   if first <= access["line"] <= last}
    return owners.pop() if len(owners) == 1 else None


def _describe(finding):
    where = ", ".join("%s by thread %s at line %d" % (a["action"], a["thread"], a["line"])
                      for a in finding["accesses"])
    return "%s %s: %s %s (%s)" % (finding["tool"], finding["severity"], finding["kind"],
                                  finding["subject"], where)


def _results(path):
    return dict(np.load(path))


def _run_checked(tmp, *options):
    """diff_cases.py run by `simt check` with `options` and a JSON report: (results, report)."""
    out, report = str(tmp / "results.npz"), str(tmp / "report.json")
    proc = run_python(["-m", "simt", "check", "--report", report, "--error-exitcode", "0"]
                      + list(options) + [SCRIPT, out], cwd=HERE)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(report) as f:
        return _results(out), json.load(f)


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    return _run_checked(tmp_path_factory.mktemp("checked"))


@pytest.fixture(scope="module")
def checked_without_racecheck(tmp_path_factory):
    """Without racecheck: kernels as loops over their threads (loop fission across barriers),
    blocks on every worker."""
    return _run_checked(tmp_path_factory.mktemp("checked_loops"), "--tool", "init,sync,mem")


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("release") / "results.npz")
    proc = run_python(["-m", "simt", "run", SCRIPT, out], cwd=HERE, env={"SIMT_CHECK": "0"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return _results(out)


@pytest.fixture(scope="module")
def findings_by_case(checked):
    spans = _case_lines()
    found = {}
    for finding in checked[1]["findings"]:
        found.setdefault(_case_of(finding, spans), []).append(finding)
    return found


def test_every_case_was_launched_checked(checked):
    report = checked[1]
    assert report["tools"] == ["racecheck", "initcheck", "synccheck", "memcheck"]
    assert report["schedule"] == "in-order"
    assert report["launches"] == len(diff_cases.CASES)


def test_every_finding_belongs_to_one_case(findings_by_case):
    assert None not in findings_by_case, [_describe(f) for f in findings_by_case[None]]


def test_cases_by_design_still_exist():
    assert set(FINDINGS_BY_DESIGN) <= set(diff_cases.CASES)


@pytest.mark.parametrize("racecheck", [True, False])
@pytest.mark.parametrize("case", sorted(diff_cases.CASES))
def test_checked_results_equal_release_results(case, racecheck, request, release):
    results = request.getfixturevalue("checked" if racecheck else "checked_without_racecheck")[0]
    assert "%s/error" % case not in results, str(results.get("%s/error" % case))
    keys = sorted(k for k in release if k.startswith(case + "/"))
    assert keys and keys == sorted(k for k in results if k.startswith(case + "/"))
    for key in keys:
        assert results[key].dtype == release[key].dtype, key
        # the checked variant runs the same code, its threads in order: bit for bit the same
        np.testing.assert_array_equal(results[key], release[key], err_msg=key)


@pytest.mark.parametrize("case", sorted(diff_cases.CASES))
def test_findings_are_only_those_by_design(case, findings_by_case):
    found = findings_by_case.get(case, [])
    got = sorted((f["tool"], f["severity"], f["kind"]) for f in found)
    assert got == sorted(FINDINGS_BY_DESIGN.get(case, [])), "\n".join(map(_describe, found))


@pytest.mark.parametrize("case", sorted(diff_cases.CASES))
def test_findings_without_racecheck_are_those_with_it(case, checked_without_racecheck):
    """initcheck, synccheck and memcheck find in the loops variant what they find with every
    thread of a barrier kernel on a fiber."""
    spans = _case_lines()
    found = [f for f in checked_without_racecheck[1]["findings"] if _case_of(f, spans) == case]
    got = sorted((f["tool"], f["severity"], f["kind"]) for f in found)
    assert got == sorted(f for f in FINDINGS_BY_DESIGN.get(case, []) if f[0] != "racecheck"), \
        "\n".join(map(_describe, found))
