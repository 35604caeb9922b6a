"""A lock in global memory that every thread of a block takes in turn: an atomic
compare-and-swap takes it, then the critical section, then a fence and an atomic exchange give
it back. The fence and the atomics order each critical section after the one before: no hazard
(threads of one warp and of different warps alike)."""
import numpy as np
from numba import cuda


@cuda.jit
def locked_sum(values, total, lock):
    i = cuda.grid(1)
    while cuda.atomic.compare_and_swap(lock, 0, 1) != 0:
        pass
    total[0] += values[i]
    cuda.threadfence()
    cuda.atomic.exch(lock, 0, 0)


values = np.arange(64, dtype=np.float64)
total = np.zeros(1)
lock = np.zeros(1, dtype=np.int32)
locked_sum[1, 64](values, total, lock)
assert total[0] == values.sum()
