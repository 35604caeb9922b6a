"""The host side of numba.cuda's memory API: device arrays over (simulated) device memory."""
import ctypes

import numpy as np
import pytest

from simt import cuda


def test_to_device_copies_and_copy_to_host_copies_back():
    host = np.arange(10.0)
    d = cuda.to_device(host)
    assert d.shape == (10,) and d.dtype == np.float64 and d.size == 10 and d.ndim == 1
    assert d.nbytes == 80 and d.strides == (8,) and len(d) == 10
    host[0] = 99.0
    back = d.copy_to_host()
    assert back[0] == 0.0 and back is not host
    out = np.empty(10)
    assert d.copy_to_host(out) is out
    np.testing.assert_array_equal(out, np.arange(10.0))


def test_to_device_of_a_device_array_is_that_array():
    d = cuda.to_device(np.zeros(3))
    assert cuda.to_device(d) is d


def test_to_device_into_an_existing_array():
    d = cuda.device_array(4, dtype=np.int32)
    assert cuda.to_device(np.arange(4, dtype=np.int32), to=d) is d
    np.testing.assert_array_equal(d.copy_to_host(), [0, 1, 2, 3])


def test_device_array_shapes_dtypes_and_orders():
    d = cuda.device_array((3, 4), dtype=np.float32)
    assert d.shape == (3, 4) and d.dtype == np.float32 and d.is_c_contiguous()
    f = cuda.device_array((3, 4), order="F")
    assert f.is_f_contiguous() and not f.is_c_contiguous() and f.dtype == np.float64
    s = cuda.device_array((2, 3), dtype=np.int32, strides=(4, 8))
    assert s.strides == (4, 8)
    like = cuda.device_array_like(np.zeros((5, 2), np.int16, order="F"))
    assert like.shape == (5, 2) and like.dtype == np.int16 and like.is_f_contiguous()
    assert cuda.device_array_like(d).shape == (3, 4)


def test_views_share_memory():
    d = cuda.to_device(np.zeros(10))
    view = d[2:5]
    assert isinstance(view, cuda.DeviceNDArray) and view.shape == (3,)
    view[:] = 7.0
    np.testing.assert_array_equal(d.copy_to_host()[1:6], [0, 7, 7, 7, 0])
    d[0] = 1.5
    assert d[0] == 1.5
    d[5:7] = cuda.to_device(np.array([3.0, 4.0]))
    assert list(d.copy_to_host()[5:7]) == [3.0, 4.0]


def test_reshape_ravel_transpose():
    d = cuda.to_device(np.arange(12.0))
    r = d.reshape(3, 4)
    assert r.shape == (3, 4)
    assert d.reshape((4, 3)).shape == (4, 3)
    t = r.T
    assert t.shape == (4, 3) and t.is_c_contiguous()  # Numba's .T is a transposed copy
    np.testing.assert_array_equal(t.copy_to_host(), np.arange(12.0).reshape(3, 4).T)
    assert r.ravel().shape == (12,)
    with pytest.raises(NotImplementedError):
        r[:, ::2].ravel()
    r[0, 0] = -1.0
    assert d.copy_to_host()[0] == -1.0


def test_copy_to_device_and_size_checks():
    d = cuda.device_array(4)
    d.copy_to_device(np.arange(4.0))
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(4.0))
    d.copy_to_device(cuda.to_device(np.ones(4)))
    np.testing.assert_array_equal(np.asarray(d), np.ones(4))
    with pytest.raises(ValueError):
        d.copy_to_device(np.arange(5.0))


def test_array_protocol_and_cuda_array_interface():
    host = np.arange(6, dtype=np.int32)
    d = cuda.to_device(host)
    np.testing.assert_array_equal(np.asarray(d), host)
    cai = d.__cuda_array_interface__
    assert cai["shape"] == (6,) and cai["typestr"] == "<i4" and cai["version"] == 3
    assert cai["strides"] is None
    assert cai["data"][0] == d.device_ctypes_pointer.value
    assert isinstance(d.device_ctypes_pointer, ctypes.c_size_t)  # Numba's drvapi.cu_device_ptr
    assert cuda.is_cuda_array(d) and not cuda.is_cuda_array(host)


