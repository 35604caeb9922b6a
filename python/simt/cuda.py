"""simt.cuda: the numba.cuda API on the simulator. Under the import hook (SIMT_ENABLE=1, or
`simt run`) this module is what `from numba import cuda` gives."""
import importlib as _importlib
import sys as _sys

from simt.memory.devicearray import *  # noqa: F401,F403
from simt.memory.device import *  # noqa: F401,F403
from simt.compiler.dispatcher import In, InOut, Out, jit  # noqa: F401
from simt.compiler.signatures import declare_device  # noqa: F401
from simt.memory.driver import (BaseCUDAMemoryManager, GetIpcHandleMixin,  # noqa: F401
                                HostOnlyCUDAMemoryManager, IpcHandle, MemoryPointer,
                                set_memory_manager)
from simt.errors import CompileError  # noqa: F401
from simt.compiler.reduction import Reduce
from simt.stubs import *  # noqa: F401,F403
from simt.memory import devicearray as _devicearray
import simt.cudadrv_devicearray as devicearray  # numba.cuda.devicearray
from simt.memory import device as devices  # numba.cuda.devices (numba.cuda.cudadrv.devices)
from simt.memory import driver  # numba.cuda.driver (numba.cuda.cudadrv.driver)
from simt.base import exec_source as _exec_source, host as _host
from simt.compiler import gpu as _gpu, linking as _linking, ptx as _ptx
# The tools take part in launches through the launch hooks they register as they load.
from simt.tools import bundle as _bundle, check as _check  # noqa: F401
from simt.tools import debugging as _debugging, ptx_check as _ptx_check  # noqa: F401

_exec_source.install()

# Marks the module for code that wants to know it runs on simt.
is_simt = True
# numba.cuda.simulator, under Numba's simulator the package serving numba.cuda's API (tests call
# cuda.simulator.reset()): here this module, which serves that API.
simulator = _sys.modules[__name__]

def __getattr__(name):
    """cuda.libdevice, cuda.bf16 and cuda.fp8, made at their first use from the compiler's tables (which
    loads LLVM); cuda.cudadrv, which Numba's cuda package imports with itself: under the import
    hook Numba's numba.cuda.cudadrv (with simt's devicearray, driver and devices modules), else
    a package of simt's three modules. Under numba-cuda, the names its package defines that its
    own modules import from it (simt/base/host.py)."""
    if name == "cudadrv":
        cudadrv = _cudadrv_package()
        globals()["cudadrv"] = cudadrv
        return cudadrv
    if name in ("libdevice", "bf16", "fp8"):
        module = globals()[name] = _importlib.import_module("simt." + name)
        return module
    import sys
    submodule = sys.modules.get("numba.cuda." + name)
    if submodule is not None:  # `from numba.cuda import x` while numba.cuda.x is still loading
        return submodule
    try:
        value = _host.package_attribute(name)
    except AttributeError:
        raise AttributeError("module %r has no attribute %r" % (__name__, name)) from None
    globals()[name] = value
    return value


def _cudadrv_package():
    import importlib
    import sys
    if sys.modules.get("numba.cuda") is sys.modules[__name__]:  # under the import hook
        return importlib.import_module("numba.cuda.cudadrv")
    import types
    package = types.ModuleType(__name__ + ".cudadrv",
                               "numba.cuda.cudadrv's modules that simt provides")
    package.devicearray, package.driver, package.devices = devicearray, driver, devices
    return package


DeviceNDArray = _devicearray.DeviceNDArray
auto_device = _devicearray.to_device
reduce = Reduce


class _Runtime:
    """numba.cuda.runtime: the CUDA runtime's version simt's device reports (the PTX it writes
    is for drivers of CUDA 12 and later: PTX ISA 6.3 to 7.8)."""

    def get_version(self):
        return driver.CUDA_VERSION

    def is_supported_version(self):
        return True

    @property
    def supported_versions(self):
        return (driver.CUDA_VERSION,)


runtime = _Runtime()


def compile_ptx(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False, cc=None,
                opt=True, abi="numba", abi_info=None):
    """numba.cuda.compile_ptx: (PTX, return type) of `pyfunc` compiled for the argument types of
    `sig` by LLVM's NVPTX backend (no GPU needed): a kernel (`.entry`, returning void) or, with
    device=True, a device function (`.func`). `cc` is the compute capability as (major, minor),
    (7, 5) by default ((9, 0, "a") or "sm_90a" for sm_90a). Numba's ABI: a kernel's array parameter is (meminfo, parent, nitems,
    itemsize, data, shape..., strides...); a device function returns a status and stores its
    result through its first parameter. abi="c" (device functions): the result is returned, and
    abi_info={"abi_name": name} names the function. debug=True gives DWARF (and Numba's Python
    error model), lineinfo=True line tables (.file/.loc)."""
    compiled = _ptx.compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                            fastmath=fastmath, cc=cc, opt=opt, abi=abi, abi_info=abi_info)
    return compiled["ptx"], _ptx.return_type(compiled, device)


def compile_ptx_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=False,
                                   fastmath=False, opt=True, abi="numba", abi_info=None):
    """compile_ptx for the current device's compute capability (simt's device: see
    cuda.get_current_device())."""
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                       fastmath=fastmath, cc=devices.get_current_device().compute_capability,
                       opt=opt, abi=abi, abi_info=abi_info)


def compile(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False, cc=None,
            opt=True, abi="c", abi_info=None, output="ptx", forceinline=False,
            launch_bounds=None):
    """numba-cuda's cuda.compile: (code, return type), where code is PTX (output="ptx", the only
    output simt produces). By default a device function with the C ABI, as numba-cuda's.
    launch_bounds (a kernel's) become PTX's .maxntid / .minnctapersm / .maxclusterrank;
    forceinline is LLVM's choice here (device functions of one module are inlined anyway)."""
    if output != "ptx":
        raise NotImplementedError("simt: cuda.compile(output=%r): only PTX is produced" % (output,))
    compiled = _ptx.compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                            fastmath=fastmath, cc=cc, opt=opt, abi=abi, abi_info=abi_info,
                            launch_bounds=launch_bounds)
    return compiled["ptx"], _ptx.return_type(compiled, device)


def compile_all(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False, cc=None,
                opt=True, abi="c", abi_info=None, output="ptx", forceinline=False,
                launch_bounds=None):
    """numba-cuda's cuda.compile_all: ([the function's PTX, then the PTX of the files a
    dispatcher links (link=): CUDA C/C++ compiled by nvcc, PTX as it is], return type)."""
    code, return_type = compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                                fastmath=fastmath, cc=cc, opt=opt, abi=abi, abi_info=abi_info,
                                output=output, forceinline=forceinline,
                                launch_bounds=launch_bounds)
    link = getattr(pyfunc, "targetoptions", {}).get("link") or []
    if not link:
        return [code], return_type
    digits = _gpu.check_cc(cc or (7, 5))[3:].rstrip("a")  # "sm_86" -> (8, 6)
    return [code] + _linking.ptx_for_gpu(link, (int(digits[:-1]), int(digits[-1]))), return_type


def compile_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=True,
                               fastmath=False, opt=True, abi="c", abi_info=None, output="ptx"):
    """cuda.compile for the current device's compute capability."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                   cc=devices.get_current_device().compute_capability, opt=opt, abi=abi,
                   abi_info=abi_info, output=output)
