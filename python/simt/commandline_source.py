"""The source of kernels defined in `python3 -c "..."`: Python keeps no copy of the command's text,
which the frontend needs, but Linux keeps the command line in /proc/self/cmdline. getsourcelines()
reads a function's source from it, through `linecache` under "<string>", the file name of code
run with -c."""
import inspect
import linecache
import re
import sys

__all__ = ["getsourcelines"]

_COMMAND_FILE = "<string>"


def _command_text():
    try:
        with open("/proc/self/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return None
    for i, arg in enumerate(argv[:-1]):
        if arg == b"-c":
            return argv[i + 1].decode("utf-8", "surrogateescape")
        if not arg.startswith(b"-") and i > 0:  # a script or module argument: no -c
            return None
    return None


def _defines(line, py_func):
    """Whether `line` may start the definition of `py_func` (not, say, a function that code run by
    exec() defined, whose line numbers count in another text)."""
    name = py_func.__name__
    if name == "<lambda>":
        return "lambda" in line
    return re.match(r"\s*(@|(async\s+)?def\s+%s\b)" % re.escape(name), line) is not None


def getsourcelines(py_func):
    """inspect.getsourcelines(py_func) for a function that the `-c` command defined, else None.
    The command's text is in linecache only meanwhile, so functions that exec() makes keep
    having no source."""
    code = py_func.__code__
    if code.co_filename != _COMMAND_FILE or sys.argv[:1] != ["-c"]:
        return None
    text = _command_text()
    if text is None:
        return None
    lines = text.splitlines(keepends=True)
    if not 0 < code.co_firstlineno <= len(lines) or \
            not _defines(lines[code.co_firstlineno - 1], py_func):
        return None
    saved = linecache.cache.get(_COMMAND_FILE)
    linecache.cache[_COMMAND_FILE] = (len(text), None, lines, _COMMAND_FILE)
    try:
        return inspect.getsourcelines(py_func)
    finally:
        if saved is None:
            del linecache.cache[_COMMAND_FILE]
        else:
            linecache.cache[_COMMAND_FILE] = saved
