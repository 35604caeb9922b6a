"""Scalar kernel arguments are typed and converted as Numba's dispatcher does: a Python int is
int64, or uint64 beyond int64 (an overload of its own), OverflowError beyond 64 bits; explicit
signatures pick the overload by Numba's casting rules (ties are ambiguous); conversions never
wrap or hit undefined C++ casts: out-of-range integers raise OverflowError, and a float for an
integer parameter TypeError, as Numba's ctypes conversion refuses it."""
import ctypes
import warnings

import numpy as np
import pytest

from simt import cuda


def _store(out, v):
    out[0] = v


def stored(kernel, value, dtype=np.float64):
    out = np.zeros(1, dtype)
    kernel[1, 1](out, value)
    return out[0]


def test_an_int_beyond_int64_gets_a_uint64_overload_whatever_came_first():
    store = cuda.jit(_store)
    assert stored(store, 5, np.uint64) == 5
    assert stored(store, 2**63, np.uint64) == 2**63
    assert stored(store, 2**64 - 1, np.uint64) == 2**64 - 1
    assert stored(store, -2**63, np.int64) == -2**63
    assert [str(types[1]) for types in store.overloads] == ["int64", "uint64", "int64"]
    store = cuda.jit(_store)
    assert stored(store, 2**63, np.uint64) == 2**63
    assert stored(store, 7, np.uint64) == 7
    assert [str(types[1]) for types in store.overloads] == ["uint64", "int64"]


@pytest.mark.parametrize("value", [2**64, 2**64 + 1, 10**30, -2**63 - 1, 2**1100])
def test_ints_beyond_64_bits_raise_overflow_error_and_compile_nothing(value):
    store = cuda.jit(_store)
    with pytest.raises(OverflowError, match="int too big to convert: .* beyond the range of int64"
                                            " and uint64"):
        stored(store, value)
    assert len(store.overloads) == 0


@pytest.mark.parametrize("value", [2**32, -2**31 - 1, 2**40, 2**63, np.uint64(2**63),
                                   np.int64(-2**40)])
def test_values_beyond_an_integer_parameter_raise_overflow_error(value):
    store = cuda.jit("void(float64[:], int32)")(_store)
    with pytest.raises(OverflowError, match=r"argument 2 \(int32\): .* is out of the range of"
                                            " int32"):
        stored(store, value)


def test_integer_parameters_take_every_value_of_their_range():
    for signature, values in [("void(int8[:], int8)", [-128, 127]),
                              ("void(uint8[:], uint8)", [0, 255]),
                              ("void(int32[:], int32)", [-2**31, 2**31 - 1]),
                              ("void(uint32[:], uint32)", [0, 2**32 - 1]),
                              ("void(uint64[:], uint64)", [0, 2**63, 2**64 - 1]),
                              ("void(int64[:], int64)", [-2**63, 2**63 - 1])]:
        store = cuda.jit(signature)(_store)
        dtype = np.dtype(signature[5:signature.index("[")])
        for value in values:
            assert stored(store, value, dtype) == value, (signature, value)
    with pytest.raises(OverflowError, match="out of the range of uint8"):
        stored(cuda.jit("void(uint8[:], uint8)")(_store), -129, np.uint8)


def test_integers_of_the_parameters_width_pass_their_bits():
    """A value that fits the parameter's width as the other signedness passes its bits, as
    Numba's ctypes conversion does (Numba's own tests pass 0x80000000 for an int32)."""
    for signature, value, expected in [("void(int32[:], int32)", 0x80000000, -2**31),
                                       ("void(int32[:], int32)", 0xFFFFFFFF, -1),
                                       ("void(uint8[:], uint8)", -1, 255),
                                       ("void(int64[:], int64)", 2**64 - 1, -1),
                                       ("void(uint16[:], uint16)", -2**15, 2**15)]:
        store = cuda.jit(signature)(_store)
        dtype = np.dtype(signature[5:signature.index("[")])
        assert stored(store, value, dtype) == expected, (signature, value)


CONVERTED = [np.int64(7), np.uint16(9), True, np.False_, -1, 2**31 - 1]


