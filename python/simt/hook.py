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
are replaced by simt's (simt.cudadrv_devicearray, simt.driver, simt.device, simt.transpose),
and numba.cuda.testing, after Numba's loader runs it, gets simt's device for its compute
capability checks (simt.testing_patch), numba.cuda.cudadrv.nvvm describes LLVM's NVPTX
backend instead of loading libNVVM (simt.gpu.patch_nvvm), and numba.cuda.compiler's compile_ptx
functions are simt's. numba-cuda's bfloat16 module numba.cuda.bf16 is simt.bf16 (its own
loads CUDA's headers), numba-cuda's FP8 bindings numba.cuda._internal.cuda_fp8 (and
numba.cuda.fp8) are simt.fp8, and numba.cuda.types gets numba-cuda's `bfloat16`, simt's type.

numba-cuda-mlir's numba_cuda_mlir.cuda is served the same way, its submodules from simt.hosts'
table. Which hosts' modules are served follows the environment (simt.hosts): all under
SIMT_ENABLE=1, only those without a simulator of their own under NUMBA_ENABLE_CUDASIM=1."""
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

from . import host

__all__ = ["install", "installed"]


def _simt_cuda():
    from simt import cuda
    if not hasattr(cuda, "__path__"):
        from simt import host
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
    "numba.cuda.cudadrv.driver": _simt_module("simt.driver"),
    "numba.cuda.cudadrv.devices": _simt_module("simt.device"),
    "numba.cuda.kernels.transpose": _simt_module("simt.transpose"),
    "numba.cuda.bf16": _simt_module("simt.bf16"),
    "numba.cuda.fp8": _simt_module("simt.fp8"),
    "numba.cuda._internal.cuda_fp8": _simt_module("simt.fp8"),
}


_UFUNC_PACKAGE = "numba.np.ufunc"


def _register_vectorizers(ufunc_package):
    from simt import vectorizers
    vectorizers.register_with_numba(ufunc_package)


def _patch_testing(testing_module):
    from simt import testing_patch
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
    from simt import dispatcher
    hints = (dispatcher.In, dispatcher.Out, dispatcher.InOut)
    if hasattr(args_module.ArgHint, "register"):  # Numba 0.56's ArgHint is an ABC
        for hint in hints:
            args_module.ArgHint.register(hint)
        return
    numba_wrap_arg = args_module.wrap_arg  # numba-cuda's is a plain class: wrap_arg learns them

    def wrap_arg(value, default=args_module.InOut):
        return value if isinstance(value, hints) else numba_wrap_arg(value, default)
    args_module.wrap_arg = wrap_arg


def _patch_nvvm(nvvm_module):
    from simt import gpu
    gpu.patch_nvvm(nvvm_module)


def _patch_compiler(compiler_module):
    """numba.cuda.compiler's public compile functions are simt's."""
    from simt import cuda
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
    from simt import hosts
    cuda = _simt_cuda()
    hosts.add_numba_cuda_mlir_names(cuda)
    return cuda


class _Finder(importlib.abc.MetaPathFinder):
    served = frozenset()  # the hosts' cuda module names simt.cuda stands in for (simt.hosts)

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
        (simt.host); where that imported this one too, the spec gives the module it made."""
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
        from simt import hosts
        if fullname == "numba_cuda_mlir.cuda":
            return importlib.machinery.ModuleSpec(fullname,
                                                  _Loader(fullname, _serve_numba_cuda_mlir))
        name = fullname
        if fullname.startswith("simt.cuda.") and \
                sys.modules.get("numba_cuda_mlir.cuda") is sys.modules.get("simt.cuda"):
            name = "numba_cuda_mlir." + fullname[len("simt."):]  # `from ... import` of a name
            if name not in hosts.NUMBA_CUDA_MLIR_MODULES:
                return None  # perhaps numba.cuda's, also simt.cuda
        elif not fullname.startswith("numba_cuda_mlir.cuda.") and \
                fullname not in hosts.NUMBA_CUDA_MLIR_MODULES:
            return None
        return importlib.machinery.ModuleSpec(
            fullname, _Loader(fullname, hosts.numba_cuda_mlir_module(name)))

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
    SIMT_CHECK and NUMBA_ENABLE_CUDASIM ask simt to serve (simt.hosts), or nothing."""
    from . import hosts
    served = hosts.served_by_environment()
    if served:
        install(served)


def install(cuda_modules=None):
    """Makes numba.cuda (and numba-cuda-mlir's numba_cuda_mlir.cuda) simt's cuda module from
    now on (idempotent); `cuda_modules` names the hosts' modules served (default: all)."""
    from . import exec_source  # kernels exec()'d before numba.cuda is imported keep their text
    from . import hosts
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
