"""Device arrays. simt's device memory is host memory: a DeviceNDArray wraps a private NumPy array
(`_host`) that kernels read and write in place, so copies happen exactly where Numba copies."""
import contextlib
import ctypes

import numpy as np

from . import check

__all__ = ["DeviceNDArray", "to_device", "device_array", "device_array_like", "pinned_array",
           "pinned_array_like", "mapped_array", "mapped_array_like", "managed_array", "pinned",
           "mapped", "is_cuda_array", "as_cuda_array", "from_cuda_array_interface",
           "is_device_array"]


class DeviceNDArray:
    """An array in (simulated) device memory, with numba.cuda's DeviceNDArray interface."""

    __cuda_memory__ = True

    def __init__(self, host, stream=0):
        self._host = host
        self.stream = stream

    # Shape and layout.
    shape = property(lambda self: self._host.shape)
    strides = property(lambda self: self._host.strides)
    dtype = property(lambda self: self._host.dtype)
    ndim = property(lambda self: self._host.ndim)
    size = property(lambda self: self._host.size)
    nbytes = property(lambda self: self._host.nbytes)
    alloc_size = property(lambda self: self._host.nbytes)

    def __len__(self):
        return len(self._host)

    def is_c_contiguous(self):
        return self._host.flags.c_contiguous

    def is_f_contiguous(self):
        return self._host.flags.f_contiguous

    @property
    def flags(self):
        return self._host.flags

    @property
    def __cuda_array_interface__(self):
        host = self._host
        return {"shape": host.shape,
                "strides": None if host.flags.c_contiguous else host.strides,
                "data": (host.__array_interface__["data"][0], not host.flags.writeable),
                "typestr": host.dtype.str,
                "descr": host.dtype.descr,
                "stream": None,
                "version": 3}

    @property
    def device_ctypes_pointer(self):
        return ctypes.c_void_p(self._host.__array_interface__["data"][0])

    # Copies between host and device.
    def copy_to_host(self, ary=None, stream=0):
        if ary is None:
            return np.array(self._host, copy=True, order="K")
        _check_same_size(ary, self._host)
        np.copyto(ary, self._host.reshape(ary.shape) if ary.shape != self.shape else self._host)
        return ary

    def copy_to_device(self, ary, stream=0):
        source = ary._host if isinstance(ary, DeviceNDArray) else np.asarray(ary)
        _check_same_size(source, self._host)
        if source.shape != self.shape:
            source = source.reshape(self.shape)
        np.copyto(self._host, source, casting="unsafe")
        check.written(self._host)

    def bind(self, stream=0):
        return DeviceNDArray(self._host, stream)

    # Views: they share this array's memory, as device views do.
    def __getitem__(self, item):
        result = self._host[item]
        if isinstance(result, np.ndarray):
            return DeviceNDArray(result, self.stream)
        return result

    getitem = __getitem__

    def __setitem__(self, key, value):
        self._host[key] = value._host if isinstance(value, DeviceNDArray) else value
        check.written_at(self._host, key)

    setitem = __setitem__

    def reshape(self, *newshape, order="C"):
        if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)):
            newshape = tuple(newshape[0])
        return DeviceNDArray(_view_or_fail(self._host.reshape(newshape, order=order),
                                           self._host), self.stream)

    def ravel(self, order="C", stream=0):
        return DeviceNDArray(_view_or_fail(self._host.ravel(order=order), self._host), stream)

    def transpose(self, axes=None):
        """As Numba's: the array itself for the identity permutation; otherwise a transposed copy
        in a new C-contiguous array (not a view), for 2-d arrays only."""
        if axes and tuple(axes) == tuple(range(self.ndim)):
            return self
        if self.ndim != 2:
            raise NotImplementedError("transposing a non-2D DeviceNDArray isn't supported")
        if axes is not None and set(axes) != set(range(self.ndim)):
            raise ValueError("invalid axes list %r" % (axes,))
        from .transpose import transpose
        return transpose(self)

    @property
    def T(self):
        return self.transpose()

    def view(self, dtype):
        return DeviceNDArray(self._host.view(dtype), self.stream)

    def split(self, section, stream=0):
        if self.ndim != 1 or not self.is_c_contiguous():
            raise ValueError("only one-dimensional contiguous arrays can be split")
        return [DeviceNDArray(self._host[begin:begin + section], stream)
                for begin in range(0, self.size, section)]

    def __array__(self, dtype=None):
        return self.copy_to_host() if dtype is None else self.copy_to_host().astype(dtype)

    def __repr__(self):
        return "<simt.cuda.DeviceNDArray shape=%s dtype=%s>" % (self.shape, self.dtype)


def _check_same_size(a, b):
    if a.size != b.size or a.dtype.itemsize != b.dtype.itemsize:
        raise ValueError("incompatible shape or dtype: %s %s and %s %s"
                         % (a.shape, a.dtype, b.shape, b.dtype))


def _view_or_fail(result, base):
    if result.size and not np.shares_memory(result, base):
        raise NotImplementedError("operation requires copying")
    return result


def is_device_array(obj):
    return isinstance(obj, DeviceNDArray)


