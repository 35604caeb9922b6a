import numpy as np
from numba import vectorize


@vectorize(["float64(float64, float64)"], target="cuda")
def hyp(a, b):
    s = a * a + b * b
    return s ** 0.5


x = np.arange(4.0)
print(hyp(x, x))
