"""numba.cuda.libdevice for simt: one kernel-only function per libdevice function (CUDA's
__nv_<name>), from simt's table of them (ir/libdevice.def, the same as Numba's
numba/cuda/libdevicefuncs.py). Kernels call them as `libdevice.<name>(...)`; from Python they
raise. `functions` describes each: name -> (return type, [(parameter, type, is_output)])."""
import simt._simt as _simt
from simt.stubs import KernelOnlyFunction

functions = _simt.libdevice_functions()


def _signature(name):
    result, params = functions[name]
    outputs = [ty for _, ty, is_output in params if is_output]
    values = ([] if result == "none" else [result]) + outputs
    returns = values[0] if len(values) == 1 else "(%s)" % ", ".join(values)
    inputs = ", ".join("%s: %s" % (p, ty) for p, ty, is_output in params if not is_output)
    return "%s(%s) -> %s" % (name, inputs, returns)


def _stub(name):
    stub = KernelOnlyFunction("libdevice." + name)
    stub.__doc__ = "%s\n\nCUDA's __nv_%s (a kernel-only function)." % (_signature(name), name)
    return stub


for _name in functions:
    globals()[_name] = _stub(_name)

__all__ = list(functions)
del _name
