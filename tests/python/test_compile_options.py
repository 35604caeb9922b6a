"""Compile options: the debugger's instrumented variant and the optimisation level are separate
compiled kernels (their own entries in every cache) with the same results as release code, which
they leave untouched."""
import os

import numpy as np
import pytest

from simt import cuda
from simt.tools import debugging


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        t = a * x[i]
        out[i] = t + y[i]


@cuda.jit
def block_sums(x, out):
    s = cuda.shared.array(64, np.float64)
    t = cuda.threadIdx.x
    s[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    k = 32
    while k > 0:
        if t < k:
            s[t] += s[t + k]
        cuda.syncthreads()
        k //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


@cuda.jit(opt=False)
def saxpy_unoptimised(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@pytest.fixture
def debug_variant():
    debugging.set_debug_mode(True)
    yield
    debugging.set_debug_mode(False)


def run_saxpy(kernel):
    x, y = np.arange(300.0), np.ones(300)
    out = np.zeros(300)
    kernel[10, 32](2.0, x, y, out)
    assert np.array_equal(out, 2.0 * x + y)
    (argtypes,) = {argtypes for argtypes, _, _, _ in kernel._variants}
    return kernel._variants[(argtypes, *kernel._options(), "sim")]


def test_the_debug_variant_is_its_own_kernel_with_the_same_results(debug_variant):
    debugging.set_debug_mode(False)
    release = run_saxpy(saxpy)
    debugging.set_debug_mode(True)
    debug = run_saxpy(saxpy)
    assert release is not debug
    assert release.options == "np,release,O3" and debug.options == "np,debug,O3"
    assert "simt_rt_statement" in debug.llvm_ir() and "simt_rt_access" in debug.llvm_ir()
    assert "simt_rt_statement" not in release.llvm_ir()
    debugging.set_debug_mode(False)
    assert run_saxpy(saxpy) is release  # both stay compiled


def test_barrier_kernels_in_the_debug_variant(debug_variant):
    x = np.random.default_rng(1).random(64 * 5)
    out = np.zeros(5)
    block_sums[5, 64](x, out)
    assert np.allclose(out, x.reshape(5, 64).sum(axis=1))


def test_opt_false_compiles_at_level_0():
    kernel = run_saxpy(saxpy_unoptimised)
    assert kernel.options == "np,release,O0"


def test_simt_debug_in_the_environment_selects_the_debug_variant(python):
    script = ("from simt import cuda\nimport numpy as np\n"
              "@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] += 1\n"
              "a = np.zeros(64)\nk[2, 32](a)\nprint(list(k.overloads.values())[0].options, a.sum())\n")
    for value, variant in (("1", "debug"), ("0", "release")):
        path = os.path.join(os.environ["SIMT_CACHE_DIR"], "env_%s.py" % value)
        with open(path, "w") as f:
            f.write(script)
        result = python([path], env={"SIMT_DEBUG": value})
        assert result.returncode == 0, result.stderr
        assert result.stdout.split() == ["np,%s,O3" % variant, "64.0"], result.stdout
