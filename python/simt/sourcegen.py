"""Kernels generated as Python source text (cuda.reduce, CUDA vectorize and guvectorize).

The frontend compiles a function from its source, which it reads through `inspect`; a generated
function has no file, so its text is registered in `linecache` under a made-up file name. That
same entry lets compile errors and kernel faults quote the generated line."""
import itertools
import linecache

__all__ = ["function_from_source", "device_function"]

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


def device_function(func):
    """`func` as a device function: a Python function is compiled with cuda.jit(device=True); a
    device function already jitted (by simt or Numba) is used as it is."""
    from . import cuda
    if getattr(func, "_simt_dispatcher", False):
        if not func.device:
            raise TypeError("simt: %s is a kernel; a device function is needed" % func.__name__)
        return func
    return cuda.jit(device=True)(getattr(func, "py_func", func))
