"""A pytest plugin for running numba-cuda-mlir's repository tests (mlir_run.py): what their
tests/conftest.py gives them, without its imports of the pre-0.6 package names (cusimt): the
--dump-failed-filechecks option, the class fixture NumbaCUDATestCase uses, and the
requires_cc_min / requires_cc_exact markers, answered by the current device's compute
capability (simt's simulated device under simt)."""
import pytest


def pytest_addoption(parser):
    parser.addoption("--dump-failed-filechecks", action="store_true",
                     help="Dump reproducers for FileCheck tests that fail.")


def pytest_configure(config):
    config.addinivalue_line("markers", "requires_cc_min(cc, feature): skip below that CC")
    config.addinivalue_line("markers", "requires_cc_exact(cc, feature): skip unless that CC")
    config.addinivalue_line("markers", "numba_cuda_test_binaries(*kinds): test binaries used")


def _compute_capability():
    from numba_cuda_mlir import cuda
    return tuple(cuda.get_current_device().compute_capability)


def pytest_runtest_setup(item):
    for marker in item.iter_markers("requires_cc_min"):
        cc = _compute_capability()
        if cc < tuple(marker.args[0]):
            pytest.skip("requires CC %s+, got %s" % (marker.args[0], cc))
    for marker in item.iter_markers("requires_cc_exact"):
        cc = _compute_capability()
        if cc != tuple(marker.args[0]):
            pytest.skip("requires CC %s, got %s" % (marker.args[0], cc))


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    request.cls._dump_failed_filechecks = request.config.getoption("dump_failed_filechecks")
