"""Kernels generated as Python source text (cuda.reduce, CUDA vectorize and guvectorize).

The frontend compiles a function from its source, which it reads through `inspect`; a generated
function has no file, so its text is registered in `linecache` under a made-up file name. That
same entry lets compile errors and kernel faults quote the generated line."""
import ast
import itertools
import linecache
import re

from simt.base.source import CapturedSource

from .dispatcher import jit

__all__ = ["function_from_source", "device_function", "generated_name", "lambda_as_function"]

_serial = itertools.count(1)


def function_from_source(source, name, globals_dict, description):
    """The function `name` defined by `source`, with `globals_dict` as its globals (the names its
    body uses). `description` names it in error messages, e.g. "vectorize rel_diff"."""
    filename = "<simt %s #%d>" % (description, next(_serial))
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)
    namespace = dict(globals_dict)
    namespace.setdefault("__name__", "simt.generated")
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def generated_name(name):
    """`name` made a Python identifier, for names built from user function names ("<lambda>")."""
    return re.sub(r"\W", "_", name)


def _lambda_node(func):
    """The ast.Lambda of `func`, from its source captured now (and checked against its code)."""
    text = CapturedSource(func).get()[1]
    return ast.parse(text.strip(), mode="eval").body


def lambda_as_function(func):
    """A lambda as a `def` function (generated source) with the same parameters, body,
    globals and captured values, so that the frontend, which reads whole function definitions,
    can compile it."""
    node = _lambda_node(func)
    name = generated_name("lambda_%s" % func.__code__.co_firstlineno)
    source = "def %s(%s):\n    return %s\n" % (name, ast.unparse(node.args),
                                                ast.unparse(node.body))
    namespace = dict(func.__globals__)
    for var, cell in zip(func.__code__.co_freevars, func.__closure__ or ()):
        namespace[var] = cell.cell_contents
    return function_from_source(source, name, namespace, "lambda %s" % name)


def device_function(func):
    """`func` as a device function: a Python function is compiled with cuda.jit(device=True); a
    device function already jitted (by simt or Numba) is used as it is."""
    if getattr(func, "_simt_dispatcher", False):
        if not func.device:
            raise TypeError("simt: %s is a kernel; a device function is needed" % func.__name__)
        return func
    func = getattr(func, "py_func", func)
    if func.__name__ == "<lambda>":
        func = lambda_as_function(func)
    return jit(device=True)(func)
