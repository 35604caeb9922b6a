"""The source of kernels defined by code that exec() or compile() ran from a string: Python keeps
no copy of such text, which the frontend needs (Numba compiles from bytecode; simt from source).
Code generators do this (Numba's own test_libdevice builds 317 kernels from a template), so once
simt.cuda is imported, builtins.exec and builtins.compile are wrapped: a string is compiled as
before, and when its file name is not a file's ("<string>"), the text is remembered for each
function the code defines (weakly: it goes with the code objects). `lines_for(code)` gives a function's text.

The wrappers behave as the builtins do: the caller's globals and locals when none are given, and
the caller's `from __future__` flags (exec and compile inherit them from the code calling them,
which would otherwise be this module)."""
import __future__
import builtins
import sys
import types as pytypes
import weakref

__all__ = ["install", "lines_for", "remember_function"]

_builtin_exec = builtins.exec
_builtin_compile = builtins.compile

# Function code object -> the lines of the text it was compiled from.
_LINES = weakref.WeakKeyDictionary()

_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag


def lines_for(code):
    """The lines of the string that `code` (a function's code object) was compiled from by exec()
    or compile(), or None."""
    try:
        return _LINES.get(code)
    except TypeError:
        return None


def remember_function(code, lines):
    """Gives a function's code object (and the functions inside it) `lines` as its text: an
    unpickled function's, whose file may be elsewhere (simt.compiler.pickling)."""
    _LINES[code] = lines
    _remember(code, lines)


def _remember(code, lines):
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            _LINES[const] = lines
            _remember(const, lines)


def _compile_text(source, filename, mode, flags, dont_inherit, optimize, caller):
    if not dont_inherit:
        flags |= caller.f_code.co_flags & _FUTURE_FLAGS
    code = _builtin_compile(source, filename, mode, flags, True, optimize)
    # Text of a file ("<string>", "<stdin>" are not) is read from the file (simt.base.source).
    if isinstance(code, pytypes.CodeType) and str(filename).startswith("<"):
        text = source.decode("utf-8", "surrogateescape") if isinstance(source, bytes) else source
        _remember(code, text.splitlines(keepends=True))
    return code


def _exec(source, globals=None, locals=None, /, **kwargs):
    caller = sys._getframe(1)
    if globals is None:
        globals = caller.f_globals
        if locals is None:
            locals = caller.f_locals
    if isinstance(source, (str, bytes)):
        source = _compile_text(source, "<string>", "exec", 0, False, -1, caller)
    return _builtin_exec(source, globals, locals, **kwargs)


def _compile(source, filename, mode, flags=0, dont_inherit=False, optimize=-1, **kwargs):
    if kwargs or not isinstance(source, (str, bytes)) or flags & 0x400:  # PyCF_ONLY_AST
        if not dont_inherit:
            flags |= sys._getframe(1).f_code.co_flags & _FUTURE_FLAGS
        return _builtin_compile(source, filename, mode, flags, True, optimize, **kwargs)
    return _compile_text(source, filename, mode, flags, dont_inherit, optimize, sys._getframe(1))


_exec.__doc__ = _builtin_exec.__doc__
_compile.__doc__ = _builtin_compile.__doc__


def install():
    """Wraps builtins.exec and builtins.compile (idempotent)."""
    builtins.exec = _exec
    builtins.compile = _compile
