"""numba.cuda.random on simt without Numba: the xoroshiro128+ generators, one state per thread,
as simt device functions. numba-cuda-mlir's numba_cuda_mlir.cuda.random is this module under the
import hook (its own builds its helpers for no compiler simt knows and its states on NVIDIA's
driver). The algorithm and names are Numba's (numba/cuda/random.py, BSD-2-Clause, after
http://xoroshiro.di.unimi.it/ by David Blackman and Sebastiano Vigna), so the same seed gives
the same numbers as on Numba's GPU target.

The casts everywhere keep NumPy's promotion (uint64 with int32 gives float64) out of the
integer arithmetic, as in Numba's module."""
import math

import numpy as np

from simt.compiler.dispatcher import jit
from simt.memory.devicearray import device_array
from simt.types import float32, float64, from_dtype, int64, uint32, uint64

__all__ = ["xoroshiro128p_dtype", "xoroshiro128p_type", "init_xoroshiro128p_state",
           "xoroshiro128p_next", "xoroshiro128p_jump", "xoroshiro128p_uniform_float32",
           "xoroshiro128p_uniform_float64", "xoroshiro128p_normal_float32",
           "xoroshiro128p_normal_float64", "init_xoroshiro128p_states",
           "create_xoroshiro128p_states"]

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)
xoroshiro128p_type = from_dtype(xoroshiro128p_dtype)

TWO_PI_FLOAT32 = np.float32(2 * math.pi)
TWO_PI_FLOAT64 = np.float64(2 * math.pi)


@jit(device=True)
def init_xoroshiro128p_state(states, index, seed):
    """Sets states[index] from a 64-bit seed through SplitMix64 (small seeds give no
    predictable start)."""
    index = int64(index)
    seed = uint64(seed)
    z = seed + uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> uint32(30))) * uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> uint32(27))) * uint64(0x94D049BB133111EB)
    z = z ^ (z >> uint32(31))
    states[index]["s0"] = z
    states[index]["s1"] = z


@jit(device=True)
def rotl(x, k):
    """x rotated left by k bits."""
    x = uint64(x)
    k = uint32(k)
    return (x << k) | (x >> uint32(64 - k))


@jit(device=True)
def xoroshiro128p_next(states, index):
    """The next uint64 of states[index], which advances."""
    index = int64(index)
    s0 = states[index]["s0"]
    s1 = states[index]["s1"]
    result = s0 + s1
    s1 ^= s0
    states[index]["s0"] = uint64(rotl(s0, uint32(55))) ^ s1 ^ (s1 << uint32(14))
    states[index]["s1"] = uint64(rotl(s1, uint32(36)))
    return result


@jit(device=True)
def xoroshiro128p_jump(states, index):
    """Advances states[index] by 2**64 steps."""
    index = int64(index)
    jump = (uint64(0xBEAC0467EBA5FACB), uint64(0xD86B048B86AA9922))
    s0 = uint64(0)
    s1 = uint64(0)
    for i in range(2):
        for b in range(64):
            if jump[i] & (uint64(1) << uint32(b)):
                s0 ^= states[index]["s0"]
                s1 ^= states[index]["s1"]
            xoroshiro128p_next(states, index)
    states[index]["s0"] = s0
    states[index]["s1"] = s1


@jit(device=True)
def uint64_to_unit_float64(x):
    """x as a float64 in [0.0, 1.0)."""
    x = uint64(x)
    return (x >> uint32(11)) * (float64(1) / (uint64(1) << uint32(53)))


@jit(device=True)
def uint64_to_unit_float32(x):
    """x as a float32 in [0.0, 1.0)."""
    x = uint64(x)
    return float32(uint64_to_unit_float64(x))


@jit(device=True)
def xoroshiro128p_uniform_float32(states, index):
    """A float32 in [0.0, 1.0); states[index] advances."""
    index = int64(index)
    return uint64_to_unit_float32(xoroshiro128p_next(states, index))


@jit(device=True)
def xoroshiro128p_uniform_float64(states, index):
    """A float64 in [0.0, 1.0); states[index] advances."""
    index = int64(index)
    return uint64_to_unit_float64(xoroshiro128p_next(states, index))


@jit(device=True)
def xoroshiro128p_normal_float32(states, index):
    """A float32 of the standard normal distribution (Box-Muller: two steps of
    states[index])."""
    index = int64(index)
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-float32(2.0) * math.log(u1)) * math.cos(TWO_PI_FLOAT32 * u2)


@jit(device=True)
def xoroshiro128p_normal_float64(states, index):
    """A float64 of the standard normal distribution (Box-Muller: two steps of
    states[index]; the uniform draws are float32, as in Numba)."""
    index = int64(index)
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-float64(2.0) * math.log(u1)) * math.cos(TWO_PI_FLOAT64 * u2)


@jit
def _init_states(states, seed, subsequence_start):
    """One thread: each state 2**64 steps after the one before it (sequential, as Numba's CPU
    initialisation; compiled here, where Python would take seconds per thousand states)."""
    n = states.shape[0]
    seed = uint64(seed)
    subsequence_start = uint64(subsequence_start)
    if n >= 1:
        init_xoroshiro128p_state(states, 0, seed)
        for _ in range(subsequence_start):
            xoroshiro128p_jump(states, 0)
        for i in range(1, n):
            states[i]["s0"] = states[i - 1]["s0"]
            states[i]["s1"] = states[i - 1]["s1"]
            xoroshiro128p_jump(states, i)


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Initialises the device array `states` (dtype xoroshiro128p_dtype) for independent
    generators: state i starts (subsequence_start + i) * 2**64 steps into seed's sequence."""
    _init_states[1, 1, stream](states, uint64(seed), uint64(subsequence_start))


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A new device array of n generator states, initialised as init_xoroshiro128p_states."""
    states = device_array(n, dtype=xoroshiro128p_dtype, stream=stream)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states
