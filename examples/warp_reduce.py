"""A warp-shuffle reduction: each warp sums its 32 values with cuda.shfl_down_sync (no shared
memory, no syncthreads), lane 0 of every warp adds the warp's sum to the total atomically."""
import numpy as np
from numba import cuda

TPB = 256


@cuda.jit(device=True)
def warp_sum(v):
    for offset in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xffffffff, v, offset)
    return v  # the warp's sum, in lane 0


@cuda.jit
def sum_kernel(values, total):
    i = cuda.grid(1)
    v = values[i] if i < values.size else 0.0
    v = warp_sum(v)
    if cuda.laneid == 0:
        cuda.atomic.add(total, 0, v)


def main():
    values = np.random.default_rng(42).random(100_000)
    total = np.zeros(1)
    blocks = (values.size + TPB - 1) // TPB
    sum_kernel[blocks, TPB](values, total)
    expect = values.sum()
    assert np.isclose(total[0], expect, rtol=1e-12), (total[0], expect)
    print("warp-shuffle sum of", values.size, "values:", total[0], "(NumPy:", expect, ")")


if __name__ == "__main__":
    main()
