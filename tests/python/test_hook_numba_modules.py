"""Numba's CUDA modules that would reach Numba's driver, under the import hook: numba.cuda.testing
sees simt's device, numba.cuda.cudadrv.devicearray and numba.cuda.kernels.transpose are simt's."""
import numpy as np
import pytest

from conftest import run_python
from simt import cuda
from simt.transpose import transpose

HOOK = "import simt.hook; simt.hook.install()\n"


def _run(code):
    proc = run_python(["-c", HOOK + code])
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_testing_compute_capability_checks_see_simts_device():
    out = _run("""
import unittest
from numba.cuda import testing
assert testing.cc_X_or_above(8, 0) and not testing.cc_X_or_above(9, 0)
assert not testing.cudadevrt_missing()
testing.ensure_supported_ccs_initialized()

# Numba 0.56's test case that resets the context (numba-cuda has only CUDATestCase).
class T(getattr(testing, "ContextResettingTestCase", testing.CUDATestCase)):
    @testing.skip_unless_cc_60
    def test_ok(self):
        print("ran")

result = unittest.TextTestRunner().run(unittest.defaultTestLoader.loadTestsFromTestCase(T))
assert result.wasSuccessful() and not result.skipped
""")
    assert "ran" in out


def test_cudadrv_devicearray_is_simts():
    _run("""
import numpy as np
from numba import cuda
import numba.cuda.testing
from numba.cuda.cudadrv.devicearray import auto_device
d = cuda.cudadrv.devicearray.from_array_like(np.zeros((2, 3), np.float32))
assert isinstance(d, cuda.DeviceNDArray) and d.shape == (2, 3)
same, copied = auto_device(d)
assert same is d and not copied
host = np.arange(4)
dev, copied = auto_device(host)
assert copied and list(dev.copy_to_host()) == [0, 1, 2, 3]
""")


def test_numba_transpose_kernel_module_is_simts():
    _run("""
import numpy as np
from numba import cuda
from numba.cuda.kernels.transpose import transpose
b = transpose(cuda.to_device(np.arange(6).reshape(2, 3)))
assert (b.copy_to_host() == np.arange(6).reshape(2, 3).T).all()
""")


def test_transpose_into_given_array_and_of_records():
    rec = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])
    a = np.zeros((3, 4), dtype=rec)
    a["i"] = np.arange(12).reshape(3, 4)
    out = cuda.device_array((4, 3), dtype=rec)
    assert transpose(cuda.to_device(a), out) is out
    np.testing.assert_array_equal(out.copy_to_host(), a.T)


def test_transpose_errors():
    with pytest.raises(NotImplementedError, match="non-2D"):
        transpose(cuda.to_device(np.zeros(3)))
    with pytest.raises(ValueError, match=r"output has shape \(2, 2\), \(3, 2\) is needed"):
        transpose(np.zeros((2, 3)), cuda.device_array((2, 2)))


def test_device_array_transpose_is_a_copy_as_numbas():
    d = cuda.to_device(np.arange(120, dtype=np.int64).reshape(10, 12))
    t = d[::2, ::2].T
    assert t.shape == (6, 5) and t.strides == (40, 8)
    assert d.transpose((0, 1)) is d
    with pytest.raises(ValueError, match="invalid axes"):
        d.transpose((0, 0))
    with pytest.raises(NotImplementedError):
        cuda.to_device(np.zeros((2, 2, 2))).T


def test_cudadrv_is_an_attribute_of_cuda_without_an_import():
    # Numba's cuda package imports numba.cuda.cudadrv with itself
    _run("""
import numpy as np
from numba import cuda
import sys
assert "numba.cuda.cudadrv" not in sys.modules
assert cuda.cudadrv.devicearray.DeviceNDArray is cuda.DeviceNDArray
import numba.cuda.cudadrv
assert cuda.cudadrv is numba.cuda.cudadrv is sys.modules["numba.cuda.cudadrv"]
assert cuda.cudadrv.driver.driver.get_version() == cuda.runtime.get_version() == (12, 0)
assert cuda.cudadrv.driver.get_version() == (12, 0)
assert cuda.cudadrv.devices.get_context() is cuda.current_context()
""")
    # without the hook: simt's modules under the same names
    assert cuda.cudadrv.devicearray.DeviceNDArray is cuda.DeviceNDArray
    assert cuda.cudadrv.driver.driver.get_version() == (12, 0)
