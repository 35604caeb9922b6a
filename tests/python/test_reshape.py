"""array.reshape() in kernels, as Numba's for a C-contiguous array: a view of the same data with
the new extents (one may be -1), compared with NumPy; a size mismatch raises ValueError."""
import numpy as np
import pytest
from simt import CompileError, cuda


@cuda.jit
def reshape_2d(a, shape, out):
    y = a.reshape(shape)
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            out[i, j] = y[i, j]


@pytest.mark.parametrize("shape", [(4, 6), (-1, 3), (24, 1), (2, -1)])
def test_reshape_matches_numpy(shape):
    a = np.arange(24.0)
    expected = a.reshape(shape)
    out = np.zeros(expected.shape)
    reshape_2d[1, 1](a, shape, out)
    assert (out == expected).all()


def test_reshape_by_extents_writes_through_and_of_3d():
    @cuda.jit
    def kernel(a):
        v = a.reshape(3 * 2)
        v[5] = 7
        w = v.reshape(3, 2)
        w[0, 1] = w.shape[0] * 10 + w.shape[1]

    a = np.zeros((2, 3))
    kernel[1, 1](a)
    assert a.ravel().tolist() == [0, 32, 0, 0, 0, 7]


def test_reshape_errors():
    with pytest.raises(ValueError, match="total size of new array must be unchanged"):
        reshape_2d[1, 1](np.arange(24.0), (5, 5), np.zeros((5, 5)))
    with pytest.raises(ValueError, match="multiple negative shape values"):
        reshape_2d[1, 1](np.arange(24.0), (-1, -1), np.zeros((5, 5)))

    @cuda.jit
    def of_a_transpose(a, out):
        out[0] = a.T.reshape(4)[1]

    with pytest.raises(CompileError, match="reshape.. of a non-C-contiguous array"):
        of_a_transpose[1, 1](np.zeros((2, 2)), np.zeros(1))
