"""Kernel faults as Python exceptions: Python's own classes, or the class the kernel raised."""
import builtins
import os

from simt.base.source import source_line

__all__ = ["user_exception_name", "fault_exception"]


# Exception classes a kernel raises that are not Python's own, by the name the resolver gave
# them (simt.compiler.resolver: "qualname@id").
_USER_EXCEPTIONS = {}


def user_exception_name(cls):
    """The name kernels raise the exception class `cls` by (kept, so faults raise `cls`)."""
    name = "%s@%d" % (cls.__qualname__, id(cls))
    _USER_EXCEPTIONS[name] = cls
    return name


def _exception_class(name):
    if name in _USER_EXCEPTIONS:
        return _USER_EXCEPTIONS[name]
    cls = getattr(builtins, name, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        return cls
    return RuntimeError


def fault_exception(fault):
    """The exception for a fault the launch reported: (exception name, message, tid, ctaid,
    file, line, col, function[, kind]). The first line is Numba's (its CUDA dispatcher's, with the
    location it adds for kernels built with debug=True), so code matching Numba's messages
    matches simt's; then the source line and a caret."""
    name, message, tid, ctaid, file, line, col, function = fault[:8]
    text = "tid=[%d, %d, %d] ctaid=[%d, %d, %d]" % (tuple(tid) + tuple(ctaid))
    if file and line > 0:
        text = "In function %r, file %s, line %d, %s" % (function, os.path.abspath(file), line,
                                                        text)
    if message:  # as Numba's: a class raised without arguments has no ": message"
        text += ": " + message
    if file and line > 0:
        text += '\n  File "%s", line %d, in %s' % (file, line, function)
        source = source_line(file, line)
        if source.strip():
            indent = len(source) - len(source.lstrip())
            text += "\n    %s\n    %s^" % (source.strip(), " " * max(0, col - 1 - indent))
    return _exception_class(name)(text)