def test_as_cuda_array_shares_memory():
    d = cuda.to_device(np.zeros(4))
    alias = cuda.as_cuda_array(d)
    alias[1] = 5.0
    assert d[1] == 5.0

    class Foreign:
        def __init__(self, ary):
            self.ary = ary
            self.__cuda_array_interface__ = {"shape": ary.shape, "strides": None,
                                             "typestr": ary.dtype.str, "version": 3,
                                             "data": (ary.ctypes.data, False)}

    host = np.arange(3.0)
    wrapped = cuda.as_cuda_array(Foreign(host))
    wrapped[0] = 42.0
    assert host[0] == 42.0
    with pytest.raises(TypeError):
        cuda.as_cuda_array(np.zeros(2))


def test_split():
    parts = cuda.to_device(np.arange(10)).split(4)
    assert [p.shape for p in parts] == [(4,), (4,), (2,)]


def test_host_allocations():
    for make in (cuda.pinned_array, cuda.mapped_array, cuda.managed_array):
        a = make((2, 3), dtype=np.float32)
        assert isinstance(a, np.ndarray) and a.shape == (2, 3) and a.dtype == np.float32
    host = np.zeros(3)
    with cuda.pinned(host):
        pass
    with cuda.mapped(host) as d:
        d[0] = 2.0
    assert host[0] == 2.0


def test_record_dtypes_allocate():
    dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)
    d = cuda.device_array(4, dtype=dtype)
    d.copy_to_device(np.zeros(4, dtype=dtype))
    assert d.copy_to_host()["s0"].sum() == 0


@pytest.mark.parametrize("make", [
    lambda: cuda.device_array((300, 100), np.float32),
    lambda: cuda.device_array((300, 100), np.float32, order="F"),
    lambda: cuda.device_array_like(np.ones((100, 300))),
    lambda: cuda.to_device(np.asfortranarray(np.arange(30000.0).reshape(100, 300))),
    lambda: cuda.pinned_array(20000, np.int32),
])
def test_large_device_arrays_start_at_a_page(make):
    """Device arrays of 64 KiB and more start at a page boundary, as a GPU's large allocations
    do, with NumPy's layout for their shape and order."""
    array = make()
    host = array._host if hasattr(array, "_host") else array
    assert host.ctypes.data % 4096 == 0
    assert host.flags.c_contiguous or host.flags.f_contiguous
    template = np.empty(host.shape, host.dtype, order="C" if host.flags.c_contiguous else "F")
    assert host.strides == template.strides
    if hasattr(array, "copy_to_host") and not isinstance(array, np.ndarray):
        array.copy_to_device(np.ones(host.shape, host.dtype))
        assert array.copy_to_host().sum() == host.size


def test_numba_devicearray_module_helpers_match_numbas():
    """numba.cuda.cudadrv.devicearray's helpers that libraries and tests call, as simt's module
    gives them, against Numba's own on the same arrays."""
    from numba.cuda.cudadrv import devicearray as numbas
    from simt import cudadrv_devicearray as simts

    base = np.zeros((4, 6))
    arrays = [base, base[::2], base.T, base[:, ::3], np.asfortranarray(base), base[:1],
              np.broadcast_to(np.arange(6.0), (4, 6)), np.zeros(0), np.zeros((3, 1, 2))[:, :, ::2]]
    for a in arrays:
        assert simts.is_contiguous(a) == numbas.is_contiguous(a), a.strides
        assert simts.array_core(a).shape == numbas.array_core(a).shape
        for module in (simts, numbas):
            try:
                module.sentry_contiguous(a)
                outcome = None
            except ValueError as e:
                outcome = str(e)
            if module is simts:
                ours = outcome
        assert ours == outcome
    for a, b in [(base, base.copy()), (base, base.T), (base, base.astype(np.float32)),
                 (base[:1], base[0])]:
        for module in (simts, numbas):
            try:
                module.check_array_compatibility(a, b)
                outcome = None
            except (TypeError, ValueError) as e:
                outcome = (type(e), str(e))
            if module is simts:
                ours = outcome
        assert ours == outcome


def test_getitem_and_setitem_take_a_stream():
    # Numba's DeviceNDArray.getitem/setitem(..., stream=): simt's copies are synchronous
    d = cuda.to_device(np.arange(5))
    for stream in (0, cuda.stream(), cuda.default_stream(), cuda.per_thread_default_stream()):
        d.setitem(0, 10, stream=stream)
        d.setitem(slice(3, 5), np.array([7, 8]), stream=stream)
        assert d.getitem(0, stream=stream) == 10
        assert d.getitem(slice(3, None), stream=stream).copy_to_host().tolist() == [7, 8]
    assert d.copy_to_host().tolist() == [10, 1, 2, 7, 8]


