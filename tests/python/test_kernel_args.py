"""Kernel arguments beyond scalars and NumPy arrays, as Numba passes them: tuples (nested, of
arrays), records (NumPy record scalars, passed by reference), objects exposing
__cuda_array_interface__; and the array statements around them: Ellipsis subscripts, tuples stored
into slices, and the slice statements Numba's CUDA target rejects."""
from collections import namedtuple

import numba
import numpy as np
import pytest
from numba import types as nb_types

from simt import CompileError, cuda
from simt import types as simt_types


def overload_types(kernel):
    return [", ".join(str(t) for t in sig) for sig in kernel.overloads]


# -- tuples -------------------------------------------------------------------------------------
@cuda.jit
def pair_kernel(r, x, n):
    r[0] = x[0]
    r[1] = x[1] + n


def test_tuple_arguments_are_typed_as_numba_types_them():
    r = np.zeros(2)
    pair_kernel[1, 32](r, (1, 2.5), 3)
    assert r.tolist() == [1.0, 5.5]
    pair_kernel[1, 1](r, (4, 5), 1)
    assert r.tolist() == [4.0, 6.0]
    assert overload_types(pair_kernel) == [
        "array(float64, 1d, C), %s, int64" % numba.typeof((1, 2.5)),
        "array(float64, 1d, C), %s, int64" % numba.typeof((4, 5))]
    assert str(simt_types.typeof((1, 2))) == "UniTuple(int64 x 2)"
    assert str(simt_types.typeof(((1, 2), 3.0))) == str(numba.typeof(((1, 2), 3.0)))
    assert str(simt_types.typeof((np.float32(1), True, 1j))) == \
        str(numba.typeof((np.float32(1), True, 1j)))


def test_nested_empty_and_scalar_mixed_tuples():
    # numba/cuda/tests/cudapy/test_array_args.py
    @cuda.jit
    def f(r, x, e):
        r[0] = len(x)
        r[1] = len(x[0])
        r[2] = len(x[1])
        r[3] = x[1][0]
        r[4] = x[1][1]
        r[5] = x[2]
        r[6] = len(e) + len(e[0])
        r[7] = 1 if x[3] else 0

    r = np.zeros(8, np.int64)
    f[1, 1](r, ((), (5, 6), 7, True), ((),))
    assert r.tolist() == [4, 0, 2, 5, 6, 7, 1, 1]


def test_tuples_of_arrays_scalars_and_tuples():
    @cuda.jit
    def f(x, extra):
        i = cuda.grid(1)
        if i < len(x[0]):
            x[0][i] = x[1][i] + x[2][i] * extra[0] + extra[1][1]

    n = 10
    x0, x1 = np.zeros(n), np.ones(n)
    x2 = cuda.to_device(np.arange(n, dtype=np.float64))
    f[1, 16]((x0, x1, x2), (2, (0.0, 0.5)))
    np.testing.assert_equal(x0, 1 + 2 * np.arange(n) + 0.5)


def test_tuple_of_complex_and_bool_elements():
    @cuda.jit
    def f(r, t):
        r[0] = t[0].real + t[1].imag
        r[1] = t[2]
        r[2] = t[3]

    r = np.zeros(3)
    f[1, 1](r, (np.complex64(1 + 2j), 3 + 4j, True, np.int8(-3)))
    assert r.tolist() == [5.0, 1.0, -3.0]


@pytest.mark.parametrize("sig", [
    "void(float64[:], UniTuple(int64, 2))",
    "void(float64[:], UniTuple(int64 x 2))",
    "void(float64[:], Tuple((int64, int64)))",
    nb_types.void(nb_types.float64[:], nb_types.UniTuple(nb_types.int64, 2)),
    (nb_types.float64[:], nb_types.UniTuple(nb_types.int64, 2)),
    simt_types.void(simt_types.float64[:], simt_types.UniTuple(simt_types.int64, 2)),
])
def test_explicit_signatures_with_tuple_types(sig):
    @cuda.jit(sig)
    def f(r, t):
        r[0] = t[0] * t[1]

    r = np.zeros(1)
    f[1, 1](r, (3, 4))
    assert r[0] == 12
    f[1, 1](r, (np.int32(2), np.uint8(2)))  # converted as Numba converts scalars
    assert r[0] == 4
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        f[1, 1](r, (2, 2.9))  # Numba's ctypes.c_int64(2.9), element by element
    assert overload_types(f) == ["array(float64, 1d, A), UniTuple(int64 x 2)"]
    with pytest.raises(TypeError, match=r"No matching definition for argument type\(s\) "
                       r"array\(float64, 1d, C\), UniTuple\(int64 x 3\)"):
        f[1, 1](r, (1, 2, 3))
    with pytest.raises(TypeError, match="No matching definition"):
        f[1, 1](r, 5)


