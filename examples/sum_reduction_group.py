"""The seed talk's sumReduction device function, verbatim, over a thread block group.

`cuda.cg.this_thread_block()` is a simt extension (Numba has only `cuda.cg.this_grid()`): a group
whose `thread_rank` is the thread's linear index in the block, `size` the threads in the block,
and `sync()` a `cuda.syncthreads()`. Each block sums its slice of the values into `block_sums`."""
import numpy as np
from numba import cuda, float64

TPB = 128


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
def block_sums_kernel(values, block_sums):
    workspace = cuda.shared.array(TPB, dtype=float64)
    i = cuda.grid(1)
    value = values[i] if i < values.size else 0.0
    s = sumReduction(cuda.cg.this_thread_block(), workspace, value)
    if cuda.threadIdx.x == 0:
        block_sums[cuda.blockIdx.x] = s


def main():
    values = np.random.default_rng(0).uniform(-1.0, 1.0, 1000)
    blocks = (values.size + TPB - 1) // TPB
    block_sums = np.zeros(blocks)
    block_sums_kernel[blocks, TPB](values, block_sums)
    padded = np.zeros(blocks * TPB)
    padded[:values.size] = values
    expected = padded.reshape(blocks, TPB).sum(axis=1)
    np.testing.assert_allclose(block_sums, expected, rtol=1e-12, atol=1e-12)
    print("block sums:", np.round(block_sums, 6))
    print("total:", block_sums.sum(), "(NumPy: %s)" % values.sum())


if __name__ == "__main__":
    main()