@pytest.mark.parametrize("value", CONVERTED)
def test_explicit_integer_signatures_convert_as_numba(value):
    store = cuda.jit("void(float64[:], int32)")(_store)
    assert stored(store, value) == int(value)
    numba = pytest.importorskip("numba")
    reference = np.zeros(1)
    numba.njit("void(float64[:], int32)")(_store)(reference, value)
    assert stored(store, value) == reference[0]


@pytest.mark.parametrize("value", [3.7, -3.7, 5.0, np.float64(5.7), np.float32(2.5),
                                   float("nan"), -np.inf, 3e10])
@pytest.mark.parametrize("signature", ["void(float64[:], int32)", "void(float64[:], uint8)",
                                       "void(float64[:], int64)"])
def test_floats_for_integer_parameters_raise_as_numbas_ctypes_conversion(signature, value):
    # numba/cuda/dispatcher.py _prepare_args: getattr(ctypes, "c_%s" % ty)(val) for an integer
    # parameter, which refuses floats (Numba's CPU njit would truncate)
    store = cuda.jit(signature)(_store)
    ctype = getattr(ctypes, "c_" + signature[len("void(float64[:], "):-1])
    with pytest.raises(TypeError) as expected:
        ctype(value)
    with pytest.raises(TypeError) as got:
        stored(store, value)
    assert str(got.value) == str(expected.value)
    assert "cannot be interpreted as an integer" in str(got.value)
    assert stored(store, 5) == 5
    # a boolean parameter takes ctypes.c_uint8(int(value))
    boolean = cuda.jit("void(float64[:], boolean)")(_store)
    if np.isfinite(value):
        assert stored(boolean, value) == bool(int(value))
    else:
        with pytest.raises((ValueError, OverflowError), match="cannot convert float"):
            stored(boolean, value)


def test_numpy_bools_for_integer_parameters_are_their_truth_without_warnings():
    store = cuda.jit("void(float64[:], int32)")(_store)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy deprecates np.bool_ as an index
        assert [stored(store, v) for v in (np.True_, np.False_)] == [1, 0]


def test_float_parameters_round_as_numpy_and_refuse_ints_beyond_64_bits():
    store = cuda.jit("void(float32[:], float32)")(_store)
    for value in [1e300, -1e300, 2**64 - 1, 3.4028235e38 * (1 + 1e-8), 0.1, True, np.float64(2.5)]:
        with np.errstate(over="ignore"):
            expected = np.float32(value)
        assert stored(store, value, np.float32) == expected, value
    assert np.isnan(stored(store, float("nan"), np.float32))
    with pytest.raises(OverflowError, match="int too big to convert"):
        stored(cuda.jit("void(float64[:], float64)")(_store), 2**1030)


def test_boolean_parameters_take_int_of_the_value():
    # Numba passes c_uint8(int(value)) (numba/cuda/dispatcher.py): 0.5 is false.
    store = cuda.jit("void(float64[:], boolean)")(_store)
    assert [stored(store, v) for v in (3, 0.5, 1.5, 0, 0.0, np.int8(0))] == \
        [1, 0, 1, 0, 0, 0]


def test_complex_arguments_need_complex_parameters():
    store = cuda.jit("void(float64[:], float64)")(_store)
    with pytest.raises(TypeError, match=r"No matching definition for argument type\(s\)"
                                        r" array\(float64, 1d, C\), complex128"):
        stored(store, 1 + 2j)
    store = cuda.jit("void(complex64[:], complex64)")(_store)
    assert stored(store, 2.5, np.complex64) == 2.5
    assert stored(store, 1e300 + 1j, np.complex64) == complex(np.inf, 1)


def test_overloads_are_chosen_by_numbas_casting_rules():
    store = cuda.jit(["void(float64[:], int32)", "void(float64[:], float64)"])(_store)
    assert stored(store, 2**40) == 2**40  # int64 -> float64 is safe, -> int32 unsafe
    assert stored(store, 2.5) == 2.5
    assert stored(store, np.int16(3)) == 3
    with pytest.raises(TypeError, match=r"Ambiguous overloading for .*\(array\(float64, 1d, C\),"
                                        r" bool\):\n\(array\(float64, 1d, A\), int32\) -> none\n"
                                        r"\(array\(float64, 1d, A\), float64\) -> none"):
        stored(store, True)
    store = cuda.jit(["void(float64[:], int32)", "void(float64[:], float32)"])(_store)
    with pytest.raises(TypeError, match="Ambiguous overloading"):
        stored(store, 5)
    assert stored(store, np.int16(5)) == 5  # int16 -> int32 promotes, -> float32 is safe


