"""The import hook that makes `numba.cuda` simt's cuda module.

install() puts a finder first on sys.meta_path. When `numba.cuda` is imported, its loader puts
simt.cuda in sys.modules in its place (the import system returns what sys.modules holds after
loading), so `import numba.cuda`, `from numba import cuda` and `numba.cuda.jit` all give simt's
module while Numba itself (numba.float32, numba.types, numba.jit) stays Numba's. simt.cuda gets
Numba's cuda folder as __path__ so Numba's pure-Python submodules (numba.cuda.random,
numba.cuda.testing) still import. Nothing is imported until numba.cuda is.

numba.vectorize / numba.guvectorize choose their builder from a per-target registry in
numba.np.ufunc: once that package has loaded (Numba's own loader runs first), the targets 'cuda'
and 'gpu' are pointed at simt.vectorizers.

A few more of Numba's CUDA modules would reach Numba's real driver, so they get simt's: the
device array module numba.cuda.cudadrv.devicearray, the driver and devices modules
numba.cuda.cudadrv.driver and .devices, and the transpose kernel numba.cuda.kernels.transpose
are replaced by simt's (simt.cudadrv_devicearray, simt.memory.driver, simt.memory.device,
simt.transpose), and numba.cuda.testing, after Numba's loader runs it, gets simt's device for
its compute capability checks (simt.testing_patch), numba.cuda.cudadrv.nvvm describes LLVM's
NVPTX backend instead of loading libNVVM (simt.compiler.gpu.patch_nvvm), and
numba.cuda.compiler's compile_ptx functions are simt's. numba-cuda's bfloat16 module
numba.cuda.bf16 is simt.bf16 (its own loads CUDA's headers), numba-cuda's FP8 bindings
numba.cuda._internal.cuda_fp8 (and numba.cuda.fp8) are simt.fp8, and numba.cuda.types gets
numba-cuda's `bfloat16`, simt's type.

numba-cuda-mlir's numba_cuda_mlir.cuda is served the same way, its submodules from the table
below. Which hosts' modules are served follows the environment (simt.base.hosts): all under
SIMT_ENABLE=1, only those without a simulator of their own under NUMBA_ENABLE_CUDASIM=1."""
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

from simt.base import host, hosts

__all__ = ["install", "installed"]


def _simt_cuda():
    import simt.cuda as cuda
    if not hasattr(cuda, "__path__"):
        folder = host.cuda_folder()
        cuda.__path__ = [folder] if folder else []
    return cuda


class _Loader(importlib.abc.Loader):
    """Puts the module that `replacement()` gives in sys.modules in place of the one imported."""

    def __init__(self, fullname, replacement):
        self._fullname = fullname
        self._replacement = replacement

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        sys.modules[self._fullname] = self._replacement()


def _simt_module(name):
    return lambda: importlib.import_module(name)


# Numba's modules that simt replaces, and what replaces them.
_REPLACED = {
    "numba.cuda": _simt_cuda,
    "numba.cuda.cudadrv.devicearray": _simt_module("simt.cudadrv_devicearray"),
    "numba.cuda.cudadrv.driver": _simt_module("simt.memory.driver"),
    "numba.cuda.cudadrv.devices": _simt_module("simt.memory.device"),
    "numba.cuda.kernels.transpose": _simt_module("simt.transpose"),
    "numba.cuda.bf16": _simt_module("simt.bf16"),
    "numba.cuda.fp8": _simt_module("simt.fp8"),
    "numba.cuda._internal.cuda_fp8": _simt_module("simt.fp8"),
}


# -- numba-cuda-mlir's modules -------------------------------------------------------------------

def _cudadrv_package():
    """simt.cuda.cudadrv, made a package so its modules import by name under numba-cuda-mlir's."""
    import simt.cuda
    package = simt.cuda.cudadrv
    if not hasattr(package, "__path__"):
        package.__path__ = []
    return package


def _cuda_namespace(name):
    """simt.cuda's namespace `name` (cuda.shared), which numba-cuda-mlir makes a module."""
    return lambda: getattr(importlib.import_module("simt.cuda"), name)


