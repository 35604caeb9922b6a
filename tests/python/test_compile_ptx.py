"""cuda.compile_ptx and inspect_asm: the same typed IR through LLVM's NVPTX backend, on a machine
with no GPU. The PTX is checked as text and, where the CUDA toolkit's ptxas is installed, by
ptxas for sm_75 and sm_90."""
import math
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from simt import cuda, float32

PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas"
                                   if os.access("/usr/local/cuda/bin/ptxas", os.X_OK) else None)
# Math functions come from CUDA's libdevice (gpu/ptx.h says where it is looked for).
LIBDEVICE = os.environ.get("SIMT_LIBDEVICE") or os.path.join(
    os.environ.get("CUDA_HOME", "/usr/local/cuda"), "nvvm", "libdevice", "libdevice.10.bc")
needs_libdevice = pytest.mark.skipif(not os.path.exists(LIBDEVICE),
                                     reason="CUDA's libdevice is not installed (%s)" % LIBDEVICE)


def vector_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


def block_sum(x, out):
    s = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    s[t] = math.sin(x[cuda.grid(1)])
    cuda.syncthreads()
    k = 32
    while k > 0:
        if t < k:
            s[t] += s[t + k]
        cuda.syncthreads()
        k //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


def warps_atomics_print(x, out):
    t = cuda.threadIdx.x
    v = cuda.shfl_down_sync(0xFFFFFFFF, x[t], 1)
    if cuda.all_sync(0xFFFFFFFF, v > 0):
        cuda.atomic.add(out, 0, v)
    if v < 0:
        print("negative", v, t)
    out[1] = cuda.syncthreads_count(t < 3)


def dynamic_shared(x):
    s = cuda.shared.array(0, np.float64)
    s[cuda.threadIdx.x] = x[cuda.threadIdx.x]
    cuda.syncthreads()
    x[cuda.threadIdx.x] = s[0] * 2 ** x[0]


KERNELS = [(vector_add, "void(float32[:], float32[:], float32[:])"),
           pytest.param(block_sum, "void(float32[:], float32[:])", marks=needs_libdevice),
           (warps_atomics_print, "void(float64[:], float64[:])"),
           pytest.param(dynamic_shared, "void(float64[:])", marks=needs_libdevice)]


@pytest.mark.parametrize("kernel, sig", KERNELS,
                         ids=["vector_add", "block_sum", "warps_atomics_print", "dynamic_shared"])
def test_ptx_of_kernels(kernel, sig, tmp_path):
    ptx, resty = cuda.compile_ptx(kernel, sig)
    assert str(resty) == "none"
    assert ".target sm_75" in ptx and ".address_size 64" in ptx
    assert re.search(r"\.visible \.entry %s\(" % kernel.__name__, ptx), ptx[:2000]
    assert "__nv_" not in ptx  # libdevice is linked in and internalised
    assert_ptxas_accepts(ptx, tmp_path)


def entry_parameters(ptx, name):
    return re.search(r"\.entry %s\((.*?)\)" % name, ptx, re.S).group(1)


