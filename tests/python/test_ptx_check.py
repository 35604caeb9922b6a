"""SIMT_PTX_CHECK (python/simt/tools/ptx_check.py): each kernel the simulator compiles is compiled
for the GPU and assembled by ptxas; its outcome is reported. Each case runs in a process of its
own with its own report, so the outcomes made up here never reach the report of a sweep that runs
this file (make test-ptx)."""
import json
import os
import stat
import textwrap

import pytest

from conftest import REPO
from simt.compiler import gpu

PTXAS = gpu.toolkit_program("ptxas")

# A kernel that runs on the simulator and checks its own result.
SCRIPT = """
import numpy as np
import simt.compiler.gpu
from simt import cuda
{setup}

@cuda.jit
def double(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= 2

x = np.arange(8.0)
double[1, 8](x)
assert (x == 2 * np.arange(8.0)).all(), x
print("results ok")
"""


def fake_ptxas(folder, status, message="ptxas fatal   : fake rejection of the PTX"):
    path = os.path.join(str(folder), "ptxas")
    with open(path, "w") as f:
        f.write("#!/bin/sh\necho '%s' >&2\nexit %d\n" % (message, status))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def run_checked(python, tmp_path, setup="", mode="1", env=None):
    """Runs SCRIPT (after `setup`) with SIMT_PTX_CHECK=mode: (process, report records)."""
    script = tmp_path / "script.py"
    script.write_text(SCRIPT.format(setup=textwrap.dedent(setup)))
    report = tmp_path / "report.jsonl"
    full_env = {"SIMT_PTX_CHECK": mode, "SIMT_PTX_CHECK_REPORT": str(report),
                "SIMT_PTX_CHECK_QUIET": "0"}
    full_env.update(env or {})
    proc = python([str(script)], env=full_env)
    records = [json.loads(line) for line in report.read_text().splitlines()] \
        if report.exists() else []
    return proc, records


