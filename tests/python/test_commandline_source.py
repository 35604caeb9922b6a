"""Kernels defined in `python3 -c "..."` compile: their source is read from the command line."""
from conftest import run_python

PRINTING_KERNEL = """\
from simt import cuda

@cuda.jit
def hello():
    print(cuda.grid(1), 999, 34.75, "hop!")

hello[1, 2]()
"""


def test_kernels_defined_with_dash_c_compile_and_print():
    proc = run_python(["-c", PRINTING_KERNEL])
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.splitlines()) == ["0 999 34.750000 hop!", "1 999 34.750000 hop!"]


def test_interpreter_options_with_values_before_dash_c_are_skipped():
    proc = run_python(["-W", "error", "-X", "dev", "-c", PRINTING_KERNEL])
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.splitlines()) == ["0 999 34.750000 hop!", "1 999 34.750000 hop!"]


def test_functions_made_by_exec_compile_once_simt_is_imported():
    # exec() of a string after simt.cuda is imported keeps the text (simt/base/exec_source.py); a
    # function made before has no source anywhere.
    code = ("exec('def early(a):\\n    a[0] = 1\\n')\n"
            "from simt import cuda\n"
            "exec('def k(a):\\n    a[0] = 2\\n')\n"
            "import numpy as np\n"
            "a = np.zeros(1)\n"
            "cuda.jit(k)[1, 1](a)\n"
            "print(a[0])\n"
            "try:\n"
            "    cuda.jit(early)[1, 1](a)\n"
            "except cuda.CompileError as e:\n"
            "    print(e)\n")
    proc = run_python(["-c", code])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "2.0"
    assert "cannot read the source of 'early'" in proc.stdout