# numba-cuda-mlir's submodules that users import, and simt's modules that serve them.
NUMBA_CUDA_MLIR_MODULES = {
    "numba_cuda_mlir.cuda.libdevice": _simt_module("simt.libdevice"),
    "numba_cuda_mlir.cuda.cudadrv": _cudadrv_package,
    "numba_cuda_mlir.cuda.cudadrv.driver": _simt_module("simt.memory.driver"),
    "numba_cuda_mlir.cuda.cudadrv.devicearray": _simt_module("simt.cudadrv_devicearray"),
    "numba_cuda_mlir.cuda.cudadrv.devices": _simt_module("simt.memory.device"),
    "numba_cuda_mlir.cuda.types": _simt_module("simt.types"),
    "numba_cuda_mlir.cuda.random": _simt_module("simt.random"),
    "numba_cuda_mlir.cuda.vector_types": _simt_module("simt.stubs"),  # float32x4, int2, ...
    "numba_cuda_mlir.cuda.shared": _cuda_namespace("shared"),
    "numba_cuda_mlir.cuda.local": _cuda_namespace("local"),
    "numba_cuda_mlir.cuda.const": _cuda_namespace("const"),
    "numba_cuda_mlir.cuda.fp16": _cuda_namespace("fp16"),
    # its FP8 bindings, numba-cuda's (numba.cuda.fp8, numba.cuda._internal.cuda_fp8)
    "numba_cuda_mlir.numba_cuda.fp8": _simt_module("simt.fp8"),
    "numba_cuda_mlir.numba_cuda._internal.cuda_fp8": _simt_module("simt.fp8"),
    # The device queries of numba-cuda-mlir's own modules (its testing helpers' cc_X_or_above,
    # tools.get_gpu_compute_capability) would reach NVIDIA's driver: they see the simulated device.
    "numba_cuda_mlir.numba_cuda.cudadrv.devices": _simt_module("simt.memory.device"),
}


def numba_cuda_mlir_module(name):
    """What makes simt's module served as numba-cuda-mlir's submodule `name`;
    ModuleNotFoundError for those simt has none for (they would reach NVIDIA's compiler)."""
    if name in NUMBA_CUDA_MLIR_MODULES:
        return NUMBA_CUDA_MLIR_MODULES[name]
    raise ModuleNotFoundError(
        "simt: %s is not available on the simulator; simt provides %s" %
        (name, ", ".join(sorted(NUMBA_CUDA_MLIR_MODULES))), name=name)


# simt.types' names that numba-cuda-mlir's cuda package re-exports (`cuda.float32`).
_TYPE_NAMES = ("void", "none", "boolean", "bool_", "b1", "int8", "int16", "int32", "int64",
               "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64",
               "complex64", "complex128", "bfloat16", "intp", "uintp", "byte", "char", "uchar",
               "short", "ushort", "intc", "uintc", "long_", "ulong", "longlong", "ulonglong",
               "float_", "double", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4",
               "f8", "c8", "c16")


def _needs_the_gpu_toolchain(name):
    def unavailable(*args, **kwargs):
        raise NotImplementedError(
            "simt: cuda.%s compiles with NVIDIA's toolchain, which the simulator does not use "
            "(cuda.compile_ptx gives PTX; kernels run with kernel[blocks, threads](...))" % name)
    unavailable.__name__ = name
    return unavailable


def add_numba_cuda_mlir_names(cuda):
    """Gives simt.cuda the names of numba-cuda-mlir's cuda package that simt.cuda lacks and the
    simulator can provide."""
    import simt.random as random
    import simt.types as types
    import simt.vectorizers as vectorizers
    from simt.memory import driver
    for name in _TYPE_NAMES:
        setattr(cuda, name, getattr(types, name))
    cuda.random = random  # numba-cuda-mlir's package imports it with itself
    cuda.literal_unroll = importlib.import_module(hosts.SPECIAL_FUNCTION_MODULES[0]).literal_unroll
    cuda.HAS_NUMBA = False  # numba-cuda-mlir never imports Numba
    cuda.implementation = "NVIDIA"
    cuda.local_array = cuda.local.array
    cuda.shared_array = cuda.shared.array
    cuda.vectorize, cuda.guvectorize = vectorizers.vectorize, vectorizers.guvectorize
    cuda.MappedMemory, cuda.PinnedMemory = driver.MappedMemory, driver.PinnedMemory
    cuda.is_float16_supported = lambda: True
    for name in ("compile_cubin", "compile_mlir"):
        setattr(cuda, name, _needs_the_gpu_toolchain(name))


