"""CUDA intrinsics (cuda.popc, cuda.brev, ..., cuda.syncthreads_count, cuda.atomic.nanmax), the
math functions with tuple results, the thread block group, and Numba's error model (debug=True)."""
import math
from fractions import Fraction

import numpy as np
import pytest

from simt import cuda, float64, int32


def bits(value, width):
    return format(int(value) & ((1 << width) - 1), "0%db" % width)


def popc_ref(value, width):
    return bits(value, width).count("1")


def clz_ref(value, width):
    s = bits(value, width)
    return len(s) - len(s.lstrip("0"))


def ffs_ref(value, width):
    s = bits(value, width)
    return 0 if "1" not in s else len(s) - s.rindex("1")


def brev_ref(value, width):
    return int(bits(value, width)[::-1], 2)


INT_VALUES = [0, 1, -1, 2, 3, 5, 12, 255, -256, 1 << 20, -(1 << 30), 0x55555555, 0x7FFFFFFF]


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                   np.uint32, np.uint64])
def test_popc_clz_ffs_on_every_integer_type(dtype):
    @cuda.jit
    def k(a, pop, lz, fs):
        i = cuda.grid(1)
        if i < a.size:
            pop[i] = cuda.popc(a[i])
            lz[i] = cuda.clz(a[i])
            fs[i] = cuda.ffs(a[i])

    a = np.array(INT_VALUES).astype(dtype)
    width = a.dtype.itemsize * 8
    pop, lz, fs = np.zeros_like(a), np.zeros_like(a), np.zeros(a.size, np.uint32)
    k[1, 32](a, pop, lz, fs)
    assert pop.tolist() == [popc_ref(v, width) for v in a]
    assert lz.tolist() == [clz_ref(v, width) for v in a]
    assert fs.tolist() == [ffs_ref(v, width) for v in a]


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_brev(dtype):
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = cuda.brev(a[i])

    a = np.array([0, 1, 2, 0xF0, 0x12345678, 0xFFFFFFFF]).astype(dtype)
    out = np.zeros_like(a)
    k[1, 32](a, out)
    width = a.dtype.itemsize * 8
    assert out.tolist() == [brev_ref(v, width) for v in a]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fma_and_cbrt(dtype):
    @cuda.jit
    def k(a, b, c, fused, root):
        i = cuda.grid(1)
        if i < a.size:
            fused[i] = cuda.fma(a[i], b[i], c[i])
            root[i] = cuda.cbrt(a[i])

    rng = np.random.default_rng(3)
    a, b, c = (rng.uniform(-100, 100, 50).astype(dtype) for _ in range(3))
    a[:4] = [27, -8, 0, 1e-3]
    fused, root = np.zeros_like(a), np.zeros_like(a)
    k[2, 32](a, b, c, fused, root)
    # fma rounds the exact a * b + c once
    exact = [float(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
             for x, y, z in zip(a, b, c)]
    assert fused.tolist() == np.array(exact).astype(dtype).tolist()
    # CUDA's cbrt is within 1 ulp, and exact on perfect cubes (glibc's is not: its cbrt(27.0)
    # is 3.0000000000000004; simt's rounds the long double root once)
    ulp = np.finfo(dtype).eps
    np.testing.assert_allclose(root, np.cbrt(a), rtol=2 * ulp, atol=0)
    assert root[0] == 3 and root[1] == -2 and root[2] == 0


def test_fma_rounds_once():
    @cuda.jit
    def k(out):
        x = 1.0 + 2.0 ** -30
        out[0] = cuda.fma(x, x, -1.0)
        out[1] = x * x - 1.0

    out = np.zeros(2)
    k[1, 1](out)
    assert out[0] == 2.0 ** -29 + 2.0 ** -60  # the exact product survives
    assert out[1] == 2.0 ** -29


def test_selp_evaluates_to_the_chosen_value():
    @cuda.jit
    def k(a, out, outf):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = cuda.selp(a[i] > 2, a[i], a[i] * 10)
            outf[i] = cuda.selp(i % 2, 1.5, -1.5)

    a = np.arange(6, dtype=np.int64)  # a[i] * 10 is int64 too: selp takes one type
    out, outf = np.zeros_like(a), np.zeros(6)
    k[1, 8](a, out, outf)
    assert out.tolist() == [0, 10, 20, 3, 4, 5]
    assert outf.tolist() == [-1.5, 1.5] * 3


def test_threadfences_and_nanosleep_run():
    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        a[i] = 1
        cuda.threadfence_block()
        cuda.threadfence()
        cuda.threadfence_system()
        cuda.nanosleep(100)
        a[i] += 1

    a = np.zeros(64, np.int32)
    k[2, 32](a)
    assert (a == 2).all()


@pytest.mark.parametrize("blockdim", [(64,), (8, 4), (4, 3, 2)])
def test_syncthreads_count_and_or(blockdim):
    @cuda.jit
    def k(flags, out):
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y
                                                  + cuda.blockDim.y * cuda.threadIdx.z)
        b = cuda.blockIdx.x
        pred = flags[b, t]
        count = cuda.syncthreads_count(pred)
        every = cuda.syncthreads_and(pred)
        some = cuda.syncthreads_or(pred)
        out[b, t, 0] = count
        out[b, t, 1] = every
        out[b, t, 2] = some

    n = int(np.prod(blockdim))
    flags = np.zeros((4, n), np.int32)
    flags[1, ::3] = 7  # some
    flags[2, :] = -1  # all
    flags[3, n - 1] = 1  # only the last thread
    out = np.zeros((4, n, 3), np.int32)
    k[4, blockdim](flags, out)
    for b in range(4):
        nonzero = int(np.count_nonzero(flags[b]))
        assert (out[b, :, 0] == nonzero).all()
        assert (out[b, :, 1] == int(nonzero == n)).all()
        assert (out[b, :, 2] == int(nonzero > 0)).all()


