"""numba.extending.overload for CUDA kernels: a call to an overloaded Python function compiles
the implementation its overload function returns for the arguments' (Numba) types; a 'cuda'
target overload is preferred to a 'generic' one, and a 'cpu' one is never used."""
import numpy as np
import pytest
from numba.core.extending import overload
from simt import CompileError, cuda


def scale(x, factor):
    pass


def describe(x):
    pass


def cpu_only(x):
    pass


@overload(scale, target="generic")
def _scale_generic(x, factor):
    def impl(x, factor):
        return x * factor
    return impl


@overload(scale, target="cuda")
def _scale_cuda(x, factor):
    if isinstance(factor, __import__("numba").types.Integer):
        def impl(x, factor):  # the CUDA version, for integer factors: adds one
            return x * factor + 1
        return impl
    return None  # other factors: the next overload (generic)


@overload(describe)
def _describe(x):
    from numba.core import types
    if isinstance(x, types.Array):
        def impl(x):
            return x.ndim * 100 + x.size
    else:
        def impl(x):
            return -1
    return impl


@overload(cpu_only, target="cpu")
def _cpu_only(x):
    return lambda x: x


def test_overloads_are_chosen_by_target_and_argument_types():
    @cuda.jit
    def k(out, a):
        out[0] = scale(3, 2)      # cuda overload: 7
        out[1] = scale(3.0, 0.5)  # cuda declines: generic, 1.5
        out[2] = describe(a)      # an array: ndim * 100 + size
        out[3] = describe(4)

    out = np.zeros(4)
    k[1, 1](out, np.zeros((2, 3)))
    assert out.tolist() == [7.0, 1.5, 206.0, -1.0]


def test_functions_with_only_other_targets_overloaded_are_not_callable():
    @cuda.jit
    def k(out):
        out[0] = cpu_only(1)

    with pytest.raises(CompileError, match="cpu_only"):
        k[1, 1](np.zeros(1))


def test_numba_cuda_extending_overload_of_a_closure_function():
    """numba-cuda's numba.cuda.extending.overload registers in numba-cuda's own typing registry
    (its test_ssa's issue 3976: the overloaded function a closure variable of the kernel)."""
    extending = pytest.importorskip("numba.cuda.extending")

    def overload_this(a):
        return 42

    @cuda.jit
    def kernel(result, a):
        if a:
            s = 5
            s = overload_this(s)
        else:
            s = 99
        result[0] = s

    @extending.overload(overload_this)
    def _ol(a):
        return lambda a: a + 37

    result = np.zeros(1, np.int64)
    kernel[1, 1](result, True)
    assert result[0] == 42