_UFUNC_PACKAGE = "numba.np.ufunc"


def _register_vectorizers(ufunc_package):
    import simt.vectorizers as vectorizers
    vectorizers.register_with_numba(ufunc_package)


def _patch_testing(testing_module):
    import simt.testing_patch as testing_patch
    testing_patch.patch(testing_module)


def _load_device_arrays(cudadrv_package):
    """Imports simt's numba.cuda.cudadrv.devicearray, .driver and .devices with their package,
    so that attribute paths such as `cuda.cudadrv.driver.AutoFreePointer` work as with Numba,
    whose package imports them early."""
    for name in ("devicearray", "driver", "devices"):
        importlib.import_module(cudadrv_package.__name__ + "." + name)


def _register_argument_hints(args_module):
    """Makes cuda.In / Out / InOut Numba argument hints, so numba.cuda.args.wrap_arg (which
    Numba's argument handler extensions call) leaves them as they are."""
    from simt.compiler.dispatcher import In, InOut, Out
    hints = (In, Out, InOut)
    if hasattr(args_module.ArgHint, "register"):  # Numba 0.56's ArgHint is an ABC
        for hint in hints:
            args_module.ArgHint.register(hint)
        return
    numba_wrap_arg = args_module.wrap_arg  # numba-cuda's is a plain class: wrap_arg learns them

    def wrap_arg(value, default=args_module.InOut):
        return value if isinstance(value, hints) else numba_wrap_arg(value, default)
    args_module.wrap_arg = wrap_arg


def _patch_nvvm(nvvm_module):
    from simt.compiler import gpu
    gpu.patch_nvvm(nvvm_module)


def _patch_compiler(compiler_module):
    """numba.cuda.compiler's public compile functions are simt's."""
    import simt.cuda as cuda
    compiler_module.compile_ptx = cuda.compile_ptx
    compiler_module.compile_ptx_for_current_device = cuda.compile_ptx_for_current_device


def _patch_cuda_types(types_module):
    """numba-cuda's numba.cuda.types.bfloat16 is simt's."""
    from simt.types import bfloat16
    types_module.bfloat16 = bfloat16


# Numba's modules that Numba loads and simt then patches.
_PATCHED = {
    "numba.cuda.compiler": _patch_compiler,
    "numba.cuda.cudadrv.nvvm": _patch_nvvm,
    "numba.cuda.args": _register_argument_hints,
    _UFUNC_PACKAGE: _register_vectorizers,
    "numba.cuda.cudadrv": _load_device_arrays,
    "numba.cuda.testing": _patch_testing,
    "numba.cuda.types": _patch_cuda_types,
    **host.NUMBA_CUDA_PATCHED,
}


# Numba's packages that assert at import that Numba's simulator is off (its real driver and its
# simulator do not mix). Under the hook their driver modules are simt's, so they load even when
# the program set NUMBA_ENABLE_CUDASIM=1 itself (gamdpy's CPU test does, then names
# numba.cuda.cudadrv.driver.CudaAPIError).
_LOADED_WITH_SIMULATOR_OFF = frozenset(("numba.cuda.cudadrv",))


class _NumbaSimulatorOff:
    """Numba's ENABLE_CUDASIM reads 0 while the block runs (Numba 0.56's numba.core.config;
    numba-cuda's own numba.cuda.core.config)."""

    def __enter__(self):
        self._saved = []
        for name in ("numba.core.config", "numba.cuda.core.config"):
            try:
                config = importlib.import_module(name)
            except ImportError:
                continue
            if getattr(config, "ENABLE_CUDASIM", 0):
                self._saved.append(config)
                config.ENABLE_CUDASIM = 0

    def __exit__(self, *exc):
        for config in self._saved:
            config.ENABLE_CUDASIM = 1
        return False


class _PatchingLoader(importlib.abc.Loader):
    """Numba's loader for a module, then simt's registrations in it."""

    def __init__(self, loader, patch, numba_name):
        self._loader = loader
        self._patch = patch
        self._simulator_off = numba_name in _LOADED_WITH_SIMULATOR_OFF

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        if self._simulator_off:
            with _NumbaSimulatorOff():
                self._loader.exec_module(module)
        else:
            self._loader.exec_module(module)
        self._patch(module)


