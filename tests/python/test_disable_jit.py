"""Kernels under NUMBA_DISABLE_JIT (numba.njit(f) is then f itself) and `cuda.simulator`: what
gamdpy 0.8.3's CPU test (tests/test_LJ_cpu.py, docs/projects.md) does. It sets
NUMBA_ENABLE_CUDASIM=1 and NUMBA_DISABLE_JIT=1 before importing Numba, calls closure-captured
numba.njit helpers from its kernels, and ends with cuda.simulator.reset()."""
import textwrap

import pytest

from conftest import run_python

# Reduced from gamdpy's neighbour-list check (gamdpy/interactions/nblist.py, nblist_check): a
# kernel calls a closure-captured numba.njit helper that takes rows of 2D arrays.
NBLIST_CHECK = """
import numpy as np
import numba
from numba import cuda

def make_check(skin):
    def moved_too_far(r_now, r_last, half_skin):
        dist_sq = 0.0
        for k in range(r_now.shape[0]):
            d = r_now[k] - r_last[k]
            dist_sq += d * d
        return dist_sq > half_skin * half_skin
    moved_too_far = numba.njit(moved_too_far)

    @cuda.jit
    def nblist_check(r, r_ref, flag):
        i = cuda.grid(1)
        if i < r.shape[0]:
            if moved_too_far(r[i], r_ref[i], skin / 2):
                flag[0] = 1
    return nblist_check

r = np.zeros((32, 3))
r_ref = np.zeros((32, 3))
flags = []
for moved in (0.1, 0.4):
    r[17] = (moved, 0.0, 0.0)
    flag = np.zeros(1, np.int32)
    make_check(0.5)[1, 32](r, r_ref, flag)
    flags.append(int(flag[0]))
assert flags == [0, 1], flags
cuda.simulator.reset()
print("ok", flags)
"""


def _run(env):
    return run_python(["-c", textwrap.dedent(NBLIST_CHECK)], env=env)


@pytest.mark.parametrize("disable_jit", ["1", "0"])
def test_kernel_calls_njit_helper_on_simt(disable_jit):
    proc = _run({"SIMT_ENABLE": "1", "NUMBA_DISABLE_JIT": disable_jit})
    assert proc.returncode == 0, proc.stderr
    assert "ok [0, 1]" in proc.stdout


def test_kernel_calls_njit_helper_on_numbas_simulator_under_disable_jit():
    proc = _run({"NUMBA_ENABLE_CUDASIM": "1", "NUMBA_DISABLE_JIT": "1"})
    assert proc.returncode == 0, proc.stderr
    assert "ok [0, 1]" in proc.stdout


def test_plain_python_function_stays_unknown_with_the_jit_on():
    """Only under NUMBA_DISABLE_JIT is a plain function an njit one: otherwise a kernel calling
    it is an error, as Numba's typing of an untyped global is."""
    proc = run_python(["-c", textwrap.dedent("""
        import numpy as np
        from numba import cuda
        def helper(x):
            return x + 1
        @cuda.jit
        def k(a):
            a[0] = helper(a[0])
        try:
            k[1, 1](np.zeros(1))
        except Exception as e:
            print(type(e).__name__, e)
        """)], env={"SIMT_ENABLE": "1"})
    assert proc.returncode == 0, proc.stderr
    assert "CompileError" in proc.stdout and "unknown name 'helper'" in proc.stdout


def test_cuda_simulator_is_the_numba_cuda_api():
    """numba.cuda.simulator is, under Numba's simulator, the package serving numba.cuda's API;
    under simt it is simt.cuda, so cuda.simulator.reset() closes the context."""
    proc = run_python(["-c", "from numba import cuda; import simt.cuda as c\n"
                       "assert cuda.simulator is c and cuda.simulator.reset is c.reset\n"
                       "cuda.to_device([1.0]); cuda.simulator.reset(); print('reset')"],
                      env={"SIMT_ENABLE": "1"})
    assert proc.returncode == 0, proc.stderr
    assert "reset" in proc.stdout


def test_numba_cuda_cudadrv_loads_when_the_program_turned_numbas_simulator_on():
    """Reduced from gamdpy's Simulation.JIT_and_test_kernel: the program sets
    NUMBA_ENABLE_CUDASIM=1 before importing Numba, and names numba.cuda.cudadrv.driver's
    CudaAPIError in an except clause around a launch. Numba's numba.cuda.cudadrv refuses to load
    under its simulator's config; under the hook its driver is simt's, so it loads, and the
    launch's own error is what the program sees."""
    proc = run_python(["-c", textwrap.dedent("""
        import os
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
        import numpy as np
        import numba
        from numba import cuda
        @cuda.jit
        def k(a):
            a[0] = not_defined_anywhere
        try:
            try:
                k[1, 1](np.zeros(1))
            except numba.cuda.cudadrv.driver.CudaAPIError as e:
                print("CudaAPIError", e)
        except Exception as e:
            print(type(e).__name__)
        print(numba.cuda.cudadrv.driver.CudaAPIError.__name__)
        """)], env={"SIMT_ENABLE": "1"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["CompileError", "CudaAPIError"], proc.stdout


# Reduced from gamdpy's NVT_Langevin integrator: numba.cuda.random's @jit helpers, imported by
# name, are plain functions under NUMBA_DISABLE_JIT.
LANGEVIN_NOISE = """
import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_normal_float32

@cuda.jit
def noise(rng_states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        for k in range(out.shape[1]):
            out[i, k] = xoroshiro128p_normal_float32(rng_states, i)

out = np.zeros((64, 3), np.float32)
noise[2, 32](create_xoroshiro128p_states(64, seed=2023), out)
assert np.isfinite(out).all() and abs(out.mean()) < 0.3 and 0.7 < out.std() < 1.3
print(" ".join("%.6e" % v for v in out.ravel()))
"""


def test_numba_cuda_random_helpers_under_disable_jit():
    draws = {}
    for disable_jit in ("1", "0"):
        proc = run_python(["-c", LANGEVIN_NOISE],
                          env={"SIMT_ENABLE": "1", "NUMBA_DISABLE_JIT": disable_jit})
        assert proc.returncode == 0, proc.stderr
        draws[disable_jit] = proc.stdout.split()
    assert len(draws["1"]) == 192 and draws["1"] == draws["0"]
