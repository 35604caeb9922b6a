"""Shared helpers for the Python tests. Run them against the staged package:
PYTHONPATH=<build>/python /usr/bin/python3 -m pytest tests/python"""
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

# Tests never read or fill the user's compile cache: one fresh cache for the whole session (set
# before simt loads, and inherited by every subprocess the tests start).
_CACHE_DIR = os.environ["SIMT_CACHE_DIR"] = tempfile.mkdtemp(prefix="simt-test-cache-")
# Every kernel a test compiles has its typed IR verified (ir::verify) after the typer.
os.environ["SIMT_VERIFY_IR"] = "1"

import simt  # noqa: E402

# `make test-sanitize` preloads AddressSanitizer's runtime: it reserves terabytes of address space
# (memory limits and mapping counts mean nothing then), and the preload reaches subprocesses such
# as nvcc, which crash under it.
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")
not_under_asan = pytest.mark.skipif(UNDER_ASAN, reason="under make test-sanitize's preloaded ASan")

# The folder holding the staged simt package (and simt-enable.pth).
STAGE = os.path.dirname(os.path.dirname(os.path.abspath(simt.__file__)))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_python(args, env=None, cwd=None, timeout=300):
    """Runs /usr/bin/python3 (this interpreter) with the staged package importable."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = STAGE + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.pop("SIMT_ENABLE", None)
    full_env.pop("SIMT_CHECK", None)
    full_env.pop("NUMBA_ENABLE_CUDASIM", None)
    if "SIMT_BUNDLE" in (env or {}):  # a test's own bundle, not an outer bundling run's layout
        full_env.pop("SIMT_BUNDLE_PER_FILE", None)
    full_env.update(env or {})
    return subprocess.run([sys.executable] + list(args), env=full_env, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def python():
    return run_python


# SIMT_PTX_CHECK=1 (python/simt/tools/ptx_check.py): every kernel the tests compile, in this process
# and in the processes they start, is also compiled for the GPU and assembled by ptxas. The
# outcomes go to one report (SIMT_PTX_CHECK_REPORT, a temporary file unless set); the session
# ends with a section listing the kernels the GPU target refused and those that failed, and fails
# if any failed.
_ptx_report = {}


def pytest_configure(config):
    from simt.tools import ptx_check
    if not ptx_check.enabled():
        return
    report = os.environ.get("SIMT_PTX_CHECK_REPORT")
    if not report:
        report = os.path.join(tempfile.mkdtemp(prefix="simt-ptx-check-"), "report.jsonl")
        os.environ["SIMT_PTX_CHECK_REPORT"] = report
    # The section below replaces each process' summary line on stderr (which tests of a
    # subprocess' output would also see).
    os.environ["SIMT_PTX_CHECK_QUIET"] = "1"
    _ptx_report["path"] = report
    _ptx_report["offset"] = os.path.getsize(report) if os.path.exists(report) else 0


def _ptx_summary():
    if "path" not in _ptx_report:
        return None
    if "summary" not in _ptx_report:
        from simt.tools import ptx_check
        _ptx_report["summary"] = ptx_check.summarize(
            ptx_check.read_report(_ptx_report["path"], _ptx_report["offset"]))
    return _ptx_report["summary"]


def pytest_unconfigure(config):
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)


def pytest_sessionfinish(session, exitstatus):
    summary = _ptx_summary()
    if summary and summary["failed"] and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    summary = _ptx_summary()
    if summary is None:
        return
    from simt.tools import ptx_check
    terminalreporter.section("simt PTX check (SIMT_PTX_CHECK)")
    for line in ptx_check.report_text(summary).splitlines():
        terminalreporter.line(line)
    terminalreporter.line("report: " + _ptx_report["path"])


def on_small_thread_stack(call, stack_bytes=256 * 1024):
    """Runs call() on a new thread whose stack has `stack_bytes` (launches from such a thread
    must not put large local arrays on its stack)."""
    import threading

    old = threading.stack_size(stack_bytes)
    try:
        worker = threading.Thread(target=call)
        worker.start()
        worker.join()
    finally:
        threading.stack_size(old)
