"""Read-only arrays (flags.writeable False: np.memmap mode='r', np.frombuffer(bytes),
np.broadcast_to, __cuda_array_interface__ data marked read-only) are typed as Numba types them,
`readonly array(...)`: kernels read them, and a write is a compile error naming the array."""
import numpy as np
import pytest

from simt import cuda, types
from simt.errors import CompileError


@cuda.jit
def doubled(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * 2


@cuda.jit
def store(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = 1


@cuda.jit
def add_in_place(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


@cuda.jit
def atomic_add(a):
    cuda.atomic.add(a, 0, 1)


@cuda.jit
def store_into_view(a):
    v = a[1:]
    v[0] = 5


@cuda.jit(device=True)
def clear(b):
    b[0] = 0


@cuda.jit
def store_in_device_function(a):
    clear(a)


class ReadOnlyInterface:
    """Another library's device array whose memory is marked read-only."""

    def __init__(self, array):
        self.array = array
        self.__cuda_array_interface__ = {
            "shape": array.shape, "strides": None, "typestr": array.dtype.str,
            "data": (array.__array_interface__["data"][0], True), "version": 3}


def read_only_probes(tmp_path):
    values = np.arange(16, dtype=np.float64)
    path = str(tmp_path / "values.bin")
    values.tofile(path)
    frozen = values.copy()
    frozen.flags.writeable = False
    return {
        "memmap": np.memmap(path, dtype=np.float64, mode="r"),
        "writeable=False": frozen,
        "frombuffer": np.frombuffer(values.tobytes(), dtype=np.float64),
        "broadcast_to": np.broadcast_to(np.float64(3.0), (16,)),
        "interface": ReadOnlyInterface(frozen),
    }


def host(probe):
    return probe.array if isinstance(probe, ReadOnlyInterface) else probe


@pytest.mark.parametrize("name", ["memmap", "writeable=False", "frombuffer", "broadcast_to",
                                  "interface"])
def test_read_only_arrays_are_read(name, tmp_path):
    probe = read_only_probes(tmp_path)[name]
    out = np.zeros(16)
    doubled[1, 32](probe, out)
    np.testing.assert_array_equal(out, np.asarray(host(probe)) * 2)
    argtypes = [key for key in doubled.overloads if str(key[0]).startswith("readonly")]
    assert argtypes and str(argtypes[0][1]) == "array(float64, 1d, C)"


@pytest.mark.parametrize("name", ["memmap", "writeable=False", "frombuffer", "broadcast_to",
                                  "interface"])
@pytest.mark.parametrize("kernel,line", [(store, "a[i] = 1"), (add_in_place, "a[i] += 1"),
                                         (atomic_add, "cuda.atomic.add(a, 0, 1)"),
                                         (store_into_view, "v[0] = 5"),
                                         (store_in_device_function, "b[0] = 0")])
def test_writes_to_read_only_arrays_do_not_compile(name, kernel, line, tmp_path):
    probe = read_only_probes(tmp_path)[name]
    before = np.array(host(probe), copy=True)
    with pytest.raises(CompileError) as error:
        kernel[1, 16](probe)
    message = str(error.value)
    assert "readonly array(float64, 1d" in message
    assert "test_readonly_arrays.py" in message and line in message and "^" in message
    np.testing.assert_array_equal(host(probe), before)


def test_the_error_names_the_array():
    frozen = np.zeros(4)
    frozen.flags.writeable = False
    with pytest.raises(CompileError, match="cannot modify 'a', a readonly array"):
        store[1, 4](frozen)


def test_a_writable_copy_is_written():
    frozen = np.zeros(4)
    frozen.flags.writeable = False
    copy = frozen.copy()
    store[1, 4](copy)
    np.testing.assert_array_equal(copy, np.ones(4))
    d = cuda.to_device(frozen)  # a device copy is writable, as in Numba
    store[1, 4](d)
    np.testing.assert_array_equal(d.copy_to_host(), np.ones(4))


def test_signatures_spell_readonly_as_numba_does():
    readonly = types.ArrayType(types.float64, 1, "C", readonly=True)
    assert str(readonly) == "readonly array(float64, 1d, C)"
    kernel = cuda.jit([(readonly, types.float64[::1])])(doubled.py_func)
    frozen = np.arange(4.0)
    frozen.flags.writeable = False
    out = np.zeros(4)
    kernel[1, 4](frozen, out)
    np.testing.assert_array_equal(out, np.arange(4.0) * 2)
    kernel[1, 4](np.arange(4.0), out)  # a writable array may be passed for a read-only one
    with pytest.raises(CompileError, match="cannot modify"):
        cuda.jit([(readonly,)])(store.py_func)


def test_a_read_only_array_never_reaches_a_writable_parameter():
    kernel = cuda.jit("void(float64[::1])")(store.py_func)
    frozen = np.zeros(4)
    frozen.flags.writeable = False
    with pytest.raises(TypeError, match="No matching definition"):
        kernel[1, 4](frozen)
    with pytest.raises(TypeError, match="read-only"):
        kernel.overloads[(types.float64[::1],)].launch((1, 1, 1), (4, 1, 1), 0, (frozen,))
    np.testing.assert_array_equal(frozen, np.zeros(4))


def test_records_of_read_only_arrays_are_read_only():
    dtype = np.dtype([("x", np.float64), ("y", np.int32)])
    records = np.zeros(3, dtype=dtype)
    records["x"] = [1, 2, 3]
    records.flags.writeable = False

    @cuda.jit
    def read(r, out):
        i = cuda.grid(1)
        if i < r.size:
            out[i] = r[i].x + r[i]["y"]

    @cuda.jit
    def write(r):
        r[0].x = 2.0

    out = np.zeros(3)
    read[1, 3](records, out)
    np.testing.assert_array_equal(out, records["x"] + records["y"])
    with pytest.raises(CompileError, match="cannot modify"):
        write[1, 1](records)


def test_a_record_argument_of_read_only_memory_is_read_and_never_written(tmp_path):
    # A record of a read-only memmap: its pages fault on a write, so the kernel gets a private
    # copy; a kernel that writes to it raises once the launch ends and the file is unchanged.
    dtype = np.dtype([("x", np.float64), ("y", np.int32)])
    path = tmp_path / "records.bin"
    source = np.zeros(2, dtype=dtype)
    source["x"] = [1.5, 2.5]
    source["y"] = [3, 4]
    source.tofile(path)
    mapped = np.memmap(path, dtype=dtype, mode="r")

    @cuda.jit
    def read(rec, out):
        out[0] = rec.x + rec.y

    @cuda.jit
    def write(rec, out):
        rec.x = 9.0
        out[0] = rec.x

    out = np.zeros(1)
    read[1, 1](mapped[1], out)
    assert out[0] == 2.5 + 4
    with pytest.raises(ValueError, match="wrote to a record of read-only memory"):
        write[1, 1](mapped[0], out)
    assert out[0] == 9.0  # the kernel ran on the copy
    np.testing.assert_array_equal(np.fromfile(path, dtype=dtype), source)