def _serve_numba_cuda_mlir():
    cuda = _simt_cuda()
    add_numba_cuda_mlir_names(cuda)
    return cuda


class _Finder(importlib.abc.MetaPathFinder):
    served = frozenset()  # the hosts' cuda module names simt.cuda stands in for (simt.base.hosts)

    def find_spec(self, fullname, path, target=None):
        if "numba_cuda_mlir.cuda" in self.served:
            spec = self._numba_cuda_mlir_spec(fullname)
            if spec is not None:
                return spec
        if "numba.cuda" not in self.served:
            return None
        # `from numba.cuda import testing` imports Numba's file as simt.cuda.testing (the name
        # of the module numba.cuda is), so both names get the same treatment.
        numba_name = "numba." + fullname[len("simt."):] if fullname.startswith("simt.cuda.") \
            else fullname
        if numba_name in _REPLACED:
            return importlib.machinery.ModuleSpec(fullname,
                                                  _Loader(fullname, _REPLACED[numba_name]))
        if numba_name in _PATCHED:
            return self._patched_spec(fullname, path, target, numba_name)
        return self._after_prerequisite(fullname, numba_name)

    @staticmethod
    def _after_prerequisite(fullname, numba_name):
        """Imports first the module the host's package would have imported before this one
        (simt.base.host); where that imported this one too, the spec gives the module it made."""
        prerequisite = host.imported_before(numba_name)
        if prerequisite is None or prerequisite in sys.modules:
            return None
        importlib.import_module(prerequisite)
        loaded = sys.modules.get(fullname)
        if loaded is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader(fullname, lambda: loaded))

    @staticmethod
    def _numba_cuda_mlir_spec(fullname):
        if fullname == "numba_cuda_mlir.cuda":
            return importlib.machinery.ModuleSpec(fullname,
                                                  _Loader(fullname, _serve_numba_cuda_mlir))
        name = fullname
        if fullname.startswith("simt.cuda.") and \
                sys.modules.get("numba_cuda_mlir.cuda") is sys.modules.get("simt.cuda"):
            name = "numba_cuda_mlir." + fullname[len("simt."):]  # `from ... import` of a name
            if name not in NUMBA_CUDA_MLIR_MODULES:
                return None  # perhaps numba.cuda's, also simt.cuda
        elif not fullname.startswith("numba_cuda_mlir.cuda.") and \
                fullname not in NUMBA_CUDA_MLIR_MODULES:
            return None
        return importlib.machinery.ModuleSpec(
            fullname, _Loader(fullname, numba_cuda_mlir_module(name)))

    def _patched_spec(self, fullname, path, target, numba_name):
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchingLoader(spec.loader, _PATCHED[numba_name],
                                                  numba_name)
                return spec
        return None


_FINDER = _Finder()


def installed():
    return _FINDER in sys.meta_path


def install_for_environment():
    """What simt-enable.pth runs at start-up: install() for the hosts that SIMT_ENABLE,
    SIMT_CHECK and NUMBA_ENABLE_CUDASIM ask simt to serve (simt.base.hosts), or nothing."""
    served = hosts.served_by_environment()
    if served:
        install(served)


def install(cuda_modules=None):
    """Makes numba.cuda (and numba-cuda-mlir's numba_cuda_mlir.cuda) simt's cuda module from
    now on (idempotent); `cuda_modules` names the hosts' modules served (default: all)."""
    # kernels exec()'d before numba.cuda is imported keep their text
    from simt.base import exec_source
    exec_source.install()
    if cuda_modules is None:
        cuda_modules = hosts.cuda_modules()
    _FINDER.served = _FINDER.served | frozenset(cuda_modules)
    if not installed():
        sys.meta_path.insert(0, _FINDER)
    if "numba_cuda_mlir.cuda" in _FINDER.served and "numba_cuda_mlir.cuda" in sys.modules:
        sys.modules["numba_cuda_mlir.cuda"] = sys.modules["numba_cuda_mlir"].cuda = \
            _serve_numba_cuda_mlir()
    if "numba.cuda" not in _FINDER.served:
        return
    for name, patch in _PATCHED.items():
        if name in sys.modules:
            patch(sys.modules[name])
    if "numba.cuda" in sys.modules:
        cuda = _simt_cuda()
        sys.modules["numba.cuda"] = cuda
        if "numba" in sys.modules:
            sys.modules["numba"].cuda = cuda