def test_overload_choice_and_ambiguity_match_numba():
    numba = pytest.importorskip("numba")
    signatures = ["void(float64[:], int32)", "void(float64[:], float32)"]
    ours = cuda.jit(signatures)(_store)
    theirs = numba.njit(signatures)(_store)
    for value in [5, 2.5, np.int32(3), True, np.int16(5), np.float32(1.5), np.uint8(4)]:
        reference = np.zeros(1)
        try:
            theirs(reference, value)
        except TypeError as error:
            with pytest.raises(TypeError, match="Ambiguous overloading"):
                stored(ours, value)
            assert "Ambiguous overloading" in str(error)
        else:
            assert stored(ours, value) == reference[0], value


def test_scalar_types_follow_numbas_casting_table():
    numba = pytest.importorskip("numba")
    from numba.core import types as nbtypes
    from numba.core.typeconv import Conversion
    from numba.core.typeconv.rules import default_type_manager
    from simt import types

    kinds = {Conversion.exact: types.EXACT, Conversion.promote: types.PROMOTE,
             Conversion.safe: types.SAFE, Conversion.unsafe: types.UNSAFE, None: None}
    # (bfloat16 is numba-cuda's, numba.cuda.types.bfloat16: not in this Numba's typeconv rules)
    scalars = [t for name, t in vars(types).items() if isinstance(t, types.ScalarType) and
               not isinstance(t, types.Bfloat16Type)]
    assert numba and len(scalars) > 10
    for a in scalars:
        for b in scalars:
            theirs = getattr(nbtypes, "boolean" if a.name == "bool" else a.name), \
                getattr(nbtypes, "boolean" if b.name == "bool" else b.name)
            expected = types.EXACT if a == b else kinds[default_type_manager.check_compatible(
                *theirs)]
            assert types.conversion(a, b) == expected, (a, b)


def test_scalar_values_are_typed_as_numba_types_them():
    numba = pytest.importorskip("numba")
    from simt.types import typeof

    values = [0, -1, 2**31, -2**63, 2**63 - 1, 2**63, 2**64 - 1, True, np.bool_(False), 1.5,
              1 + 2j, np.int8(1), np.uint16(2), np.int32(3), np.uint64(4), np.float16(1),
              np.float32(2), np.complex64(1j)]
    for value in values:
        assert str(typeof(value)) == str(numba.typeof(value)).replace("boolean", "bool"), value
    for value in (2**64, -2**63 - 1):
        with pytest.raises(ValueError):
            numba.typeof(value)
        with pytest.raises(OverflowError):
            typeof(value)


def test_a_float_for_a_declared_boolean_is_converted_as_numba_converts_it_at_every_call():
    # Numba passes c_uint8(int(value)): 0.5 is false, NaN raises; also once the argument types'
    # overload is known (it was checked only at the first call).
    @cuda.jit("void(boolean, int32[:])")
    def flag(b, out):
        out[0] = 1 if b else 0

    out = np.zeros(1, np.int32)
    for value, expected in ((0.5, 0), (1.5, 1), (2.0, 1), (0.0, 0), (-0.7, 0)):
        flag[1, 1](value, out)
        assert out[0] == expected, value
    with pytest.raises(ValueError):
        flag[1, 1](float("nan"), out)
    with pytest.raises(OverflowError):
        flag[1, 1](float("inf"), out)


def test_a_float_for_a_declared_integer_raises_at_every_call():
    @cuda.jit("void(int32, int32[:])")
    def store(v, out):
        out[0] = v

    out = np.zeros(1, np.int32)
    for _ in range(2):
        with pytest.raises(TypeError):
            store[1, 1](1.0, out)
    store[1, 1](np.int64(3), out)
    assert out[0] == 3