def test_a_good_kernel_is_reported_ok(python, tmp_path):
    if PTXAS is None:
        pytest.skip("ptxas is not installed (the CUDA toolkit is not at /usr/local/cuda)")
    proc, records = run_checked(python, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "results ok" in proc.stdout
    (record,) = records
    assert record["outcome"] == "ok" and record["assembled"] is True, record
    assert record["name"] == "double" and record["signature"] == "(array(float64, 1d, C))"
    assert record["kernel"].endswith("script.py:7 double(array(float64, 1d, C))")
    assert "simt: PTX check: 1 kernels, 1 ok, 0 refused, 0 failed" in proc.stderr


def test_a_ptxas_rejection_is_a_failure_and_the_kernel_still_runs(python, tmp_path):
    ptxas = fake_ptxas(tmp_path, 1)
    proc, records = run_checked(python, tmp_path,
                                "simt.compiler.gpu.toolkit_program = lambda name: %r" % ptxas)
    assert proc.returncode == 0, proc.stderr
    assert "results ok" in proc.stdout
    (record,) = records
    assert record["outcome"] == "failed" and record["stage"] == "ptxas", record
    assert "ptxas -arch=sm_75: ptxas fatal   : fake rejection" in record["message"]
    assert "ptxas -arch=sm_90" in record["message"]
    assert os.path.exists(record["ptx_file"])  # the rejected PTX is kept beside the report
    assert "1 kernels, 0 ok, 0 refused, 1 failed" in proc.stderr
    assert "simt: PTX check failed: " in proc.stderr and "fake rejection" in proc.stderr


def test_strict_mode_raises_at_once_naming_the_kernel_and_ptxas_message(python, tmp_path):
    ptxas = fake_ptxas(tmp_path, 1)
    proc, records = run_checked(python, tmp_path,
                                "simt.compiler.gpu.toolkit_program = lambda name: %r" % ptxas,
                                mode="strict")
    assert proc.returncode != 0
    assert "results ok" not in proc.stdout
    assert "PtxCheckError: simt: PTX check (SIMT_PTX_CHECK=strict): " in proc.stderr
    assert "double(array(float64, 1d, C)): failed (ptxas)" in proc.stderr
    assert "fake rejection" in proc.stderr
    assert [r["outcome"] for r in records] == ["failed"]


def test_without_ptxas_the_ptx_is_compiled_and_assembly_skipped(python, tmp_path):
    proc, records = run_checked(python, tmp_path,
                                "simt.compiler.gpu.toolkit_program = lambda name: None")
    assert proc.returncode == 0, proc.stderr
    (record,) = records
    assert record["outcome"] == "ok" and record["assembled"] is False
    assert len(record["ptx_sha256"]) == 64  # the PTX was compiled
    assert ("simt: PTX check: ptxas skipped: ptxas is not installed (not on the PATH, in "
            "$CUDA_HOME/bin or /usr/local/cuda/bin); the kernels were compiled to PTX only"
            in proc.stderr)


def test_a_refusal_of_the_gpu_target_is_not_a_failure(python, tmp_path):
    setup = """
    def refuse(*args, **kwargs):
        raise RuntimeError("simt: the debugger's instrumentation is not supported by the GPU "
                           "target yet")
    simt.compiler.ptx.compile_ptx = refuse
    """
    proc, records = run_checked(python, tmp_path, setup, mode="strict")
    assert proc.returncode == 0, proc.stderr
    (record,) = records
    assert record["outcome"] == "refused" and "instrumentation" in record["message"]
    assert "1 kernels, 0 ok, 1 refused, 0 failed" in proc.stderr


def test_a_crash_of_the_gpu_compile_is_a_failure_and_the_process_lives(python, tmp_path):
    setup = """
    import os, sys
    def crash(*args, **kwargs):
        sys.stderr.write("LLVM ERROR: Cannot select: made up\\n")
        sys.stderr.flush()
        os.abort()
    simt.compiler.ptx.compile_ptx = crash
    """
    proc, records = run_checked(python, tmp_path, setup)
    assert proc.returncode == 0, proc.stderr
    assert "results ok" in proc.stdout
    (record,) = records
    assert record["outcome"] == "failed" and record["stage"] == "crash", record
    assert "crashed (SIGABRT)" in record["message"]
    assert "LLVM ERROR: Cannot select: made up" in record["message"]


def test_a_compile_that_does_not_finish_is_stopped(python, tmp_path):
    setup = """
    import time
    simt.compiler.ptx.compile_ptx = lambda *args, **kwargs: time.sleep(60)
    """
    proc, records = run_checked(python, tmp_path, setup, env={"SIMT_PTX_CHECK_TIMEOUT": "0.5"})
    assert proc.returncode == 0, proc.stderr
    assert "results ok" in proc.stdout
    (record,) = records
    assert record["outcome"] == "failed" and record["stage"] == "crash", record
    assert record["message"] == "the GPU compile did not finish in 0.5 s"
    assert record["compile_s"] < 30


def test_the_kernels_own_errors_are_not_swallowed(python, tmp_path):
    script = tmp_path / "faulty.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        from simt import cuda

        @cuda.jit
        def off_by_one(x):
            x[cuda.grid(1)] = 1.0

        off_by_one[1, 9](np.zeros(8))
        """))
    report = tmp_path / "report.jsonl"
    proc = python([str(script)], env={"SIMT_PTX_CHECK": "strict",
                                      "SIMT_PTX_CHECK_REPORT": str(report)})
    assert proc.returncode != 0
    assert "IndexError" in proc.stderr and "index 8 is out of bounds" in proc.stderr
    assert report.exists()


def test_summarize_keeps_the_worst_outcome_per_kernel(tmp_path):
    from simt.tools import ptx_check
    report = tmp_path / "report.jsonl"
    lines = [{"kernel": "a.py:1 k(int32)", "outcome": "ok"},
             {"kernel": "a.py:1 k(int32)", "outcome": "failed", "message": "bad"},
             {"kernel": "b.py:1 k(int32)", "outcome": "refused", "message": "why"},
             {"kernel": "c.py:1 k(int32)", "outcome": "refused", "message": "why"}]
    report.write_text("".join(json.dumps(line) + "\n" for line in lines) + "not json\n")
    summary = ptx_check.summarize(ptx_check.read_report(str(report)))
    assert ptx_check.summary_line(summary) == \
        "simt: PTX check: 3 kernels, 0 ok, 2 refused, 1 failed"
    assert summary["refusals"] == {"why": ["b.py:1 k(int32)", "c.py:1 k(int32)"]}
    assert ptx_check.main([str(report)]) == 1


def test_the_pytest_plugin_lists_failures_and_fails_the_session(python, tmp_path):
    fake_ptxas(tmp_path, 1)
    (tmp_path / "conftest.py").write_text(
        (open(os.path.join(REPO, "tests", "python", "conftest.py")).read()))
    (tmp_path / "test_one.py").write_text(textwrap.dedent("""
        import numpy as np
        from simt import cuda

        def test_runs():
            @cuda.jit
            def triple(x):
                x[0] *= 3
            x = np.ones(1)
            triple[1, 1](x)
            assert x[0] == 3
        """))
    env = {"SIMT_PTX_CHECK": "1", "SIMT_PTX_CHECK_QUIET": "0",
           "SIMT_PTX_CHECK_REPORT": str(tmp_path / "report.jsonl"),
           "PATH": str(tmp_path) + os.pathsep + os.environ.get("PATH", "")}
    proc = python(["-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
                   str(tmp_path / "test_one.py")], env=env, cwd=str(tmp_path))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout
    assert "simt PTX check (SIMT_PTX_CHECK)" in proc.stdout
    assert "simt: PTX check: 1 kernels, 0 ok, 0 refused, 1 failed" in proc.stdout
    assert "triple(array(float64, 1d, C)): failed (ptxas)" in proc.stdout
    assert "fake rejection" in proc.stdout
