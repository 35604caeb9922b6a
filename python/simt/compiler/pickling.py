"""Pickling simt's compiled callables as Numba pickles its own: a @cuda.jit dispatcher or a CUDA
(g)ufunc travels as its Python function by value (with Numba's cloudpickle), the function's
source text (the frontend compiles source, and the file may not be where the object is
unpickled) and what it was built with; never compiled code: the unpickled object compiles again
where it is used. Without Numba there is no cloudpickle: an object its module names pickles by
that name, as functions do."""
import pickle
import sys

from simt.base import exec_source


def reduce(obj, states):
    """obj.__reduce__'s value: rebuilt with type(obj)._rebuild(**states()), or by name without
    Numba."""
    try:
        from numba.core import serialize
    except ImportError:
        module = sys.modules.get(getattr(obj, "__module__", None))
        name = getattr(obj, "__qualname__", "")
        if module is None or getattr(module, name, None) is not obj:
            raise pickle.PicklingError(
                "simt: %r is not a module's global, so it pickles by value, which needs Numba's"
                " cloudpickle (install numba)" % (obj,)) from None
        return name
    return serialize.custom_reduce(type(obj), states())


def source_lines(captured):
    """The text of a function (simt.base.source.CapturedSource) as lines at their line numbers in
    its file, the lines before it blank."""
    _, text, _, first_line = captured.get()
    return ["\n"] * (first_line - 1) + text.splitlines(keepends=True)


def restore_source(py_func, lines):
    """Makes `lines` (source_lines') the text simt compiles `py_func` from."""
    exec_source.remember_function(py_func.__code__, lines)
