"""Stopping a launch: Ctrl-C ends any running kernel with KeyboardInterrupt and leaves the process
usable, and after a fault no other thread runs on to its next store."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from conftest import STAGE
from simt import cuda

# The child: defines `forever` (a kernel that never ends unless stopped), launches it when the
# parent is ready to interrupt, reports the KeyboardInterrupt, then checks a later launch.
CHILD = """
import sys, time
import numpy as np
from simt import cuda

@cuda.jit(device=True)
def spin_device(n):
    k = 0
    while n > 0:
        k = (k * 3 + 1) % 1000003
    return k

@cuda.jit
def flat(out, n):
    k = 0
    while n > 0:
        k = (k * 3 + 1) % 1000003
    out[cuda.grid(1)] = k

@cuda.jit
def fiber(out, n):
    k = 0
    for i in range(n):
        k = (k * 3 + i) % 1000003
        cuda.syncthreads()
    out[cuda.grid(1)] = k

@cuda.jit
def fiber_after_barrier(out, n):
    cuda.syncthreads()
    k = 0
    while n > 0:
        k = (k * 3 + 1) % 1000003
    out[cuda.grid(1)] = k

@cuda.jit
def device(out, n):
    out[cuda.grid(1)] = spin_device(n)

@cuda.jit
def double(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= 2

forever = {kernel}
out = np.zeros(4 * 64)
n = 1 << 62
forever[4, 64](out, 0)  # compiled (n = 0 ends at once): the interrupt finds it running
double[1, 32](np.zeros(32))
{launch}
a = np.arange(1000.0)
double[8, 128](a)
print("second launch", "ok" if np.array_equal(a, np.arange(1000.0) * 2) else "wrong", flush=True)
"""

MAIN_THREAD = """
print("ready", flush=True)
started = time.monotonic()
try:
    forever[4, 64](out, n)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("KeyboardInterrupt after %.2f s" % (time.monotonic() - started), flush=True)
"""

# A launch on another Python thread: Ctrl-C reaches the main thread as usual and stops the launch,
# which raises KeyboardInterrupt in its own thread too.
OTHER_THREAD = """
import threading
seen = []
done = threading.Event()
def work():
    try:
        forever[4, 64](out, n)
        seen.append("finished")
    except KeyboardInterrupt:
        seen.append("KeyboardInterrupt")
    finally:
        done.set()
worker = threading.Thread(target=work)
worker.start()
print("ready", flush=True)
try:
    while not done.wait(0.05):
        pass
except KeyboardInterrupt:
    print("main thread: KeyboardInterrupt", flush=True)
done.wait(10)
worker.join()
print("launching thread:", seen[0], flush=True)
"""

# A Python SIGINT handler set after simt's first launch runs (in the main thread) when Ctrl-C
# stops the launch; what it raises is what the launch raises.
CUSTOM_HANDLER = """
import signal
def handler(signum, frame):
    raise ValueError("raised by the handler")
signal.signal(signal.SIGINT, handler)
time.sleep(0.2)  # simt looks for a new handler at most every 0.1 s
print("ready", flush=True)
try:
    forever[4, 64](out, n)
except ValueError as e:
    print("ValueError:", e, flush=True)
"""


def interrupt_child(kernel, launch=MAIN_THREAD):
    """Runs the child, sends SIGINT once it is inside the launch; returns (output, seconds from
    SIGINT to the child's exit)."""
    script = CHILD.format(kernel=kernel, launch=textwrap.dedent(launch))
    env = dict(os.environ, PYTHONPATH=STAGE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    child = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    try:
        assert child.stdout.readline() == "ready\n"
        time.sleep(0.3)  # inside the launch
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        output = child.communicate(timeout=30)[0]
        return output, time.monotonic() - sent, child.returncode
    finally:
        child.kill()
        child.wait()


@pytest.mark.parametrize("kernel", ["flat", "fiber", "fiber_after_barrier", "device"])
def test_ctrl_c_stops_a_kernel_that_never_ends(kernel):
    output, seconds, returncode = interrupt_child(kernel)
    assert returncode == 0, output
    assert "KeyboardInterrupt after" in output, output
    assert "second launch ok" in output, output
    assert seconds < 2.0, output


def test_ctrl_c_stops_a_launch_on_another_thread():
    output, seconds, returncode = interrupt_child("flat", OTHER_THREAD)
    assert returncode == 0, output
    assert "main thread: KeyboardInterrupt" in output, output
    assert "launching thread: KeyboardInterrupt" in output, output
    assert "second launch ok" in output, output
    assert seconds < 2.0, output


def test_ctrl_c_runs_a_python_handler_set_after_the_first_launch():
    output, seconds, returncode = interrupt_child("device", CUSTOM_HANDLER)
    assert returncode == 0, output
    assert "ValueError: raised by the handler" in output, output
    assert "second launch ok" in output, output
    assert seconds < 2.0, output


# ---- no thread runs past a fault ----

@cuda.jit(device=True)
def shuffle_down(v):
    return cuda.shfl_down_sync(0xFFFFFFFF, v, 1)


@cuda.jit
def warp_fault_in_device_function(out):
    i = cuda.threadIdx.x
    if i == 5:
        return
    s = shuffle_down(i)
    out[i] = s + 1000


@cuda.jit
def warp_fault_in_kernel(out):
    i = cuda.threadIdx.x
    if i == 5:
        return
    s = cuda.shfl_down_sync(0xFFFFFFFF, i, 1)
    out[i] = s + 1000


@pytest.mark.parametrize("kernel", [warp_fault_in_device_function, warp_fault_in_kernel])
def test_lanes_of_a_faulting_warp_operation_store_nothing(kernel):
    out = np.zeros(32, np.int64)
    with pytest.raises(RuntimeError, match="shfl_down_sync"):
        kernel[1, 32](out)
    # Lane 5 exited, so the shuffle never completes: no lane gets past it.
    assert np.array_equal(out, np.zeros(32, np.int64))


@cuda.jit
def fault_after_barrier(a, out):
    i = cuda.threadIdx.x
    cuda.syncthreads()
    if i == 0:
        a[i + 100] = 1.0
    out[i] = 1.0


def test_threads_resumed_after_a_fault_return_at_once():
    a = np.zeros(10)
    out = np.zeros(64)
    with pytest.raises(IndexError):
        fault_after_barrier[1, 64](a, out)
    # Thread 0 faults first; the others, resumed from the barrier after it, store nothing.
    assert np.array_equal(out, np.zeros(64))
