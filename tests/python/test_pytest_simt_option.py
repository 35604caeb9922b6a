"""`pytest --simt`: simt's pytest plugin (loaded from its entry point, no conftest of simt's)
serves numba.cuda by simt from before the first conftest.py is imported."""
CONFTEST = """\
from numba import cuda

CONFTEST_CUDA = cuda
"""
TESTS = """\
import numpy as np
from numba import cuda

from conftest import CONFTEST_CUDA


def test_kernel():
    assert CONFTEST_CUDA is cuda and cuda.__name__ == "simt.cuda"

    @cuda.jit
    def increment(a):
        a[cuda.grid(1)] += 1

    a = np.arange(8.0)
    increment[1, 8](a)
    assert (a == np.arange(1.0, 9.0)).all()
"""


def _write_suite(tmp_path):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_kernel.py").write_text(TESTS)


def test_simt_option_serves_numba_cuda_before_conftest(python, tmp_path):
    _write_suite(tmp_path)
    for option in ("--simt", "--simt-check"):
        proc = python(["-m", "pytest", "-q", "-p", "no:cacheprovider", option], cwd=tmp_path)
        assert "1 passed" in proc.stdout, proc.stdout + proc.stderr


def test_without_the_option_numba_cuda_is_numbas(python, tmp_path):
    _write_suite(tmp_path)
    proc = python(["-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=tmp_path,
                  env={"NUMBA_ENABLE_CUDASIM": "1"})
    assert "1 failed" in proc.stdout and "simt.cuda" in proc.stdout, proc.stdout + proc.stderr
