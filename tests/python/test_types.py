"""simt's own type objects behave and print like Numba's."""
import numpy as np
import pytest

import simt
from simt import cuda, types

# NumPy 1's np.float_ alias of float64 (NumPy 2 removed it).
NUMPY_FLOAT_ = getattr(np, "float_", np.float64)


def test_scalar_types_print_like_numba():
    assert str(simt.float32) == "float32"
    assert str(simt.int64) == "int64"
    assert str(simt.boolean) == "bool"
    assert simt.intp is simt.int64
    assert simt.float_ is simt.float64


def test_scalar_types_cast_values_on_the_host():
    value = simt.float32(1.1)
    assert type(value) is np.float32 and value == np.float32(1.1)
    assert simt.int8(5) == 5 and type(simt.int8(5)) is np.int8
    assert type(simt.uint16(7)) is np.uint16


def test_array_types_from_slices():
    assert str(simt.float32[:]) == "array(float32, 1d, A)"
    assert str(simt.float32[::1]) == "array(float32, 1d, C)"
    assert str(simt.float64[:, ::1]) == "array(float64, 2d, C)"
    assert str(simt.int32[::1, :]) == "array(int32, 2d, F)"
    assert str(simt.int32[:, :, :]) == "array(int32, 3d, A)"
    assert simt.float32[:, ::1] == simt.float32[:, ::1]


def test_bad_array_type_spellings_raise():
    with pytest.raises(TypeError):
        simt.float32[3]
    with pytest.raises(TypeError):
        simt.float32[:, ::1, :]
    with pytest.raises(TypeError):
        simt.float32[::2]


def test_signatures_from_type_calls():
    sig = simt.void(simt.float32[:], simt.int32)
    assert sig.args == (simt.float32[:], simt.int32)
    assert sig.return_type is simt.void
    assert str(sig) == "(array(float32, 1d, A), int32) -> none"
    assert types.signature_text(sig) == "void(array(float32, 1d, A), int32)"
    assert types.signature_text(simt.float64(simt.float64, simt.float64)) == \
        "float64(float64, float64)"
    assert types.signature_text("void(int32)") == "void(int32)"
    assert types.signature_text((simt.int32, np.float32)) == "void(int32, float32)"


def test_numba_types_give_the_same_text():
    numba = pytest.importorskip("numba")
    assert types.signature_text(numba.void(numba.float32[:, ::1], numba.int64)) == \
        "void(array(float32, 2d, C), int64)"
    assert types.type_text(numba.float32) == str(simt.float32)


def test_typeof_follows_numba():
    assert simt.typeof(1) is simt.int64
    assert simt.typeof(2**63) is simt.uint64
    assert simt.typeof(1.0) is simt.float64
    assert simt.typeof(True) is simt.boolean
    assert simt.typeof(np.float32(1)) is simt.float32
    assert simt.typeof(np.uint8(1)) is simt.uint8
    assert str(simt.typeof(np.zeros(3, np.float32))) == "array(float32, 1d, C)"
    assert str(simt.typeof(np.zeros((2, 3)))) == "array(float64, 2d, C)"
    assert str(simt.typeof(np.zeros((2, 3), order="F"))) == "array(float64, 2d, F)"
    assert str(simt.typeof(np.zeros((4, 4))[:, ::2])) == "array(float64, 2d, A)"
    assert str(simt.typeof(np.zeros(8)[::2])) == "array(float64, 1d, A)"
    assert str(simt.typeof((1, 2))) == "UniTuple(int64 x 2)"
    assert str(simt.typeof((1, 2.0))) == "Tuple(int64, float64)"


def test_typeof_rejects_what_kernels_cannot_take():
    with pytest.raises(TypeError, match="not supported"):
        simt.typeof(np.zeros(3, np.float128))
    with pytest.raises(TypeError):
        simt.typeof("text")
    with pytest.raises(TypeError):
        simt.typeof(np.zeros(3, ">f4"))


def test_from_dtype():
    assert simt.from_dtype(np.float32) is simt.float32
    assert simt.from_dtype(np.dtype("i8")) is simt.int64
    assert simt.from_dtype(np.bool_) is simt.boolean


def test_numba_type_aliases_mean_what_numba_means():
    import numba

    @cuda.jit
    def k(out):
        sizes = cuda.local.array(2, dtype=numba.size_t)
        sizes[0] = 7
        out[0] = sizes[0]
        out[1] = numba.types.ssize_t(-3)
        out[2] = numba.byte(300)  # Numba's byte is uint8 (NumPy's is int8)
        out[3] = numba.float_(0.1) == np.float32(0.1)  # Numba's float_ is float32
        out[4] = NUMPY_FLOAT_(0.1) == 0.1  # NumPy's float64
        out[5] = numba.char(200) + numba.uchar(300) + numba.long_(1) + numba.ulong(1)

    out = np.zeros(6, np.int64)
    k[1, 1](out)
    assert out.tolist() == [7, -3, 44, 1, 1, -56 + 44 + 2]
