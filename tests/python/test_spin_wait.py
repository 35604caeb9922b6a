"""Spin-waits: a thread waiting in a loop for another thread of its block (a flag in global or
shared memory, or an atomic) lets the others run, as a GPU with independent thread scheduling
does; a block whose threads all wait for something no thread will do is a reported deadlock."""
import os
import re

import numpy as np
import pytest

from simt import cuda


@cuda.jit
def wait_for_plain_flag(flag, out, waiter, setter):
    t = cuda.threadIdx.x
    if t == waiter:
        while flag[0] == 0:
            pass
        out[t] = flag[0] + 1
    elif t == setter:
        out[t] = 7
        flag[0] = 41


@cuda.jit
def wait_for_atomic_flag(flag, out, waiter, setter):
    t = cuda.threadIdx.x
    if t == waiter:
        while True:
            if cuda.atomic.compare_and_swap(flag, 1, 2) == 1:
                break
        out[t] = flag[0]
    elif t == setter:
        out[t] = 7
        cuda.atomic.exch(flag, 0, 1)


@cuda.jit
def wait_on_a_local_loaded_from_the_flag(flag, out, waiter, setter):
    t = cuda.threadIdx.x
    if t == waiter:
        done = False
        while not done:
            done = cuda.atomic.add(flag, 0, 0) != 0
        out[t] = flag[0] + 1
    elif t == setter:
        out[t] = 7
        flag[0] = 41


@cuda.jit
def wait_on_a_flag_set_under_a_branch(flag, out, waiter, setter):
    t = cuda.threadIdx.x
    if t == waiter:
        done = False
        while not done:
            seen = flag[0]
            if seen != 0:
                done = True
        out[t] = flag[0] + 1
    elif t == setter:
        out[t] = 7
        flag[0] = 41


@cuda.jit
def wait_with_a_bound_and_a_break(flag, out, waiter, setter):
    t = cuda.threadIdx.x
    if t == waiter:
        tries = 0
        while tries < 1 << 62:
            if wait_step(flag, tries):
                break
            tries += 1
        out[t] = flag[0] + 1
    elif t == setter:
        out[t] = 7
        flag[0] = 41


@cuda.jit(device=True)
def wait_step(flag, tries):
    return flag[0] != 0 and tries >= 0


# thread 0 waits for thread 1, thread 1 for thread 0 (the order the scheduler runs them in), and
# across warps.
@pytest.mark.parametrize("waiter, setter", [(0, 1), (1, 0), (3, 40), (40, 3)])
@pytest.mark.parametrize("kernel, flag_value", [(wait_for_plain_flag, 42),
                                                (wait_for_atomic_flag, 2),
                                                (wait_on_a_local_loaded_from_the_flag, 42),
                                                (wait_on_a_flag_set_under_a_branch, 42),
                                                (wait_with_a_bound_and_a_break, 42)])
def test_a_thread_waiting_for_another_gets_its_flag(kernel, flag_value, waiter, setter):
    flag = np.zeros(1, np.int32)
    out = np.zeros(64, np.int32)
    kernel[1, 64](flag, out, waiter, setter)
    expected = np.zeros(64, np.int32)
    expected[waiter] = flag_value
    expected[setter] = 7
    assert np.array_equal(out, expected)


@cuda.jit
def relay(flags, n):
    # Thread t waits for thread t + 1: the last thread starts a relay down to thread 0.
    t = cuda.threadIdx.x
    if t == n - 1:
        flags[t] = 1
    else:
        while flags[t + 1] == 0:
            pass
        flags[t] = flags[t + 1] + 1


def test_a_relay_through_every_thread_of_a_block():
    flags = np.zeros(128, np.int64)
    relay[1, 128](flags, 128)
    assert np.array_equal(flags, np.arange(128, 0, -1))


@cuda.jit
def shared_turns(out):
    # A ticket lock in shared memory: the threads take turns in reverse order of their ids.
    turn = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    n = cuda.blockDim.x
    if t == 0:
        turn[0] = n - 1
    cuda.syncthreads()
    while turn[0] != t:
        pass
    out[t] = n - 1 - t  # the order of the turn
    turn[0] = t - 1


