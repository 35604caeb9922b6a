"""A global counter incremented with a plain read and write: every thread of every block races
on it."""
import numpy as np
from numba import cuda


@cuda.jit
def count(counter):
    counter[0] += 1


counter = np.zeros(1, dtype=np.int32)
count[4, 64](counter)