def test_syncthreads_count_ignores_threads_that_returned():
    @cuda.jit
    def k(out):
        t = cuda.threadIdx.x
        if t >= 10:
            return
        out[t] = cuda.syncthreads_count(1)

    out = np.zeros(32, np.int32)
    k[1, 32](out)
    assert out[:10].tolist() == [10] * 10


def test_syncthreads_count_in_a_device_function():
    @cuda.jit(device=True)
    def votes(x):
        return cuda.syncthreads_count(x > 0)

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        out[i] = votes(a[i])

    a = np.array([1, -1, 2, 0] * 8, np.float64)
    out = np.zeros(32, np.int32)
    k[1, 32](a, out)
    assert (out == 16).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_atomic_nanmax_nanmin_ignore_nan(dtype):
    @cuda.jit
    def k(values, result, old):
        i = cuda.grid(1)
        if i < values.size:
            cuda.atomic.nanmax(result, 0, values[i])
            cuda.atomic.nanmin(result, 1, values[i])
        if i == 0:
            old[0] = cuda.atomic.nanmax(result, 2, 5.0)
            old[1] = cuda.atomic.nanmin(result, 3, 5.0)

    values = np.array([3.0, np.nan, -7.5, 12.25, np.nan, 0.5] * 10, dtype)
    result = np.array([np.nan, np.nan, np.nan, 1.0], dtype)
    old = np.zeros(2, dtype)
    k[2, 32](values, result, old)
    assert result[0] == 12.25 and result[1] == -7.5
    assert result[2] == 5.0 and result[3] == 1.0  # NaN is replaced; a smaller value stays
    assert math.isnan(old[0]) and old[1] == 1.0


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_atomic_nanmax_nanmin_on_integers(dtype):
    @cuda.jit
    def k(values, result):
        i = cuda.grid(1)
        if i < values.size:
            cuda.atomic.nanmax(result, 0, values[i])
            cuda.atomic.nanmin(result, 1, values[i])

    values = np.arange(100, 164).astype(dtype)
    result = np.array([0, np.iinfo(dtype).max], dtype)
    k[2, 32](values, result)
    assert result.tolist() == [163, 100]