def to_device(obj, stream=0, copy=True, to=None):
    """Copies a host array to a new device array (or into `to`). A device array is returned as
    is, as in Numba."""
    if to is not None:
        to.copy_to_device(obj, stream=stream)
        return to
    if isinstance(obj, DeviceNDArray):
        return obj
    host = np.asarray(obj)
    if copy:
        copied = _empty_like(host)
        copied[...] = host
        check.allocated(copied, initialised=True)
        return DeviceNDArray(copied, stream)
    return DeviceNDArray(_fresh(_empty_like(host)), stream)


# Device memory of at least this many bytes starts at a page boundary, as a GPU's large
# allocations do (racecheck's shadow memory is allocated by page: no page of it is shared with
# another array).
_PAGE = 4096
_PAGE_ALIGNED_BYTES = 16 * _PAGE


def _buffer(nbytes):
    if nbytes < _PAGE_ALIGNED_BYTES:
        return np.empty(nbytes, dtype=np.uint8)
    raw = np.empty(nbytes + _PAGE, dtype=np.uint8)
    start = -raw.ctypes.data % _PAGE
    return raw[start:start + nbytes]


def _empty(shape, dtype, order="C", strides=None):
    """An uninitialised array for device memory: np.empty's, large ones page-aligned."""
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if strides is None and not all(shape):  # no memory: NumPy's strides for the shape
        return np.empty(shape, dtype=dtype, order=order)
    if strides is None:
        strides = _contiguous_strides(shape, dtype.itemsize, order)
    extent = sum((n - 1) * abs(s) for n, s in zip(shape, strides)) + dtype.itemsize
    buffer = _buffer(extent if all(shape) else 0)
    return np.ndarray(shape, dtype=dtype, buffer=buffer, strides=strides)


def _empty_like(host):
    """_empty with `host`'s shape, dtype and memory order (np.empty_like's order="K")."""
    if not (host.flags.c_contiguous or host.flags.f_contiguous):
        return np.empty_like(host, order="K")
    return _empty(host.shape, host.dtype, "C" if host.flags.c_contiguous else "F")


def _contiguous_strides(shape, itemsize, order):
    strides, step = [], itemsize
    for n in (shape if order == "F" else reversed(shape)):
        strides.append(step)
        step *= n
    return tuple(strides if order == "F" else reversed(strides))


def _fresh(host, host_written=False):
    """Memory just allocated for kernels, holding no value yet: under `simt check`, poisoned
    and tracked by initcheck (simt.check); `host_written` for memory NumPy writes directly."""
    check.allocated(host, host_written=host_written)
    return host


def _allocate(shape, dtype, strides, order, host_written=False):
    return _fresh(_empty(shape, dtype, order, strides), host_written)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    return DeviceNDArray(_allocate(shape, dtype, strides, order), stream)


def device_array_like(ary, stream=0):
    host = ary._host if isinstance(ary, DeviceNDArray) else np.asarray(ary)
    return DeviceNDArray(_fresh(_empty_like(host)), stream)


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    return _allocate(shape, dtype, strides, order, host_written=True)


def pinned_array_like(ary):
    return _fresh(_empty_like(np.asarray(ary)), host_written=True)


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False,
                 wc=False):
    return _allocate(shape, dtype, strides, order, host_written=True)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    return _fresh(_empty_like(np.asarray(ary)), host_written=True)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0,
                  attach_global=True):
    return _allocate(shape, dtype, strides, order, host_written=True)


@contextlib.contextmanager
def pinned(*arylist):
    """Host memory is always "pinned" here: a no-op context manager, as in Numba's API."""
    yield


@contextlib.contextmanager
def mapped(*arylist, stream=0):
    """Maps host arrays into device memory: the device arrays share the host arrays' memory."""
    devarys = [DeviceNDArray(np.asarray(a), stream) for a in arylist]
    yield devarys[0] if len(devarys) == 1 else devarys


def is_cuda_array(obj):
    return hasattr(obj, "__cuda_array_interface__")


class _InterfaceHolder:
    def __init__(self, desc, owner):
        interface = {"shape": tuple(desc["shape"]), "typestr": desc["typestr"],
                     "data": tuple(desc["data"]), "strides": desc.get("strides"), "version": 3}
        if "descr" in desc:  # keeps a structured dtype's fields
            interface["descr"] = desc["descr"]
        self.__array_interface__ = interface
        self.owner = owner


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A device array over memory described by a __cuda_array_interface__: another library's
    device array, whose memory must be host memory here (simt's device memory is)."""
    if desc.get("mask") is not None:
        raise NotImplementedError("Masked arrays are not supported")
    return DeviceNDArray(np.asarray(_InterfaceHolder(desc, owner)))


def as_cuda_array(obj, sync=True):
    if isinstance(obj, DeviceNDArray):
        return DeviceNDArray(obj._host, obj.stream)
    if not is_cuda_array(obj):
        raise TypeError("*obj* doesn't implement the cuda array interface.")
    return from_cuda_array_interface(obj.__cuda_array_interface__, owner=obj, sync=sync)
