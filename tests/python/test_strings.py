"""NumPy's fixed-length strings in kernels ('S12' and '<U12' arrays and record fields, Numba's
CharSeq and UnicodeCharSeq): str and bytes constants are stored as NumPy stores them (truncated
to the length, zero-padded), elements copy whole. The differential case strings_in_arrays_and_
records compares with Numba's simulator; these test what it cannot."""
import numpy as np
import pytest
from simt import CompileError, cuda


def test_constants_are_truncated_and_zero_padded_as_numpy_stores_them():
    @cuda.jit
    def k(names, tags):
        i = cuda.grid(1)
        if i < names.size:
            if i % 3 == 0:
                names[i] = "Ünïcödé ✓ and more than twelve"
                tags[i] = b"\x00\xffbytes-too-long"
            elif i % 3 == 1:
                names[i] = "ab"
                tags[i] = b"xy"
            else:
                names[i] = names[i - 1]  # a copy of the whole element
                tags[i] = tags[i - 2]

    names = np.full(7, "previous!!!!", "<U12")
    tags = np.full(7, b"previous", "S8")
    k[1, 8](names, tags)
    expected_names, expected_tags = names.copy(), tags.copy()
    for i in range(7):
        if i % 3 == 0:
            expected_names[i] = "Ünïcödé ✓ and more than twelve"
            expected_tags[i] = b"\x00\xffbytes-too-long"
        elif i % 3 == 1:
            expected_names[i], expected_tags[i] = "ab", b"xy"
        else:
            expected_names[i], expected_tags[i] = expected_names[i - 1], expected_tags[i - 2]
    np.testing.assert_array_equal(names, expected_names)
    np.testing.assert_array_equal(tags, expected_tags)
    assert names.view(np.uint32).reshape(7, 12)[1, 2:].tolist() == [0] * 10  # zero-padded


def test_record_fields_and_device_arrays_of_strings():
    dt = np.dtype([("id", np.int32), ("name", "<U6"), ("code", "S3")], align=True)

    @cuda.jit
    def k(recs):
        i = cuda.grid(1)
        if i < recs.size:
            recs[i]["id"] = i
            if i == 0:
                recs[i]["name"] = "zero"
                recs[i].code = b"Z"
            else:
                recs[i].name = "other"
                recs[i]["code"] = b"OTHER"

    d_recs = cuda.to_device(np.zeros(3, dt))
    k[1, 4](d_recs)
    got = d_recs.copy_to_host()
    assert got.tolist() == [(0, "zero", b"Z"), (1, "other", b"OTH"), (2, "other", b"OTH")]


def test_strings_are_stored_only_where_numba_stores_them():
    @cuda.jit
    def into_bytes(tags):
        tags[0] = "str"

    with pytest.raises(CompileError, match=r"cannot store a str constant into \[char x 4\]"):
        into_bytes[1, 1](np.zeros(1, "S4"))

    @cuda.jit
    def into_floats(out):
        out[0] = "3.5"

    with pytest.raises(CompileError, match=r"strings are stored only into arrays of strings"):
        into_floats[1, 1](np.zeros(1))

    @cuda.jit
    def into_a_variable(out):
        s = "abc"
        out[0] = len(s)

    with pytest.raises(CompileError, match=r"strings are only supported as print arguments"):
        into_a_variable[1, 1](np.zeros(1))


def test_string_array_types_print_as_numba_prints_them():
    from simt import typeof
    assert str(typeof(np.zeros(2, "<U12"))) == "array([unichr x 12], 1d, C)"
    assert str(typeof(np.zeros((2, 2), "S3"))) == "array([char x 3], 2d, C)"


# Numba's constant strings: a global, a closure variable, a local bound once to a literal and a
# literal passed to a device function are each the constant, as exception and assert messages and
# as record field names.
MESSAGE = "bad value %d" % 3
FIELD = "mass"
SECOND = 1


def field_reader(field):
    @cuda.jit(device=True)
    def read(p, i, name):
        return p[i][name]

    @cuda.jit
    def kernel(out, p):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = p[i][field] + p[i][SECOND] + read(p, i, "q") + p[i][FIELD]
            p[i][field] = 2.0
    return kernel


def test_record_fields_named_by_constant_strings():
    dtype = np.dtype([("mass", np.float64), ("q", np.float64)])
    p = np.zeros(3, dtype)
    p["mass"], p["q"] = [1, 2, 3], 10
    out = np.zeros(3)
    field_reader("mass")[1, 4](out, p)
    assert out.tolist() == [22.0, 24.0, 26.0]
    assert p["mass"].tolist() == [2.0, 2.0, 2.0]


def test_exception_and_assert_messages_from_constant_strings():
    @cuda.jit(device=True)
    def check(x, why):
        if x < 0:
            raise ValueError(why)
        return x

    @cuda.jit(debug=True, opt=False)
    def kernel(a):
        local = "too big"
        if a[0] == 1:
            raise RuntimeError(MESSAGE)
        if a[0] == 2:
            raise OverflowError(local)
        assert a[0] != 3, MESSAGE
        check(a[0] - 10, "negative")

    for value, exception, message in [(1, RuntimeError, MESSAGE), (2, OverflowError, "too big"),
                                      (3, AssertionError, MESSAGE), (4, ValueError, "negative")]:
        with pytest.raises(exception, match=r"tid=\[0, 0, 0\] ctaid=\[0, 0, 0\]: %s\n" % message):
            kernel[1, 1](np.array([value]))
    kernel[1, 1](np.array([10]))


def test_a_local_string_bound_twice_is_not_a_constant():
    @cuda.jit(debug=True)
    def kernel(a):
        why = "one"
        if a[0]:
            why = "two"
        raise ValueError(why)

    with pytest.raises(CompileError, match="strings are only supported as print arguments"):
        kernel[1, 1](np.array([1]))
