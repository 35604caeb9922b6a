"""Grid-wide synchronisation with cooperative groups: `cuda.cg.this_grid().sync()`.

A kernel that calls `g.sync()` is launched cooperatively: every block stays resident, and the
barrier waits for every thread of the grid, so a thread can read what threads of other blocks
wrote before it. Here one launch runs a whole iterative computation: rounds of a 1D heat
diffusion over two buffers (each round reads the neighbours the previous round wrote, across block
boundaries), then a grid-wide sum of the result. Such a grid may have at most
`max_cooperative_grid_blocks(blockdim)` blocks."""
import numpy as np
from numba import cuda

TPB = 64
BLOCKS = 8
ROUNDS = 50
ALPHA = 0.25


@cuda.jit
def diffuse_and_sum(u, v, work, total):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = u.size
    for step in range(ROUNDS):
        src, dst = (u, v) if step % 2 == 0 else (v, u)
        left = src[i - 1] if i > 0 else src[i]
        right = src[i + 1] if i < n - 1 else src[i]
        dst[i] = src[i] + ALPHA * (left - 2 * src[i] + right)
        g.sync()
    # A grid-wide tree reduction of the result, one level per grid sync.
    work[i] = u[i] if ROUNDS % 2 == 0 else v[i]
    g.sync()
    width = n
    while width > 1:
        half = (width + 1) // 2
        if i < width - half:
            work[i] += work[i + half]
        g.sync()
        width = half
    if i == 0:
        total[0] = work[0]


def reference(u0):
    u = u0.copy()
    for _ in range(ROUNDS):
        left = np.concatenate(([u[0]], u[:-1]))
        right = np.concatenate((u[1:], [u[-1]]))
        u = u + ALPHA * (left - 2 * u + right)
    return u


def main():
    n = BLOCKS * TPB
    u0 = np.zeros(n)
    u0[n // 2 - 8:n // 2 + 8] = 100.0  # a hot spot straddling two blocks
    u, v, work, total = u0.copy(), np.zeros(n), np.zeros(n), np.zeros(1)
    diffuse_and_sum[BLOCKS, TPB](u, v, work, total)
    result = u if ROUNDS % 2 == 0 else v
    expected = reference(u0)
    np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-12)
    # Heat is conserved (the ends reflect), so the sum is the initial one.
    np.testing.assert_allclose(total[0], expected.sum(), rtol=1e-12)
    np.testing.assert_allclose(total[0], u0.sum(), rtol=1e-12)
    kernel = next(iter(diffuse_and_sum.overloads.values()))
    print("blocks: %d of at most %d resident (max_cooperative_grid_blocks(%d))"
          % (BLOCKS, kernel.max_cooperative_grid_blocks(TPB), TPB))
    print("peak after %d rounds: %.6f (NumPy: %.6f)" % (ROUNDS, result.max(), expected.max()))
    print("total heat: %.6f (initial: %.6f)" % (total[0], u0.sum()))


if __name__ == "__main__":
    main()