def test_frexp_and_modf():
    @cuda.jit
    def k(a, mant, expo, frac, whole):
        i = cuda.grid(1)
        if i < a.size:
            m, e = math.frexp(a[i])
            mant[i] = m
            expo[i] = e
            f, w = math.modf(a[i])
            frac[i] = f
            whole[i] = w

    a = np.array([0.0, -0.0, 1.0, -3.75, 1e300, 5e-324, 0.1, 1024.5, np.inf, -np.inf, np.nan])
    mant, frac, whole = np.zeros_like(a), np.zeros_like(a), np.zeros_like(a)
    expo = np.zeros(a.size, np.int32)
    k[1, 16](a, mant, expo, frac, whole)
    for i, x in enumerate(a):
        m, e = math.frexp(x)
        f, w = math.modf(x)
        assert (mant[i], expo[i]) == (m, e) or (math.isnan(m) and math.isnan(mant[i])), x
        assert math.copysign(1, mant[i]) == math.copysign(1, m)
        for got, want in ((frac[i], f), (whole[i], w)):
            assert got == want or (math.isnan(got) and math.isnan(want)), x
            assert math.copysign(1, got) == math.copysign(1, want), x


def test_frexp_float32():
    @cuda.jit
    def k(a, mant, expo):
        i = cuda.grid(1)
        if i < a.size:
            mant[i], expo[i] = math.frexp(a[i])

    a = np.array([3.0, -0.15625, 1e-40], np.float32)
    mant, expo = np.zeros_like(a), np.zeros(3, np.int32)
    k[1, 4](a, mant, expo)
    assert mant.tolist() == [0.75, -0.625, np.frexp(a[2])[0]]
    assert expo.tolist() == [2, -2, np.frexp(a[2])[1]]


# -- the thread block group (a simt extension) ------------------------------------------------

@cuda.jit(device=True)
def rank_and_size(g):
    return g.thread_rank, g.size


def test_thread_block_group_attributes_in_3d_blocks():
    @cuda.jit
    def k(out):
        g = cuda.cg.this_thread_block()
        rank, size = rank_and_size(g)
        out[rank, 0] = rank
        out[rank, 1] = size
        g.sync()

    out = np.zeros((24, 2), np.int32)
    k[1, (4, 3, 2)](out)
    assert out[:, 0].tolist() == list(range(24))
    assert (out[:, 1] == 24).all()


def test_thread_block_group_sync_is_a_barrier():
    @cuda.jit
    def k(out):
        shared = cuda.shared.array(64, int32)
        g = cuda.cg.this_thread_block()
        shared[g.thread_rank] = g.thread_rank
        g.sync()
        out[g.thread_rank] = shared[g.size - 1 - g.thread_rank]

    out = np.zeros(64, np.int32)
    k[1, 64](out)
    assert out.tolist() == list(range(63, -1, -1))


def test_thread_block_group_seed_sum_reduction():
    @cuda.jit(device=True)
    def sumReduction(g, x, val):
        lane = g.thread_rank
        i = g.size // 2
        while i > 0:
            x[lane] = val
            g.sync()
            if lane < i:
                val += x[lane + i]
            g.sync()
            i //= 2
        if g.thread_rank == 0:
            return val
        else:
            return -1

    @cuda.jit
    def k(values, sums):
        workspace = cuda.shared.array(128, float64)
        s = sumReduction(cuda.cg.this_thread_block(), workspace, values[cuda.grid(1)])
        if cuda.threadIdx.x == 0:
            sums[cuda.blockIdx.x] = s

    values = np.arange(512, dtype=np.float64)
    sums = np.zeros(4)
    k[4, 128](values, sums)
    assert sums.tolist() == values.reshape(4, 128).sum(axis=1).tolist()


# -- Numba's error model ------------------------------------------------------------------------