def test_auto_device_and_setitem_copy_host_arrays_as_one_region():
    # Numba's auto_device (numba.cuda.args' hints, setitem's value): device memory as it is,
    # CUDA array interface objects viewed, host arrays copied after sentry_contiguous
    from simt.cudadrv_devicearray import auto_device, errmsg_contiguous_buffer
    a = np.arange(10.0)
    d = cuda.to_device(a)
    assert auto_device(d) == (d, False)
    mapped = cuda.mapped_array(3)
    assert auto_device(mapped)[0] is mapped and auto_device(mapped)[1] is False
    copied, conv = auto_device(a)
    assert conv and isinstance(copied, cuda.DeviceNDArray)
    assert copied.copy_to_host().tolist() == a.tolist()
    broadcast, _ = auto_device(np.broadcast_to(np.array([2.0]), (4,)))
    assert broadcast.copy_to_host().tolist() == [2.0] * 4
    for bad in (a[::2], a[::-1], np.zeros((4, 6))[:, ::2]):
        for call in (lambda: auto_device(bad), lambda: auto_device(bad, copy=False),
                     lambda: cuda.to_device(bad)):
            with pytest.raises(ValueError) as info:
                call()
            assert str(info.value) == errmsg_contiguous_buffer
    with pytest.raises(ValueError, match="non-contiguous buffer"):
        d[:5] = a[::2]
    assert d.copy_to_host().tolist() == a.tolist()
    d[:5] = a[5:]
    d[5:] = d[::2]  # device memory: any strides
    d.setitem(0, 7.0)
    assert d.copy_to_host().tolist() == [7, 6, 7, 8, 9, 5, 7, 9, 6, 8]


def test_squeeze_and_as_cuda_arg_as_numbas():
    # numba/cuda/cudadrv/devicearray.py: squeeze(axis=None, stream=0) is a view without axes of
    # length one (dummyarray.squeeze's checks); as_cuda_arg() is gpu_data
    d = cuda.to_device(np.arange(6.0).reshape(1, 6, 1))
    s = d.squeeze()
    assert isinstance(s, cuda.DeviceNDArray) and s.shape == (6,) and s.strides == (8,)
    s[0] = 100.0  # a view of the same memory
    assert d.copy_to_host().ravel().tolist() == [100.0, 1, 2, 3, 4, 5]
    assert d.squeeze(axis=0).shape == (6, 1) and d.squeeze(axis=(0, 2)).shape == (6,)
    assert d.squeeze(axis=-1).shape == (1, 6, 1)  # Numba checks a negative axis, keeps it
    with pytest.raises(ValueError, match="cannot select an axis to squeeze out which has size "
                                         "not equal to one"):
        d.squeeze(axis=1)
    stream = cuda.stream()
    assert d.squeeze(stream=stream).stream is stream and d.squeeze().stream == 0
    assert cuda.to_device(np.zeros((3, 4)))[:, ::2].squeeze().strides == (32, 16)
    assert d.as_cuda_arg() is d.gpu_data
    assert d[0].as_cuda_arg().device_pointer_value == d.gpu_data.device_pointer_value


def test_mapped_and_managed_arrays_are_device_arrays_too():
    # Numba's MappedNDArray/ManagedNDArray derive from DeviceNDArrayBase: its copies, bind,
    # split and as_cuda_arg work on them, beside NumPy's own methods.
    for make in (cuda.mapped_array, cuda.managed_array):
        a = make(4)
        a[:] = [1, 2, 3, 4]
        host = a.copy_to_host()
        assert type(host) is np.ndarray and host.tolist() == [1, 2, 3, 4]
        out = np.zeros(4)
        a.copy_to_host(out)
        assert out.tolist() == [1, 2, 3, 4]
        a.copy_to_device(np.arange(4.0) * 10)
        assert a.tolist() == [0, 10, 20, 30]
        halves = a.split(2)
        assert [h.copy_to_host().tolist() for h in halves] == [[0, 10], [20, 30]]
        assert a.as_cuda_arg().device_pointer.value == a.device_ctypes_pointer.value
        assert a.bind(cuda.stream()).copy_to_host().tolist() == [0, 10, 20, 30]
