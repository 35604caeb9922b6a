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
    if PTXAS is None:
        pytest.skip("ptxas is not installed (the CUDA toolkit is not at /usr/local/cuda)")
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    for arch in ("sm_75", "sm_90"):
        run = subprocess.run([PTXAS, "-arch=" + arch, str(path), "-o", os.devnull],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr


@needs_libdevice
def test_parameters_compute_capability_and_fastmath():
    ptx, _ = cuda.compile_ptx(vector_add, "void(float32[:], float32[:], float32[:])", cc=(9, 0),
                              fastmath=True)
    assert ".target sm_90" in ptx
    # Three arrays of one axis: (data, extent, stride) each.
    params = re.search(r"\.entry vector_add\((.*?)\)", ptx, re.S).group(1)
    assert params.count(".param .u64") == 9, params
    sin_ptx, _ = cuda.compile_ptx(block_sum, "void(float32[:], float32[:])", fastmath=True)
    exact_ptx, _ = cuda.compile_ptx(block_sum, "void(float32[:], float32[:])")
    assert sin_ptx != exact_ptx  # flush-to-zero libdevice paths and fast-math flags


def test_inspect_asm_of_compiled_signatures():
    kernel = cuda.jit(vector_add)
    a = np.ones(8, np.float32)
    kernel[1, 8](a, a, np.zeros(8, np.float32))
    (text,) = kernel.inspect_asm().values()
    assert ".entry vector_add(" in text


def test_what_the_gpu_target_cannot_compile_yet_says_so():
    def grid_sync(x):
        cuda.cg.this_grid().sync()
        x[0] = 1

    with pytest.raises(RuntimeError, match="grid sync is not supported by the GPU target yet"):
        cuda.compile_ptx(grid_sync, "void(int32[:])")
    with pytest.raises(NotImplementedError, match="device=True"):
        cuda.compile_ptx(vector_add, "void(float32[:], float32[:], float32[:])", device=True)
