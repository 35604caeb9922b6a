"""LLVM's fatal errors (issue 24): they ended the process (SIGABRT, "LLVM ERROR: ..."). Names PTX
cannot spell, from Unicode identifiers and `<lambda>`, are written as codegen/symbol_name.h says
before any backend sees them; names the user chose (abi_name, cuda.declare_device) are refused
with a ValueError; and what still reaches LLVM's fatal-error handler is a Python exception where
the compile owns all its LLVM state (a PTX compile), else one line saying so before the process
ends (pybind/fatal_error.cpp, codegen/llvm_errors.h)."""
import os
import re
import shutil
import subprocess
import textwrap

import numpy as np
import pytest

from simt import cuda, float32, float64

PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas"
                                   if os.access("/usr/local/cuda/bin/ptxas", os.X_OK) else None)


def assert_ptxas_accepts(ptx, tmp_path, arch="sm_75"):
    if PTXAS is None:
        return
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    run = subprocess.run([PTXAS, "-arch=" + arch, str(path), "-o", os.devnull],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


@cuda.jit(device=True)
def dev_λ(x):
    return x * 2


def kñ(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def π(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = dev_λ(a[i]) + (lambda q: q + 1)(a[i])


def _(a):
    a[0] = 7


triple = cuda.jit(device=True)(lambda x: x * 3)


def calls_a_lambda(a):
    a[0] = triple(a[0])


def test_compile_ptx_of_a_lambda_as_docs_gpu_md_shows(tmp_path):
    ptx, resty = cuda.compile_ptx(lambda a, b: a + b, (float32, float32), device=True)
    assert resty == float32
    # `<lambda>` written as symbol_name writes it: `$` starts each escaped byte.
    assert ".visible .func  (.param .b32 func_retval0) $3clambda$3e(" in ptx
    assert "add.f32" in ptx
    assert_ptxas_accepts(ptx, tmp_path)


@pytest.mark.parametrize("options", [{}, {"opt": False}, {"lineinfo": True}, {"debug": True},
                                     {"fastmath": True, "cc": (9, 0)}],
                         ids=["default", "unoptimised", "lineinfo", "debug", "fastmath-sm90"])
def test_unicode_named_kernels_compile_to_ptx(options, tmp_path):
    for kernel, entry in ((kñ, "k$c3$b1"), (π, "$cf$80"), (_, "$5f")):
        ptx, _resty = cuda.compile_ptx(kernel, (float32[:],), **options)
        assert re.search(r"\.visible \.entry %s\(" % re.escape(entry), ptx), ptx[:1500]
        assert_ptxas_accepts(ptx, tmp_path, "sm_90" if options.get("cc") else "sm_75")
    # The device function kept out of line (unoptimised) has its module-internal name.
    if options.get("opt") is False:
        assert "simt_dev_$ce$bb$241(" in cuda.compile_ptx(π, (float32[:],), **options)[0]


def test_unicode_named_device_functions_compile_to_ptx(tmp_path):
    ptx, resty = cuda.compile_ptx(dev_λ, (float64,), device=True)
    assert resty == float64
    assert ".visible .func  (.param .b32 func_retval0) dev_$ce$bb(" in ptx
    ptx, _resty = cuda.compile_ptx(dev_λ, (float64,), device=True, abi="c",
                                   abi_info={"abi_name": "dev_lambda"})
    assert ".visible .func  (.param .b64 func_retval0) dev_lambda(" in ptx
    assert_ptxas_accepts(ptx, tmp_path)


def test_unicode_named_kernels_run_on_the_simulator_and_inspect_asm():
    a = np.zeros(4, np.float32)
    k = cuda.jit(kñ)
    k[1, 4](a)
    assert a.tolist() == [1, 1, 1, 1]
    p = cuda.jit(π)
    p[1, 4](a)
    assert a.tolist() == [4, 4, 4, 4]  # 1 * 2 + (1 + 1)
    u = cuda.jit(_)
    u[1, 1](a)
    assert a[0] == 7
    for kernel, entry in ((k, "k$c3$b1"), (p, "$cf$80"), (u, "$5f")):
        (asm,) = kernel.inspect_asm().values()
        assert ".visible .entry %s(" % entry in asm


def test_lambda_device_functions_on_the_simulator_and_in_ptx(tmp_path):
    a = np.ones(2)
    cuda.jit(calls_a_lambda)[1, 1](a)
    assert a.tolist() == [3, 1]
    ptx, _resty = cuda.compile_ptx(calls_a_lambda, (float64[:],), opt=False)
    assert "simt_$3clambda$3e$241(" in ptx  # `<lambda>`, its first signature
    assert_ptxas_accepts(ptx, tmp_path)


def test_names_the_user_chose_that_ptx_cannot_spell_are_refused():
    with pytest.raises(ValueError, match=r"abi_name 'not a name' is not a PTX identifier"):
        cuda.compile_ptx(lambda a, b: a + b, (float32, float32), device=True, abi="c",
                         abi_info={"abi_name": "not a name"})
    with pytest.raises(ValueError, match=r"abi_name '1st' is not a PTX identifier"):
        cuda.compile_ptx(lambda a, b: a + b, (float32, float32), device=True, abi="c",
                         abi_info={"abi_name": "1st"})
    fñ = cuda.declare_device("fñ", "float32(float32)")

    def calls_it(a):
        a[0] = fñ(a[0])

    with pytest.raises(ValueError, match=r"\(cuda.declare_device\) 'fñ' is not a PTX identifier"):
        cuda.compile_ptx(calls_it, (float32[:],))


FATAL = textwrap.dedent("""
    import sys
    from simt import _simt, cuda, float32
    how, text = sys.argv[1], sys.argv[2]
    for round in range(3):
        try:
            print("returned", _simt._llvm_fatal_error_for_tests(how, text)[:0], flush=True)
        except (RuntimeError, MemoryError) as e:
            print(type(e).__name__, e, flush=True)
        # The process goes on: LLVM compiles again.
        ptx, _ = cuda.compile_ptx(lambda a, b: a + b, (float32, float32), device=True)
        assert "$3clambda$3e(" in ptx
        print("compiled", _simt._llvm_fatal_error_for_tests("ptx", "k").count(".func k("),
              flush=True)
""")


def fatal(python, how, text):
    return python(["-c", FATAL, how, text])


def test_a_fatal_error_in_the_nvptx_backend_is_a_python_exception(python):
    # LLVM's own fatal error, from the NVPTX backend's frames: a name PTX cannot spell given to
    # LLVM as it is (simt's names never are).
    proc = fatal(python, "ptx", "kñ")
    assert proc.returncode == 0, proc.stderr
    error = ("RuntimeError simt: LLVM failed while compiling kernel 'kñ' for simt's tests: "
             "Symbol name with unsupported characters")
    assert proc.stdout.splitlines() == [error, "compiled 1"] * 3
    assert "LLVM ERROR" not in proc.stderr


def test_fatal_errors_in_recoverable_work_are_python_exceptions(python):
    proc = fatal(python, "recoverable", "boom")
    assert proc.returncode == 0, proc.stderr
    error = ("RuntimeError simt: LLVM failed while compiling kernel 'k' (k.py:1) for simt's tests: "
             "boom")
    assert proc.stdout.splitlines() == [error, "compiled 1"] * 3
    proc = fatal(python, "bad_alloc_recoverable", "no memory")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == ["MemoryError std::bad_alloc", "compiled 1"]


def test_fatal_errors_elsewhere_end_the_process_saying_why(python):
    proc = fatal(python, "task", "boom")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.strip().splitlines()[-1] == (
        "simt: LLVM fatal error while compiling kernel 'k' (k.py:1) for simt's tests: boom; "
        "the process cannot continue")
    proc = fatal(python, "none", "boom")
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        "simt: LLVM fatal error: boom; the process cannot continue")
    proc = fatal(python, "bad_alloc", "malloc failed")
    assert proc.returncode != 0
    assert "simt: LLVM ran out of memory (malloc failed); the process cannot continue" in \
        proc.stderr


def test_unicode_kernels_on_the_gpu_target_and_in_bundles(python, tmp_path):
    import simt
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(simt.__file__))))
    fake = os.path.join(build, "tests", "unit", "libfake_libcuda.so")
    if not os.path.exists(fake):
        pytest.skip("the fake CUDA driver is built with the unit tests")
    script = tmp_path / "kñ.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        from numba import cuda

        @cuda.jit
        def kñ(x):
            x[0] = 1

        x = np.zeros(2)
        kñ[1, 1](x)
        print("ran")
    """))
    bundle = tmp_path / "bundle"
    proc = python(["-m", "simt", "run", "--target", "gpu", str(script)],
                  env={"SIMT_LIBCUDA": fake, "SIMT_BUNDLE": str(bundle)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["ran"]
    launches = [line.split() for line in (bundle / "manifest.txt").read_text().splitlines()
                if line.startswith("launch ")]
    assert [(words[1], words[3]) for words in launches] == [("kñ_0", "k$c3$b1")]
