"""The lock of block_lock.py given back without the fence: the critical sections' writes are
not ordered before the next thread's reads (a GPU may let them be seen late): hazards between
the lanes of its one warp."""
import numpy as np
from numba import cuda


@cuda.jit
def locked_sum(values, total, lock):
    i = cuda.grid(1)
    while cuda.atomic.compare_and_swap(lock, 0, 1) != 0:
        pass
    total[0] += values[i]
    cuda.atomic.exch(lock, 0, 0)


values = np.arange(32, dtype=np.float64)
total = np.zeros(1)
lock = np.zeros(1, dtype=np.int32)
locked_sum[1, 32](values, total, lock)
assert total[0] == values.sum()
