"""Differential tests: every kernel in diff_cases.py runs on simt and on Numba's simulator
(NUMBA_ENABLE_CUDASIM=1), each in its own process, and the resulting arrays must match."""
import os
import subprocess
import sys

import numpy as np
import pytest

import diff_cases
from simt.base.numpy_compat import NUMPY2

# Cases whose arithmetic mixes NumPy scalars with Python numbers: Numba's simulator computes them
# with NumPy's promotion, which from NumPy 2 on (NEP 50: a Python float or int no longer widens a
# NumPy scalar) is not Numba's typing, so it is no oracle for them there.
NEP50_CASES = {"float32_stays_float32", "small_int_dtypes", "complex_arrays_2d_shared_and_local"}

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "diff_cases.py")


def _run(tmp_path_factory, name, argv_prefix, env_update):
    out = str(tmp_path_factory.mktemp(name) / "results.npz")
    env = dict(os.environ)
    env.update(env_update)
    proc = subprocess.run(argv_prefix + [SCRIPT, out], env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return dict(np.load(out))


@pytest.fixture(scope="session")
def oracle(tmp_path_factory):
    return _run(tmp_path_factory, "numba_sim", [sys.executable],
                {"NUMBA_ENABLE_CUDASIM": "1", "SIMT_ENABLE": "0"})


# Kernels with barriers run by loop fission by default, and as fibers with SIMT_FISSION=0: both
# must give the simulator's results.
@pytest.fixture(scope="session", params=["fission", "fibers"])
def simt_results(request, tmp_path_factory):
    return _run(tmp_path_factory, "simt_" + request.param, [sys.executable, "-m", "simt", "run"],
                {"NUMBA_ENABLE_CUDASIM": "0",
                 "SIMT_FISSION": "1" if request.param == "fission" else "0"})


@pytest.mark.parametrize("case", sorted(diff_cases.CASES))
def test_matches_numba_simulator(case, oracle, simt_results):
    if NUMPY2 and case in NEP50_CASES:
        pytest.skip("NumPy 2's scalar promotion makes Numba's simulator depart from Numba's typing")
    assert "%s/error" % case not in oracle, oracle.get("%s/error" % case)
    assert "%s/error" % case not in simt_results, str(simt_results["%s/error" % case])
    keys = sorted(k for k in oracle if k.startswith(case + "/"))
    assert keys
    for key in keys:
        expected, got = oracle[key], simt_results[key]
        assert got.dtype == expected.dtype, key
        assert got.shape == expected.shape, key
        if expected.dtype == np.float32:
            # Numba's simulator evaluates `float32 op math.f(float32)` in double precision (NumPy
            # scalar promotion), while Numba's typing - and a GPU - keep it in float32: allow ulps.
            np.testing.assert_allclose(got, expected, rtol=4e-7, atol=0, err_msg=key)
        elif expected.dtype == np.complex64:
            # the simulator computes complex64 operations on Python complex numbers (double)
            np.testing.assert_allclose(got, expected, rtol=3e-6, atol=0, err_msg=key)
        elif np.issubdtype(expected.dtype, np.inexact):
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0, err_msg=key)
        else:
            np.testing.assert_array_equal(got, expected, err_msg=key)