def test_explicit_heterogeneous_and_nested_tuple_signature():
    @cuda.jit("void(float64[:], Tuple((int32, float32, UniTuple(int8, 2))))")
    def f(r, t):
        r[0] = t[0] + t[1] + t[2][1]

    r = np.zeros(1)
    f[1, 1](r, (3, 0.5, (1, 2)))
    assert r[0] == 5.5
    assert simt_types.Tuple((simt_types.int64, simt_types.float64)) == \
        simt_types.typeof((1, 2.5))


def test_namedtuple_arguments_are_tuples_with_fields():
    Point = namedtuple("Point", ("x", "y"))
    r = np.zeros(2)
    pair_kernel[1, 1](r, Point(1, 2), 3)
    assert r.tolist() == [1.0, 5.0]
    assert any(str(types[1]).startswith("NamedTuple(Point#") for types in pair_kernel.overloads)


# -- records ------------------------------------------------------------------------------------
RECORD = np.dtype([("x", np.int32), ("y", np.float64), ("z", np.complex64)])


@cuda.jit
def record_kernel(rec, out):
    out[0] = rec.x + rec["y"]
    out[1] = rec.z.imag
    rec.x = 42
    rec["y"] = rec.y * 2


def test_record_arguments_are_read_and_written_in_place():
    recs = np.zeros(3, RECORD)
    recs[1] = (5, 1.25, 3 + 4j)
    out = np.zeros(2)
    record_kernel[1, 1](recs[1], out)
    assert out.tolist() == [6.25, 4.0]
    # written through, as Numba copies a record argument back (test_record_dtype.py)
    assert recs[1]["x"] == 42 and recs[1]["y"] == 2.5
    assert recs[0]["x"] == 0 and recs[2]["x"] == 0
    assert overload_types(record_kernel)[0].startswith(str(numba.typeof(recs[1])))


def test_recarray_records_and_explicit_record_signatures():
    recs = np.zeros(2, RECORD).view(np.recarray)
    recs[0].x = 7
    sig = (numba.from_dtype(RECORD), nb_types.float64[:])
    f = cuda.jit(sig)(record_kernel.py_func)
    out = np.zeros(2)
    f[1, 1](recs[0], out)
    assert out[0] == 7 and recs[0].x == 42
    other = np.zeros(1, [("x", np.int64)])
    with pytest.raises(TypeError, match="No matching definition"):
        f[1, 1](other[0], out)


def test_record_argument_of_an_aligned_dtype():
    dtype = np.dtype([("a", np.uint8), ("b", np.float64)], align=True)
    recs = np.zeros(1, dtype)
    recs[0] = (3, 0.5)

    @cuda.jit
    def f(r, out):
        out[0] = r.a + r.b

    out = np.zeros(1)
    f[1, 1](recs[0], out)
    assert out[0] == 3.5


# -- objects exposing __cuda_array_interface__ ---------------------------------------------------
class ForeignArray:
    """Another library's device array (CuPy-like), over a NumPy buffer."""

    def __init__(self, array, mask=None):
        self.array = array
        self.mask = mask

    @property
    def __cuda_array_interface__(self):
        a = self.array
        interface = {"shape": a.shape, "typestr": a.dtype.str, "data": (a.ctypes.data, False),
                     "strides": None if a.flags.c_contiguous else a.strides, "version": 3,
                     "stream": None}
        if self.mask is not None:
            interface["mask"] = self.mask
        return interface


@cuda.jit
def add(x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] + y[i]


def test_foreign_arrays_are_kernel_arguments():
    n = 100
    x = ForeignArray(np.arange(n, dtype=np.float32))
    y = ForeignArray(np.full(n, 2, np.float32))
    out = ForeignArray(np.zeros(n, np.float32))
    add[4, 8](x, y, out)
    np.testing.assert_equal(out.array, np.arange(n) + 2)
    assert overload_types(add)[-1] == ", ".join(["array(float32, 1d, C)"] * 3)


