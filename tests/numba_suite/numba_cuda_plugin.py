"""A pytest plugin for running numba-cuda's installed test files (run.py --python with a
numba-cuda host): what numba-cuda's repository conftest.py, which its wheel does not ship, gives
them: the --dump-failed-filechecks option and the class fixture CUDATestCase uses."""
import pytest

# numba-cuda's test folders sit in numba_cuda/numba/cuda: the real NVIDIA `cuda` namespace package
# is imported before pytest puts any folder on sys.path, so numba-cuda's `import cuda.bindings`
# finds it rather than numba.cuda's own folder.
import cuda.bindings  # noqa: F401


def pytest_addoption(parser):
    parser.addoption("--dump-failed-filechecks", action="store_true",
                     help="Dump reproducers for FileCheck tests that fail.")


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    request.cls._dump_failed_filechecks = request.config.getoption("dump_failed_filechecks")
