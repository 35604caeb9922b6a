"""simt's debugger in pytest: `pytest --simt-debug` stops post-mortem at a kernel fault (on a
terminal, with capture on), `simt debug -m pytest` stops at each launch, and SIMT_DEBUG=1 under
pytest's capture says once that it cannot prompt and lets the kernels run. pytest runs in a
subprocess on a small suite; its terminal is a pseudo-terminal (pty_terminal.py)."""
import pytest

from pty_terminal import PROMPT, Terminal

SUITE = """\
import numpy as np
from numba import cuda


@cuda.jit
def reciprocal(x):
    i = cuda.grid(1)
    if i > x.shape[0]:
        return
    x[i] = 1 / x[i]


def test_reciprocal():
    print("printed by the test, captured")
    x = np.arange(1, 11, dtype=np.float64)
    reciprocal[1, 32](x)


def test_after():
    x = np.arange(1, 33, dtype=np.float64)
    reciprocal[1, 32](x)
    assert x[1] == 0.5
"""
PYTEST = ["-m", "pytest", "-q", "-p", "no:cacheprovider"]
FAULT = ["Thread (10,0,0) block (0,0,0) faulted: IndexError: index 10 is out of bounds for axis 0 "
         "with size 10",
         "reciprocal (x=float64[::1]) at test_reciprocal.py:10",
         "10\t    x[i] = 1 / x[i]",
         PROMPT]


@pytest.fixture
def terminal(tmp_path):
    (tmp_path / "test_reciprocal.py").write_text(SUITE)
    opened = []

    def start(args):
        opened.append(Terminal(args, tmp_path, tmp_path))
        return opened[-1]

    yield start
    for term in opened:
        term.close()


def test_simt_debug_stops_post_mortem_at_a_kernel_fault(terminal):
    term = terminal(PYTEST + ["--simt-debug"])
    assert term.read_until(PROMPT).splitlines()[-4:] == FAULT
    assert term.command("bt") == ["*#0  reciprocal (x=float64[::1]) at test_reciprocal.py:10"]
    assert term.command("p i") == ["$1 = 10 (int32)"]
    term.send("continue")
    rest = term.rest()
    # The test fails with the kernel's exception, its print still captured; the next test runs.
    assert "FAILED test_reciprocal.py::test_reciprocal - IndexError" in rest, rest
    assert "printed by the test, captured" in rest.split("Captured stdout call")[1], rest
    assert "1 failed, 1 passed" in rest, rest
    assert term.wait() == 1


def test_quit_in_the_debugger_ends_the_test_run(terminal):
    term = terminal(PYTEST + ["--simt-debug"])
    term.read_until(PROMPT)
    term.send("quit")
    rest = term.rest()
    assert "Exit: quit in simt's debugger" in rest and "passed" not in rest, rest
    assert term.wait() == 2  # Interrupted, as --pdb's quit


def test_simt_debug_runs_pytest_as_a_module(terminal):
    term = terminal(["-m", "simt", "debug"] + PYTEST + ["-x"])
    launch = term.read_until(PROMPT).splitlines()[-5:]
    assert launch[:2] == ["Kernel reciprocal launched: grid (1,1,1) block (32,1,1)",
                          "Focus on block (0,0,0) thread (0,0,0)"]
    assert term.command("continue")[-3:] == FAULT[:3]
    term.send("continue")
    rest = term.rest()
    assert "1 failed" in rest and "stopping after 1 failures" in rest, rest
    assert term.wait() == 1


def test_simt_debug_environment_variable_under_capture_runs_on(python, tmp_path):
    (tmp_path / "test_reciprocal.py").write_text(SUITE)
    proc = python(PYTEST + ["--simt"], cwd=tmp_path, env={"SIMT_DEBUG": "1"}, timeout=120)
    assert "1 failed, 1 passed" in proc.stdout, proc.stdout + proc.stderr
    # Once, as a warning pytest lists (also for tests that passed).
    said = [line for line in proc.stdout.splitlines() if "cannot stop kernel" in line]
    assert len(said) == 1 and said[0].endswith(
        "RuntimeWarning: simt: the debugger cannot stop kernel reciprocal (it and later kernels "
        "run on): pytest captures stdin (pytest --simt-debug, or simt debug -m pytest, debugs "
        "with capture on)"), proc.stdout


def test_minus_m_needs_a_module(python):
    for command in ("run", "debug", "check"):
        proc = python(["-m", "simt", command, "-m"])
        assert proc.returncode == 2 and proc.stderr.startswith("simt: -m needs a module\n"), \
            (command, proc.stderr)