def test_foreign_strided_empty_and_tupled_arrays():
    base = np.arange(10.0)
    strided = ForeignArray(base[::2])
    out = np.zeros(5)
    add[1, 4](strided, strided, out)
    np.testing.assert_equal(out, 2 * base[::2])
    empty = ForeignArray(np.zeros(0, np.float32))
    add[1, 1](empty, empty, empty)

    @cuda.jit
    def f(t):
        i = cuda.grid(1)
        if i < t[0].size:
            t[0][i] = 3 * t[1][i]

    dst = np.zeros(4)
    f[1, 4]((ForeignArray(dst), ForeignArray(np.arange(4.0))))
    np.testing.assert_equal(dst, [0, 3, 6, 9])


def test_as_cuda_array_and_from_cuda_array_interface_of_foreign_arrays():
    host = np.arange(6, dtype=np.int32).reshape(2, 3)
    foreign = ForeignArray(host)
    assert cuda.is_cuda_array(foreign)
    d = cuda.as_cuda_array(foreign)
    assert d.shape == (2, 3) and d.dtype == np.int32
    d[1, 2] = 50  # the same memory
    assert host[1, 2] == 50
    e = cuda.from_cuda_array_interface(foreign.__cuda_array_interface__, owner=foreign)
    np.testing.assert_equal(e.copy_to_host(), host)
    with pytest.raises(NotImplementedError, match="Masked arrays are not supported"):
        cuda.as_cuda_array(ForeignArray(host, mask=(0, False)))
    with pytest.raises(TypeError, match="doesn't implement the cuda array interface"):
        cuda.as_cuda_array(object())


def test_foreign_record_arrays_keep_their_fields():
    recs = np.zeros(4, RECORD)
    d = cuda.as_cuda_array(cuda.to_device(recs))
    assert d.dtype == RECORD


