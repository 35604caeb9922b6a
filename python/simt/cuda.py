"""simt.cuda: the numba.cuda API on the simulator. Under the import hook (SIMT_ENABLE=1, or
`simt run`) this module is what `from numba import cuda` gives."""
from .devicearray import *  # noqa: F401,F403
from .device import *  # noqa: F401,F403
from .dispatcher import In, InOut, Out, declare_device, jit  # noqa: F401
from .errors import CompileError  # noqa: F401
from .reduction import Reduce
from .stubs import *  # noqa: F401,F403
from . import devicearray as _devicearray

# Marks the module for code that wants to know it runs on simt.
is_simt = True
simulator = True

DeviceNDArray = _devicearray.DeviceNDArray
auto_device = _devicearray.to_device
reduce = Reduce


def compile_ptx(*args, **kwargs):
    raise NotImplementedError("simt: compile_ptx (the GPU backend) is not available yet")


compile_ptx_for_current_device = compile_ptx
