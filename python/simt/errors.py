"""simt's exceptions: compile errors, and kernel faults raised as Python's own exception classes."""
import builtins

from .source import source_line

__all__ = ["CompileError", "ParityError", "fault_exception"]


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


class ParityError(AssertionError):
    """SIMT_TARGET=both: a launch's results on the GPU differ from the simulator's (the message
    names the kernel, the argument, the first differing index and both values)."""


def _exception_class(name):
    cls = getattr(builtins, name, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        return cls
    return RuntimeError


def fault_exception(fault):
    """The exception for a fault the launch reported: (exception name, message, tid, ctaid,
    file, line, col, function). The text names the thread and shows the source line."""
    name, message, tid, ctaid, file, line, col, function = fault
    text = "tid=[%d, %d, %d] ctaid=[%d, %d, %d]: %s" % (tuple(tid) + tuple(ctaid) + (message,))
    if file and line > 0:
        text += '\n  File "%s", line %d, in %s' % (file, line, function)
        source = source_line(file, line)
        if source.strip():
            indent = len(source) - len(source.lstrip())
            text += "\n    %s\n    %s^" % (source.strip(), " " * max(0, col - 1 - indent))
    return _exception_class(name)(text)
