"""simt.cuda: the numba.cuda API on the simulator. Under the import hook (SIMT_ENABLE=1, or
`simt run`) this module is what `from numba import cuda` gives."""
from .devicearray import *  # noqa: F401,F403
from .device import *  # noqa: F401,F403
from .dispatcher import In, InOut, Out, declare_device, jit  # noqa: F401
from .driver import (BaseCUDAMemoryManager, GetIpcHandleMixin,  # noqa: F401
                     HostOnlyCUDAMemoryManager, IpcHandle, MemoryPointer, set_memory_manager)
from .errors import CompileError  # noqa: F401
from .reduction import Reduce
from .stubs import *  # noqa: F401,F403
from . import devicearray as _devicearray
from . import cudadrv_devicearray as devicearray  # numba.cuda.devicearray
from . import device as devices  # numba.cuda.devices (numba.cuda.cudadrv.devices)
from . import driver  # numba.cuda.driver (numba.cuda.cudadrv.driver)
from . import exec_source as _exec_source
import sys as _sys

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
    own modules import from it (simt/host.py)."""
    if name == "cudadrv":
        cudadrv = _cudadrv_package()
        globals()["cudadrv"] = cudadrv
        return cudadrv
    if name == "libdevice":
        from . import libdevice
        globals()["libdevice"] = libdevice
        return libdevice
    if name == "bf16":
        from . import bf16
        globals()["bf16"] = bf16
        return bf16
    if name == "fp8":
        from . import fp8
        globals()["fp8"] = fp8
        return fp8
    import sys
    submodule = sys.modules.get("numba.cuda." + name)
    if submodule is not None:  # `from numba.cuda import x` while numba.cuda.x is still loading
        return submodule
    from . import host
    try:
        value = host.package_attribute(name)
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


def _compile_ptx(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False, cc=None,
                 opt=True, abi="numba", abi_info=None, llvm_ir=False, captured_source=None,
                 launch_bounds=None):
    """The dict of _simt.compile_ptx for compile_ptx's arguments (`captured_source`: a
    dispatcher's CapturedSource, so the text it compiled is the text compiled here)."""
    from . import _simt, host
    from .dispatcher import Dispatcher, _launch_bounds, _simt_argtypes, parse_signature
    from .resolver import resolver_for
    from .source import CapturedSource
    from .types import signature_text
    if abi not in ("numba", "c"):
        raise NotImplementedError("simt: unsupported ABI %r (numba or c)" % (abi,))
    if abi == "c" and not device:
        raise NotImplementedError("simt: the C ABI is for device functions only "
                                  "(compile_ptx(..., device=True, abi='c'))")
    from .gpu import check_cc
    pyfunc = pyfunc.py_func if isinstance(pyfunc, Dispatcher) else pyfunc
    # simt's type objects as they are (an enum's or namedtuple's class would not survive text)
    argtypes = _simt_argtypes(tuple(sig)) if isinstance(sig, (tuple, list)) else \
        parse_signature(sig)[0]
    target = check_cc(cc or (7, 5))
    abi_name = (abi_info or {}).get("abi_name", "") if abi == "c" else ""
    name, source, file, first_line = (captured_source or CapturedSource(pyfunc)).get()
    return _simt.compile_ptx(
        name, source, file, first_line, id(pyfunc), resolver_for(pyfunc), signature_text(argtypes),
        python_error_model=host.python_error_model(debug, lineinfo), debug_info="full" if debug else "lines" if lineinfo
        else "none", fastmath=bool(fastmath), cc=target, opt=bool(opt),
        device=bool(device), c_abi=abi == "c", abi_name=abi_name, llvm_ir=bool(llvm_ir),
        launch_bounds=list(_launch_bounds(launch_bounds) or ()))


def _return_type(compiled, device):
    """The return type compile_ptx gives: void for kernels, the inferred type for device
    functions."""
    from . import types
    from .dispatcher import parse_signature
    if not device:
        return types.void
    returned = parse_signature("%s()" % compiled["return_type"])[1]
    return types.void if returned is None else returned


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
    compiled = _compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                            fastmath=fastmath, cc=cc, opt=opt, abi=abi, abi_info=abi_info)
    return compiled["ptx"], _return_type(compiled, device)


def compile_ptx_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=False,
                                   fastmath=False, opt=True, abi="numba", abi_info=None):
    """compile_ptx for the current device's compute capability (simt's device: see
    cuda.get_current_device())."""
    from .device import get_current_device
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                       fastmath=fastmath, cc=get_current_device().compute_capability, opt=opt,
                       abi=abi, abi_info=abi_info)


def compile(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False, cc=None,
            opt=True, abi="c", abi_info=None, output="ptx", forceinline=False,
            launch_bounds=None):
    """numba-cuda's cuda.compile: (code, return type), where code is PTX (output="ptx", the only
    output simt produces). By default a device function with the C ABI, as numba-cuda's.
    launch_bounds (a kernel's) become PTX's .maxntid / .minnctapersm / .maxclusterrank;
    forceinline is LLVM's choice here (device functions of one module are inlined anyway)."""
    if output != "ptx":
        raise NotImplementedError("simt: cuda.compile(output=%r): only PTX is produced" % (output,))
    compiled = _compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                            fastmath=fastmath, cc=cc, opt=opt, abi=abi, abi_info=abi_info,
                            launch_bounds=launch_bounds)
    return compiled["ptx"], _return_type(compiled, device)


def compile_all(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False, cc=None,
                opt=True, abi="c", abi_info=None, output="ptx", forceinline=False,
                launch_bounds=None):
    """numba-cuda's cuda.compile_all: ([the function's PTX, then the PTX of the files a
    dispatcher links (link=): CUDA C/C++ compiled by nvcc, PTX as it is], return type)."""
    from .linking import ptx_for_gpu
    code, return_type = compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                                fastmath=fastmath, cc=cc, opt=opt, abi=abi, abi_info=abi_info,
                                output=output, forceinline=forceinline,
                                launch_bounds=launch_bounds)
    link = getattr(pyfunc, "targetoptions", {}).get("link") or []
    if not link:
        return [code], return_type
    from .gpu import check_cc
    digits = check_cc(cc or (7, 5))[3:].rstrip("a")  # "sm_86" -> (8, 6)
    return [code] + ptx_for_gpu(link, (int(digits[:-1]), int(digits[-1]))), return_type


def compile_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=True,
                               fastmath=False, opt=True, abi="c", abi_info=None, output="ptx"):
    """cuda.compile for the current device's compute capability."""
    from .device import get_current_device
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                   cc=get_current_device().compute_capability, opt=opt, abi=abi,
                   abi_info=abi_info, output=output)
