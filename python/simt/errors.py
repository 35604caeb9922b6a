"""simt's exceptions and warnings: compile errors, parity errors and out-of-bounds warnings (kernel faults become Python's own exception
classes in simt.compiler.faults)."""
import sys

__all__ = ["CompileError", "ParityError", "OutOfBoundsWarning"]


class CompileError(Exception):
    """A kernel that simt cannot compile. str() is the full message: file:line:col, the source
    line and a caret; the parts are also attributes."""

    def __init__(self, text, file=None, line=0, col=0, message=None, source_line=""):
        super().__init__(text)
        self.file = file
        self.line = line
        self.col = col
        self.message = message if message is not None else text
        self.source_line = source_line

    def __new__(cls, text, file=None, line=0, col=0, message=None, source_line=""):
        # Errors Numba raises as another class are instances of it too (see _host_classes).
        if cls is CompileError:
            bases = _host_classes(message if message is not None else text)
            if bases:
                cls = _mixed_class(bases)
        return super().__new__(cls, text, file, line, col, message, source_line)


# Compile errors whose message starts so are also what Numba raises for them: numba-cuda's
# ValueError for a bad alignment= of a shared or local array, its TypingError (Numba's and
# numba-cuda's own class, as loaded) for a non-constant one and for a call of a device function
# that none of its declared signatures accepts.
_TYPING_ERROR = ("numba.core.errors.TypingError", "numba.cuda.core.errors.TypingError")
_HOST_ERRORS = (("Alignment must be", ("builtins.ValueError",)),
                ("RequireLiteralValue:", _TYPING_ERROR),
                ("Invalid use of type(CUDADispatcher(", _TYPING_ERROR))
_MIXED = {}


def _host_classes(message):
    for prefix, names in _HOST_ERRORS:
        if message.startswith(prefix):
            classes = []
            for name in names:
                module, _, attr = name.rpartition(".")
                cls = getattr(sys.modules.get(module), attr, None)  # only hosts already loaded
                if isinstance(cls, type) and cls not in classes:
                    classes.append(cls)
            return tuple(classes)
    return ()


def _mixed_class(bases):
    if bases not in _MIXED:
        _MIXED[bases] = type("CompileError", (CompileError,) + bases,
                             {"__module__": __name__, "__qualname__": "CompileError"})
    return _MIXED[bases]


class ParityError(AssertionError):
    """SIMT_TARGET=both: a launch's results on the GPU differ from the simulator's (the message
    names the kernel, the argument, the first differing index and both values)."""


class OutOfBoundsWarning(RuntimeWarning):
    """SIMT_BOUNDSCHECK=warn: a kernel indexed an array out of its bounds, and went on as on a GPU
    (the read gave a poisoned value, the write was lost). One per site of a kernel: the first
    thread that reached it, and the line."""