def test_threads_take_turns_through_shared_memory():
    out = np.zeros(96, np.int32)
    shared_turns[2, 96](out)
    assert np.array_equal(out, np.arange(95, -1, -1))


@cuda.jit
def wait_forever(flag, out):
    t = cuda.threadIdx.x
    while flag[0] == 0:  # nobody sets it
        pass
    out[t] = 1


def test_a_block_whose_threads_all_wait_is_a_deadlock(python):
    script = """
import time, numpy as np
from simt import cuda
import test_spin_wait as k
out = np.zeros(64, np.int32)
started = time.monotonic()
try:
    k.wait_forever[1, 64](np.zeros(1, np.int32), out)
except RuntimeError as e:
    print("RuntimeError after %.1f s" % (time.monotonic() - started))
    print(e)
print("unchanged" if not out.any() else "written")
"""
    result = python(["-c", script], env={"SIMT_DEADLOCK_TIMEOUT": "0.3"},
                    cwd=os.path.dirname(os.path.abspath(__file__)))
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "deadlock" in text and "SIMT_DEADLOCK_TIMEOUT" in text, text
    assert re.search(r"test_spin_wait.py:%d" % LOOP_LINE, text), text
    assert "unchanged" in text, text
    seconds = float(re.search(r"after ([0-9.]+) s", text).group(1))
    assert seconds < 3.0, text


LOOP_LINE = wait_forever.py_func.__code__.co_firstlineno + 3


@cuda.jit
def wait_then_grid_sync(flag, out):
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    if t == 0:
        while flag[b] == 0:
            pass
        out[b, 0] = flag[b]
    elif t == 33:
        flag[b] = b + 5
    cuda.cg.this_grid().sync()
    out[b, 1] = out[(b + 1) % cuda.gridDim.x, 0]


def test_waiting_threads_in_a_cooperative_kernel():
    flag = np.zeros(4, np.int32)
    out = np.zeros((4, 64), np.int32)
    wait_then_grid_sync[4, 64](flag, out)
    assert np.array_equal(out[:, 0], np.arange(4) + 5)
    assert np.array_equal(out[:, 1], np.roll(np.arange(4) + 5, -1))


@cuda.jit
def blocks_wait_for_the_next_block(flags, out):
    # Block b waits for block b + 1 (its blocks are all resident: the kernel syncs the grid); the
    # last block starts the relay. With one worker, block 0 runs first and must let the others.
    b = cuda.blockIdx.x
    if cuda.threadIdx.x == 0:
        if b == cuda.gridDim.x - 1:
            flags[b] = 1
        else:
            while cuda.atomic.add(flags, b + 1, 0) == 0:
                pass
            cuda.atomic.exch(flags, b, flags[b + 1] + 1)
    cuda.cg.this_grid().sync()
    out[b] = flags[0]


def test_blocks_of_a_cooperative_kernel_wait_for_each_other(python):
    script = """
import numpy as np
from simt import cuda
import test_spin_wait as k
flags = np.zeros(6, np.int64)
out = np.zeros(6, np.int64)
k.blocks_wait_for_the_next_block[6, 64](flags, out)
print(flags.tolist(), out.tolist())
"""
    for workers in ("1", "3"):
        result = python(["-c", script], env={"SIMT_THREADS": workers},
                        cwd=os.path.dirname(os.path.abspath(__file__)))
        assert result.returncode == 0, result.stderr
        assert result.stdout.split() == ["[6,", "5,", "4,", "3,", "2,", "1]",
                                         "[6,", "6,", "6,", "6,", "6,", "6]"], result.stdout


@cuda.jit
def activemask_beside_a_spinning_lane(flag, out):
    # Lane 1 spins until lane 0 has called activemask: a spinning lane is not converged with it,
    # so activemask returns (without lane 1) rather than waiting for it.
    t = cuda.threadIdx.x
    if t == 1:
        while cuda.atomic.add(flag, 0, 0) == 0:
            pass
        out[t] = 1
    elif t == 0:
        out[t] = cuda.activemask()
        cuda.atomic.exch(flag, 0, 1)


def test_activemask_while_another_lane_spins():
    flag = np.zeros(1, np.int32)
    out = np.zeros(2, np.uint32)
    activemask_beside_a_spinning_lane[1, 2](flag, out)
    assert list(out) == [1, 1]
