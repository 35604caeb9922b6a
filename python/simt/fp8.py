"""numba-cuda's FP8 bindings for simt (numba.cuda._internal.cuda_fp8, and numba.cuda.fp8 under
the import hook): the enums saturation_t and fp8_interpretation_t, cudaRoundMode (numba-cuda
takes cuda.bindings.runtime's; this one has its values for hosts without it), and one kernel-only
function per conversion intrinsic of simt's table (frontend/fp8.def). Kernels call them as
`cvt_float_to_fp8(x, saturation_t.SATFINITE, fp8_interpretation_t.E4M3)`; they return the FP8
code as a uint8 (__nv_fp8_storage_t), and the float2/double2 forms (cvt_float2_to_fp8x2(v, ...)
of a cuda.float32x2) two codes as a uint16, v.x's in the low byte; bit for bit what cuda_fp8.h
computes. From Python they raise.

numba-cuda's FP8 value types (fp8_e4m3, fp8_e5m2, fp8_e8m0 and their x2/x4 forms) and its
bfloat16_raw conversions are not here: simt does not have them yet.

`functions` describes each: name -> (value (element) type, lanes, result type, 'fp8' or 'e8m0')."""
from enum import IntEnum

from . import _simt
from .stubs import KernelOnlyFunction

functions = _simt.fp8_functions()

# numba-cuda's typing and target registries of its bindings: simt's compiler types and lowers
# the functions itself, so there is nothing to register
typing_registry = None
target_registry = None


class saturation_t(IntEnum):
    """cuda_fp8.h's __nv_saturation_t."""
    NOSAT = 0
    SATFINITE = 1


fp8_interpretation_t = IntEnum(
    "fp8_interpretation_t", {name: value for value, name in enumerate(_simt.fp8_formats())})
fp8_interpretation_t.__doc__ = "cuda_fp8.h's __nv_fp8_interpretation_t."
fp8_interpretation_t.__module__ = __name__


class cudaRoundMode(IntEnum):
    """cuda.bindings.runtime's cudaRoundMode (the E8M0 conversions take cudaRoundZero or
    cudaRoundPosInf)."""
    cudaRoundNearest = 0
    cudaRoundZero = 1
    cudaRoundPosInf = 2
    cudaRoundMinInf = 3


def _stub(name):
    param, lanes, result, target = functions[name]
    stub = KernelOnlyFunction("fp8." + name)
    mode = "fp8_interpretation_t" if target == "fp8" else "cudaRoundMode"
    value = param if lanes == 1 else "%sx%d" % (param, lanes)
    stub.__doc__ = ("%s(x: %s, saturate: saturation_t, mode: %s) -> %s\n\n"
                    "numba.cuda._internal.cuda_fp8.%s: a kernel-only function." % (
                        name, value, mode, result, name))
    return stub


for _name in functions:
    globals()[_name] = _stub(_name)

__all__ = ["typing_registry", "target_registry", "saturation_t", "fp8_interpretation_t",
           "cudaRoundMode"] + list(functions)
del _name
