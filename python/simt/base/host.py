"""The numba.cuda host simt runs under, in one place: Numba's built-in CUDA target (Numba 0.56's
numba/cuda folder) or numba-cuda (its numba_cuda/numba/cuda folder, which numba-cuda's import
redirector makes numba.cuda even where Numba still ships its own numba/cuda).

simt.cuda stands in for the host's numba.cuda package; the host's pure-Python submodules
(numba.cuda.testing, numba.cuda.random, numba-cuda's numba.cuda.core) load from the host's folder
and import a few names from the package itself that simt.cuda lends from the host's modules."""
import collections
import importlib
import importlib.util
import os
import re
import sys


def _spec(name):
    module = sys.modules.get(name)
    if module is not None:
        return module.__spec__
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


def _package_folder(name):
    spec = _spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def is_numba_cuda():
    """Whether numba-cuda provides numba.cuda (its redirector is installed with it)."""
    return _package_folder("numba_cuda") is not None


def cuda_folder():
    """The folder of the host's numba.cuda package, or None without Numba."""
    numba_cuda = _package_folder("numba_cuda")
    if numba_cuda is not None:
        return os.path.join(numba_cuda, "numba", "cuda")
    numba = _package_folder("numba")
    return os.path.join(numba, "cuda") if numba else None


def python_error_model(debug, lineinfo):
    """Whether a kernel compiles with Numba's 'python' error model (float division by zero
    raises ZeroDivisionError) rather than 'numpy' (inf/nan): with debug; with lineinfo too under
    Numba's built-in CUDA target (Numba 0.56's numba/cuda/compiler.py), not under numba-cuda
    (whose compiler.py keeps lineinfo from changing the error model) nor numba-cuda-mlir."""
    if debug:
        return True
    return bool(lineinfo) and not is_numba_cuda() and _package_folder("numba") is not None


def casting_rules_release():
    """The Numba release whose casting rules (numba/core/typeconv/rules.py) the host types by:
    '0.56' under Numba before 0.59 with its own CUDA target; '0.59' (int8 and bool convert to
    float16 safely) under later Numba, numba-cuda, numba-cuda-mlir, or without Numba."""
    import importlib.metadata  # here: importing it costs ~15 ms, and the hook imports this module
    if is_numba_cuda():
        return "0.59"
    try:
        version = importlib.metadata.version("numba")
    except importlib.metadata.PackageNotFoundError:
        return "0.59"
    release = re.match(r"(\d+)\.(\d+)", version)
    if release is None:
        return "0.59"
    return "0.56" if (int(release[1]), int(release[2])) < (0, 59) else "0.59"


def _numba_cuda_types():
    return importlib.import_module("numba.cuda.types")


def _cuda_target(decorator_name):
    """numba-cuda's cuda.vectorize / cuda.guvectorize: Numba's, whose 'cuda' target is simt's
    (simt.vectorizers), with that target by default."""
    import numba
    decorator = getattr(numba, decorator_name)

    def with_cuda_target(*args, **kws):
        kws.setdefault("target", "cuda")
        return decorator(*args, **kws)
    with_cuda_target.__name__ = decorator_name
    return with_cuda_target


# Names numba-cuda's modules import from the numba.cuda package (`from numba.cuda import config`),
# which its __init__ defines: what each is.
_NUMBA_CUDA_PACKAGE_NAMES = {
    "config": lambda: importlib.import_module("numba.cuda.core.config"),
    "HAS_NUMBA": lambda: _spec("numba") is not None,
    "types": _numba_cuda_types,
    "implementation": lambda: "NVIDIA",
    "vectorize": lambda: _cuda_target("vectorize"),
    "guvectorize": lambda: _cuda_target("guvectorize"),
}


