"""The import hook that makes `numba.cuda` simt's cuda module.

install() puts a finder first on sys.meta_path. When `numba.cuda` is imported, its loader puts
simt.cuda in sys.modules in its place (the import system returns what sys.modules holds after
loading), so `import numba.cuda`, `from numba import cuda` and `numba.cuda.jit` all give simt's
module while Numba itself (numba.float32, numba.types, numba.jit) stays Numba's. simt.cuda gets
Numba's cuda folder as __path__ so Numba's pure-Python submodules (numba.cuda.random,
numba.cuda.testing) still import. Nothing is imported until numba.cuda is."""
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

__all__ = ["install", "installed"]


def _numba_cuda_folder():
    spec = importlib.util.find_spec("numba") if "numba" not in sys.modules else \
        sys.modules["numba"].__spec__
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(list(spec.submodule_search_locations)[0], "cuda")


def _simt_cuda():
    from simt import cuda
    if not hasattr(cuda, "__path__"):
        folder = _numba_cuda_folder()
        cuda.__path__ = [folder] if folder else []
    return cuda


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        sys.modules["numba.cuda"] = _simt_cuda()


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname != "numba.cuda":
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader())


_FINDER = _Finder()


def installed():
    return _FINDER in sys.meta_path


def install():
    """Makes numba.cuda simt's cuda module from now on (idempotent)."""
    if not installed():
        sys.meta_path.insert(0, _FINDER)
    if "numba.cuda" in sys.modules:
        cuda = _simt_cuda()
        sys.modules["numba.cuda"] = cuda
        if "numba" in sys.modules:
            sys.modules["numba"].cuda = cuda
