"""simt: a compiled CUDA execution-model simulator for Numba-style CUDA Python kernels.

`from simt import cuda` gives the numba.cuda API; the scalar and array type objects
(`simt.float32`, `simt.int32[:, ::1]`, `simt.void(...)`) need no Numba. Everything loads on first
use, so the import hook (simt.hook, run at start-up under SIMT_ENABLE=1) costs nothing until
numba.cuda is imported."""
import importlib

__version__ = "0.1.0"

_TYPE_NAMES = frozenset((
    "b1", "bool_", "boolean", "byte", "c8", "c16", "cdouble", "char", "complex64", "complex128",
    "csingle", "double", "f2", "f4", "f8", "float16", "float32", "float64",
    "float_", "from_dtype", "i1", "i2", "i4", "i8", "int8", "int16", "int32", "int64", "intc",
    "intp", "long_", "longlong", "none", "short", "typeof", "u1", "u2", "u4", "u8", "uchar",
    "uint8", "uint16", "uint32", "uint64", "uintc", "uintp", "ulong", "ulonglong", "ushort",
    "void"))


def __getattr__(name):
    if name in _TYPE_NAMES:
        return getattr(importlib.import_module("simt.types"), name)
    if name == "CompileError":
        return importlib.import_module("simt.errors").CompileError
    if name in ("cuda", "types", "errors", "hook"):
        return importlib.import_module("simt." + name)
    raise AttributeError("module 'simt' has no attribute %r" % name)


def __dir__():
    return sorted(_TYPE_NAMES | {"CompileError", "cuda", "types", "errors", "hook",
                                 "__version__"})
