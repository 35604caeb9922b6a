"""Where kernels run: SIMT_TARGET=sim (the simulator, the default), gpu (the GPU backend: PTX from
the same typed IR, run by the CUDA driver), or both: every launch runs on both, and the first
element that differs is reported (the parity check).

Under `both`, the GPU runs on copies of the array arguments, the simulator on the arrays
themselves (so what the program sees is the simulator's), and then the faults are compared (the
exception's class) and, when neither faulted, each array the kernel may write: integers and booleans exactly, floats as |gpu - sim| <= atol + rtol * |sim|
(NaN equal to NaN), with rtol and atol from SIMT_PARITY_RTOL / SIMT_PARITY_ATOL (default: 1e-5
and 1e-8 for float32, float16 and complex64; 1e-12 and 1e-300 for float64 and complex128; 1e-2
and 1e-30 for bfloat16 arrays, whatever their storage dtype: one bfloat16 step is 2**-7
relative). A difference raises simt.errors.ParityError (SIMT_PARITY=warn: a warning instead)."""
import os
import warnings

import numpy as np

from simt.base import config
from simt.base.aliasing import copies_keeping_aliases
from simt.errors import ParityError
from simt.types import ArrayType, bfloat16

__all__ = ["TARGETS", "current", "ParityKernel"]

TARGETS = ("sim", "gpu", "both")


def current():
    """The target SIMT_TARGET names (ValueError for another name)."""
    target = config.value("SIMT_TARGET").strip().lower() or "sim"
    if target not in TARGETS:
        raise ValueError("simt: SIMT_TARGET=%s: the target is sim, gpu or both" % target)
    return target


def _tolerance(dtype):
    rtol, atol = (1e-12, 1e-300) if dtype in (np.float64, np.complex128) else \
        (1e-2, 1e-30) if dtype == "bfloat16" else (1e-5, 1e-8)
    return (config.number("SIMT_PARITY_RTOL", rtol), config.number("SIMT_PARITY_ATOL", atol))


def _array_of(value):
    """The NumPy array an argument passes to the kernel (device arrays hold one), or None."""
    host = getattr(value, "_host", None)
    if isinstance(host, np.ndarray):
        return host
    return value if isinstance(value, np.ndarray) else None


def _widen_bfloat16(array):
    """The float32 values of a bfloat16 array (ml_dtypes' or int16/uint16 bits)."""
    bits = array.view(np.uint16).astype(np.uint32) << 16
    return bits.view(np.float32)


def _first_difference(gpu, sim, bfloat16=False):
    """(index, gpu value, sim value, count of differing elements) of the first element (C order)
    that differs, or None. `bfloat16`: the arrays hold bfloat16s."""
    if bfloat16:
        gpu, sim = _widen_bfloat16(gpu), _widen_bfloat16(sim)
        rtol, atol = _tolerance("bfloat16")
        same = np.isclose(gpu, sim, rtol=rtol, atol=atol, equal_nan=True)
    elif gpu.dtype.kind in "fc":
        rtol, atol = _tolerance(gpu.dtype.type)
        same = np.isclose(gpu, sim, rtol=rtol, atol=atol, equal_nan=True)
    else:
        same = gpu == sim
    if np.all(same):
        return None
    where = np.argwhere(~np.asarray(same))
    index = tuple(int(i) for i in where[0]) if where.size else ()
    return index, gpu[index], sim[index], len(where)


# The kinds of simulator faults (the launch's fault tuple's last element) of kernels that hang a
# GPU (a deadlock, a misused barrier) or are undefined there (a misused warp operation).
HANGS_A_GPU = ("deadlock", "barrier", "warp")


def _same_elements(gpu, sim):
    """Whether two arrays hold the same elements, byte for byte, in any order (a kernel whose
    atomics decide where its values go)."""
    def ordered(a):
        items = np.ascontiguousarray(a).reshape(-1)
        return np.sort(items.view("V%d" % items.dtype.itemsize)) if items.size else items
    return gpu.shape == sim.shape and np.array_equal(ordered(gpu), ordered(sim))


class ParityKernel:
    """A kernel compiled for both targets: launch() runs the simulator's on the arrays, then
    the GPU's on copies the arrays had before, and compares. Everything else is the simulator kernel's."""

    def __init__(self, sim_kernel, gpu_kernel, param_names, argtypes=()):
        self._sim = sim_kernel
        self._gpu = gpu_kernel
        self._param_names = param_names
        self._bfloat16 = [isinstance(t, ArrayType) and t.dtype == bfloat16 for t in argtypes]

    def __getattr__(self, name):
        return getattr(self._sim, name)

    def launch(self, griddim, blockdim, sharedmem, args):
        writable = [_array_of(value) for value in args]
        writable = [a if a is not None and a.flags.writeable else None for a in writable]
        copies = copies_keeping_aliases(writable)
        gpu_args = [value if copy is None else copy for value, copy in zip(args, copies)]
        # The simulator first: a kernel it finds deadlocked or misusing a warp or a barrier would
        # hang the GPU (or be undefined there), so it does not go there.
        sim_fault = self._sim.launch(griddim, blockdim, sharedmem, args)
        if sim_fault is not None and len(sim_fault) > 8 and sim_fault[8] in HANGS_A_GPU:
            return sim_fault
        # Values CUDA leaves undefined (a shuffle from a lane outside its mask) differ by right:
        # the faults are compared, the arrays not.
        import simt._simt as _simt  # the compiled extension: loaded once a kernel launches
        undefined = _simt.last_launch_undefined_shuffles() != 0
        gpu_fault = self._gpu.launch(griddim, blockdim, sharedmem, tuple(gpu_args))
        problems = []
        if (gpu_fault is None) != (sim_fault is None) or \
                (gpu_fault is not None and gpu_fault[0] != sim_fault[0]):
            problems.append("the GPU raised %s, the simulator %s"
                            % (gpu_fault[0] if gpu_fault else "nothing",
                               sim_fault[0] if sim_fault else "nothing"))
        # After a fault the threads that ran differ (the simulator stops the launch's threads):
        # the faults' classes are compared, not the arrays.
        for position, copy in enumerate(copies if sim_fault is None and not undefined else ()):
            if copy is None:
                continue
            bfloat16 = position < len(self._bfloat16) and self._bfloat16[position]
            sim_array = _array_of(args[position])
            difference = _first_difference(copy, sim_array, bfloat16)
            if difference is not None and self._sim.uses_atomics and _same_elements(copy, sim_array):
                continue  # the atomics placed the same values elsewhere
            if difference is not None:
                index, gpu_value, sim_value, count = difference
                problems.append("argument %r (#%d) differs at index %s: gpu=%r sim=%r (%d of %d "
                                "elements differ)" % (self._param_names[position], position,
                                                      index, gpu_value.item(), sim_value.item(),
                                                      count, copy.size))
                break
        if problems:
            message = "simt: parity: kernel %s: %s" % (self._sim.name, "; ".join(problems))
            if config.value("SIMT_PARITY").strip().lower() == "warn":
                warnings.warn(message, RuntimeWarning, stacklevel=4)
            else:
                raise ParityError(message)
        return sim_fault
