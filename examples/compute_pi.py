"""Seed talks: Monte Carlo pi with Numba's own xoroshiro128+ generator (numba.cuda.random)."""
import math

import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32


@cuda.jit
def compute_pi(rng_states, iterations, out):
    """Find the maximum value in values and store in result[0]"""
    tid = cuda.grid(1)

    # Compute pi by drawing random (x, y) points and finding what
    # fraction lie inside a unit circle
    inside = 0
    for i in range(iterations):
        x = xoroshiro128p_uniform_float32(rng_states, tid)
        y = xoroshiro128p_uniform_float32(rng_states, tid)
        if x**2 + y**2 <= 1.0:
            inside += 1

    out[tid] = 4.0 * inside / iterations


def main():
    nblocks, nthreads = 16, 64
    state_size = nblocks * nthreads
    rng_states = create_xoroshiro128p_states(state_size, seed=1)
    out = np.zeros(state_size, dtype=np.float32)
    compute_pi[nblocks, nthreads](rng_states, 10000, out)
    pi = out.mean()
    print("pi:", pi)
    assert abs(pi - math.pi) < 0.01, pi


if __name__ == "__main__":
    main()