def _divisions(debug, lineinfo=False):
    @cuda.jit(debug=debug, opt=not debug, lineinfo=lineinfo)
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i, 0] = a[i] / b[i]
            out[i, 1] = a[i] // b[i]
            out[i, 2] = a[i] % b[i]
    return k


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_division_by_zero_gives_inf_nan_without_debug(dtype):
    a = np.array([1.0, -1.0, 0.0, 3.0], dtype)
    b = np.array([0.0, 0.0, 0.0, 2.0], dtype)
    out = np.zeros((4, 3), dtype)
    _divisions(False)[1, 4](a, b, out)
    assert out[0, 0] == np.inf and out[1, 0] == -np.inf and np.isnan(out[2, 0])
    assert out[0, 1] == np.inf and out[1, 1] == -np.inf and np.isnan(out[2, 1])
    assert np.isnan(out[:3, 2]).all()
    assert out[3].tolist() == [1.5, 1.0, 1.0]


@pytest.mark.parametrize("column, message", [(0, "division by zero"), (1, "division by zero"),
                                             (2, "modulo by zero")])
def test_float_division_by_zero_raises_with_debug(column, message):
    @cuda.jit(debug=True, opt=False)
    def k(a, b, out):
        i = cuda.grid(1)
        if column == 0:
            out[i] = a[i] / b[i]
        elif column == 1:
            out[i] = a[i] // b[i]
        else:
            out[i] = a[i] % b[i]

    a, b, out = np.ones(4), np.array([1.0, 2.0, 0.0, 4.0]), np.zeros(4)
    with pytest.raises(ZeroDivisionError, match=r"tid=\[2, 0, 0\] ctaid=\[0, 0, 0\]: %s"
                       % message):
        k[1, 4](a, b, out)


def test_lineinfo_selects_the_python_error_model_under_numbas_own_cuda_target_only():
    # Numba 0.56's compile_cuda: lineinfo selects the 'python' error model as debug does;
    # numba-cuda's (and numba-cuda-mlir's) keep lineinfo from changing it. The PTX is the same.
    from simt.base import host
    a, b, out = np.ones(2), np.array([1.0, 0.0]), np.zeros((2, 3))
    kernel = _divisions(False, lineinfo=True)
    if host.python_error_model(False, True):
        with pytest.raises(ZeroDivisionError, match="division by zero"):
            kernel[1, 2](a, b, out)
    else:
        kernel[1, 2](a, b, out)
        assert out[1, 0] == np.inf
    from simt.compiler.ptx import compile_ptx
    raised = compile_ptx(kernel.py_func, "void(float64[:], float64[:], float64[:, :])",
                         lineinfo=True)["raised"]
    assert any(site[0] == "ZeroDivisionError" for site in raised) == \
        host.python_error_model(False, True)


def test_integer_true_division_by_zero_follows_the_error_model():
    @cuda.jit
    def quiet(a, b, out):
        out[0] = a[0] / b[0]

    @cuda.jit(debug=True, opt=False)
    def loud(a, b, out):
        out[0] = a[0] / b[0]

    a, b, out = np.array([3]), np.array([0]), np.zeros(1)
    quiet[1, 1](a, b, out)
    assert out[0] == np.inf
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        loud[1, 1](a, b, out)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.uint64])
def test_integer_floor_division_and_modulo_by_zero_follow_the_error_model(dtype):
    def body(a, b, out):
        out[0] = a[0] // b[0]
        out[1] = a[0] % b[0]
        out[2] = a[1] // b[1]
        out[3] = a[1] % b[1]
        q, r = divmod(a[0], b[0])
        out[4] = q + r
        out[5] = 9  # reached: no exception without debug

    quiet = cuda.jit(body)
    a, b = np.array([7, 7], dtype), np.array([0, 2], dtype)
    out = np.full(6, 5, np.int64)
    quiet[1, 1](a, b, out)
    assert out.tolist() == [0, 0, 3, 1, 0, 9]  # Numba on a GPU, and its simulator
    loud = cuda.jit(debug=True, opt=False)(body)
    with pytest.raises(ZeroDivisionError, match="integer division by zero"):
        loud[1, 1](a, b, np.zeros(6, np.int64))


