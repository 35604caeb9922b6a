"""simt's debugger in Jupyter, without a notebook: a script stands in for ipykernel (an IPython
module whose shell has a kernel; input() replaced as the kernel replaces it, to forward it to the
frontend; stdin no terminal) and checks that breakpoint() in a kernel and the %simt_debug magic
read their commands through input(). With IPython installed, its own InteractiveShell runs a
%simt_debug cell too."""
import pytest

KERNEL = """\
import builtins
import os
import sys
import types

sys.stdin = open(os.devnull)  # as in a Jupyter kernel: no terminal


def typed_in_the_notebook(prompt=""):
    line = TYPED.pop(0)
    print(prompt + line)  # as the frontend shows it
    return line


builtins.input = typed_in_the_notebook
"""

FAKE_KERNEL = KERNEL + """

class Kernel:
    _allow_stdin = True


class Shell:
    kernel = Kernel()

    def __init__(self):
        self.user_ns, self.magics = {}, {}

    def register_magic_function(self, function, kind, name):
        assert kind == "line_cell"
        self.magics[name] = function

    def run_cell(self, code):
        exec(compile(code, "<cell>", "exec"), self.user_ns)


shell = Shell()
ipython = types.ModuleType("IPython")
ipython.get_ipython = lambda: shell
sys.modules["IPython"] = ipython
import simt  # noqa: E402  in IPython: registers %simt_debug
"""

KERNELS = """\
import numpy as np
from simt import cuda


@cuda.jit
def doubled(x):
    i = cuda.grid(1)
    if i == 3:
        breakpoint()
    x[i] = i * 2
"""


def _run(python, tmp_path, head, cells):
    (tmp_path / "kernels.py").write_text(KERNELS)
    (tmp_path / "notebook.py").write_text(head + cells)
    proc = python(["notebook.py"], cwd=tmp_path, env={"HOME": str(tmp_path)}, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def test_breakpoint_and_the_magic_read_input_in_a_notebook(python, tmp_path):
    proc = _run(python, tmp_path, FAKE_KERNEL, """
from kernels import doubled, np

# A cell calling a kernel that calls breakpoint(): the debugger opens there.
TYPED = ["p i", "continue"]
x = np.zeros(4)
doubled[1, 4](x)
print("x =", x.tolist())

# %simt_debug: each launch stops at its start; the same commands as on a terminal.
TYPED = ["break kernels.py:10 if i == 1", "continue", "p i", "delete", "continue", "continue"]
shell.user_ns.update(doubled=doubled, x=np.zeros(4))
shell.magics["simt_debug"]("doubled[1, 4](x)")
print("typed left:", TYPED)

# The cell magic; after it, kernels without breakpoint() run as usual.
TYPED = ["p cuda.blockDim.x", "continue", "continue"]
shell.magics["simt_debug"]("", "doubled[1, 4](x)\\nprint('x =', x.tolist())")

# A frontend that takes no input: the debugger says so once and the kernel runs on.
shell.kernel._allow_stdin = False
doubled[1, 4](x)
print("done")
""")
    assert proc.stdout.splitlines() == [
        "Thread (3,0,0) block (0,0,0) called breakpoint() (Breakpoint 1), doubled "
        "(x=float64[::1]) at kernels.py:9",
        "9\t        breakpoint()",
        "(simt) p i",
        "$1 = 3 (int32)",
        "(simt) continue",
        "x = [0.0, 2.0, 4.0, 6.0]",
        "Kernel doubled launched: grid (1,1,1) block (4,1,1)",
        "Focus on block (0,0,0) thread (0,0,0)",
        "doubled (x=float64[::1]) at kernels.py:7",
        "7\t    i = cuda.grid(1)",
        "(simt) break kernels.py:10 if i == 1",
        "Breakpoint 1 at kernels.py:10",
        "(simt) continue",
        "Thread (1,0,0) block (0,0,0) hit Breakpoint 1, doubled (x=float64[::1]) at "
        "kernels.py:10",
        "10\t    x[i] = i * 2",
        "(simt) p i",
        "$1 = 1 (int32)",
        "(simt) delete",
        "(simt) continue",
        "Thread (3,0,0) block (0,0,0) called breakpoint() (Breakpoint 2), doubled "
        "(x=float64[::1]) at kernels.py:9",
        "9\t        breakpoint()",
        "(simt) continue",
        "typed left: []",
        "Kernel doubled launched: grid (1,1,1) block (4,1,1)",
        "Focus on block (0,0,0) thread (0,0,0)",
        "doubled (x=float64[::1]) at kernels.py:7",
        "7\t    i = cuda.grid(1)",
        "(simt) p cuda.blockDim.x",
        "$1 = 4 (int32)",
        "(simt) continue",
        "Thread (3,0,0) block (0,0,0) called breakpoint() (Breakpoint 1), doubled "
        "(x=float64[::1]) at kernels.py:9",
        "9\t        breakpoint()",
        "(simt) continue",
        "x = [0.0, 2.0, 4.0, 6.0]",
        "done"]
    assert proc.stderr.splitlines()[-1:] == [
        "simt: breakpoint() in kernel doubled at kernels.py:9 ignored: this notebook's frontend "
        "takes no input"]


def test_quit_ends_the_magic_and_later_cells_debug_afresh(python, tmp_path):
    proc = _run(python, tmp_path, FAKE_KERNEL, """
from kernels import doubled, np

TYPED = ["quit", "continue"]
shell.user_ns.update(doubled=doubled, x=np.zeros(4))
try:
    shell.magics["simt_debug"]("doubled[1, 4](x)")
except SystemExit as stop:
    print("the cell ended:", repr(stop))
doubled[1, 4](np.zeros(4))
print("typed left:", TYPED)
""")
    lines = proc.stdout.splitlines()
    assert lines[4:6] == ["(simt) quit", "the cell ended: SystemExit(0)"]
    assert lines[-1] == "typed left: []"  # the later breakpoint() stopped in a fresh session


def test_the_magic_in_ipython(python, tmp_path):
    pytest.importorskip("IPython", reason="IPython is not installed for this Python")
    proc = _run(python, tmp_path, KERNEL, """
from IPython.core.interactiveshell import InteractiveShell


class Kernel:  # what ipykernel's shell has: input() is forwarded to the frontend
    _allow_stdin = True


shell = InteractiveShell.instance()
shell.kernel = Kernel()
shell.run_line_magic("load_ext", "simt")
shell.run_cell("from kernels import doubled, np\\nx = np.zeros(4)")
TYPED = ["p cuda.blockDim.x", "continue", "continue"]
shell.run_cell("%simt_debug doubled[1, 4](x)")
shell.run_cell("print('x =', x.tolist())")
""")
    lines = proc.stdout.splitlines()
    assert lines[0] == "Kernel doubled launched: grid (1,1,1) block (4,1,1)", proc.stdout
    assert "$1 = 4 (int32)" in lines and lines[-1] == "x = [0.0, 2.0, 4.0, 6.0]", proc.stdout
