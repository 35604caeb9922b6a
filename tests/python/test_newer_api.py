"""numba-cuda's newer kernel API (2024-2026): cache-hinted loads and stores, math.exp2 and
math.nextafter, launch_bounds=, shared_memory_carveout=, compile() and compile_all()."""
import math

import numpy as np
import pytest
from simt import cuda


def test_cache_hinted_loads_and_stores_are_plain_accesses():
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            x = cuda.ldca(a, i) + cuda.ldcg(a, i) + cuda.ldcs(a, i) + cuda.ldlu(a, i)
            y = cuda.ldcv(b, (i, 1))
            cuda.stcg(out, i, x)
            cuda.stcs(out, i + a.size, y)
            cuda.stwb(out, i + 2 * a.size, -x)
            cuda.stwt(out, i + 3 * a.size, x * y)

    a = np.arange(8, dtype=np.float32)
    b = np.arange(16, dtype=np.float32).reshape(8, 2)
    out = np.zeros(32, np.float32)
    k[1, 8](a, b, out)
    np.testing.assert_array_equal(out, np.concatenate([4 * a, b[:, 1], -4 * a, 4 * a * b[:, 1]]))


def test_exp2_and_nextafter_as_python_computes_them():
    @cuda.jit
    def k(x, out64, out32):
        i = cuda.grid(1)
        if i < x.size:
            out64[i, 0] = math.exp2(x[i])
            out64[i, 1] = math.nextafter(x[i], math.inf)
            out64[i, 2] = math.nextafter(x[i], -math.inf)
            f = np.float32(x[i])
            out32[i, 0] = math.exp2(f)
            out32[i, 1] = math.nextafter(f, np.float32(math.inf))

    x = np.array([0.0, 1.5, -3.25, 100.0, 1e-300])
    out64, out32 = np.zeros((5, 3)), np.zeros((5, 2), np.float32)
    k[1, 5](x, out64, out32)
    for i, v in enumerate(x):
        assert out64[i].tolist() == [2.0 ** v, math.nextafter(v, math.inf),
                                     math.nextafter(v, -math.inf)]
        f = np.float32(v)
        assert out32[i, 0] == np.exp2(f)
        assert out32[i, 1] == np.nextafter(f, np.float32(np.inf))  # float32's next, not float64's


def test_launch_bounds_limit_blocks_and_reach_the_ptx():
    @cuda.jit(launch_bounds=(128, 2))
    def k(a):
        a[cuda.grid(1)] = 1

    a = np.zeros(256)
    k[2, 128](a)
    assert a.sum() == 256
    with pytest.raises(ValueError, match="block of 256 threads exceeds k's launch_bounds of 128"):
        k[1, 256](a)
    ptx = k.inspect_asm()[next(iter(k.overloads))]
    assert ".maxntid 128, 1, 1" in ptx and ".minnctapersm 2" in ptx
    with pytest.raises(ValueError, match="launch_bounds must be"):
        cuda.jit(launch_bounds=(0,))
    with pytest.raises(ValueError, match="at most 1024 threads"):
        cuda.jit(launch_bounds=2048)


def test_shared_memory_carveout_is_checked_and_accepted():
    @cuda.jit(shared_memory_carveout="MaxShared")
    def k(a):
        a[0] = 1

    a = np.zeros(1)
    k[1, 1](a)
    assert a[0] == 1
    cuda.jit(shared_memory_carveout=50)
    with pytest.raises(ValueError, match="shared_memory_carveout must be"):
        cuda.jit(shared_memory_carveout=150)


def test_compile_and_compile_all():
    def add(x, y):
        return x + y

    ptx, returned = cuda.compile(add, "(float32, float32)")
    assert ".func" in ptx and str(returned) == "float32"
    codes, returned = cuda.compile_all(add, "(float64, float64)")
    assert len(codes) == 1 and ".func" in codes[0] and str(returned) == "float64"

    def kernel(a):
        a[0] = 1

    ptx, _ = cuda.compile(kernel, "(float32[:],)", device=False, abi="numba",
                          launch_bounds=64)
    assert ".maxntid 64, 1, 1" in ptx