def test_integer_power_of_zero_to_a_negative_exponent_follows_the_error_model():
    @cuda.jit
    def quiet(a, out):
        out[0] = a[0] ** a[1]

    @cuda.jit(debug=True, opt=False)
    def loud(a, out):
        out[0] = a[0] ** a[1]

    out = np.zeros(1, np.int64)
    quiet[1, 1](np.array([0, -2]), out)
    assert out[0] == np.iinfo(np.int64).min  # as Numba on a GPU without debug
    with pytest.raises(ZeroDivisionError, match="0 cannot be raised to a negative power"):
        loud[1, 1](np.array([0, -2]), out)


def test_the_error_model_reaches_device_functions():
    @cuda.jit(device=True)
    def ratio(x, y):
        return x / y

    @cuda.jit(debug=True, opt=False)
    def k(a, out):
        out[0] = ratio(a[0], a[1])
        out[1] = 1.0  # not reached: the device function raised

    out = np.zeros(2)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        k[1, 1](np.array([1.0, 0.0]), out)
    assert out[1] == 0


def test_negation_and_inversion_of_narrow_integers_wrap_in_their_width():
    # Numba negates and inverts in the operand's width, then widens to its 64-bit result type.
    @cuda.jit
    def k(u8, u32, i8, i16, out):
        out[0] = ~u8[0]
        out[1] = -u32[0]
        out[2] = ~u32[0]
        out[3] = -i8[0]
        out[4] = -i16[0]
        out[5] = ~i8[0]
        out[6] = (~u8[0]) >> 4

    out = np.zeros(7, np.int64)
    k[1, 1](np.array([1], np.uint8), np.array([4000000000], np.uint32), np.array([-128], np.int8),
            np.array([-32768], np.int16), out)
    assert out.tolist() == [254, 294967296, 294967295, -128, -32768, 127, 15]


def power_by_integers(x, n, out):
    for i in range(x.size):
        out[i, 0] = x[i] ** n[i]
        out[i, 1] = x[i] ** 7
        out[i, 2] = x[i] ** -3
        out[i, 3] = np.float32(x[i]) ** n[i]
        out[i, 4] = x[i] ** np.uint64(5)
        out[i, 5] = x[i] ** 70000  # beyond 65536: math.pow


def test_float_to_integer_powers_are_numbas_square_and_multiply():
    # Numba's int_power (what its GPU code computes), not pow(): 1-2 ulp apart for most x ** n.
    numba = pytest.importorskip("numba")
    rng = np.random.default_rng(1)
    x, n = rng.uniform(0.5, 1.5, 500), rng.integers(-20, 20, 500)
    out, expected = np.zeros((500, 6)), np.zeros((500, 6))
    cuda.jit(power_by_integers)[1, 1](x, n, out)
    numba.njit(power_by_integers)(x, n, expected)
    np.testing.assert_array_equal(out, expected)
    ptx, _ = cuda.compile_ptx(power_by_integers, "void(float64[:], int64[:], float64[:, :])")
    assert ".visible .entry" in ptx


def test_atomic_cas_takes_an_index_as_numba_cudas():
    # numba-cuda's cuda.atomic.cas(ary, idx, old, val); compare_and_swap(ary, old, val) is ary[0]'s
    @cuda.jit
    def k(a, olds):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            olds[i, j] = cuda.atomic.cas(a, (i, j), i + j, 100 + i + j)

    a = np.array([[0, 5], [2, 7]], np.int32)
    olds = np.zeros_like(a)
    k[1, (2, 2)](a, olds)
    assert olds.tolist() == [[0, 5], [2, 7]]
    assert a.tolist() == [[100, 5], [2, 7]]


def test_bit_count_of_unsigned_ints_is_their_population_count():
    # numba-cuda's int.bit_count() for unsigned integers
    @cuda.jit
    def k(out, x8, x64):
        out[0] = x8.bit_count()
        out[1] = x64.bit_count()

    out = np.zeros(2, np.int64)
    k[1, 1](out, np.uint8(0xF1), np.uint64(2**64 - 1))
    assert out.tolist() == [5, 64]