# -- host arrays are copied as one region of memory ---------------------------------------------
@cuda.jit
def increment(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += 1


@cuda.jit
def increment_rows(x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        for j in range(x.shape[1]):
            x[i, j] += 1


@cuda.jit
def total_of(x, out):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(out, 0, x[i])


def test_non_contiguous_host_arrays_are_refused_as_numba_refuses_them():
    # numba/cuda/cudadrv/devicearray.py: auto_device's sentry_contiguous, for each host array
    # a kernel takes (also in tuples and argument hints), before anything runs
    from simt.cudadrv_devicearray import errmsg_contiguous_buffer
    a = np.arange(10.0)
    x = np.zeros((4, 6))
    for launch in (lambda: increment[1, 16](a[::2]), lambda: increment[1, 16](a[::-1]),
                   lambda: increment_rows[1, 4](x[:, ::2]),
                   lambda: total_of[1, 16](a[::2], np.zeros(1)),
                   lambda: add[1, 4](a[:5], a[::2], np.zeros(5)),
                   lambda: increment[1, 16](cuda.In(a[::2])),
                   lambda: increment[1, 16](cuda.Out(a[::2])),
                   lambda: increment[1, 16](cuda.InOut(a[::2]))):
        with pytest.raises(ValueError) as info:
            launch()
        assert str(info.value) == errmsg_contiguous_buffer
    assert a.tolist() == list(np.arange(10.0)) and not x.any()  # nothing ran

    @cuda.jit
    def first_of_pair(t):
        t[0][0] = t[1][0]

    with pytest.raises(ValueError, match="non-contiguous buffer"):
        first_of_pair[1, 1]((a[::2], a[:2]))


def test_host_arrays_of_one_region_and_device_views_are_taken_as_they_are():
    # C- and F-contiguous host arrays, broadcast (stride 0) dimensions over one region
    # (array_core), device arrays' non-contiguous views, mapped arrays' views: as Numba
    x = np.zeros((3, 4))
    increment_rows[1, 4](x.T)
    assert (x == 1).all()
    out = np.zeros(1)
    total_of[1, 32](np.broadcast_to(np.array([3.0]), (5,)), out)
    assert out[0] == 15.0
    d = cuda.to_device(np.arange(10.0))
    increment[1, 16](d[::2])
    increment[1, 16](d[::-1])
    assert d.copy_to_host().tolist() == [2, 2, 4, 4, 6, 6, 8, 8, 10, 10]
    mapped = cuda.mapped_array(10)
    mapped[:] = 0
    increment[1, 16](mapped[::2])
    assert mapped.tolist() == [1, 0] * 5
    strided = ForeignArray(np.zeros(10)[::2])  # __cuda_array_interface__: device memory
    increment[1, 16](strided)
    assert strided.array.tolist() == [1.0] * 5


# -- Ellipsis, tuples into slices ----------------------------------------------------------------
def test_ellipsis_subscripts_read_and_store():
    @cuda.jit
    def f(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            out[i, 0] = a[i, ...][1] + a[..., 2][i] + a[i, ..., 3]
            a[i, ..., 0] = -1.0
        if i == 0:
            out[1:, ..., 1] = 7

    a = np.arange(12.0).reshape(3, 4)
    expect = a[:, 1] + a[:, 2] + a[:, 3]
    out = np.zeros((3, 2))
    f[1, 4](a, out)
    np.testing.assert_equal(out[:, 0], expect)
    np.testing.assert_equal(out[:, 1], [0, 7, 7])
    np.testing.assert_equal(a[:, 0], [-1, -1, -1])


def test_tuples_store_into_one_dimensional_slices():
    @cuda.jit
    def f(a, n):
        a[1:3] = (7, 8)
        a[0:n] = (1.5, 2.5, 3.5)

    a = np.zeros(4)
    f[1, 1](a, 3)
    assert a.tolist() == [1.5, 2.5, 3.5, 0.0]
    with pytest.raises(ValueError, match="cannot assign slice from input of different size"):
        f[1, 1](a, 2)


def test_statements_numba_cuda_rejects_are_compile_errors():
    def aug(a):
        a[1:3] += 1

    def into_slice(a, b):
        a[:] = b

    def read_all(a, r):
        r[0] = a[...][0]

    with pytest.raises(CompileError, match=r"augmented assignment to an array slice .* is not "
                       "supported, as in Numba's CUDA target"):
        cuda.jit(aug)[1, 1](np.zeros(4))
    with pytest.raises(CompileError, match=r"storing array\(float64, 1d, C\) into an array slice "
                       "is not supported, as in Numba's CUDA target"):
        cuda.jit(into_slice)[1, 1](np.zeros(4), np.ones(4))
    with pytest.raises(CompileError, match=r"reading a\[\.\.\.\] is not supported"):
        cuda.jit(read_all)[1, 1](np.zeros(4), np.zeros(1))


def test_zero_dimensional_integer_arrays_index_as_their_value():
    # As Numba types them (get_array_index_type): np.asarray(3) as an index is 3. (Numba's
    # simulator cannot index with one, so the reference is NumPy's.)
    @cuda.jit
    def k(a, grid2, i, j, out, recs, rec_out):
        t = cuda.grid(1)
        if t < out.shape[0]:
            out[t, 0] = a[i] + t
            out[t, 1] = grid2[i, j]
            out[t, 2] = a[2:][j]
        if t == 0:
            rec_out[()] = recs[i]

    rec = np.dtype([("a", np.int8), ("b", np.float64)], align=True)
    recs = np.zeros(4, rec)
    recs["a"], recs["b"] = [1, 2, 3, 4], [0.5, 1.5, 2.5, 3.5]
    a, grid2 = np.arange(16.0) * 1.5, np.arange(20.0).reshape(4, 5)
    i, j = np.asarray(3), np.asarray(2, np.int32)
    out, rec_out = np.zeros((8, 3)), np.zeros((), rec)
    k[1, 8](a, grid2, i, j, out, recs, rec_out)
    assert out.tolist() == [[a[3] + t, grid2[3, 2], a[2:][2]] for t in range(8)]
    assert rec_out[()] == recs[3]


def test_one_signature_kernel_reads_an_array_of_another_dtype_of_its_size():
    """As Numba's specialized kernels (one explicit signature): the array's elements are read as
    the declared dtype's (numba-cuda's test_atomic_sub3: uint32 for int32[:, :])."""
    @cuda.jit("void(int32[:, :])")
    def decrement(a):
        cuda.atomic.sub(a, (cuda.threadIdx.x, cuda.threadIdx.y), 1)

    a = np.arange(32, dtype=np.uint32).reshape(4, 8)
    decrement[1, (4, 8)](a)
    assert a.dtype == np.uint32 and a[0, 0] == 0xFFFFFFFF and (a.ravel()[1:] == np.arange(31)).all()
    with pytest.raises(TypeError, match="No matching definition"):
        decrement[1, 1](np.zeros((2, 2), np.int64))
