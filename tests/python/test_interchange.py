"""Array interchange: device arrays export DLPack as the CPU tensors they are (simt's device memory
is host memory), cuda.from_dlpack and kernel launches take DLPack exporters and
StridedMemoryView-style objects without a copy, and __cuda_array_interface__ streams are
synchronised as version 3 of the interface asks."""
import sys

import numpy as np
import pytest
from simt import cuda
from simt.memory import driver
from simt.memory.devicearray import from_strided_memory_view
from simt.errors import CompileError


@cuda.jit
def add_index(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += i


@cuda.jit
def double_2d(a):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] *= 2


@cuda.jit
def copy_doubled(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * 2


class DLPackOnly:
    """A CPU tensor of another library: DLPack and nothing else."""

    def __init__(self, array, device=(1, 0)):
        self._array = array
        self._device = device

    def __dlpack__(self, stream=None):
        return self._array.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self._device


class StridedView:
    """What cuda.core.utils.StridedMemoryView describes: strides in elements, None for C order."""

    def __init__(self, array, c_order_strides=False):
        self.exporting_obj = array
        self.ptr = array.__array_interface__["data"][0]
        self.shape = array.shape
        self.strides = None if c_order_strides else tuple(
            s // array.itemsize for s in array.strides)
        self.dtype = array.dtype
        self.readonly = not array.flags.writeable
        self.device_id = -1
        self.is_device_accessible = False


# -- device arrays as DLPack producers ---------------------------------------------------------

def test_numpy_reads_a_device_array_in_place():
    d = cuda.to_device(np.arange(12.0).reshape(3, 4))
    assert d.__dlpack_device__() == (1, 0)  # kDLCPU: device memory is host memory
    host = np.from_dlpack(d)  # read-only: NumPy's choice for DLPack's unversioned capsules
    assert host.__array_interface__["data"][0] == d.device_ctypes_pointer.value
    np.testing.assert_array_equal(host, d.copy_to_host())
    double_2d[(1, 1), (4, 4)](d)
    np.testing.assert_array_equal(host, np.arange(12.0).reshape(3, 4) * 2)


@pytest.mark.parametrize("index", [np.s_[::2], np.s_[3:7], np.s_[::-1]])
def test_views_keep_their_strides(index):
    source = np.arange(10, dtype=np.int32)
    view = cuda.to_device(source)[index]
    host = np.from_dlpack(view)
    assert host.strides == view.strides
    np.testing.assert_array_equal(host, source[index])


def test_a_fortran_ordered_array_round_trips():
    source = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    host = np.from_dlpack(cuda.to_device(source))
    assert host.flags.f_contiguous
    np.testing.assert_array_equal(host, source)


def test_dlpack_copy_stream_and_device_arguments():
    d = cuda.to_device(np.arange(4.0))
    independent = np.from_dlpack(_Capsule(d.__dlpack__(copy=True)))
    d[0] = 7.0
    assert independent.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert np.from_dlpack(_Capsule(d.__dlpack__(stream=-1, copy=False)))[0] == 7.0
    with pytest.raises(BufferError, match="takes no stream"):
        d.__dlpack__(stream=1)
    with pytest.raises(BufferError, match="not to device"):
        d.__dlpack__(dl_device=(2, 0))
    assert np.from_dlpack(_Capsule(d.__dlpack__(dl_device=(1, 0))))[0] == 7.0


class _Capsule:
    """A producer that hands out one capsule it has already made."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)


def test_a_read_only_device_array_is_refused_as_dlpack_cannot_say_so():
    d = cuda.as_cuda_array(_ReadOnlyInterface(np.arange(3.0)))
    with pytest.raises(BufferError, match="readonly"):
        d.__dlpack__()


class _ReadOnlyInterface:
    def __init__(self, array):
        interface = cuda.to_device(array).__cuda_array_interface__
        self._keep = interface
        self.__cuda_array_interface__ = dict(interface, data=(interface["data"][0], True))


# -- DLPack exporters as device arrays ---------------------------------------------------------

def test_from_dlpack_views_a_numpy_array_without_a_copy():
    host = np.arange(8, dtype=np.int64)
    d = cuda.from_dlpack(host)
    assert isinstance(d, cuda.DeviceNDArray)
    assert (d.shape, d.strides, d.dtype) == (host.shape, host.strides, host.dtype)
    add_index[1, 8](d)
    np.testing.assert_array_equal(host, np.arange(8) * 2)
    host[0] = -5
    assert d[0] == -5


def test_a_device_array_round_trips_through_dlpack():
    d = cuda.to_device(np.arange(6, dtype=np.int16))[::2]
    again = cuda.from_dlpack(d)
    assert again.device_ctypes_pointer.value == d.device_ctypes_pointer.value
    add_index[1, 4](again)
    assert d.copy_to_host().tolist() == [0, 3, 6]


def test_from_dlpack_of_a_strided_tensor_of_another_library():
    host = np.zeros((4, 6))
    d = cuda.from_dlpack(DLPackOnly(host[:, ::2]))
    assert d.shape == (4, 3) and d.strides == host[:, ::2].strides
    d[1, 1] = 5.0
    assert host[1, 2] == 5.0


def test_from_dlpack_refuses_gpu_tensors_and_non_exporters():
    with pytest.raises(NotImplementedError, match="DLPack device type 2"):
        cuda.from_dlpack(DLPackOnly(np.zeros(2), device=(2, 0)))
    with pytest.raises(TypeError, match="DLPack"):
        cuda.from_dlpack([1, 2, 3])


def test_a_dlpack_exporter_is_a_kernel_argument():
    host = np.arange(6, dtype=np.float32)
    add_index[1, 8](DLPackOnly(host))
    np.testing.assert_array_equal(host, np.arange(6) * 2)


# -- StridedMemoryView-style kernel arguments ---------------------------------------------------

def test_a_strided_memory_view_is_a_kernel_argument():
    host = np.arange(20, dtype=np.int32)
    add_index[1, 32](StridedView(host[::2]))
    np.testing.assert_array_equal(host[::2], np.arange(0, 20, 2) + np.arange(10))
    np.testing.assert_array_equal(host[1::2], np.arange(1, 20, 2))


def test_a_view_without_strides_is_c_ordered():
    host = np.ones((3, 5))
    double_2d[(1, 1), (8, 8)](StridedView(host, c_order_strides=True))
    np.testing.assert_array_equal(host, np.full((3, 5), 2.0))
    view = from_strided_memory_view(StridedView(host, c_order_strides=True))
    assert view.strides == host.strides and view.flags.c_contiguous


def test_a_read_only_view_is_a_read_only_array():
    source = np.arange(5.0)
    source.flags.writeable = False
    out = np.zeros(5)
    copy_doubled[1, 8](StridedView(source), out)
    np.testing.assert_array_equal(out, source * 2)
    with pytest.raises(CompileError, match="readonly array"):
        add_index[1, 8](StridedView(source))


# -- __cuda_array_interface__ streams ------------------------------------------------------------

class _Foreign:
    def __init__(self, interface, keep):
        self.__cuda_array_interface__ = interface
        self._keep = keep


def _with_stream(array, stream):
    return _Foreign(dict(array.__cuda_array_interface__, stream=stream), array)


@pytest.fixture
def synchronised(monkeypatch):
    handles = []
    monkeypatch.setattr(driver.Stream, "synchronize", lambda self: handles.append(int(self)))
    return handles


@pytest.mark.parametrize("stream", [1, 2, 12345])
def test_an_interface_stream_is_the_arrays_and_synchronised_at_a_launch(stream, synchronised):
    d = cuda.to_device(np.zeros(4))
    consumed = cuda.as_cuda_array(_with_stream(d, stream))
    assert consumed.stream.external and int(consumed.stream) == stream
    assert synchronised == [stream]
    add_index[1, 4](_with_stream(d, stream))
    assert synchronised == [stream, stream]
    assert d.copy_to_host().tolist() == [0.0, 1.0, 2.0, 3.0]


def test_no_stream_or_no_sync_synchronises_nothing(synchronised, monkeypatch):
    d = cuda.to_device(np.zeros(4))
    assert cuda.as_cuda_array(_with_stream(d, None)).stream == 0
    cuda.as_cuda_array(_with_stream(d, 7), sync=False)
    cuda.from_cuda_array_interface(_with_stream(d, 7).__cuda_array_interface__, sync=False)
    assert synchronised == []
    monkeypatch.setenv("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "0")
    config = sys.modules.get("numba.core.config")
    if config is not None:
        monkeypatch.setattr(config, "CUDA_ARRAY_INTERFACE_SYNC", 0, raising=False)
    add_index[1, 4](_with_stream(d, 7))
    assert synchronised == []