# numba-cuda's package re-exports these classes of its pure-Python modules: module, names.
_NUMBA_CUDA_REEXPORTS = (
    ("numba.cuda.cudadrv.linkable_code",
     ("CUSource", "Cubin", "Fatbin", "LTOIR", "LinkableCode", "Object", "PTXSource", "Archive")),
    ("numba.cuda.cudadrv.error", ("CudaSupportError",)),
    ("numba.cuda.misc.special", ("literal_unroll",)),
    ("numba.cuda.api_util", ("prepare_shape_strides_dtype",)),
    ("simt.memory.driver", ("MappedMemory", "PinnedMemory")),
)


def _reexported(name):
    for module, names in _NUMBA_CUDA_REEXPORTS:
        if name in names:
            return getattr(importlib.import_module(module), name)
    raise AttributeError(name)


def package_attribute(name):
    """A name of the host's numba.cuda package that simt.cuda does not define itself (numba-cuda's
    package re-exports numba.cuda.types' names); AttributeError where the host has none."""
    if name.startswith("__") or not is_numba_cuda():
        raise AttributeError(name)
    if name in _NUMBA_CUDA_PACKAGE_NAMES:
        return _NUMBA_CUDA_PACKAGE_NAMES[name]()
    if any(name in names for _, names in _NUMBA_CUDA_REEXPORTS):
        return _reexported(name)
    types = _numba_cuda_types()
    if name in getattr(types, "__all__", ()):
        return getattr(types, name)
    raise AttributeError(name)


class SimulatedRuntime:
    """numba-cuda's NRT runtime object (numba.cuda.memory_management.nrt.rtsys) on simt: its
    statistics count the arrays kernels allocated (np.empty and kin, each one NRT allocation and
    one meminfo) and their frees (as each block ends), which numba-cuda's leak checks compare;
    nothing is compiled or launched for them."""

    def __init__(self, stats_type):
        self._stats_type = stats_type
        self._enabled = False

    def memsys_enable_stats(self, stream=None):
        self._enabled = True

    def memsys_disable_stats(self, stream=None):
        self._enabled = False

    def memsys_stats_enabled(self, stream=None):
        return self._enabled

    def get_allocation_stats(self, stream=None):
        native = sys.modules.get("simt._simt")  # not loaded: no kernel has run
        allocated, freed = native.kernel_allocation_counts() if native else (0, 0)
        return self._stats_type(alloc=allocated, free=freed, mi_alloc=allocated, mi_free=freed)

    def memsys_get_stats_alloc(self, stream=None):
        return self.get_allocation_stats().alloc

    def memsys_get_stats_free(self, stream=None):
        return self.get_allocation_stats().free

    memsys_get_stats_mi_alloc = memsys_get_stats_alloc
    memsys_get_stats_mi_free = memsys_get_stats_free

    def ensure_allocated(self, stream=None):
        pass

    ensure_initialized = allocate = initialize = close = ensure_allocated


def _simulated_nrt(nrt_module):
    # (numba-cuda's simulator has its own nrt module, without the statistics' type)
    stats_type = getattr(nrt_module, "_nrt_mstats", None) or collections.namedtuple(
        "nrt_mstats", ["alloc", "free", "mi_alloc", "mi_free"])
    nrt_module.rtsys = SimulatedRuntime(stats_type)


# numba-cuda's modules that load as they are and that simt then patches (the import hook's
# table of them takes these too).
NUMBA_CUDA_PATCHED = {"numba.cuda.memory_management.nrt": _simulated_nrt}


# numba-cuda's modules that import, circularly, a module its package __init__ imports before
# any of them (simt.cuda, standing in for that __init__, imports none): module -> that module.
_NUMBA_CUDA_IMPORTED_BEFORE = {"numba.cuda.deviceufunc": "numba.cuda.np.ufunc"}


def imported_before(name):
    """The module to import before the host's module `name`, or None."""
    prerequisite = _NUMBA_CUDA_IMPORTED_BEFORE.get(name)
    return prerequisite if prerequisite is not None and is_numba_cuda() else None
