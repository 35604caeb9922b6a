"""The packages whose CUDA module simt stands in for (its hosts), in one table (what simt.cuda
serves of numba-cuda-mlir's modules is simt.hook's).

Which hosts the import hook serves follows the environment: SIMT_ENABLE=1 (or SIMT_CHECK, unless
SIMT_ENABLE=0) serves every host; NUMBA_ENABLE_CUDASIM=1 serves only the hosts without a simulator
of their own (numba-cuda-mlir deleted numba-cuda's), so a project whose CI sets that variable runs
on simt unchanged, while Numba and numba-cuda keep running it on their own simulator;
SIMT_ENABLE=0 serves none."""
import collections
import importlib
import importlib.util
import os
import sys

__all__ = ["Host", "HOSTS", "TYPE_OBJECT_MODULES", "KERNEL_MODULE_NAMES",
           "SPECIAL_FUNCTION_MODULES", "cuda_modules", "served_by_environment",
           "numba_cuda_mlir_in_use"]

# package: what an installed host is found by; types_package: where its type objects live
Host = collections.namedtuple("Host",
                              "distribution package cuda_module has_simulator types_package")

HOSTS = (
    # Numba's built-in CUDA target (Numba 0.56)
    Host("numba", "numba", "numba.cuda", True, "numba"),
    # NVIDIA's numba-cuda (0.30)
    Host("numba-cuda", "numba_cuda", "numba.cuda", True, "numba"),
    # numba-cuda-mlir (0.6): a fork of numba-cuda's types under its own name, no Numba
    Host("numba-cuda-mlir", "numba_cuda_mlir", "numba_cuda_mlir.cuda", False, "numba_cuda_mlir"),
)

# Module-name prefixes of the hosts' type objects (float32, float32[:, ::1], void(...)), which
# signatures and kernels may hold.
TYPE_OBJECT_MODULES = tuple(dict.fromkeys(host.types_package + "." for host in HOSTS))

# numba-cuda-mlir's modules of type names (`types.float32(x)` in a kernel), by the name the
# compiler knows them by.
KERNEL_MODULE_NAMES = {"numba_cuda_mlir.types": "numba",
                       "numba_cuda_mlir.numba_cuda.types": "numba"}

# numba-cuda-mlir's copy of numba.misc.special (literal_unroll), whose functions kernels call.
SPECIAL_FUNCTION_MODULES = ("numba_cuda_mlir.numba_cuda.misc.special",)


def _flag(environ, name):
    return environ.get(name, "") not in ("", "0")


def _installed(package):
    try:
        return importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):
        return False


def cuda_modules(hosts=HOSTS):
    """The hosts' CUDA module names, each once."""
    return tuple(dict.fromkeys(host.cuda_module for host in hosts))


def served_by_environment(environ=None):
    """The CUDA module names the import hook serves simt.cuda for in this environment (empty:
    install no hook). Hosts without a simulator count only when installed, so that
    NUMBA_ENABLE_CUDASIM=1 without one changes nothing."""
    environ = os.environ if environ is None else environ
    if environ.get("SIMT_ENABLE") == "0":
        return ()
    if _flag(environ, "SIMT_ENABLE") or _flag(environ, "SIMT_CHECK"):
        return cuda_modules()
    if _flag(environ, "NUMBA_ENABLE_CUDASIM"):
        return cuda_modules([host for host in HOSTS
                             if not host.has_simulator and _installed(host.package)])
    return ()


def numba_cuda_mlir_in_use():
    """Whether the program imported numba-cuda-mlir, whose jit semantics (annotations as
    signatures) then apply to `cuda.jit` (simt.cuda serves every host at once)."""
    return "numba_cuda_mlir" in sys.modules
