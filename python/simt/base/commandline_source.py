"""The source of kernels defined in `python3 -c "..."`: Python keeps no copy of the command's text,
which the frontend needs, but Linux keeps the command line in /proc/self/cmdline. command_lines()
gives its lines for a function the command defined (file name "<string>", as code run with -c)."""
import re
import sys

__all__ = ["command_lines"]

_COMMAND_FILE = "<string>"


def _command_text():
    try:
        with open("/proc/self/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return None
    i = 1
    while i < len(argv) - 1:
        arg = argv[i]
        if arg == b"-c":
            return argv[i + 1].decode("utf-8", "surrogateescape")
        if not arg.startswith(b"-"):  # a script or module argument: no -c
            return None
        i += 2 if arg in _OPTIONS_WITH_VALUES else 1
    return None


# The interpreter's options whose value is the next argument (-W error, -X dev).
_OPTIONS_WITH_VALUES = (b"-W", b"-X", b"--check-hash-based-pycs")


def _defines(line, py_func):
    """Whether `line` may start the definition of `py_func` (not, say, a function that code run by
    exec() defined, whose line numbers count in another text)."""
    name = py_func.__name__
    if name == "<lambda>":
        return "lambda" in line
    return re.match(r"\s*(@|(async\s+)?def\s+%s\b)" % re.escape(name), line) is not None


def command_lines(py_func):
    """The lines of the `-c` command, for a function that it defined (its first line begins the
    definition), else None: functions that code run by exec() defines keep having no source."""
    code = py_func.__code__
    if code.co_filename != _COMMAND_FILE or sys.argv[:1] != ["-c"]:
        return None
    if _COMMAND_LINES[0] is None:
        text = _command_text()
        if text is None:  # unreadable now (no file descriptor left): read again next time
            return None
        _COMMAND_LINES[0] = text.splitlines(keepends=True)
    lines = _COMMAND_LINES[0]
    if not 0 < code.co_firstlineno <= len(lines) or \
            not _defines(lines[code.co_firstlineno - 1], py_func):
        return None
    return lines


_COMMAND_LINES = [None]  # the command's lines, read once
