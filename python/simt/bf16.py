"""numba.cuda.bf16 for simt (numba-cuda's bfloat16 API): the type `bfloat16` and one kernel-only
function per function of numba-cuda's module, from simt's table of them (ir/bf16.def).
Kernels call them as `bf16.<name>(...)` or by name after `from numba.cuda.bf16 import ...`; from
Python they raise. Each also answers to its CUDA-style alias, as in numba-cuda
(float2bfloat16_rn is float32_to_bfloat16_rn). numba-cuda's math overloads come with it:
math.sqrt, exp, log, ... of a bfloat16 are hsqrt, hexp, hlog, ...

`functions` describes each: name -> (alias, return type, parameter type, arity, math function)."""
import simt._simt as _simt
from simt.stubs import KernelOnlyFunction
from simt.types import bfloat16

nv_bfloat16 = bfloat16  # numba.cuda._internal.cuda_bf16's name of it

functions = _simt.bf16_functions()

# numba-cuda's typing and target registries of its bindings: simt's compiler types and lowers
# bfloat16 itself, so there is nothing to register
typing_registry = None
target_registry = None

_PARAMETERS = ("a", "b", "c")


def _stub(name):
    alias, result, param, arity, math_name = functions[name]
    stub = KernelOnlyFunction("bf16." + name)
    signature = "%s(%s) -> %s" % (
        name, ", ".join("%s: %s" % (p, param) for p in _PARAMETERS[:arity]), result)
    also = " (also bf16.%s)" % alias if alias else ""
    overload = ", and math.%s of a bfloat16" % math_name if math_name else ""
    stub.__doc__ = "%s\n\nnumba.cuda.bf16.%s%s%s: a kernel-only function." % (
        signature, name, also, overload)
    return stub


for _name, _description in functions.items():
    globals()[_name] = _stub(_name)
    if _description[0]:
        globals()[_description[0]] = globals()[_name]

__all__ = ["typing_registry", "target_registry", "bfloat16"] + list(functions)
del _name, _description
