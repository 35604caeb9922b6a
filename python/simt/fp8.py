"""numba-cuda's FP8 bindings for simt (numba.cuda._internal.cuda_fp8, and numba.cuda.fp8 under
the import hook): the enums saturation_t and fp8_interpretation_t, cudaRoundMode (numba-cuda
takes cuda.bindings.runtime's; this one has its values for hosts without it), one kernel-only
function per conversion intrinsic of simt's table (ir/fp8.def) and one per value type.

Kernels call the intrinsics as `cvt_float_to_fp8(x, saturation_t.SATFINITE,
fp8_interpretation_t.E4M3)`; they return the FP8 code as a uint8 (__nv_fp8_storage_t), the
float2/double2 forms (cvt_float2_to_fp8x2(v, ...) of a cuda.float32x2) two codes as a uint16,
v.x's in the low byte, and cvt_e8m0_to_bf16raw a bfloat16_raw (its bits in .x), which
cvt_bfloat16raw_to_fp8 and cvt_bfloat16raw_to_e8m0 take. The value types fp8_e4m3, fp8_e5m2 and
fp8_e8m0 construct from numbers (`fp8_e4m3(x)`, saturating, E8M0 rounding up) and convert back
with the number classes (`float32(v)`, `int64(v)`, `bool(v)`); their x2 / x4 forms construct from
float32x2 / float64x2 (float32x4 / float64x4) vectors and hold the codes in `.__x`. All are bit
for bit what cuda_fp8.h computes. From Python they raise.

`functions` describes each intrinsic: name -> (value type, result type, 'fp8', 'e8m0' or
'bf16raw'); `types` each value type: name -> (encoding, lanes)."""
from enum import IntEnum

import simt._simt as _simt
from simt.stubs import KernelOnlyFunction

functions = _simt.fp8_functions()
types = _simt.fp8_types()

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


def _function_stub(name):
    param, result, target = functions[name]
    stub = KernelOnlyFunction("fp8." + name)
    params = "x: " + param
    if target != "bf16raw":
        params += ", saturate: saturation_t, mode: " + (
            "fp8_interpretation_t" if target == "fp8" else "cudaRoundMode")
    stub.__doc__ = "%s(%s) -> %s\n\nnumba.cuda._internal.cuda_fp8.%s: a kernel-only function." % (
        name, params, result, name)
    return stub


def _type_stub(name):
    encoding, lanes = types[name]
    stub = KernelOnlyFunction("fp8." + name)
    takes = ("a number" if lanes == 1
             else "a float32x%d or float64x%d vector" % (lanes, lanes))
    stub.__doc__ = ("%s(x): %d %s code%s made from %s (kernel-only), as cuda_fp8.h's __nv_%s." % (
        name, lanes, encoding, "" if lanes == 1 else "s", takes, name))
    return stub


for _name in functions:
    globals()[_name] = _function_stub(_name)
for _name in types:
    globals()[_name] = _type_stub(_name)

__all__ = ["typing_registry", "target_registry", "saturation_t", "fp8_interpretation_t",
           "cudaRoundMode"] + list(functions) + list(types)
del _name
