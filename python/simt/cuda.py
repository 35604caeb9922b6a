"""simt.cuda: the numba.cuda API on the simulator. Under the import hook (SIMT_ENABLE=1, or
`simt run`) this module is what `from numba import cuda` gives."""
from .devicearray import *  # noqa: F401,F403
from .device import *  # noqa: F401,F403
from .dispatcher import In, InOut, Out, declare_device, jit  # noqa: F401
from .errors import CompileError  # noqa: F401
from .reduction import Reduce
from .stubs import *  # noqa: F401,F403
from . import devicearray as _devicearray
from . import libdevice  # noqa: F401  (numba.cuda.libdevice)

# Marks the module for code that wants to know it runs on simt.
is_simt = True
simulator = True

DeviceNDArray = _devicearray.DeviceNDArray
auto_device = _devicearray.to_device
reduce = Reduce


def compile_ptx(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False, cc=None,
                opt=True, abi="numba", abi_info=None):
    """numba.cuda.compile_ptx: the PTX of `pyfunc` compiled as a kernel for the argument types of
    `sig`, from LLVM's NVPTX backend (no GPU needed), and the return type: (ptx, void). `cc` is
    the compute capability as (major, minor), (7, 5) by default. Each array parameter is passed
    as (data pointer, extents, strides in bytes), each scalar by value."""
    from . import _simt
    from .dispatcher import Dispatcher, parse_signature
    from .resolver import resolver_for
    from .source import CapturedSource
    from .types import signature_text
    if device:
        raise NotImplementedError("simt: compile_ptx(device=True), the PTX of a device function, "
                                  "is not supported yet")
    if abi != "numba":
        raise NotImplementedError("simt: compile_ptx(abi=%r) is not supported yet" % (abi,))
    pyfunc = pyfunc.py_func if isinstance(pyfunc, Dispatcher) else pyfunc
    argtypes, return_type = parse_signature(sig)
    major, minor = cc or (7, 5)
    name, source, file, first_line = CapturedSource(pyfunc).get()
    ptx, _ = _simt.compile_ptx(name, source, file, first_line, id(pyfunc), resolver_for(pyfunc),
                               signature_text(argtypes), bool(debug or lineinfo),
                               "sm_%d%d" % (major, minor), bool(fastmath))
    return ptx, return_type


def compile_ptx_for_current_device(pyfunc, sig, **kwargs):
    """As compile_ptx for the current device: with no GPU, compute capability 7.5."""
    return compile_ptx(pyfunc, sig, **kwargs)
