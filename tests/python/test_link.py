"""cuda.declare_device and @cuda.jit(link=[...]): external device functions with Numba's ABI for
foreign functions (`int name(result *, params...)`). On the simulator CUDA C/C++ is compiled for
the host (plain C-like device functions); in PTX the call is to an `.extern .func`, which
ptxas and nvlink resolve against the function's PTX from nvcc; on the GPU target the driver's
linker links them (here the fake driver of tests/unit/fake_libcuda.cpp)."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import simt
from conftest import not_under_asan
from simt import cuda
from simt.compiler.gpu import toolkit_program

FUNCTIONS = """\
// Device functions with Numba's ABI for foreign functions.
extern "C" __device__ int mul_add(float *result, float a, float b, float c) {
  *result = a * b + c;
  return 0;
}

extern "C" __device__ int count_bits(int *result, unsigned long long x) {
  int n = 0;
  for (; x; x &= x - 1)
    ++n;
  *result = n;
  return 0;
}
"""

mul_add = cuda.declare_device("mul_add", "float32(float32, float32, float32)")
count_bits = cuda.declare_device("count_bits", "int32(uint64)")


def use_functions(r, bits, x):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = mul_add(x[i], 2, 1)  # int arguments convert to float32, as Numba converts them
        bits[i] = count_bits(i * 7)


@pytest.fixture
def functions_cu(tmp_path):
    path = tmp_path / "functions.cu"
    path.write_text(FUNCTIONS)
    return str(path)


def run_kernel(kernel):
    x = np.arange(40, dtype=np.float32)
    r, bits = np.zeros_like(x), np.zeros(40, np.int32)
    kernel[2, 32](r, bits, x)
    return r, bits


def test_linked_cuda_c_runs_on_the_simulator(functions_cu, monkeypatch, tmp_path):
    monkeypatch.setenv("SIMT_CACHE_DIR", str(tmp_path / "cache"))
    r, bits = run_kernel(cuda.jit(link=[functions_cu])(use_functions))
    np.testing.assert_array_equal(r, np.arange(40, dtype=np.float32) * 2 + 1)
    np.testing.assert_array_equal(bits, [bin(i * 7).count("1") for i in range(40)])
    assert len(os.listdir(tmp_path / "cache" / "link")) == 1  # compiled once, cached by content
    inspected = cuda.jit(link=[functions_cu])(use_functions)
    run_kernel(inspected)
    assert "extern mul_add(" in list(inspected.inspect_ir().values())[0]


def test_declare_device_link_is_linked_into_the_kernels_that_call_it(functions_cu):
    # numba-cuda's declare_device(link=): no link= on the kernel; a CUSource-like object (data
    # in memory) links as its file would
    local_mul_add = cuda.declare_device("mul_add", "float32(float32, float32, float32)",
                                        link=functions_cu)

    class CUSource:  # numba-cuda's numba.cuda.cudadrv.linkable_code.CUSource, as simt reads it
        data = FUNCTIONS

    in_memory = cuda.declare_device("count_bits", "int32(uint64)", link=[CUSource()])

    @cuda.jit
    def kernel(r, bits, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = local_mul_add(x[i], 2, 1)
            bits[i] = in_memory(i * 7)

    r, bits = run_kernel(kernel)
    np.testing.assert_array_equal(r, np.arange(40, dtype=np.float32) * 2 + 1)
    np.testing.assert_array_equal(bits, [bin(i * 7).count("1") for i in range(40)])


def test_what_cannot_be_linked_on_the_simulator_says_which_file(tmp_path):
    ptx = tmp_path / "functions.ptx"
    ptx.write_text("// PTX\n")
    with pytest.raises(NotImplementedError, match=r"functions\.ptx: \.ptx code cannot run on the"
                                                  r" simulator"):
        run_kernel(cuda.jit(link=[str(ptx)])(use_functions))
    cuda_only = tmp_path / "uses_threads.cu"
    cuda_only.write_text('extern "C" __device__ int mul_add(float *r, float a, float b, float c)'
                         ' { *r = a * threadIdx.x; return 0; }\n')
    with pytest.raises(NotImplementedError, match=r"uses_threads\.cu: the simulator compiles"
                                                  r" linked CUDA C/C\+\+ for the host"):
        run_kernel(cuda.jit(link=[str(cuda_only)])(use_functions))
    with pytest.raises(FileNotFoundError, match=r"missing\.cu not found"):
        run_kernel(cuda.jit(link=[str(tmp_path / "missing.cu")])(use_functions))


def test_calls_are_checked_against_the_declaration(functions_cu):
    def wrong_count(r):
        r[0] = mul_add(1.0, 2.0)

    with pytest.raises(simt.CompileError, match=r"mul_add\(\) takes 3 arguments, 2 given"):
        cuda.jit(link=[functions_cu])(wrong_count)[1, 1](np.zeros(1, np.float32))
    with pytest.raises(TypeError, match="external device function"):
        mul_add(1.0, 2.0, 3.0)
    assert str(mul_add.sig) == "(float32, float32, float32) -> float32"
    for no_return_type in ("(float32,)", (simt.float32,)):
        with pytest.raises(TypeError, match="Return type must be provided"):
            cuda.declare_device("f", no_return_type)


@not_under_asan
def test_ptx_calls_an_extern_func_that_nvlink_resolves(functions_cu, tmp_path):
    ptx, _ = cuda.compile_ptx(use_functions, "void(float32[:], int32[:], float32[:])")
    assert ".extern .func  (.param .b32 func_retval0) mul_add\n(" in ptx
    ptxas, nvcc, nvlink = (toolkit_program(p) for p in ("ptxas", "nvcc", "nvlink"))
    if None in (ptxas, nvcc, nvlink):
        pytest.skip("the CUDA toolkit (ptxas, nvcc, nvlink) is not installed")
    (tmp_path / "kernel.ptx").write_text(ptx)
    commands = [[nvcc, "-ptx", "-rdc=true", "-arch=sm_75", functions_cu, "-o", "functions.ptx"],
                [ptxas, "-c", "-arch=sm_75", "kernel.ptx", "-o", "kernel.o"],
                [ptxas, "-c", "-arch=sm_75", "functions.ptx", "-o", "functions.o"],
                [nvlink, "-arch=sm_75", "kernel.o", "functions.o", "-o", "linked.cubin"]]
    for command in commands:
        run = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
        assert run.returncode == 0, (command, run.stderr)


FAKE_DRIVER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(simt.__file__)))), "tests", "unit", "libfake_libcuda.so")


@pytest.mark.skipif(not os.path.exists(FAKE_DRIVER) or shutil.which("nvcc") is None and
                    toolkit_program("nvcc") is None, reason="needs the fake driver and nvcc")
@not_under_asan
def test_gpu_target_links_the_functions_ptx(functions_cu, monkeypatch):
    monkeypatch.setenv("SIMT_LIBCUDA", FAKE_DRIVER)
    monkeypatch.setenv("SIMT_TARGET", "gpu")
    r, bits = run_kernel(cuda.jit(link=[functions_cu])(use_functions))
    assert not r.any() and not bits.any()  # the fake driver links and launches, and runs nothing
