"""SIMT_CRASH_LOG (pybind/abort_log.h): an abort() in a process that imported simt appends the
aborting thread's native backtrace to the file, and the process still ends by SIGABRT, with
Python's faulthandler still printing its tracebacks."""
import signal

from conftest import run_python


def test_an_abort_leaves_its_backtrace_in_the_crash_log(tmp_path):
    log = tmp_path / "crash.log"
    proc = run_python(["-X", "faulthandler", "-c", "import simt._simt, os; os.abort()"],
                      env={"SIMT_CRASH_LOG": str(log)})
    assert proc.returncode == -signal.SIGABRT
    assert "Fatal Python error: Aborted" in proc.stderr  # faulthandler ran too
    text = log.read_text()
    assert text.startswith("simt: SIGABRT in process ")
    assert "; its native backtrace:\n" in text
    assert "abort" in text  # libc's frames, by their symbols


def test_without_the_variable_nothing_is_written(tmp_path):
    proc = run_python(["-c", "import simt._simt, os; os.abort()"], cwd=str(tmp_path),
                      env={"SIMT_CRASH_LOG": ""})
    assert proc.returncode == -signal.SIGABRT
    assert list(tmp_path.iterdir()) == []
