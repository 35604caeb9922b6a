"""Whether kernels are compiled for simt's debugger: `SIMT_DEBUG=1` in the environment when simt
is imported (as `simt debug script.py` sets it), or set_debug_mode(True). Under the debugger every
kernel is compiled in its debug variant (CompileOptions' instrumentation 'debug'), a separate
entry of every cache; release kernels are untouched."""
import os

from . import config

_debug_mode = config.enabled("SIMT_DEBUG")


def debug_mode():
    return _debug_mode


def breakpoints_enabled():
    """Whether breakpoint() in a kernel stops in the debugger: as in Python, unless
    PYTHONBREAKPOINT=0."""
    return os.environ.get("PYTHONBREAKPOINT", "") != "0"


def set_debug_mode(enabled):
    global _debug_mode
    _debug_mode = bool(enabled)
