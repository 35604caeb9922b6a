"""alignment= of cuda.local.array and cuda.shared.array (numba-cuda's keyword) and
arr.ctypes.data: the simulator's addresses are aligned, the GPU backend's LLVM IR names the arrays
and their alignment as Numba's, and bad values raise numba-cuda's errors."""
import re

import numpy as np
import pytest

from simt import cuda
from simt.errors import CompileError

SMEM = re.compile(r'^@"_cudapy_smem_\d+".*?align (\d+)', re.MULTILINE)
LMEM = re.compile(r'^\s*%"_cudapy_lmem".*?align (\d+)', re.MULTILINE)


def kernel(which, alignment, dtype=np.uint8, shape=(2, 3)):
    local = which == "local"

    @cuda.jit
    def f(out):
        if local:
            a = cuda.local.array(shape, dtype, alignment=alignment)
        else:
            a = cuda.shared.array(shape, dtype, alignment=alignment)
        a[0, 0] = 1
        out[0] = a.ctypes.data
    return f


@pytest.mark.parametrize("which", ["local", "shared"])
@pytest.mark.parametrize("alignment", [16, 64, 256, 4096])
def test_addresses_aligned(which, alignment):
    out = np.zeros(1, np.uint64)
    f = kernel(which, alignment)
    f[2, 33](out)
    assert out[0] != 0 and int(out[0]) % alignment == 0


def test_second_shared_array_aligned():
    @cuda.jit
    def f(out):
        a = cuda.shared.array(3, np.uint8)
        b = cuda.shared.array(5, np.float64, alignment=512)
        a[0] = 1
        b[0] = 1.0
        out[0] = b.ctypes.data - a.ctypes.data
        out[1] = b.ctypes.data
    out = np.zeros(2, np.uint64)
    f[1, 1](out)
    assert out[0] > 0 and int(out[1]) % 512 == 0


@pytest.mark.parametrize("which", ["local", "shared"])
def test_llvm_ir_names_alignment(which):
    f = kernel(which, 128)
    f[1, 1](np.zeros(1, np.uint64))
    text = f.overloads[f.signatures[0]].inspect_llvm()
    found = (LMEM if which == "local" else SMEM).findall(text)
    assert found == ["128"]


def test_llvm_ir_defaults():
    out = np.zeros(1, np.uint64)
    for which in ("local", "shared"):
        f = kernel(which, None)
        f[1, 1](out)
        text = f.overloads[f.signatures[0]].inspect_llvm()
        if which == "local":
            assert LMEM.findall(text) == []
        else:
            (align,) = SMEM.findall(text)
            assert int(align) & (int(align) - 1) == 0


@pytest.mark.parametrize("alignment,message", [(-1, "positive"), (0, "positive"),
                                               (3, "a power of 2"), (4, "a multiple of 8")])
def test_invalid_values(alignment, message):
    with pytest.raises(ValueError, match="Alignment must be " + message) as info:
        kernel("local", alignment)[1, 1](np.zeros(1, np.uint64))
    assert isinstance(info.value, CompileError)


@pytest.mark.parametrize("alignment", ["16", 1.0, 1.5])
def test_invalid_types(alignment):
    with pytest.raises(CompileError, match="RequireLiteralValue:.*alignment must be a constant "
                                           "integer"):
        kernel("shared", alignment)[1, 1](np.zeros(1, np.uint64))
