"""simt: a compiled CUDA execution-model simulator for Numba-style CUDA Python kernels.

`from simt import cuda` gives the numba.cuda API; the scalar and array type objects
(`simt.float32`, `simt.int32[:, ::1]`, `simt.void(...)`) need no Numba. Everything loads on first
use, so the import hook (simt.hook, run at start-up under SIMT_ENABLE=1) costs nothing until
numba.cuda is imported.

The package is built in layers; a module imports only from its own layer and those below it,
and no import (at the top or in a function) goes round in a circle
(tests/python/test_package_layers.py), from the bottom:

  simt._simt     the compiler and simulator (C++)
  simt.errors, simt.base
                 settings (config), the numba.cuda hosts (host, hosts), kernels' source text
                 (source, exec_source, commandline_source), NumPy's differences, byte ranges
  simt.memory    device memory: pointers, IPC, the driver and device, device arrays, and the
                 watch the checkers register with
  simt.stubs, simt.types
                 the kernel-only names (cuda.threadIdx, ...) and the type objects
  simt.compiler  signatures, the resolver, the dispatcher (cuda.jit), PTX, linking, targets,
                 faults, and the launch hooks (launch_hooks) through which the tools take part
  simt.tools     the debugger (debugging, debugger, debug_values, debug_input, debug_pytest,
                 notebook: the %simt_debug magic), the checkers (check), the bundle writer
                 (bundle), the PTX check (ptx_check): each registers its hook
  the API        simt.cuda (numba.cuda), libdevice, bf16, fp8, random, vectorizers, and the
                 stand-ins for Numba's modules (cudadrv_devicearray, transpose, testing_patch)
  the entries    simt.hook (the import hook), simt.cli and `python -m simt`, the pytest plugin
                 (simt.pytest_plugin), and this package's names, which load those above lazily.

No module imports this package object itself (`from simt import x`): only its modules."""
import importlib
import sys

from simt.base.version import __version__  # noqa: F401

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


def load_ipython_extension(ipython):
    """`%load_ext simt` in IPython or Jupyter: the %simt_debug magic (simt.tools.notebook)."""
    importlib.import_module("simt.tools.notebook").load_ipython_extension(ipython)


def __dir__():
    return sorted(_TYPE_NAMES | {"CompileError", "cuda", "types", "errors", "hook",
                                 "__version__", "load_ipython_extension"})


if "IPython" in sys.modules:  # imported in IPython or Jupyter: %simt_debug without %load_ext
    importlib.import_module("simt.tools.notebook").register_in_running_ipython()
