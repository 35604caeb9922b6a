"""A packed record whose float64 field sits at byte offset 1: a GPU cannot load it."""
import numpy as np
from numba import cuda

packed = np.dtype([("flag", np.uint8), ("value", np.float64)], align=False)


@cuda.jit
def double(records):
    i = cuda.grid(1)
    records[i].value *= 2


records = np.zeros(4, dtype=packed)
records["value"] = 1.5
double[1, 4](records)
assert (records["value"] == 3).all()
