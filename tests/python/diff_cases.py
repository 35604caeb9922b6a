"""Kernels run both on simt and on Numba's simulator (NUMBA_ENABLE_CUDASIM=1); results must match.

Each case is a function returning (kernel, griddim, blockdim, args, dynamic_shared_bytes). The
outputs compared are every NumPy array argument after the launch.

Run as a script (`python3 diff_cases.py OUT.npz`) it computes every case with the `cuda` module
that `from numba import cuda` gives in that process (Numba's simulator under
NUMBA_ENABLE_CUDASIM=1, simt under SIMT_ENABLE=1), and saves the results.
"""
import cmath
import enum
import math
import sys
from collections import namedtuple

import numba
import numba.core.types
import numpy as np
from numba import cuda, int32

TPB = 32
TILE = 8  # a global constant array shapes are computed from
CONST_TABLE = np.array([1.5, -2.25, 3.0, 0.125])


def ints(n, lo=-50, hi=50, dtype=np.int64, seed=0):
    return np.random.default_rng(seed).integers(lo, hi, n).astype(dtype)


def floats(n, dtype=np.float64, seed=1, lo=-10.0, hi=10.0):
    return np.random.default_rng(seed).uniform(lo, hi, n).astype(dtype)


def case_constant_expression_shapes_and_numba_type_spellings():
    # Shapes Numba folds to constants (global and local constants in arithmetic), and dtypes
    # spelled numba.types.X / numba.core.types.X, as public programs write them.
    @cuda.jit
    def k(a, out):
        halo = 1
        width = TILE + 2 * halo
        tile = cuda.shared.array((TILE + 2, TILE * 2 // 2), dtype=numba.types.float64)
        flags = cuda.shared.array(width - 2 * halo, numba.core.types.int32)
        scratch = cuda.local.array(TILE ** 2 % 7 + (1 << 2), dtype=numba.float32)
        t = cuda.threadIdx.x
        tile[t + halo, t] = a[t]
        flags[t] = numba.types.int32(t) * numba.core.types.int32(3)
        scratch[t % 4] = numba.types.float32(a[t])
        cuda.syncthreads()
        out[t, 0] = tile[t + 1, t] + tile.shape[0] * 100 + tile.shape[1]
        out[t, 1] = flags[TILE - 1 - t] + flags.size
        out[t, 2] = scratch[t % 4] + scratch.size

    return k, 1, TILE, (floats(TILE, seed=21), np.zeros((TILE, 3))), 0


@cuda.jit(device=True)
def _identity(x):
    return x


@cuda.jit(device=True)
def _shared_update(ary, values, dtype, extent, shape2, update, convert, negate):
    # Compile-time arguments, as Numba's own atomics tests pass them: a dtype, literal shapes, a
    # function (cuda.atomic.*), a device function, a literal bool whose dead branch is pruned
    # (there `t - extent` would mix types the live branch does not).
    t = cuda.threadIdx.x
    buf = cuda.shared.array(extent, dtype)
    grid = cuda.shared.array(shape2, dtype)
    buf[t] = 0
    grid[t % shape2[0], t // shape2[0]] = 1
    cuda.syncthreads()
    slot = convert(values[t] % extent)
    if negate:
        slot = slot - extent
    update(buf, slot, 1)
    cuda.syncthreads()
    ary[t] = buf[t] + grid[t % shape2[0], t // shape2[0]] + shape2[1]


def case_compile_time_arguments_of_device_functions():
    @cuda.jit
    def k(values, out_add, out_max, out_neg):
        # (Numba's simulator keeps one shared array per declaration site, whatever its shape
        # and dtype in each call: the same ones here.)
        _shared_update(out_add, values, np.int64, 16, (4, 4), cuda.atomic.add, _identity, False)
        _shared_update(out_max, values, np.int64, 16, (4, 4), cuda.atomic.max, _identity, False)
        _shared_update(out_neg, values, np.int64, 16, (4, 4), cuda.atomic.add, _identity, True)

    values = ints(16, 0, 100, seed=31)
    return k, 1, 16, (values, np.zeros(16, np.int64), np.zeros(16, np.int64),
                      np.zeros(16, np.int64)), 0


@cuda.jit(device=True)
def _positive_double(x):
    # A value on some paths, None on others (returned, or by falling off the end): Numba's
    # OptionalType(int64).
    if x > 0:
        return x * 2
    if x == -1:
        return None


@cuda.jit(device=True)
def _first_index(a, x):
    for i in range(a.size):
        if a[i] == x:
            return i


def case_optional_returns():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            r = _positive_double(a[i])
            if r is None:
                out[i, 0] = -1
            else:
                out[i, 0] = r + 1
            out[i, 1] = 1 if _positive_double(a[i]) is not None else 0
            j = _first_index(a, a[i] + 1)
            out[i, 2] = j if j is not None else -5
            if _positive_double(a[i]):
                out[i, 3] = 7

    return k, 1, 16, (ints(16, -3, 4, seed=41), np.zeros((16, 4), np.int64)), 0


class _Mode(enum.Enum):
    fast = 1
    exact = 2


class _Level(enum.IntEnum):
    low = 10
    high = 500


class _Size(enum.IntEnum):
    small = 10  # equal to _Level.low as an integer, not the same member


_Span = namedtuple("_Span", ("start", "stop", "scale"))


@cuda.jit(device=True)
def _mode_for(x):
    return _Mode.exact if x > 0 else _Mode.fast


def case_enums_and_namedtuples():
    @cuda.jit
    def k(a, mode, level, span, out):
        i = cuda.grid(1)
        if i < a.size:
            m = _mode_for(a[i])
            out[i, 0] = m == _Mode.exact
            out[i, 1] = m is mode
            out[i, 2] = m != _Mode['fast']
            out[i, 3] = a[i] + level if a[i] < _Level.high else a[i] - _Level.low
            out[i, 4] = level == _Size.small
            out[i, 5] = level is _Size.small
            out[i, 6] = level is _Level.low
            out[i, 7] = int32(_Level.high) + m.value
            out[i, 8] = (a[i] - span.start) * span.scale if span.start <= a[i] < span.stop else 0
            out[i, 9] = span[1] + len(span)

    return k, 2, TPB, (ints(64, -20, 20), _Mode.exact, _Level.low, _Span(-5, 5, 3),
                       np.zeros((64, 10), np.int64)), 0


def case_datetime_and_timedelta_arithmetic():
    @cuda.jit
    def k(dates, hours, days, target, td, dt, ratio, flags):
        i = cuda.grid(1)
        if i < dates.size:
            td[i, 0] = dates[i] - target
            td[i, 1] = days[i] + hours[i]
            td[i, 2] = days[i] * 3 - days[i] // 2 + hours[i] % days[i]
            td[i, 3] = -hours[i] + days[i] / 2.5
            dt[i, 0] = dates[i] + hours[i]
            dt[i, 1] = hours[i] + dates[i] - days[i]
            ratio[i] = hours[i] / days[i]
            flags[i, 0] = dates[i] < target
            flags[i, 1] = days[i] != hours[i]

    n = 64
    dates = np.datetime64("2020-01-01") + ints(n, -40, 40, seed=5).astype("m8[D]")
    hours = ints(n, -100, 100, seed=6).astype("m8[h]")
    days = (ints(n, 1, 5, seed=7) * np.where(np.arange(n) % 2, 1, -1)).astype("m8[D]")
    return k, 2, TPB, (dates, hours, days, np.datetime64("2020-01-05"), np.zeros((n, 4), "m8[h]"),
                       np.zeros((n, 2), "M8[h]"), np.zeros(n), np.zeros((n, 2), np.bool_)), 0


def _weighted(a, b, c):
    return a + 10 * b + 100 * c


_weighted_device = cuda.jit(device=True)(_weighted)


def case_star_arguments():
    @cuda.jit
    def k(z, out, weights):
        i = cuda.grid(1)
        if i < z.size:
            out[i] = complex(*cmath.polar(z[i]))
            pair = (i % 3, i // 3)
            weights[i, 0] = _weighted_device(*pair, i)
            weights[i, 1] = _weighted_device(i, *(3, 4))
            weights[i, 2] = max(*pair, *(i, 5))

    z = floats(64, seed=8) + 1j * floats(64, seed=9)
    return k, 2, TPB, (z, np.zeros(64, np.complex128), np.zeros((64, 3), np.int64)), 0


def case_array_dtype_views():
    @cuda.jit
    def k(raw, floats2d, words, bits, halves):
        i = cuda.grid(1)
        if i < words.size:
            words[i] = raw[4 * i:4 * i + 4].view(np.int32)[0] + raw.view(np.int64)[i // 2]
            f = floats2d.view(np.uint32)  # one size: nothing but the dtype changes
            bits[i] = f[i // 8, i % 8]
            h = floats2d.view(np.uint16)  # C order: the last axis doubles
            halves[i, 0] = h[i // 16, i % 16]
            halves[i, 1] = h.shape[1] + floats2d[i % 8].view(np.int8).shape[0]

    raw = np.arange(256, dtype=np.uint8)
    floats2d = floats(64, np.float32, seed=10).reshape(8, 8)
    return k, 2, TPB, (raw, floats2d, np.zeros(64, np.int64), np.zeros(64, np.uint32),
                       np.zeros((64, 2), np.int64)), 0


_PARTICLE = np.dtype([("id", np.int32), ("pos", np.float32, (3,)), ("mass", np.float64)],
                     align=True)
_particle_t = numba.from_dtype(_PARTICLE)


def case_shared_and_local_arrays_of_records():
    @cuda.jit
    def k(particles, out):
        tile = cuda.shared.array(32, dtype=_particle_t)  # a Numba Record type
        scratch = cuda.local.array(2, _PARTICLE)  # a structured NumPy dtype
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        tile[t] = particles[i]
        cuda.syncthreads()
        mine = tile[31 - t]
        scratch[0] = mine
        scratch[1]["id"] = mine["id"] * 2  # by key: the simulator's records have no attributes
        scratch[1]["mass"] = mine["mass"] + tile[t]["pos"][1]
        out[i] = particles[i]
        out[i]["id"] = scratch[1]["id"] + scratch[0]["id"]
        out[i]["mass"] = scratch[1]["mass"]
        out[i]["pos"][0] = tile[(t + 1) % 32]["pos"][2]

    particles = np.zeros(64, _PARTICLE)
    particles["id"] = np.arange(64)
    particles["pos"] = floats(192, np.float32, seed=11).reshape(64, 3)
    particles["mass"] = floats(64, seed=12)
    # recarrays: the simulator stores records of plain structured arrays as sequences
    return k, 2, 32, (particles.view(np.recarray), np.zeros(64, _PARTICLE).view(np.recarray)), 0


_VEC3 = np.dtype([("x", np.float32), ("y", np.float32), ("z", np.float32)])
_BODY = np.dtype([("id", np.int64), ("pos", _VEC3), ("vel", _VEC3), ("hist", np.int16, (4,))],
                 align=True)


@cuda.jit(device=True)
def _speed(vel):
    return math.sqrt(vel.x * vel.x + vel.y * vel.y + vel.z * vel.z)


def case_nested_record_fields():
    @cuda.jit
    def k(bodies, dt, speeds):
        i = cuda.grid(1)
        if i < bodies.size:
            b = bodies[i]
            b.pos.x += b.vel.x * dt
            b.pos["y"] = b.pos.y + b["vel"]["y"] * dt
            b.pos.z = b.pos.z - bodies[(i + 1) % bodies.size].vel.z * dt
            b.hist[i % 4] = b.id
            speeds[i] = _speed(b.vel)
            if i % 2:
                b.pos = b.vel  # a whole nested record, copied (vel: read by other threads)

    bodies = np.zeros(64, _BODY).view(np.recarray)
    bodies["id"] = np.arange(64)
    for part in ("pos", "vel"):
        for axis in "xyz":
            bodies[part][axis] = floats(64, np.float32, seed=ord(axis) + len(part))
    return k, 2, TPB, (bodies, np.float32(0.5), np.zeros(64, np.float32)), 0


_LABELLED = np.dtype([("n", np.int64), ("label", "<U5"), ("raw", "S4")])


def case_strings_in_arrays_and_records():
    @cuda.jit
    def k(words, blobs, recs):
        i = cuda.grid(1)
        if i < words.size:
            if i % 2 == 0:
                words[i] = "even"
            else:
                words[i] = "odd-and-long"
            if i % 3:
                blobs[i] = b"ab\x00c"
            else:
                blobs[i] = b"xyz"
            recs[i]["label"] = "héllo"
            recs[i]["raw"] = b"RAW!"
            recs[i]["n"] = i

    return k, 2, TPB, (np.zeros(64, "<U8"), np.zeros(64, "S3"),
                       np.zeros(64, _LABELLED).view(np.recarray)), 0


def case_loop_variables_rebound_to_other_types():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            total = 0.0
            for v in ((a[i], 1.0), (2.0, a[i])):  # v: a tuple
                total += v[0] * v[1]
            for v in (a[i], 3.0):  # v afresh: a float, as Numba's SSA versions it
                total -= v
            for v in range(3):
                if v > 0:
                    total += v
            for w in range(2):  # a range() variable first, then floats
                total += w
            for w in (0.5, a[i]):
                total *= w
            out[i] = total

    return k, 2, TPB, (floats(64, seed=13), np.zeros(64)), 0


def case_round_to_variable_digits():
    @cuda.jit
    def k(x, digits, out32, out64):
        i = cuda.grid(1)
        if i < x.size:
            n = digits[i % digits.size]
            out64[i] = round(x[i], n)
            out32[i] = round(np.float32(x[i]), n)

    x = np.concatenate([floats(60, lo=-500.0, hi=500.0, seed=17), [2.5, -0.125, 1e-7, 123456.5]])
    digits = np.array([-3, -1, 0, 1, 2, 5, 13], np.int64)
    return k, 2, TPB, (x, digits, np.zeros(64, np.float32), np.zeros(64)), 0


def case_python_int_semantics():
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            x = a[i]
            y = b[i]
            if y == 0:
                y = 7
            out[i, 0] = x // y
            out[i, 1] = x % y
            out[i, 2] = x * y - x
            out[i, 3] = (x << 2) >> 1
            out[i, 4] = x & y | (x ^ y)
            out[i, 5] = -x
            out[i, 6] = ~x
            out[i, 7] = abs(x) ** 2
            out[i, 8] = min(x, y, 3)
            out[i, 9] = max(x, y)

    a, b = ints(64), ints(64, seed=5)
    return k, 2, TPB, (a, b, np.zeros((64, 10), np.int64)), 0


def case_python_float_semantics():
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            x = a[i]
            y = b[i]
            out[i, 0] = x // y
            out[i, 1] = x % y
            out[i, 2] = x / y
            out[i, 3] = x ** 2
            out[i, 4] = abs(y) ** 0.5
            out[i, 5] = -x if x > y else y
            out[i, 6] = round(x)
            out[i, 7] = int(x)
            out[i, 8] = float(int(y * 3))

    return k, 2, TPB, (floats(64), floats(64, seed=2), np.zeros((64, 9))), 0


def case_int_true_division():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] / 3 + 7 // 2 + 2 ** 3

    return k, 1, TPB, (ints(32), np.zeros(32)), 0


def case_float32_stays_float32():
    @cuda.jit
    def k(a, out32, out64):
        i = cuda.grid(1)
        if i < a.size:
            x = a[i]
            out32[i] = x * x + x / x - math.sin(x)
            out64[i] = x * 1.1

    a = floats(32, np.float32)
    return k, 1, TPB, (a, np.zeros(32, np.float32), np.zeros(32)), 0


def case_math_functions():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            x = a[i]
            out[i, 0] = math.sin(x) + math.cos(x) + math.tan(x)
            out[i, 1] = math.exp(x / 10) + math.log(abs(x) + 1) + math.log10(abs(x) + 1)
            out[i, 2] = math.sqrt(abs(x)) + math.pow(abs(x), 1.5)
            out[i, 3] = math.floor(x) + math.ceil(x) + math.trunc(x)
            out[i, 4] = math.atan2(x, 2.0) + math.hypot(x, 3.0) + math.fabs(x)
            out[i, 5] = math.tanh(x) + math.asinh(x) + math.erf(x / 5)
            out[i, 6] = math.copysign(2.0, x) + math.fmod(x, 3.0)
            out[i, 7] = math.pi * math.e
            out[i, 8] = 1.0 if math.isnan(x) or math.isinf(x) else 0.0

    return k, 2, TPB, (floats(64), np.zeros((64, 9))), 0


def case_control_flow():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i >= a.size:
            return
        n = a[i]
        total = 0
        j = 0
        while True:
            j += 1
            if j % 3 == 0:
                continue
            if j > n:
                break
            total += j
        for m in range(10, 0, -3):
            total += m
        for m in range(n):
            if m == 5:
                break
            total -= 1
        if 0 < n < 10:
            total += 1000
        elif n == 10 or n == 11:
            total += 2000
        else:
            total += 3000
        out[i] = total

    return k, 1, TPB, (np.arange(-2, 30, dtype=np.int64), np.zeros(32, np.int64)), 0


def case_and_or_values():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            x = a[i]
            out[i, 0] = x and 5
            out[i, 1] = x or 7
            out[i, 2] = not x
            out[i, 3] = (x > 2) and (x < 8)
            out[i, 4] = 1 if x else 2

    return k, 1, TPB, (np.arange(-5, 27, dtype=np.int64), np.zeros((32, 5), np.int64)), 0


def case_device_functions():
    @cuda.jit(device=True)
    def divmod_pair(x, y):
        return x // y, x % y

    @cuda.jit(device=True)
    def scale(v, f):
        return v * f

    @cuda.jit
    def k(a, out, outf):
        i = cuda.grid(1)
        if i < a.size:
            q, r = divmod_pair(a[i], 4)
            out[i, 0] = q
            out[i, 1] = r
            out[i, 2] = scale(a[i], 3)
            outf[i] = scale(a[i], 0.5)

    return k, 1, TPB, (ints(32), np.zeros((32, 3), np.int64), np.zeros(32)), 0


def case_grid_2d_3d():
    @cuda.jit
    def k(out):
        x, y, z = cuda.grid(3)
        if x < out.shape[0] and y < out.shape[1] and z < out.shape[2]:
            out[x, y, z] = (x * 100 + y * 10 + z + cuda.threadIdx.z * 1000 + cuda.blockIdx.y
                            * 10000 + cuda.gridDim.x * 100000 + cuda.blockDim.y * 1000000)

    return k, (2, 2, 2), (4, 3, 2), (np.zeros((7, 5, 3), np.int64),), 0


def case_gridsize_stride_loop():
    @cuda.jit
    def k(a, out):
        start = cuda.grid(1)
        step = cuda.gridsize(1)
        for i in range(start, a.shape[0], step):
            out[i] = a[i] * 2

    return k, 3, 16, (floats(1000), np.zeros(1000)), 0


def case_strided_views():
    @cuda.jit
    def k(a, out):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            out[i, j] = a[i, j] + a.shape[1] * 100

    base = np.arange(20 * 30, dtype=np.float64).reshape(20, 30)
    view = cuda.to_device(base)[::2, 3::3]  # a non-contiguous device view (hosts must be contiguous)
    return k, (2, 2), (8, 8), (view, np.zeros((10, 9))), 0


def case_fortran_order():
    @cuda.jit
    def k(a, out):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            out[i, j] = a[i, j] * 10 + i - j

    a = np.asfortranarray(np.arange(12 * 7, dtype=np.int32).reshape(12, 7))
    return k, (1, 1), (16, 8), (a, np.zeros((12, 7), np.int32)), 0


def case_negative_indices():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[-1 - i] + a[-a.size]

    return k, 1, TPB, (np.arange(32, dtype=np.float32), np.zeros(32, np.float32)), 0


def case_shared_memory_reverse():
    @cuda.jit
    def k(a, out):
        buf = cuda.shared.array(TPB, dtype=np.float64)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        buf[t] = a[i]
        cuda.syncthreads()
        out[i] = buf[TPB - 1 - t]

    return k, 4, TPB, (floats(4 * TPB), np.zeros(4 * TPB)), 0


def case_shared_2d_and_dynamic():
    @cuda.jit
    def k(a, out):
        tile = cuda.shared.array((8, 8), dtype=np.int32)
        dyn = cuda.shared.array(0, dtype=int32)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        tile[ty, tx] = a[ty, tx]
        dyn[ty * 8 + tx] = a[ty, tx] * 2
        cuda.syncthreads()
        out[ty, tx] = tile[tx, ty] + dyn[63 - (ty * 8 + tx)]

    a = np.arange(64, dtype=np.int32).reshape(8, 8)
    return k, 1, (8, 8), (a, np.zeros((8, 8), np.int32)), 64 * 4


def case_block_reduction():
    @cuda.jit
    def k(a, partial):
        s = cuda.shared.array(64, dtype=np.float32)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        s[t] = a[i] if i < a.size else 0
        cuda.syncthreads()
        step = 32
        while step > 0:
            if t < step:
                s[t] += s[t + step]
            cuda.syncthreads()
            step //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = s[0]

    a = np.arange(1000, dtype=np.float32) % 17
    return k, 16, 64, (a, np.zeros(16, np.float32)), 0


def case_atomics_int():
    @cuda.jit
    def k(vals, out):
        i = cuda.grid(1)
        if i < vals.size:
            v = vals[i]
            cuda.atomic.add(out, 0, v)
            cuda.atomic.sub(out, 1, v)
            cuda.atomic.max(out, 2, v)
            cuda.atomic.min(out, 3, v)
            cuda.atomic.and_(out, 4, v | 0xF0)
            cuda.atomic.or_(out, 5, v & 0x0F)
            cuda.atomic.xor(out, 6, v)
            cuda.atomic.add(out, (7,), 1)

    vals = np.arange(1, 257, dtype=np.int32)
    out = np.array([0, 0, -1000, 1000, -1, 0, 0, 0], dtype=np.int32)
    return k, 8, 32, (vals, out), 0


def case_atomics_float():
    @cuda.jit
    def k(vals, out):
        i = cuda.grid(1)
        if i < vals.size:
            cuda.atomic.add(out, 0, 0.5)
            cuda.atomic.max(out, 1, vals[i])
            cuda.atomic.min(out, 2, vals[i])

    vals = floats(200)
    return k, 7, 32, (vals, np.array([0.0, -1e9, 1e9])), 0


def case_atomic_inc_dec_cas_exch():
    @cuda.jit
    def k(counters, flag, olds):
        i = cuda.grid(1)
        if i < olds.shape[0]:
            cuda.atomic.inc(counters, 0, np.uint32(1000))
            cuda.atomic.dec(counters, 1, np.uint32(1000))
            olds[i] = cuda.atomic.compare_and_swap(flag, 0, 1)
            cuda.atomic.exch(counters, 2, np.uint32(42))

    counters = np.array([5, 5, 0], dtype=np.uint32)
    return k, 2, 50, (counters, np.zeros(1, np.uint32), np.zeros(100, np.uint32)), 0


def case_atomic_returns_old():
    @cuda.jit
    def k(counter, slots):
        i = cuda.grid(1)
        if i < slots.size:
            slot = cuda.atomic.add(counter, 0, 1)
            slots[slot] = 1

    return k, 4, 32, (np.zeros(1, np.int64), np.zeros(128, np.int64)), 0


def case_bit_intrinsics():
    # Non-negative 32-bit values: Numba's simulator formats them as 32-bit strings.
    @cuda.jit
    def k(a, au, out, outu):
        i = cuda.grid(1)
        if i < a.size:
            out[i, 0] = cuda.popc(a[i])
            out[i, 1] = cuda.clz(a[i])
            out[i, 2] = cuda.ffs(a[i])
            outu[i, 0] = cuda.popc(au[i])
            outu[i, 1] = cuda.clz(au[i])
            outu[i, 2] = cuda.ffs(au[i])
            outu[i, 3] = cuda.brev(au[i])

    a = ints(40, 0, 2 ** 31 - 1, np.int32, seed=11)
    a[:4] = [0, 1, 2 ** 30, 2 ** 31 - 1]
    au = ints(40, 0, 2 ** 32 - 1, np.uint32, seed=12)
    au[:3] = [0, 1, 2 ** 32 - 1]
    return k, 2, TPB, (a, au, np.zeros((40, 3), np.int32), np.zeros((40, 4), np.uint32)), 0


def case_fma_cbrt_selp():
    @cuda.jit
    def k(a, b, c, out, out32):
        i = cuda.grid(1)
        if i < a.size:
            out[i, 0] = cuda.fma(a[i], b[i], c[i])
            out[i, 1] = cuda.cbrt(abs(a[i]))
            out[i, 2] = cuda.selp(a[i] > b[i], a[i], b[i])
            x = np.float32(a[i])
            out32[i, 0] = cuda.fma(x, x, np.float32(1))
            out32[i, 1] = cuda.cbrt(abs(x))
            out32[i, 2] = cuda.selp(i % 3 == 0, x, np.float32(-1))

    return k, 2, TPB, (floats(50), floats(50, seed=2), floats(50, seed=3), np.zeros((50, 3)),
                       np.zeros((50, 3), np.float32)), 0


def case_syncthreads_count_and_or():
    @cuda.jit
    def k(a, out):
        t = cuda.threadIdx.x
        v = a[cuda.blockIdx.x, t]
        out[cuda.blockIdx.x, t, 0] = cuda.syncthreads_count(v > 0)
        out[cuda.blockIdx.x, t, 1] = cuda.syncthreads_and(v > -40)
        out[cuda.blockIdx.x, t, 2] = cuda.syncthreads_or(v > 45)

    a = ints(3 * 64, seed=4).reshape(3, 64)
    a[2] = 1
    return k, 3, 64, (a, np.zeros((3, 64, 3), np.int32)), 0


def case_atomic_nanmax_nanmin():
    @cuda.jit
    def k(vals, out, ivals, iout):
        i = cuda.grid(1)
        if i < vals.size:
            cuda.atomic.nanmax(out, 0, vals[i])
            cuda.atomic.nanmin(out, 1, vals[i])
            cuda.atomic.nanmax(iout, 0, ivals[i])
            cuda.atomic.nanmin(iout, 1, ivals[i])

    vals = floats(100)
    vals[::7] = np.nan
    out = np.array([np.nan, np.nan])
    return k, 4, 32, (vals, out, ints(100, dtype=np.int32), np.zeros(2, np.int32)), 0


def case_atomic_max_min_with_nan():
    @cuda.jit
    def k(vals, out, nan_out):
        i = cuda.grid(1)
        if i < vals.size:
            cuda.atomic.max(out, 0, vals[i])  # a NaN value leaves the location as it is
            cuda.atomic.min(out, 1, vals[i])
            cuda.atomic.max(nan_out, 0, vals[i])  # a NaN location stays NaN
            cuda.atomic.min(nan_out, 1, vals[i])

    vals = floats(100)
    vals[::5] = np.nan
    return k, 4, 32, (vals, np.array([-100.0, 100.0]), np.array([np.nan, np.nan])), 0


def case_local_array():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            tmp = cuda.local.array(8, dtype=np.float64)
            for j in range(8):
                tmp[j] = a[i] * j
            acc = 0.0
            for j in range(7, -1, -1):
                acc = acc * 0.5 + tmp[j]
            out[i] = acc

    return k, 1, TPB, (floats(32), np.zeros(32)), 0


def case_const_array():
    @cuda.jit
    def k(out):
        table = cuda.const.array_like(CONST_TABLE)
        i = cuda.grid(1)
        if i < out.size:
            out[i] = table[i % 4] * i + CONST_TABLE[(i + 1) % 4]

    return k, 1, TPB, (np.zeros(32),), 0


def case_scalar_args():
    @cuda.jit
    def k(out, n, scale, flag):
        i = cuda.grid(1)
        if i < n:
            out[i] = i * scale if flag else -1.0

    return k, 1, TPB, (np.zeros(32), 20, 0.25, True), 0


def case_small_int_dtypes():
    @cuda.jit
    def k(a8, au16, out32, outu8):
        i = cuda.grid(1)
        if i < a8.size:
            out32[i] = a8[i] * au16[i] + 100000
            outu8[i] = a8[i] + 250

    a8 = ints(32, -100, 100, np.int8)
    au16 = ints(32, 0, 60000, np.uint16)
    return k, 1, TPB, (a8, au16, np.zeros(32, np.int32), np.zeros(32, np.uint8)), 0


def case_bool_arrays():
    @cuda.jit
    def k(a, mask, out):
        i = cuda.grid(1)
        if i < a.size:
            mask[i] = a[i] > 0
            out[i] = mask[i] + 1

    return k, 1, TPB, (floats(32), np.zeros(32, np.bool_), np.zeros(32, np.int64)), 0


def case_numpy_scalar_constructors():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            x = np.float32(a[i]) * np.float32(2)
            out[i, 0] = x
            out[i, 1] = np.int32(a[i] * 3.7)
            out[i, 2] = np.uint8(7) + np.int16(-3)

    return k, 1, TPB, (floats(32), np.zeros((32, 3))), 0


def case_shape_tuple_unpack():
    @cuda.jit
    def k(a, out):
        rows, cols = a.shape
        i = cuda.grid(1)
        if i < rows:
            s = 0.0
            for j in range(cols):
                s += a[i, j]
            out[i] = s + a.ndim + len(a) * 1000 + a.size * 100000

    return k, 1, TPB, (floats(12 * 5).reshape(12, 5), np.zeros(12)), 0


def case_syncthreads_in_loop_with_early_exit():
    @cuda.jit
    def k(a, out):
        buf = cuda.shared.array(64, dtype=np.int64)
        t = cuda.threadIdx.x
        for it in range(3):
            buf[t] = a[t] + it
            cuda.syncthreads()
            out[it, t] = buf[(t + 1) % 64]
            cuda.syncthreads()
        if t >= 32:
            return
        out[3, t] = t

    return k, 1, 64, (np.arange(64, dtype=np.int64), np.zeros((4, 64), np.int64)), 0


@cuda.jit(device=True)
def _view_sum(v):
    s = 0.0
    for x in v:
        s += x
    return s


def case_array_views_and_slices():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            row = a[i]
            out[i, 0] = row[1] + row[-1]
            col = a[:, i % a.shape[1]]
            out[i, 1] = col[i] * len(col)
            rev = a[i, ::-1]
            out[i, 2] = rev[0] * 100 + rev.size
            odd = a[i, 1::2]
            out[i, 3] = odd[odd.shape[0] - 1] + odd.size
            clamped = a[i, 3:100]
            out[i, 4] = clamped.size * 1000 + a[i, -100:2].size * 10 + a[i, 5:2].size
            back = a[i, -2::-3]
            out[i, 5] = back[back.size - 1] + back.size
            sub = a[i:, 1:3]
            out[i, 6] = sub.shape[0] * 10 + sub.shape[1] + sub[0, 1]
            out[i, 7] = _view_sum(a[i, ::2]) + _view_sum(a[:i, 0])
            stepped = a[::-2, ::3]
            out[i, 8] = stepped[0, 1] + stepped.shape[0] * 10 + stepped.shape[1]
            out[i, 9] = a[i][2:][0] + a[i, :][3]

    a = floats(12 * 7, seed=4).reshape(12, 7)
    return k, 1, 16, (a, np.zeros((12, 10))), 0


def case_stores_through_views():
    @cuda.jit
    def k(a, b):
        i = cuda.grid(1)
        if i < a.shape[0]:
            row = a[i]
            row[0] = i
            a[i, 1:4] = i * 10
            a[i, ::-3] = -1.5
            tail = row[4:]
            for j in range(tail.size):
                tail[j] = -j
            b[i, :] = row[2]

    a = np.zeros((20, 8))
    return k, 1, 32, (a, np.zeros((20, 3))), 0


def case_views_of_shared_and_local_arrays():
    @cuda.jit
    def k(a, out):
        tid = cuda.threadIdx.x
        s = cuda.shared.array((4, 32), np.float64)
        for r in range(4):
            s[r, tid] = a[tid] * (r + 1)
        cuda.syncthreads()
        col = s[:, tid]
        loc = cuda.local.array((3, 4), np.float64)
        for r in range(3):
            loc[r, :] = r + tid
        lrow = loc[2]
        out[tid, 0] = _view_sum(col)
        out[tid, 1] = _view_sum(s[1, ::8])
        out[tid, 2] = lrow[3] + _view_sum(loc[:, 1])

    return k, 1, 32, (floats(32, seed=9), np.zeros((32, 3))), 0


def case_for_loops_over_iterables():
    @cuda.jit
    def k(a, m, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            s = 0.0
            for x in a[i]:
                s += x
            out[i, 0] = s
            n = 0
            for row in m:
                n += row[i % m.shape[1]]
            out[i, 1] = n
            e = 0.0
            for j, x in enumerate(a[i], i):
                e += j * x
            out[i, 2] = e
            z = 0.0
            for p, q, r in zip(range(i, 100, 3), a[i], a[i, ::-1]):
                z += p * q - r
            out[i, 3] = z
            t = 0
            for v in (3, 5, i + 1, 7):
                t = t * 2 + v
            out[i, 4] = t
            w = 0
            for j, v in enumerate((i + 0, 2 * i, 3 * i)):
                w += j * v
            out[i, 5] = w
            u = 0
            for c in range(10, 0, -3):
                u = u * 3 + c
            for c, d in zip(range(0, -10, -4), range(5)):
                u += c * d
            out[i, 6] = u

    a = floats(10 * 6, seed=2).reshape(10, 6)
    m = ints(4 * 10, seed=3).reshape(4, 10)
    return k, 1, 16, (a, m, np.zeros((10, 7))), 0


def case_loop_else_clauses():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            found = -1
            for j in range(a.size):
                if a[j] == i:
                    found = j
                    break
            else:
                found = 1000
            out[i, 0] = found
            for x in a:
                if x == 2 * i:
                    out[i, 1] = 1
                    break
            else:
                out[i, 1] = -1
            n = i
            while n > 1:
                if n % 7 == 0:
                    break
                n = n // 2
            else:
                n = n + 500
            out[i, 2] = n
            for x in a[:0]:
                out[i, 3] = 5
            else:
                out[i, 3] += 11

    a = ints(24, 0, 30, seed=8)
    return k, 1, 32, (a, np.zeros((24, 4), np.int64)), 0


def case_tuple_indexing_and_comparison():
    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            t = (10, 20, 30, 40)
            out[i, 0] = t[i % 4] + t[-1 - i % 4]
            out[i, 1] = len(t)
            out[i, 2] = (i, 2) == (i, 2)
            out[i, 3] = (i, 2) == (3, 2)
            out[i, 4] = (i, 1) != (i, 1, 2)
            out[i, 5] = i in (1, 3, 5)
            out[i, 6] = i not in (2, 4)

    return k, 1, 8, (np.zeros((8, 7), np.int64),), 0
def case_record_fields():
    dtype = np.dtype([("a", np.int32), ("b", np.float64), ("c", np.uint8)], align=True)

    @cuda.jit
    def k(recs, out):
        i = cuda.grid(1)
        if i < recs.size:
            out[i] = recs[i]['a'] * recs[i]['b']
            recs[i]['c'] = i
            recs[i]['a'] += 7
            rec = recs[i]
            rec['b'] = rec['b'] - 1.5

    recs = np.zeros(40, dtype)
    recs["a"] = ints(40, dtype=np.int32)
    recs["b"] = floats(40)
    recs["c"] = 9
    return k, 2, TPB, (recs, np.zeros(40)), 0


def case_grid_sync_sequential_rows():
    # Numba's documentation example of grid sync. Numba's simulator runs cooperative grids of one
    # block only (its max_cooperative_grid_blocks is 1).
    @cuda.jit
    def k(M):
        col = cuda.grid(1)
        g = cuda.cg.this_grid()
        rows = M.shape[0]
        cols = M.shape[1]
        for row in range(1, rows):
            opposite = cols - col - 1
            M[row, col] = M[row - 1, opposite] + 1
            g.sync()

    M = np.zeros((16, TPB), np.int64)
    M[0] = ints(TPB)
    return k, 1, TPB, (M,), 0


def complexes(n, dtype=np.complex128, seed=2):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-3, 3, n) + 1j * rng.uniform(-3, 3, n)).astype(dtype)


def complex_kernel():
    @cuda.jit
    def k(a, b, s, out, flags):
        i = cuda.grid(1)
        if i < a.size:
            x = a[i]
            y = b[i]
            out[i, 0] = x * y - s
            out[i, 1] = x / y + 2.5j
            out[i, 2] = x ** y
            out[i, 3] = x ** 2
            out[i, 4] = abs(x) + x.real - x.imag * 1j + x.conjugate()
            out[i, 5] = cmath.sqrt(x) + cmath.exp(y) + cmath.log(x) + cmath.log10(y)
            out[i, 6] = cmath.sin(x) + cmath.cos(y) + cmath.tan(x) + cmath.sinh(y)
            out[i, 7] = cmath.cosh(x) + cmath.tanh(y) + cmath.asin(x) + cmath.acos(y)
            out[i, 8] = cmath.atan(x) + cmath.asinh(y) + cmath.acosh(x) + cmath.atanh(y)
            out[i, 9] = cmath.rect(x.real, y.imag) + cmath.phase(x) + cmath.polar(y)[0]
            out[i, 10] = complex(x.imag, y.real) - (-x) + cmath.log(x, y)
            flags[i, 0] = x == y
            flags[i, 1] = x != x
            flags[i, 2] = cmath.isfinite(x)
            flags[i, 3] = cmath.isnan(x * 0.0) or cmath.isinf(y)
            flags[i, 4] = bool(x - x)

    return k


def case_complex128_arithmetic_and_cmath():
    a, b = complexes(40), complexes(40, seed=3)
    b[0] = a[0]
    return (complex_kernel(), 2, TPB,
            (a, b, 0.5 - 1.25j, np.zeros((40, 11), np.complex128), np.zeros((40, 5), np.bool_)),
            0)


def case_complex64_arithmetic_and_cmath():
    a, b = complexes(40, np.complex64), complexes(40, np.complex64, seed=3)
    return (complex_kernel(), 2, TPB,
            (a, b, np.complex64(0.5 - 1.25j), np.zeros((40, 11), np.complex64),
             np.zeros((40, 5), np.bool_)), 0)


def case_complex_arrays_2d_shared_and_local():
    @cuda.jit
    def k(a, out):
        tile = cuda.shared.array(32, np.complex64)
        acc = cuda.local.array(2, np.complex128)
        i, j = cuda.grid(2)
        t = cuda.threadIdx.y
        tile[t] = a[i, j] * np.complex64(2)
        cuda.syncthreads()
        acc[0] = tile[31 - t]
        acc[1] = np.complex128(a[i, j].real)
        out[i, j] = acc[0] + acc[1] + 1.5 * a[i, j]

    a = complexes(64, np.complex64).reshape(2, 32)
    return k, (2, 1), (1, 32), (a, np.zeros((2, 32), np.complex128)), 0


def case_tuple_kernel_arguments():
    @cuda.jit
    def k(out, pair, nested, arrays, n):
        i = cuda.grid(1)
        x, y = arrays
        if i < x.size:
            x[i] = y[i] * pair[1] + pair[0] + n
        if i == 0:
            out[0] = pair[0] + pair[1]
            out[1] = nested[0][0] * nested[0][1] + nested[1][1]
            out[2] = len(nested) + len(nested[0])
            out[3] = 1.0 if nested[2] else -1.0

    x, y = np.zeros(40), floats(40)
    return k, 2, TPB, (np.zeros(4), (3, 2.5), ((2, 5), (1.5, 4.0), True), (x, y), 7), 0


def case_record_kernel_argument():
    dtype = np.dtype([("x", np.int32), ("y", np.float64)])

    @cuda.jit
    def k(rec, recs, out):
        # Only reads: Numba's simulator does not write a record argument back (Numba does).
        out[0] = rec.x + rec["y"] + recs[0].x
        recs[2].y = rec.y * 2

    recs = np.zeros(3, dtype)
    recs[1] = (5, 1.25)
    return k, 1, 1, (recs[1], recs, np.zeros(1)), 0


def case_ellipsis_indexing_and_tuple_slice_stores():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            row = a[i, ...]
            out[i, 0] = row[1] + a[..., 2][i]
            a[i, ..., 0] = -1.0
            out[i, 1:4] = (2 * i, 3 * i, 4 * i)
        if i == 0:
            out[a.shape[0] - 1, ...] = 9.0

    return k, 1, TPB, (floats(24).reshape(6, 4), np.zeros((6, 4))), 0


def case_float16_functions_and_arrays():
    # operations that round once either way: the simulator computes on NumPy float16 scalars
    @cuda.jit
    def k(a, b, out, flags):
        i = cuda.grid(1)
        tile = cuda.shared.array(32, np.float16)
        acc = cuda.local.array(2, np.float16)
        t = cuda.threadIdx.x
        tile[t] = a[i]
        cuda.syncthreads()
        x = tile[31 - t]
        y = b[i]
        acc[0] = cuda.fp16.hadd(x, y)
        acc[1] = cuda.fp16.hmul(x, y)
        out[i, 0] = acc[0]
        out[i, 1] = acc[1]
        out[i, 2] = cuda.fp16.hsub(x, y)
        out[i, 3] = cuda.fp16.hneg(x)
        out[i, 4] = cuda.fp16.habs(y)
        out[i, 5] = cuda.fp16.hmax(x, y)
        out[i, 6] = cuda.fp16.hmin(x, y)
        out[i, 7] = x + y
        out[i, 8] = cuda.fp16.hfma(np.float16(3), np.float16(i), np.float16(-2))
        flags[i, 0] = cuda.fp16.heq(x, y)
        flags[i, 1] = cuda.fp16.hne(x, y)
        flags[i, 2] = cuda.fp16.hlt(x, y)
        flags[i, 3] = cuda.fp16.hle(x, y)
        flags[i, 4] = cuda.fp16.hgt(x, y)
        flags[i, 5] = cuda.fp16.hge(x, y)
        flags[i, 6] = x < y

    a, b = floats(64, np.float16), floats(64, np.float16, seed=3)
    b[::5] = a[::5]
    return k, 2, TPB, (a, b, np.zeros((64, 9), np.float16), np.zeros((64, 7), np.bool_)), 0


def case_vector_types():
    # values exact in float32: the simulator keeps Python numbers in its vectors
    @cuda.jit(device=True)
    def swizzle(v):
        return cuda.float32x3(v.z, v.x, v.y)

    @cuda.jit
    def k(out, iout):
        i = cuda.grid(1)
        v = swizzle(cuda.float3(i, 0.5, -2))
        w = cuda.float4(cuda.float2(v.x, v.y), v.z, 8)
        out[i, 0] = w.x
        out[i, 1] = w.y
        out[i, 2] = w.z
        out[i, 3] = w.w
        n = cuda.int32x3(cuda.int2(i, -i), cuda.int1(7))
        iout[i, 0] = n.x + n.y * 2 + n.z

    return k, 2, TPB, (np.zeros((64, 4), np.float32), np.zeros((64, 1), np.int64)), 0


def case_round_negative_digits():
    # found by the fuzzer: `-1` parses as a unary minus, which round() did not take as a constant
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i, 0] = round(a[i] * 37.0, -1)
            out[i, 1] = round(a[i] * 370.0, -2)
            out[i, 2] = round(a[i], 2)

    return k, 1, TPB, (floats(32), np.zeros((32, 3))), 0


def case_operator_functions_lambdas_and_local_shapes():
    import operator
    add, mul, div, floordiv, lt = (operator.add, operator.mul, operator.truediv,
                                   operator.floordiv, operator.lt)
    twice = cuda.jit(device=True)(lambda x: x * 2)

    @cuda.jit
    def k(a, b, out):
        n = TPB
        sm = cuda.shared.array(n, np.float64)
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        sm[t] = twice(a[i])
        cuda.syncthreads()
        out[i, 0] = add(sm[n - 1 - t], b[i])
        out[i, 1] = mul(a[i], b[i])
        out[i, 2] = div(a[i], b[i])
        out[i, 3] = floordiv(a[i], b[i])
        out[i, 4] = lt(a[i], b[i])
        out[i, 5] = operator.neg(a[i])

    return k, 2, TPB, (floats(2 * TPB), floats(2 * TPB, seed=4), np.zeros((2 * TPB, 6))), 0


def case_divmod():
    @cuda.jit
    def k(a, b, q, r, fq, fr):
        i = cuda.grid(1)
        if i < a.size:
            q[i], r[i] = divmod(a[i], b[i])
            fq[i], fr[i] = divmod(a[i] * 0.5, -2.5)

    a = np.arange(-16, 16, dtype=np.int64)
    b = np.array([3, -3, 7, -1] * 8, dtype=np.int64)
    return (k, 1, TPB, (a, b, np.zeros(32, np.int64), np.zeros(32, np.int64), np.zeros(32),
                        np.zeros(32)), 0)



def case_power_literals_and_mixed_types():
    # CPython folds operators on int literals before Numba sees them: 2 ** -1 is the float 0.5.
    # Operands from arrays keep Numba's typing (int ** int is an int, float ** int a float).
    @cuda.jit
    def k(a, f, f32, e, out, out32):
        i = cuda.grid(1)
        if i < a.size:
            out[i, 0] = 2 ** -1 + (1 + 1) ** -2 + -2 ** -2 + (-3) ** -3
            out[i, 1] = 2 ** 62 * 4 // 8 + (7 ** 2) ** 2 % 1000 - (1 << 62) // 2 ** 61
            out[i, 2] = a[i] ** 2 + a[i] ** e[i] + a[i] ** 0
            out[i, 3] = f[i] ** -1 + f[i] ** -2 + f[i] ** e[i] + f[i] ** 0.5
            out32[i] = f32[i] ** 2 + f32[i] ** -1 + f32[i] ** f32[i] + f32[i] ** e[i]
            out[i, 4] = a[i] ** 0.5 + 2 ** f[i] + 2.0 ** -1 + 10 ** -3
            out[i, 5] = pow(f[i], -2) + pow(a[i], 3) + 3 ** 2 ** 2

    n = 32
    a = ints(n, 1, 9)
    f = floats(n, lo=0.5, hi=4.0)
    f32 = floats(n, np.float32, seed=4, lo=0.5, hi=4.0)
    e = ints(n, 0, 6, seed=6)
    return k, 1, TPB, (a, f, f32, e, np.zeros((n, 6)), np.zeros(n, np.float32)), 0

def case_array_reductions_tuples_and_closures():
    # Numba's array.sum/prod/min/max/mean and NumPy's functions of arrays, a.T, tuple order,
    # slicing, concatenation and repetition, lambdas and nested defs inlined, generic min/max.
    @cuda.jit
    def k(a, m, u8, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            row = m[i % m.shape[0]]
            square = lambda v: v * v  # noqa: E731

            def shifted(v, by=1.0):
                return v + by

            out[i, 0] = row.sum() + row.prod() + row.min() * 10 + row.max() * 100
            out[i, 1] = np.sum(m[:, i % m.shape[1]]) + np.amax(m) + m.mean()
            out[i, 2] = m.T[i % m.shape[1], 0] + square(a[i]) + shifted(a[i], by=2.0)
            t = (a[i], 2.0) + (3.0,) * 2
            out[i, 3] = len(t) * 10 + t[1:][0] + t[::-1][0] + ((a[i], 1.0) < (a[i], 2.0))
            out[i, 4] = min(a[i], 1) + max(a[i], 2.0, m[0, 0])
            out[i, 5] = a[i] ** 3 + a[i] ** -2 + u8[0:4].mean()

    n = 32
    a = floats(n, lo=0.5, hi=3.0)
    m = floats(12, seed=3, lo=-2.0, hi=2.0).reshape(3, 4)
    u8 = ints(n, 0, 255, dtype=np.uint8)
    return k, 1, TPB, (a, m, u8, np.zeros((n, 6))), 0


CASES = {name[5:]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}


def run_case(name):
    """Runs one case; returns its array arguments after the launch."""
    kernel, griddim, blockdim, args, shared = CASES[name]()
    if shared:
        kernel[griddim, blockdim, 0, shared](*args)
    else:
        kernel[griddim, blockdim](*args)
    return [np.array(a) for a in args if isinstance(a, np.ndarray)]


if __name__ == "__main__":
    results = {}
    for case in CASES:
        try:
            for k, arr in enumerate(run_case(case)):
                results["%s/%d" % (case, k)] = arr
        except Exception as e:  # recorded, so one failing case does not hide the others
            results["%s/error" % case] = np.array("%s: %s" % (type(e).__name__, e))
    np.savez(sys.argv[1], **results)
