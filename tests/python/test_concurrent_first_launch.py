"""Threads launching kernels for the first time at once, in a fresh process with an empty
compile cache, all finish (numba-cuda's cudapy/test_multithreads). A thread once waited on a
C++ function-local static's guard (pybind11's NumPy API table) while holding the GIL, and the
thread initialising it waited for the GIL inside NumPy's import: a deadlock in about one run in
four. Each run is a subprocess with a timeout, so a deadlock fails the test instead of hanging."""
import subprocess

SCRIPT = """
import numpy as np
from concurrent.futures import ThreadPoolExecutor
from simt import cuda

@cuda.jit
def increment(x):
    x[0] += 1

def launch(x):
    increment[1, 1](x)
    return x

arrays = [cuda.to_device(np.arange(10)) for _ in range(10)]
expected = np.arange(10)
expected[0] += 1
with ThreadPoolExecutor(max_workers=4) as pool:
    for out in pool.map(launch, arrays):
        np.testing.assert_equal(out.copy_to_host(), expected)
print("ok")
"""


def test_threads_first_launches_at_once_finish(python, tmp_path):
    for run in range(4):
        try:
            result = python(["-c", SCRIPT], env={"SIMT_CACHE_DIR": str(tmp_path / str(run))},
                            timeout=120)
        except subprocess.TimeoutExpired:
            raise AssertionError("run %d deadlocked" % run) from None
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "ok"
