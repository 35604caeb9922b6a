"""What differs between the NumPy versions simt runs with (1.24 to 2.x), in one place."""
import numpy as np

__all__ = ["byte_bounds", "COPY_IF_NEEDED", "NUMPY2"]

NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"

# np.byte_bounds moved to np.lib.array_utils in NumPy 2.0.
byte_bounds = np.lib.array_utils.byte_bounds if NUMPY2 else np.byte_bounds

# np.array(copy=) that copies only where needed: NumPy 2's None (its False never copies and
# raises where it must), NumPy 1's False.
COPY_IF_NEEDED = None if NUMPY2 else False


def array_layout(ary):
    """Numba's layout letter for an ndarray: C, F (only when ndim > 1), else A."""
    flags = ary.flags
    if flags.c_contiguous:
        return "C"
    if flags.f_contiguous and ary.ndim > 1:
        return "F"
    return "A"
