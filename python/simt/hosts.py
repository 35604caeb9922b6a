"""The packages whose CUDA module simt stands in for (its hosts), in one table, and what simt.cuda
adds when it serves numba-cuda-mlir's module.

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
           "NUMBA_CUDA_MLIR_MODULES", "numba_cuda_mlir_module", "add_numba_cuda_mlir_names",
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


def _cudadrv_package():
    """simt.cuda.cudadrv, made a package so its modules import by name under numba-cuda-mlir's."""
    from simt import cuda
    package = cuda.cudadrv
    if not hasattr(package, "__path__"):
        package.__path__ = []
    return package


def _module(name):
    return lambda: importlib.import_module(name)


def _cuda_namespace(name):
    """simt.cuda's namespace `name` (cuda.shared), which numba-cuda-mlir makes a module."""
    return lambda: getattr(importlib.import_module("simt.cuda"), name)


# numba-cuda-mlir's submodules that users import, and simt's modules that serve them.
NUMBA_CUDA_MLIR_MODULES = {
    "numba_cuda_mlir.cuda.libdevice": _module("simt.libdevice"),
    "numba_cuda_mlir.cuda.cudadrv": _cudadrv_package,
    "numba_cuda_mlir.cuda.cudadrv.driver": _module("simt.driver"),
    "numba_cuda_mlir.cuda.cudadrv.devicearray": _module("simt.cudadrv_devicearray"),
    "numba_cuda_mlir.cuda.cudadrv.devices": _module("simt.device"),
    "numba_cuda_mlir.cuda.types": _module("simt.types"),
    "numba_cuda_mlir.cuda.random": _module("simt.random"),
    "numba_cuda_mlir.cuda.vector_types": _module("simt.stubs"),  # float32x4, int2, ...
    "numba_cuda_mlir.cuda.shared": _cuda_namespace("shared"),
    "numba_cuda_mlir.cuda.local": _cuda_namespace("local"),
    "numba_cuda_mlir.cuda.const": _cuda_namespace("const"),
    "numba_cuda_mlir.cuda.fp16": _cuda_namespace("fp16"),
    # its FP8 bindings, numba-cuda's (numba.cuda.fp8, numba.cuda._internal.cuda_fp8)
    "numba_cuda_mlir.numba_cuda.fp8": _module("simt.fp8"),
    "numba_cuda_mlir.numba_cuda._internal.cuda_fp8": _module("simt.fp8"),
    # The device queries of numba-cuda-mlir's own modules (its testing helpers' cc_X_or_above,
    # tools.get_gpu_compute_capability) would reach NVIDIA's driver: they see the simulated device.
    "numba_cuda_mlir.numba_cuda.cudadrv.devices": _module("simt.device"),
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
    from simt import driver, random, types, vectorizers
    for name in _TYPE_NAMES:
        setattr(cuda, name, getattr(types, name))
    cuda.random = random  # numba-cuda-mlir's package imports it with itself
    cuda.literal_unroll = importlib.import_module(SPECIAL_FUNCTION_MODULES[0]).literal_unroll
    cuda.HAS_NUMBA = False  # numba-cuda-mlir never imports Numba
    cuda.implementation = "NVIDIA"
    cuda.local_array = cuda.local.array
    cuda.shared_array = cuda.shared.array
    cuda.vectorize, cuda.guvectorize = vectorizers.vectorize, vectorizers.guvectorize
    cuda.MappedMemory, cuda.PinnedMemory = driver.MappedMemory, driver.PinnedMemory
    cuda.is_float16_supported = lambda: True
    for name in ("compile_cubin", "compile_mlir"):
        setattr(cuda, name, _needs_the_gpu_toolchain(name))
