"""The pip route (pyproject.toml), as a user takes it: run by the Python of a virtual environment
that `pip install <checkout>` installed simt into (`make test-pip` does both), not by
`make pytest`. Each check starts that Python, or the `simt` command pip installed beside it, in a
folder outside the checkout, so nothing of the build tree is on the path."""
import os
import subprocess
import sys
import sysconfig
from importlib import metadata

import pytest

# README's example, line for line.
ADD_PY = """\
# add.py — an unmodified Numba CUDA script
import numpy as np
from numba import cuda

@cuda.jit
def add(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = x[i] + y[i]

x = np.arange(10.0)
r = np.zeros_like(x)
add[1, 32](r, x, x)
print(r)
print(cuda.__name__)
"""
ADD_OUTPUT = "[ 0.  2.  4.  6.  8. 10. 12. 14. 16. 18.]\nsimt.cuda\n"
SITE_PACKAGES = sysconfig.get_path("platlib")
SIMT_COMMAND = os.path.join(sysconfig.get_path("scripts"), "simt")


@pytest.fixture
def add_py(tmp_path):
    path = tmp_path / "add.py"
    path.write_text(ADD_PY)
    return path


def run(argv, cwd, **env):
    environment = {k: v for k, v in os.environ.items()
                   if not k.startswith(("SIMT_", "PYTHON", "NUMBA_"))}
    result = subprocess.run(argv, cwd=cwd, env={**environment, **env}, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_the_distribution_is_installed_in_site_packages():
    import simt
    import simt._simt
    assert metadata.version("simt") == simt.__version__
    assert os.path.dirname(simt._simt.__file__) == os.path.join(SITE_PACKAGES, "simt")
    assert os.path.isfile(os.path.join(SITE_PACKAGES, "simt-enable.pth"))
    entry_points = {(e.group, e.name): e.value for e in metadata.distribution("simt").entry_points}
    assert entry_points == {("console_scripts", "simt"): "simt.cli:main",
                            ("pytest11", "simt"): "simt.pytest_plugin"}
    assert os.access(SIMT_COMMAND, os.X_OK)


def test_simt_enable_runs_an_unmodified_script(add_py):
    assert run([sys.executable, add_py.name], add_py.parent, SIMT_ENABLE="1") == ADD_OUTPUT


def test_simt_run(add_py):
    assert run([SIMT_COMMAND, "run", add_py.name], add_py.parent) == ADD_OUTPUT


def test_simt_check(add_py):
    assert ADD_OUTPUT in run([SIMT_COMMAND, "check", add_py.name], add_py.parent)


def test_simt_debug(add_py):
    commands = add_py.parent / "commands.txt"
    commands.write_text("break add.py:9 if i == 3\ncontinue\nprint i\n")
    output = run([SIMT_COMMAND, "debug", "-x", commands.name, "--batch", add_py.name],
                 add_py.parent)
    assert "$1 = 3" in output and output.endswith(ADD_OUTPUT)


TEST_KERNEL_PY = """\
import numpy as np
from numba import cuda

def test_add():
    @cuda.jit
    def add(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = x[i] + 1
    x = np.arange(8.0)
    r = np.zeros_like(x)
    add[1, 8](r, x)
    assert (r == x + 1).all()
    assert cuda.__name__ == "simt.cuda"
"""


@pytest.mark.parametrize("option", ["--simt", "--simt-check"])
def test_pytest_plugin_loads_from_the_entry_point(tmp_path, option):
    """No conftest: pytest finds simt's plugin through the installed entry point."""
    (tmp_path / "test_kernel.py").write_text(TEST_KERNEL_PY)
    output = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", option],
                 tmp_path)
    assert "1 passed" in output
