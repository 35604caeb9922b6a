"""A pytest plugin for running numba-cuda's installed test files (run.py --python with a
numba-cuda host): what numba-cuda's repository conftest.py, which its wheel does not ship, gives
them: the --dump-failed-filechecks option and the class fixture CUDATestCase uses."""
import importlib
import importlib.abc
import importlib.machinery
import sys

import pytest

# numba-cuda's test folders sit in numba_cuda/numba/cuda: the real NVIDIA `cuda` namespace package
# is imported before pytest puts any folder on sys.path, so numba-cuda's `import cuda.bindings`
# finds it rather than numba.cuda's own folder.
import cuda.bindings  # noqa: F401

TESTS_ALIAS = "cuda.tests"  # the name pytest's importlib mode gives numba.cuda.tests


class _TestsAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes cuda.tests.X numba.cuda.tests.X: pytest imports numba-cuda's test files under the
    former, so the functions that tests hand to spawned processes (multiprocessing pools) are
    pickled by it, and a child that cannot import it respawns its pool's workers forever."""

    def find_spec(self, fullname, path, target=None):
        if fullname == TESTS_ALIAS or fullname.startswith(TESTS_ALIAS + "."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return importlib.import_module("numba." + spec.name)

    def exec_module(self, module):
        pass


def install_tests_alias():
    """In this process and, through sitecustomize, in the processes the tests start."""
    if not any(isinstance(finder, _TestsAlias) for finder in sys.meta_path):
        sys.meta_path.append(_TestsAlias())


install_tests_alias()


def pytest_addoption(parser):
    parser.addoption("--dump-failed-filechecks", action="store_true",
                     help="Dump reproducers for FileCheck tests that fail.")


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    request.cls._dump_failed_filechecks = request.config.getoption("dump_failed_filechecks")
