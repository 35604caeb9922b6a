"""Launch configuration values (griddim, blockdim, stream, sharedmem, forall's ntasks and tpb) are
checked in Python: non-integers raise TypeError with Numba's text, values CUDA cannot take as
unsigned 32-bit integers raise ValueError naming the value; never pybind's "incompatible function
arguments"; `sys.stdout` of None or without flush() does not stop launches."""
import numpy as np
import pytest

from conftest import run_python
from simt import cuda


@cuda.jit
def iota(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i


def launch(config):
    a = np.zeros(8)
    iota[config](a)
    return a


@pytest.mark.parametrize("config, what", [
    ((2**64, 4), "griddim x=18446744073709551616"),
    ((1, (4, 2**64)), "blockdim y=18446744073709551616"),
    (((1, 1, 2**32), 4), "griddim z=4294967296"),
    ((-1, 4), "griddim x=-1"),
    ((1, -4), "blockdim x=-4"),
    ((1, 4, 0, 2**64), "sharedmem=18446744073709551616"),
    ((1, 4, 0, -1), "sharedmem=-1"),
])
def test_values_out_of_range_are_value_errors_naming_them(config, what):
    with pytest.raises(ValueError, match="^%s is out of range: CUDA takes it as an unsigned 32-bit"
                                         " integer" % what):
        launch(config)


@pytest.mark.parametrize("config, message", [
    ((1.5, 4), r"griddim must be a sequence of integers, got \[1.5\]"),
    (((1, 2.0), 4), r"griddim must be a sequence of integers, got \[1, 2.0\]"),
    ((1, True), r"blockdim must be a sequence of integers, got \[True\]"),
    ((1, "4"), r"blockdim must be a sequence of integers, got \['4'\]"),
    ((1, 4, 0, 1.0), "sharedmem must be an integer, got 1.0"),
    ((1, 4, 5), "stream must be a stream .* or 0, got 5"),
    ((1, 4, "s"), "stream must be a stream .* or 0, got 's'"),
])
def test_values_of_other_types_are_type_errors(config, message):
    with pytest.raises(TypeError, match=message):
        launch(config)


def test_float_dimensions_are_refused_after_an_equal_int_launch():
    @cuda.jit
    def k(a):
        a[0] += 1

    a = np.zeros(1)
    k[8, 128](a)
    for config in [(8.0, 128), (8, 128.0), ((8.0,), 128)]:  # 8.0 == 8, and hashes alike
        with pytest.raises(TypeError, match="must be a sequence of integers"):
            k[config](a)


def test_sequences_longer_than_three_are_value_errors():
    with pytest.raises(ValueError, match=r"griddim must be a sequence of 1, 2 or 3 integers"):
        launch(((1, 1, 1, 1), 4))


def test_values_in_range_reach_the_simulator_limits():
    with pytest.raises(ValueError, match="grid dimension x=4294967295 exceeds the limit"):
        launch((2**32 - 1, 1))
    with pytest.raises(ValueError, match="zero dimension"):
        launch((0, 4))


def test_valid_configurations_of_numpy_integers_and_streams_run():
    np.testing.assert_array_equal(launch((np.int64(2), np.uint32(4))), np.arange(8))
    np.testing.assert_array_equal(launch((2, 4, cuda.stream(), np.int32(16))), np.arange(8))
    np.testing.assert_array_equal(launch((2, 4, None)), np.arange(8))


def test_forall_checks_its_task_count_and_block_size():
    a = np.zeros(8)
    with pytest.raises(TypeError, match="ntasks must be an integer, got 8.0"):
        iota.forall(8.0)(a)
    with pytest.raises(ValueError, match="negative task count"):
        iota.forall(-1)(a)
    with pytest.raises(ValueError, match="tpb=18446744073709551616 is out of range"):
        iota.forall(8, 2**64)(a)
    with pytest.raises(ValueError, match="griddim x=72057594037927936 is out of range"):
        iota.forall(2**64)(a)
    iota.forall(8, 3)(a)
    np.testing.assert_array_equal(a, np.arange(8))


PRINT_WITH_STDOUT = """\
import sys
import numpy as np
from simt import cuda

@cuda.jit
def shout(a):
    i = cuda.grid(1)
    a[i] = 2 * i
    if i == 3:
        print("kernel says", i)

{setup}
a = np.zeros(4)
shout[1, 4](a)
shout[2, 2](a)
sys.__stderr__.write("result %s\\n" % a.tolist())
sys.stdout = None  # Python's exit flushes sys.stdout: that is not the launch's business
"""


@pytest.mark.parametrize("setup", [
    "sys.stdout = None",
    "sys.stdout = type('WriteOnly', (), {'write': lambda self, text: len(text)})()",
    "sys.stdout.close()",
])
def test_kernels_print_to_file_descriptor_1_whatever_sys_stdout_is(setup):
    proc = run_python(["-c", PRINT_WITH_STDOUT.format(setup=setup)])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["kernel says 3", "kernel says 3"]
    assert "result [0.0, 2.0, 4.0, 6.0]" in proc.stderr


def test_max_cooperative_grid_blocks_checks_its_values_as_launches_do():
    @cuda.jit
    def cooperative(a):
        cuda.cg.this_grid().sync()
        a[cuda.grid(1)] = 1

    a = np.zeros(32)
    cooperative[1, 32](a)
    (kernel,) = cooperative.overloads.values()
    assert kernel.max_cooperative_grid_blocks(np.int32(32)) == kernel.max_cooperative_grid_blocks(
        (32, 1, 1))
    with pytest.raises(ValueError, match="blockdim x=18446744073709551616 is out of range"):
        kernel.max_cooperative_grid_blocks(2**64)
    with pytest.raises(ValueError, match="dynsmemsize=-1 is out of range"):
        kernel.max_cooperative_grid_blocks(32, -1)
    with pytest.raises(TypeError, match="blockdim must be a sequence of integers, got \\[1.5\\]"):
        kernel.max_cooperative_grid_blocks(1.5)
