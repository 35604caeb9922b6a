"""Whether kernels are compiled for simt's debugger: `SIMT_DEBUG=1` in the environment when simt
is imported (as `simt debug script.py` sets it), or set_debug_mode(True). Under the debugger every
kernel is compiled in its debug variant (CompileOptions' instrumentation 'debug'), a separate
entry of every cache; release kernels are untouched."""
import os
import weakref

from simt.base import config
from simt.compiler import launch_hooks

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


class _DebuggerHook(launch_hooks.LaunchHook):
    """Under the debugger (debug mode), and for a dispatcher one of whose kernels calls
    breakpoint(): kernels in the debug variant, launched under the debugging session
    (simt.tools.debugger)."""

    order = 0

    def __init__(self):
        self._breaking = weakref.WeakSet()  # dispatchers whose kernels call breakpoint()

    def _debugged(self, dispatcher):
        return _debug_mode or dispatcher in self._breaking

    def variant(self, dispatcher):
        return {"instrumentation": "debug"} if self._debugged(dispatcher) else None

    def compiled(self, dispatcher, argtypes, kernel):
        # breakpoint() in release code opens the debugger: the dispatcher's kernels run their
        # debug variant from now on
        if kernel.uses_breakpoint and not launch_hooks.variant(dispatcher) and \
                breakpoints_enabled():
            self._breaking.add(dispatcher)
            return True
        return False

    launches = _debugged

    def launch(self, launch):
        from simt.tools import debugger  # loads the compiler: only once a kernel runs under it
        session = debugger.session(break_on_launch=_debug_mode)
        session.launching(launch.dispatcher)
        try:
            return launch.run(debugger=session.native)
        finally:
            if session.quitting:
                debugger.end()  # a later launch (a notebook's next cell) debugs afresh
                raise SystemExit(0)


launch_hooks.register(_DebuggerHook())
