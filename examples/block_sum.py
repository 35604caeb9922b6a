"""A shared-memory block-sum reduction (the pattern of the seed talk's sumReduction device function,
written with cuda.syncthreads over a thread block), then an atomic add of each block's sum."""
import numpy as np
from numba import cuda, float64

TPB = 128


@cuda.jit(device=True)
def block_reduce(x, val):
    lane = cuda.threadIdx.x
    i = TPB // 2
    while i > 0:
        x[lane] = val
        cuda.syncthreads()
        if lane < i:
            val += x[lane + i]
        cuda.syncthreads()
        i //= 2
    if lane == 0:
        return val
    else:
        return -1.0


@cuda.jit
def sum_kernel(values, total):
    workspace = cuda.shared.array(TPB, dtype=float64)
    i = cuda.grid(1)
    val = values[i] if i < values.size else 0.0
    s = block_reduce(workspace, val)
    if cuda.threadIdx.x == 0:
        cuda.atomic.add(total, 0, s)


def main():
    values = np.arange(1234, dtype=np.float64) + 1
    total = np.zeros(1)
    sum_kernel[(values.size + TPB - 1) // TPB, TPB](values, total)
    assert total[0] == values.sum(), (total[0], values.sum())
    print("block reduction of 1..1234:", total[0])


if __name__ == "__main__":
    main()
