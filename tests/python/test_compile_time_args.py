"""Compile-time arguments of device functions, as Numba types them (literal integers used as
array shapes, literal booleans, dtypes, functions), each value its own specialisation; and the
branches a constant condition rules out, which are neither typed nor compiled (Numba's dead
branch pruning). The differential case compile_time_arguments_of_device_functions compares the
same against Numba's simulator where it can run them."""
import math

import numpy as np
from simt import cuda

FLAG = False


@cuda.jit(device=True)
def fill(out, dtype, shape, value_of):
    t = cuda.threadIdx.x
    tile = cuda.shared.array(shape, dtype)
    tile[t % shape[0], t // shape[0]] = value_of(t)
    cuda.syncthreads()
    out[t] = tile[t % shape[0], t // shape[0]] * shape[1]


@cuda.jit(device=True)
def half(t):
    return t / 2


def test_dtypes_shapes_and_functions_specialise_a_device_function():
    @cuda.jit
    def k(ints, floats, sines):
        fill(ints, np.int32, (2, 8), abs)
        fill(floats, np.float64, (4, 4), half)
        fill(sines, np.float32, (16, 1), math.sin)

    ints, floats, sines = np.zeros(16, np.int32), np.zeros(16), np.zeros(16, np.float32)
    k[1, 16](ints, floats, sines)
    t = np.arange(16)
    np.testing.assert_array_equal(ints, t * 8)
    np.testing.assert_array_equal(floats, t / 2 * 4)
    np.testing.assert_allclose(sines, np.sin(t).astype(np.float32), rtol=1e-6)


def test_a_parameter_the_function_assigns_takes_runtime_values():
    @cuda.jit(device=True)
    def scaled(x, n):
        n = n * 2
        return x * n

    @cuda.jit
    def k(out):
        out[0] = scaled(3, 4)
        out[1] = scaled(3, 5)

    out = np.zeros(2, np.int64)
    k[1, 1](out)
    assert out.tolist() == [24, 30]


def test_a_constant_condition_compiles_only_its_branch():
    @cuda.jit(device=True)
    def pick(x, wide):
        if wide:
            y = x + 0.5  # float64 here, int64 in the other branch: never both
        else:
            y = x + 1
        return y

    @cuda.jit
    def k(out, floats):
        out[0] = pick(1, False)
        floats[0] = pick(1, True)
        if FLAG:
            out[1] = undefined_name  # noqa: F821 -- pruned, as in Numba
        else:
            out[1] = 7

    out, floats = np.zeros(2, np.int64), np.zeros(1)
    k[1, 1](out, floats)
    assert out.tolist() == [2, 7] and floats[0] == 1.5
