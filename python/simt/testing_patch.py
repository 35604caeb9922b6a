"""numba.cuda.testing on simt: its compute capability checks ask Numba's driver for the current
device, and ContextResettingTestCase resets Numba's context; both would fail without a GPU. The
import hook runs patch() on the module after Numba's loader, so the checks see simt's device
(compute capability 8.0) and the context reset is simt's (a no-op)."""
from simt.memory.device import get_current_device

__all__ = ["patch"]


def cc_X_or_above(major, minor):
    return get_current_device().compute_capability >= (major, minor)


def ensure_supported_ccs_initialized():
    """Numba loads NVVM's list of compute capabilities here; simt has no NVVM."""


def cudadevrt_missing():
    """Cooperative launches need no device runtime library on simt."""
    return False


def patch(testing):
    """Points `testing`'s device queries at simt's device (idempotent)."""
    testing.cc_X_or_above = cc_X_or_above
    testing.ensure_supported_ccs_initialized = ensure_supported_ccs_initialized
    testing.cudadevrt_missing = cudadevrt_missing
    if hasattr(testing, "ContextResettingTestCase"):  # Numba 0.56's (numba-cuda has none)
        testing.ContextResettingTestCase.tearDown = testing.CUDATestCase.tearDown