def assert_ptxas_accepts(ptx, tmp_path, archs=("sm_75", "sm_90")):
    if PTXAS is None:
        pytest.skip("ptxas is not installed (the CUDA toolkit is not at /usr/local/cuda)")
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    for arch in archs:
        run = subprocess.run([PTXAS, "-arch=" + arch, str(path), "-o", os.devnull],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr


def test_kernel_parameters_follow_numbas_abi():
    ptx, _ = cuda.compile_ptx(vector_add, "void(float32[:], float32[:], float32[:])", cc=(9, 0))
    assert ".target sm_90" in ptx
    # Each 1-d array: meminfo, parent, nitems, itemsize, data, extent, stride.
    params = entry_parameters(ptx, "vector_add")
    assert params.count(".param .u64") == 21, params

    def scalars(r, flag, z, n):
        r[0] = z.real + n if flag else z.imag

    ptx, _ = cuda.compile_ptx(scalars, "void(float64[:, ::1], boolean, complex64, int16)")
    params = entry_parameters(ptx, "scalars")
    # A 2-d array (5 + 2 + 2), bool as a byte, complex64 as two floats, int16.
    assert params.count(".param .u64") == 9
    assert params.count(".param .u8") == 1
    assert params.count(".param .f32") == 2
    assert params.count(".param .u16") == 1


def add(x, y):
    return x + y


def test_device_functions_numba_and_c_abi(tmp_path):
    ptx, resty = cuda.compile_ptx(add, (float32, float32), device=True)
    assert resty == float32
    # Numba's ABI: the status in func_retval0, the result stored through the first parameter.
    assert ".visible .func  (.param .b32 func_retval0) add(" in ptx
    assert ".entry" not in ptx and "st.f32" in ptx
    ptx, resty = cuda.compile_ptx(add, "int64(int64, int64)", device=True, abi="c",
                                  abi_info={"abi_name": "add_c"})
    assert str(resty) == "int64"
    assert re.search(r"\.visible \.func  \(\.param \.b64 func_retval0\) add_c\(", ptx)
    assert "add.s64" in ptx
    code, resty = cuda.compile(add, (float32, float32))  # numba-cuda's: C ABI by default
    assert ".func  (.param .b32 func_retval0) add(" in code and "add.f32" in code
    with pytest.raises(NotImplementedError, match="C ABI is for device functions"):
        cuda.compile_ptx(vector_add, "void(float32[:], float32[:], float32[:])", abi="c")
    with pytest.raises(NotImplementedError, match="only PTX"):
        cuda.compile(add, (float32, float32), output="ltoir")


def test_fastmath_selects_approximate_instructions():
    def f(r, x, y, z):
        r[0] = math.sqrt((x * y + z) / y)

    sig = "void(float32[::1], float32, float32, float32)"
    precise, _ = cuda.compile_ptx(f, sig)
    fast, _ = cuda.compile_ptx(f, sig, fastmath=True)
    assert "fma.rn.f32" in precise and "div.rn.f32" in precise and "sqrt.rn.f32" in precise
    assert "fma.rn.ftz.f32" in fast and "div.approx.ftz.f32" in fast
    assert "sqrt.approx.ftz.f32" in fast


@needs_libdevice
def test_fastmath_uses_libdevices_fast_functions():
    def f(r, x):
        r[0] = math.sin(x) + math.log(x)

    precise, _ = cuda.compile_ptx(f, "void(float32[::1], float32)")
    fast, _ = cuda.compile_ptx(f, "void(float32[::1], float32)", fastmath=True)
    assert "sin.approx.ftz.f32" in fast and "lg2.approx.ftz.f32" in fast
    assert "sin.approx" not in precise and "lg2.approx" not in precise


def test_line_info_and_debug_info(tmp_path):
    ptx, _ = cuda.compile_ptx(vector_add, "void(float32[:], float32[:], float32[:])",
                              lineinfo=True)
    assert re.search(r'\.file\s+\d+\s+".*test_compile_ptx\.py"', ptx)
    line = vector_add.__code__.co_firstlineno + 3  # c[i] = a[i] + b[i]
    assert re.search(r"\.loc\s+\d+ %d \d+" % line, ptx)
    assert ".debug_info" not in ptx  # line tables only, as nvcc -lineinfo
    ptx, _ = cuda.compile_ptx(vector_add, "void(float32[:], float32[:], float32[:])", debug=True)
    assert re.search(r"\.section\s+\.debug_info", ptx)
    assert_ptxas_accepts(ptx, tmp_path)


def test_faults_go_to_the_device_exception_record(tmp_path):
    def checked(x, y):
        x[cuda.threadIdx.x] = 1.0 / y

    ptx, _ = cuda.compile_ptx(checked, "void(float32[:], float32)", debug=True)
    # IndexError and ZeroDivisionError are stored in the record, claimed by a compare-and-swap.
    assert ".visible .global .align 4 .b8 simt_exception[64]" in ptx
    assert "atom.global.cas.b32" in ptx
    assert_ptxas_accepts(ptx, tmp_path)


def test_fences_nanosleep_and_grid_sync(tmp_path):
    def sync_everything(x, t):
        cuda.threadfence_block()
        cuda.threadfence()
        cuda.threadfence_system()
        cuda.nanosleep(t)
        cuda.cg.this_grid().sync()
        x[cuda.grid(1)] += 1

    ptx, _ = cuda.compile_ptx(sync_everything, "void(int32[:], uint32)", cc=(7, 0))
    assert "membar.cta" in ptx and "membar.gl" in ptx and "membar.sys" in ptx
    assert "nanosleep.u32" in ptx
    assert ptx.count("bar.sync") >= 2  # the grid barrier is bracketed by block barriers
    assert_ptxas_accepts(ptx, tmp_path)
    with pytest.raises(RuntimeError, match="nanosleep needs compute capability 7.0"):
        cuda.compile_ptx(sync_everything, "void(int32[:], uint32)", cc=(6, 1))
    with pytest.raises(ValueError, match=r"does not compile for compute capability \(1, 0\)"):
        cuda.compile_ptx(sync_everything, "void(int32[:], uint32)", cc=(1, 0))
    for cc in ((9, 0, "a"), "sm_90a"):
        ptx, _ = cuda.compile_ptx(sync_everything, "void(int32[:], uint32)", cc=cc)
        assert ".target sm_90a" in ptx


def test_inspect_asm_llvm_and_sass_of_compiled_signatures():
    kernel = cuda.jit(vector_add)
    a = np.ones(8, np.float32)
    kernel[1, 8](a, a, np.zeros(8, np.float32))
    (text,) = kernel.inspect_asm().values()
    assert ".entry vector_add(" in text
    (llvm_ir,) = kernel.inspect_llvm().values()
    assert 'target triple = "nvptx64-nvidia-cuda"' in llvm_ir and "nvvm.annotations" in llvm_ir
    (sim_ir,) = kernel.inspect_sim_llvm().values()
    assert "nvptx" not in sim_ir
    device = cuda.jit("float32(float32, float32)", device=True)(add)
    assert ".func" in device.inspect_asm((float32, float32))
    compiled = device.compile_device((float32, float32))  # Numba's compile result, in part
    assert compiled.fndesc.mangled_name == "add" and compiled.return_type == float32
    assert "@add(" in device.inspect_llvm((float32, float32))
    if shutil.which("nvdisasm") is None:
        with pytest.raises(RuntimeError, match="nvdisasm is required"):
            kernel.inspect_sass()


def test_kernels_made_by_exec_compile():
    source = "def made(r, x):\n    r[0] = x * 2\n"
    namespace = {}
    exec(source, namespace)
    ptx, _ = cuda.compile_ptx(namespace["made"], "void(float64[:], float64)")
    assert ".entry made(" in ptx
    r = np.zeros(1)
    cuda.jit(namespace["made"])[1, 1](r, 4.0)
    assert r[0] == 8.0


def float_min_max(r, x, y):
    r[0] = max(x[0], y[0])
    r[1] = min(x[0], y[0])
    r[2] = max(y[0], x[0])


def test_float_min_max_are_numbas_fmin_fmax():
    # Numba's CUDA target calls libdevice's fmax/fmin: a NaN operand gives the other one, in
    # either order (Python's max(nan, 1.0) would be nan), on the simulator as on the GPU.
    r = np.zeros(3)
    cuda.jit(float_min_max)[1, 1](r, np.array([np.nan]), np.array([1.0]))
    np.testing.assert_array_equal(r, [1.0, 1.0, 1.0])
    ptx, _ = cuda.compile_ptx(float_min_max, "void(float64[:], float64[:], float64[:])")
    assert "max.f64" in ptx and "min.f64" in ptx


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_min_max_order_signed_zeros_as_the_gpu_does(dtype):
    # PTX max/min (libdevice fmax/fmin) give +0.0 and -0.0 for a +0.0 and a -0.0 in either
    # order; LLVM's maxnum leaves that to the target, and x86 gave the second operand.
    for x, y in ((-0.0, 0.0), (0.0, -0.0)):
        r = np.full(3, np.nan)
        cuda.jit(float_min_max)[1, 1](r, np.array([x], dtype), np.array([y], dtype))
        np.testing.assert_array_equal(np.signbit(r), [False, True, False])
    r = np.zeros(3)
    cuda.jit(float_min_max)[1, 1](r, np.array([-2.5], dtype), np.array([-2.5], dtype))
    np.testing.assert_array_equal(r, [-2.5, -2.5, -2.5])

def test_other_min_max_forms_are_numbas_generic_ones():
    # Two floats only are fmax/fmin; mixed with an integer, three or more values, or a tuple's
    # elements, Numba's generic code keeps `v if v > acc else acc`: a NaN accumulator stays, a
    # NaN argument is passed over (Python's order).
    @cuda.jit
    def k(x, out, m):
        out[0] = min(x[0], 1)
        out[1] = min(x[0], x[1], x[2])
        out[2] = max(x[0], 1)
        out[3] = max(1, x[0])
        out[4] = max(x[1], x[0], x[2])
        out[5] = min((3.0, x[1], 2.0))
        out[6] = max(m.shape)
        out[7] = max((x[1],))

    out = np.zeros(8)
    k[1, 1](np.array([np.nan, 1.0, 2.0]), out, np.zeros((2, 5)))
    np.testing.assert_array_equal(out, [np.nan, np.nan, np.nan, 1.0, 2.0, 1.0, 5.0, 1.0])


def test_print_without_optimisation(tmp_path):
    # print's packed arguments live in the entry block: an alloca elsewhere is dynamic, and at
    # -O0 inlining brackets it by stacksave/stackrestore, which LLVM 19's NVPTX backend cannot
    # select (it aborted the process).
    def printing(x, n):
        for i in range(n):
            if x[i] > 0:
                print("positive", i, x[i], x[i] > 1)

    for options in ({"opt": False}, {"opt": False, "debug": True}, {"cc": (9, 0), "opt": False}):
        ptx, _ = cuda.compile_ptx(printing, "void(float32[:], int32)", **options)
        assert "vprintf" in ptx and "stacksave" not in ptx
        assert_ptxas_accepts(ptx, tmp_path, archs=("sm_90",) if "cc" in options
                             else ("sm_75", "sm_90"))


def test_thread_groups_passed_to_device_functions_without_optimisation(tmp_path):
    # A thread group is a value of no bits: PTX has no such parameter (LLVM 19's NVPTX backend
    # aborted: "Empty parameter types are not supported"), so its device functions are inlined.
    @cuda.jit(device=True)
    def total(g, workspace, value):
        workspace[g.thread_rank] = value
        g.sync()
        return workspace[0] + g.size

    @cuda.jit(device=True)
    def block():
        return cuda.cg.this_thread_block()

    def grouped(values, out):
        workspace = cuda.shared.array(64, np.float64)
        i = cuda.grid(1)
        out[i] = total(block(), workspace, values[i])

    for options in ({"opt": False}, {"opt": False, "debug": True}, {}):
        ptx, _ = cuda.compile_ptx(grouped, "void(float64[:], float64[:])", **options)
        assert ".entry grouped(" in ptx and "bar.sync" in ptx
        assert_ptxas_accepts(ptx, tmp_path)


def test_breakpoint_is_ptxs_brkpt(tmp_path):
    # numba-cuda 0.30 lowers breakpoint() to brkpt (cuda-gdb stops there); the simulator's release
    # code ignores it, its debug variant stops in simt's debugger.
    def kernel(x):
        i = cuda.grid(1)
        breakpoint()
        x[i] = 1

    ptx, _ = cuda.compile_ptx(kernel, (float32[:],))
    assert re.search(r"^\s*brkpt;", ptx, re.M), ptx
    assert_ptxas_accepts(ptx, tmp_path)


def narrow_negation_and_abs(i8, i16, out):
    out[0] = -i8[0]
    out[1] = -i16[0]
    out[2] = abs(i16[0])
    out[3] = abs(i8[0])


def test_narrow_negation_and_abs_avoid_what_ptxas_miscompiles(tmp_path):
    # ptxas (CUDA 13.0) takes neg.s16/abs.s16 of -32768 for +32768 once widened (gpu/ptxas_
    # workarounds.h): the PTX has their unsigned forms instead, the simulator's wrapping results.
    sig = "void(int8[:], int16[:], int64[:])"
    ptx, _ = cuda.compile_ptx(narrow_negation_and_abs, sig)
    assert "neg.s16" not in ptx and "abs.s16" not in ptx
    assert "sub.u16" in ptx and "shr.s16" in ptx
    assert_ptxas_accepts(ptx, tmp_path)
    out = np.zeros(4, np.int64)
    cuda.jit(sig)(narrow_negation_and_abs)[1, 1](np.array([-128], np.int8),
                                                 np.array([-32768], np.int16), out)
    assert out.tolist() == [-128, -32768, -32768, -128]
