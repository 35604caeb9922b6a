"""What the resolver tells the compiler about a kernel's global and closure names."""
import math
from math import sqrt

import numpy as np
import pytest

import simt
from simt.base import exec_source
from simt import cuda
from simt._simt import GlobalValue as GV
from simt.compiler.resolver import describe, resolver_for

GLOBAL_CONST = 7
TABLE = np.array([[1.0, 2.0], [3.0, 4.0]])


def kernel_using_globals(a):
    a[0] = GLOBAL_CONST + sqrt(TABLE[0, 0])


def test_constants():
    assert describe(None) == GV.none()
    assert describe(True) == GV.boolean(True)
    assert describe(np.bool_(False)) == GV.boolean(False)
    assert describe(3) == GV.integer("int64", 3)
    assert describe(2**63) == GV.integer("uint64", 2**63)
    assert describe(2**64) is None
    assert describe(2.5) == GV.floating("float64", 2.5)
    assert describe(np.float32(1.5)) == GV.floating("float32", 1.5)
    assert describe(np.int16(-3)) == GV.integer("int16", -3)
    assert describe((1, 2.0)) == GV.tuple([GV.integer("int64", 1), GV.floating("float64", 2.0)])
    assert describe((1, "x")) is None
    assert describe("x") == GV.string("x")


def test_arrays_are_frozen_in_c_order():
    table = describe(np.asfortranarray(TABLE))
    dtype, shape, data = table.args
    assert (table.kind, dtype, shape) == ("array", "float64", (2, 2))
    assert np.frombuffer(data, np.float64).tolist() == [1.0, 2.0, 3.0, 4.0]


def test_modules_and_members():
    import numba
    assert describe(cuda) == GV.module("cuda")
    assert describe(math) == GV.module("math")
    assert describe(np) == GV.module("numpy")
    assert describe(numba) == GV.module("numba")
    assert describe(simt) == GV.module("numba")
    assert describe(sqrt) == GV.member("math", "sqrt")
    assert describe(np.rint) == GV.member("numpy", "rint")
    assert describe(np.empty) == GV.member("numpy", "empty")
    assert describe(cuda.grid) == GV.member("cuda", "grid")
    assert describe(cuda.atomic) == GV.member("cuda", "atomic")
    assert describe(cuda.atomic.add) == GV.member("cuda", "atomic.add")
    assert describe(cuda.threadIdx) == GV.member("cuda", "threadIdx")


def test_dtypes_and_array_types():
    import numba
    assert describe(np.float32) == GV.dtype("float32")
    assert describe(np.dtype("int16")) == GV.dtype("int16")
    assert describe(simt.float32) == GV.dtype("float32")
    assert describe(numba.float32) == GV.dtype("float32")
    assert describe(numba.boolean) == GV.dtype("bool")
    assert describe(simt.int32[:, ::1]) == GV.array_type("int32", 2, "C")
    assert describe(numba.float64[::1, :]) == GV.array_type("float64", 2, "F")


def test_exceptions_and_builtins():
    assert describe(ValueError) == GV.exception("ValueError")
    assert describe(abs) == GV.builtin("abs")
    assert describe(len) == GV.builtin("len")

    class Custom(Exception):
        pass

    # a user's class: raised as itself (simt.errors)
    assert describe(Custom) == GV.exception("%s@%d" % (Custom.__qualname__, id(Custom)))


def test_jit_functions_describe_their_source():
    @cuda.jit(device=True)
    def helper(x):
        return x + 1

    described = describe(helper)
    name, source, file, first_line, identity, resolve, declared = described.args
    assert (described.kind, name, file) == ("function", "helper", __file__)
    assert source.lstrip().startswith("@cuda.jit(device=True)")
    assert "return x + 1" in source
    assert identity == id(helper.py_func)
    assert first_line == helper.py_func.__code__.co_firstlineno
    assert resolve("cuda") == GV.module("cuda")
    assert declared == []  # typed from its arguments

    @cuda.jit(["int32(int32, float32[:])", "float64(float64, float64[::1])"], device=True)
    def typed(x, values):
        return x + values[0]

    assert describe(typed).args[6] == [("int32(int32, array(float32, 1d, A))", False),
                                  ("float64(float64, array(float64, 1d, C))", False)]


def test_numba_cpu_jit_functions_are_functions():
    import numba

    @numba.jit
    def twice(x):
        return 2 * x

    assert (describe(twice).kind, describe(twice).args[0]) == ("function", "twice")


def test_resolver_reads_closure_then_globals_then_builtin_exceptions():
    scale = 3.0
    unbound_later = None

    def kernel(a):
        a[0] = scale * GLOBAL_CONST + unbound_later + late
        raise IndexError

    late = 1
    resolve = resolver_for(kernel)
    assert resolve("scale") == GV.floating("float64", 3.0)
    assert resolve("GLOBAL_CONST") == GV.integer("int64", 7)
    assert resolve("late") == GV.integer("int64", 1)
    assert resolve("unbound_later") == GV.none()
    assert resolve("IndexError") == GV.exception("IndexError")
    assert resolve("range") is None
    assert resolve("no_such_name") is None
    resolve_globals = resolver_for(kernel_using_globals)
    assert resolve_globals("sqrt") == GV.member("math", "sqrt")
    assert resolve_globals("TABLE").args[:2] == ("float64", (2, 2))


def test_functions_without_source_raise_a_compile_error():
    namespace = {}
    # Compiled with the builtin, not simt's wrapper (simt/base/exec_source.py): no text is kept.
    code = exec_source._builtin_compile("def f(a):\n    a[0] = 1\n", "<string>", "exec")
    exec(code, namespace)
    with pytest.raises(simt.CompileError, match="source"):
        describe(cuda.jit(device=True)(namespace["f"]))
