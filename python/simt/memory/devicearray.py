"""Device arrays. simt's device memory is host memory: a DeviceNDArray wraps a private NumPy array
(`_host`) that kernels read and write in place, so copies happen exactly where Numba copies."""
import contextlib
import operator

import numpy as np

from simt.base.numpy_compat import COPY_IF_NEEDED, array_layout, byte_bounds

from . import driver, watch
from .driver import (IpcHandle, _config, _ipc_mem_handle_of, get_context,
                     memory_size_from_info)
from .pointers import MemoryPointer, device_pointer_type, host_bytes, page_buffer

__all__ = ["DeviceNDArray", "DeviceRecord", "MappedNDArray", "to_device", "array_core",
           "is_contiguous", "sentry_contiguous", "check_array_compatibility",
           "errmsg_contiguous_buffer", "device_array", "device_array_like", "pinned_array",
           "pinned_array_like", "mapped_array", "mapped_array_like", "managed_array", "pinned",
           "mapped", "is_cuda_array", "as_cuda_array", "from_cuda_array_interface",
           "is_device_array", "open_ipc_array", "from_dlpack"]


class DeviceNDArray:
    """An array in (simulated) device memory, with numba.cuda's DeviceNDArray interface.
    `DeviceNDArray(shape, strides, dtype, stream=0, gpu_data=None)` is Numba's constructor: over
    `gpu_data` (a memory pointer whose memory the host can address), or over a new allocation
    from the current context's memory manager."""

    __cuda_memory__ = True
    __cuda_ndarray__ = True

    def __init__(self, shape, strides, dtype, stream=0, gpu_data=None):
        shape = _shape(shape)
        strides = (strides,) if isinstance(strides, (int, np.integer)) else tuple(strides)
        dtype = _device_dtype(dtype)
        if len(strides) != len(shape):
            raise ValueError("strides not match ndim")
        extent = memory_size_from_info(shape, strides, dtype.itemsize)
        allocated = gpu_data is None
        if allocated:
            gpu_data = _memalloc(extent)
        elif extent > gpu_data.size:  # the array would reach past the memory's end
            raise ValueError("simt: an array of shape %s, strides %s and dtype %s spans %d "
                             "bytes; its gpu_data holds %d"
                             % (shape, strides, dtype, extent, gpu_data.size))
        offset = -sum((n - 1) * s for n, s in zip(shape, strides) if s < 0 and n > 0)
        host = np.ndarray(shape, dtype, buffer=_memory_bytes(gpu_data, extent), offset=offset,
                          strides=strides)
        self._setup(_fresh(host) if allocated else host, stream, gpu_data, None)

    @classmethod
    def _from_host(cls, host, stream=0, gpu_data=None, view_of=None):
        """A device array whose memory is the NumPy array `host`'s: memory `gpu_data` allocated,
        a view of the device array `view_of`, or memory of the host (mapped, foreign)."""
        array = cls.__new__(cls)
        array._setup(host, stream, gpu_data, view_of)
        return array

    def _setup(self, host, stream, gpu_data, view_of):
        self._host = host
        self.stream = stream
        self._gpu_data = gpu_data
        # The allocation a view keeps alive, as Numba's views hold their parent's memory.
        self._allocation = view_of._allocation if view_of is not None else gpu_data

    @property
    def gpu_data(self):
        """The memory pointer of this array's data: its allocation, or for a view an owned view
        of its parent's allocation."""
        if self._gpu_data is None:
            start = _start_address(self._host)
            owner = self._allocation
            if owner is not None and owner.device_pointer_value:
                base = owner.device_pointer_value  # the view spans its own bytes, as Numba's
                self._gpu_data = owner.view(start - base, start - base + self._cuda_memsize_)
            else:
                self._gpu_data = MemoryPointer(get_context(), device_pointer_type(start),
                                               self._host.nbytes)
        return self._gpu_data

    def _view(self, host, stream=None):
        return DeviceNDArray._from_host(host, self.stream if stream is None else stream,
                                        view_of=self)

    @property
    def _numba_type_(self):
        """Numba's type of this array (Array(dtype, ndim, layout)), for Numba's typeof."""
        from numba.core import types
        from numba.np import numpy_support
        return types.Array(numpy_support.from_dtype(self.dtype), self.ndim,
                           array_layout(self._host), readonly=not self._host.flags.writeable)

    def get_ipc_handle(self):
        """An IpcArrayHandle of this array's memory, from the memory manager's get_ipc_handle."""
        handle = get_context().get_ipc_handle(self.gpu_data)
        return IpcArrayHandle(handle, {"shape": self.shape, "strides": self.strides,
                                       "dtype": self.dtype})

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
                "data": (host.__array_interface__["data"][0] if host.size else 0,
                         not host.flags.writeable),
                "typestr": host.dtype.str,
                "descr": host.dtype.descr,
                "stream": int(self.stream) if self.stream != 0 else None,
                "version": 3}

    @property
    def device_ctypes_pointer(self):
        return device_pointer_type(self._host.__array_interface__["data"][0])

    @property
    def _cuda_memsize_(self):
        return memory_size_from_info(self.shape, self.strides, self.dtype.itemsize)

    # DLPack. simt's device memory is host memory, so a device array is exported as what it
    # is, a CPU tensor (kDLCPU): NumPy and other CPU consumers use its memory in place.
    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of this array's memory (a copy's with copy=True). A CPU tensor takes
        no stream: `stream` must be None (or -1, no synchronisation; launches are synchronous).
        The capsule is DLPack's unversioned one, whatever `max_version` asks."""
        if stream not in (None, -1):
            raise BufferError("simt: a device array is a CPU DLPack tensor (device memory is "
                              "host memory), which takes no stream; got stream=%r" % (stream,))
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("simt: a device array is exported as a CPU DLPack tensor %r, "
                              "not to device %r" % (self.__dlpack_device__(), dl_device))
        return (np.array(self._host) if copy else self._host).__dlpack__()

    def __dlpack_device__(self):
        return (_DLPACK_CPU, 0)

    # Copies between host and device.
    def copy_to_host(self, ary=None, stream=0):
        """A host copy of this array (into `ary`, whose dtype, shape and strides must be this
        array's, as Numba requires)."""
        if any(stride < 0 for stride in self.strides):
            raise NotImplementedError("D->H copy not implemented for negative strides: %s"
                                      % (self.strides,))
        if ary is None:
            return np.array(self._host, copy=True, order="K")
        check_array_compatibility(self._host, ary)
        np.copyto(ary, self._host.reshape(ary.shape))
        return ary

    def copy_to_device(self, ary, stream=0):
        """Copies `ary` (host or device memory) into this array, as one region of memory into
        another, as Numba does: both contiguous once broadcast dimensions are left out, with
        the same dtype, shape and strides (a host array is made so first where it may be)."""
        if ary.size == 0:
            return
        sentry_contiguous(self._host)
        # array_core as a view (never a scalar): where the copy's bytes go
        core = self._host[tuple(0 if s == 0 else slice(None) for s in self.strides) + (...,)]
        if isinstance(ary, DeviceNDArray) or hasattr(ary, "__cuda_array_interface__"):
            source = as_cuda_array(ary, sync=False)._host
            sentry_contiguous(source)
        else:
            source = np.asarray(ary)
        source = array_core(source)
        if not isinstance(ary, DeviceNDArray):
            source = np.array(source, order="C" if core.flags.c_contiguous else "F",
                              copy=True if not source.flags.writeable else COPY_IF_NEEDED)
        check_array_compatibility(core, source)
        np.copyto(core, source.reshape(core.shape), casting="unsafe")
        watch.written(self._host)

    def bind(self, stream=0):
        return self._view(self._host, stream)

    # Views: they share this array's memory, as device views do.
    def __getitem__(self, item):
        result = self._host[item]
        if isinstance(result, np.ndarray):
            return self._view(result)
        return result

    def getitem(self, item, stream=0):
        """self[item], on `stream` (Numba's; simt's copies are synchronous)."""
        return self[item]

    def __setitem__(self, key, value):
        """self[key] = value: a host array `value` is copied to the device first, as Numba's
        auto_device does (ValueError where it is not one region of memory: sentry_contiguous)."""
        if isinstance(value, DeviceNDArray):
            value = value._host
        elif isinstance(value, np.ndarray) and not getattr(value, "__cuda_memory__", False):
            sentry_contiguous(value)
        self._host[key] = value
        watch.written_at(self._host, key)

    def setitem(self, key, value, stream=0):
        """self[key] = value, on `stream` (Numba's; simt's copies are synchronous)."""
        self[key] = value

    def reshape(self, *newshape, order="C"):
        if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)):
            newshape = tuple(newshape[0])
        return self._view(_view_or_fail(self._host.reshape(newshape, order=order), self._host))

    def ravel(self, order="C", stream=0):
        return self._view(_view_or_fail(self._host.ravel(order=order), self._host), stream)

    def transpose(self, axes=None):
        """As Numba's: the array itself for the identity permutation; otherwise a transposed copy
        in a new C-contiguous array (not a view), for 2-d arrays only."""
        if axes and tuple(axes) == tuple(range(self.ndim)):
            return self
        if self.ndim != 2:
            raise NotImplementedError("transposing a non-2D DeviceNDArray isn't supported")
        if axes is not None and set(axes) != set(range(self.ndim)):
            raise ValueError("invalid axes list %r" % (axes,))
        return transpose(self)

    @property
    def T(self):
        return self.transpose()

    def squeeze(self, axis=None, stream=0):
        """A view without axes of length one (those of `axis`, an int or a tuple of ints: a
        ValueError for one longer than one), as Numba's (whose axes are compared as given: a
        negative axis is checked but not removed), on `stream` (this array's where 0)."""
        if axis is None:
            kept = [i for i, length in enumerate(self.shape) if length != 1]
        else:
            if not isinstance(axis, tuple):
                axis = (axis,)
            for ax in axis:
                if self.shape[ax] != 1:
                    raise ValueError("cannot select an axis to squeeze out which has size not "
                                     "equal to one")
            kept = [i for i in range(self.ndim) if i not in axis]
        host = np.lib.stride_tricks.as_strided(
            self._host, tuple(self.shape[i] for i in kept), tuple(self.strides[i] for i in kept),
            writeable=self._host.flags.writeable)
        return self._view(host, self.stream if not stream else stream)

    def as_cuda_arg(self):
        """The device memory object passed as the argument (Numba's: gpu_data)."""
        return self.gpu_data

    def view(self, dtype):
        view = self._view(self._host.view(dtype))
        view._gpu_data = self.gpu_data  # the same memory pointer, as Numba's
        return view

    def split(self, section, stream=0):
        if self.ndim != 1 or not self.is_c_contiguous():
            raise ValueError("only one-dimensional contiguous arrays can be split")
        return [self._view(self._host[begin:begin + section], stream)
                for begin in range(0, self.size, section)]

    def __array__(self, dtype=None, copy=None):
        # NumPy 2 passes copy=; False would mean no copy, and device memory always copies.
        if copy is False:
            raise ValueError("`copy=False` is not supported. A copy is always created.")
        return self.copy_to_host() if dtype is None else self.copy_to_host().astype(dtype)

    def __repr__(self):
        return "<simt.cuda.DeviceNDArray shape=%s dtype=%s>" % (self.shape, self.dtype)


class DeviceRecord(DeviceNDArray):
    """A record (one element of a structured dtype) in device memory, as Numba's: a 0-d device
    array that kernels receive as a record (writes reach its memory)."""

    _is_device_record = True

    def __init__(self, dtype, stream=0, gpu_data=None):
        super().__init__((), (), dtype, stream, gpu_data)

    @property
    def _numba_type_(self):
        from numba.np import numpy_support
        return numpy_support.from_dtype(self.dtype)

    def copy_to_host(self, ary=None, stream=0):
        if ary is None:
            return self._host[()].copy()
        np.asarray(ary)[...] = self._host
        return ary

    def copy_to_device(self, ary, stream=0):
        source = ary._host if isinstance(ary, DeviceNDArray) else np.asarray(ary)
        self._host[...] = source
        watch.written(self._host)


class MappedNDArray(np.ndarray):
    """A host array mapped into device memory (mapped_array, managed_array): a NumPy array that
    is device memory too, as Numba's."""

    __cuda_memory__ = True
    stream = 0

    @property
    def device_ctypes_pointer(self):
        return device_pointer_type(_start_address(self))

    @property
    def _cuda_memsize_(self):
        return memory_size_from_info(self.shape, self.strides, self.itemsize)

    @property
    def gpu_data(self):
        return MemoryPointer(get_context(), self.device_ctypes_pointer, self._cuda_memsize_)

    @property
    def __cuda_array_interface__(self):
        return self._device().__cuda_array_interface__

    def _device(self):
        """This memory as a DeviceNDArray: Numba's mapped and managed arrays are device arrays
        too (DeviceNDArrayBase), with its methods where NumPy's ndarray has none."""
        return DeviceNDArray._from_host(self.view(np.ndarray), self.stream)

    def copy_to_host(self, ary=None, stream=0):
        return self._device().copy_to_host(ary, stream)

    def copy_to_device(self, ary, stream=0):
        self._device().copy_to_device(ary, stream)

    def bind(self, stream=0):
        return self._device().bind(stream)

    def split(self, section, stream=0):
        return self._device().split(section, stream)

    def as_cuda_arg(self):
        return self.gpu_data

    def get_ipc_handle(self):
        return self._device().get_ipc_handle()


def array_core(ary):
    """The view of `ary` without its broadcast dimensions (stride 0), whose memory it repeats."""
    if not ary.strides or not ary.size:
        return ary
    return ary[tuple(0 if stride == 0 else slice(None) for stride in ary.strides)]


def is_contiguous(ary):
    """Whether `ary` is C-contiguous once its broadcast and 1-long dimensions are left out."""
    expected = ary.dtype.itemsize
    for extent, stride in zip(reversed(ary.shape), reversed(ary.strides)):
        if extent <= 1 or stride == 0:
            continue
        if stride != expected:
            return False
        expected *= extent
    return True


errmsg_contiguous_buffer = ("Array contains non-contiguous buffer and cannot be transferred as "
                            "a single memory region. Please ensure contiguous buffer with "
                            "numpy .ascontiguousarray()")


def sentry_contiguous(ary):
    """Raises ValueError unless `ary`'s core (array_core) is one C- or F-contiguous region."""
    core = array_core(ary)
    if not (core.flags.c_contiguous or core.flags.f_contiguous):
        raise ValueError(errmsg_contiguous_buffer)


def check_array_compatibility(ary1, ary2):
    """Raises unless a copy between `ary1` and `ary2` is one region to another: the same dtype,
    the same shape and (for a non-empty copy) strides, 1-long dimensions aside."""
    squeezed1, squeezed2 = ary1.squeeze(), ary2.squeeze()
    if ary1.dtype != ary2.dtype:
        raise TypeError("incompatible dtype: %s vs. %s" % (ary1.dtype, ary2.dtype))
    if squeezed1.shape != squeezed2.shape:
        raise ValueError("incompatible shape: %s vs. %s" % (ary1.shape, ary2.shape))
    if ary1.size and squeezed1.strides != squeezed2.strides:
        raise ValueError("incompatible strides: %s vs. %s" % (ary1.strides, ary2.strides))


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
    if isinstance(obj, np.void):
        record = DeviceRecord(obj.dtype, stream)
        if copy:
            record.copy_to_device(obj)
        return record
    if hasattr(obj, "__cuda_array_interface__"):
        return as_cuda_array(obj)
    # Numba's: one region of memory with the host array's strides (broadcast ones too)
    host = np.asarray(obj)
    sentry_contiguous(host)
    array = DeviceNDArray(host.shape, host.strides, host.dtype, stream)
    if copy:
        array.copy_to_device(host)
    return array


def _memalloc(nbytes):
    if nbytes == 0:
        return MemoryPointer(get_context(), device_pointer_type(0), 0)
    return get_context().memalloc(nbytes)


def _memory_bytes(gpu_data, nbytes):
    """A uint8 array over the first `nbytes` of the memory `gpu_data` points to: simt's own
    allocations' buffer, or host memory at a plugin's pointer."""
    buffer = getattr(gpu_data, "_simt_buffer", None)
    if buffer is not None:
        return buffer[:nbytes]
    return host_bytes(gpu_data.device_pointer_value or 0, nbytes)


def _device_memory(nbytes):
    """A new allocation of the current context's memory manager: (its memory pointer, a uint8
    array over its memory)."""
    gpu_data = _memalloc(nbytes)
    return gpu_data, _memory_bytes(gpu_data, nbytes)


def _start_address(host):
    return byte_bounds(host)[0] if host.size else host.__array_interface__["data"][0]


def _shape(shape):
    """An array's shape as a tuple, refused as NumPy's constructors refuse it."""
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if any(operator.index(n) < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed")
    return shape


def _device_dtype(dtype):
    """The dtype of an array in device memory, which holds values, not Python objects: an
    object array over memory written as bytes would hold stray pointers."""
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        raise TypeError("simt: device memory cannot hold Python objects (dtype %s): use a "
                        "numeric, boolean or record dtype" % dtype)
    return dtype


def _empty(shape, dtype, order="C", strides=None, memory=page_buffer):
    """An uninitialised array for device memory: np.empty's, large ones page-aligned; its bytes
    from memory(nbytes)."""
    dtype = _device_dtype(dtype)
    shape = _shape(shape)
    if strides is None and not all(shape):  # no memory: NumPy's strides for the shape
        return np.empty(shape, dtype=dtype, order=order)
    if strides is None:
        strides = _contiguous_strides(shape, dtype.itemsize, order)
    extent = sum((n - 1) * abs(s) for n, s in zip(shape, strides)) + dtype.itemsize
    buffer = memory(extent if all(shape) else 0)
    return np.ndarray(shape, dtype=dtype, buffer=buffer, strides=strides)


def _empty_like(host, memory=page_buffer):
    """_empty with `host`'s shape, dtype and memory order (np.empty_like's order="K")."""
    if not (host.flags.c_contiguous or host.flags.f_contiguous):
        strides = np.empty_like(host, order="K").strides
        return _empty(host.shape, host.dtype, strides=strides, memory=memory)
    return _empty(host.shape, host.dtype, "C" if host.flags.c_contiguous else "F", memory=memory)


def _on_device(make):
    """make(memory) (_empty or _empty_like) over a new allocation of the current context:
    (array, memory pointer, or None for an array of no elements)."""
    allocation = []

    def memory(nbytes):
        gpu_data, buffer = _device_memory(nbytes)
        allocation.append(gpu_data)
        return buffer

    host = make(memory)
    return host, allocation[0] if allocation else None


def _device_empty(shape, dtype, order="C", strides=None):
    return _on_device(lambda memory: _empty(shape, dtype, order, strides, memory))


def _device_empty_like(host):
    return _on_device(lambda memory: _empty_like(host, memory))


def _contiguous_strides(shape, itemsize, order):
    strides, step = [], itemsize
    for n in (shape if order == "F" else reversed(shape)):
        strides.append(step)
        step *= n
    return tuple(strides if order == "F" else reversed(strides))


def _fresh(host, host_written=False):
    """Memory just allocated for kernels, holding no value yet: under `simt check`, poisoned
    and tracked by initcheck (simt.tools.check); `host_written` for memory NumPy writes directly."""
    watch.allocated(host, host_written=host_written)
    return host


class IpcArrayHandle:
    """What DeviceNDArray.get_ipc_handle returns: the memory manager's IPC handle of the array's
    memory (`_ipc_handle`) and the array's shape, strides and dtype. Picklable, to be sent to
    another process, which opens it (open(), or `with handle as array:`) as a device array over
    the same memory; close() releases it there."""

    def __init__(self, ipc_handle, array_desc):
        self._array_desc = array_desc
        self._ipc_handle = ipc_handle

    def open(self):
        return DeviceNDArray(gpu_data=self._ipc_handle.open(get_context()), **self._array_desc)

    def close(self):
        self._ipc_handle.close()

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """A device array over the memory an IPC handle names, given as its 64 bytes (bytes or a
    tuple of ints, as `bytes(ipc_handle.handle)`), from `offset` bytes into the exported
    allocation; C-contiguous where `strides` is None. The handle is closed at the exit."""
    dtype = _device_dtype(dtype)
    shape = _shape(shape)
    if strides is None:
        strides = _contiguous_strides(shape, dtype.itemsize, "C")
    strides = (strides,) if isinstance(strides, (int, np.integer)) else tuple(strides)
    size = memory_size_from_info(shape, strides, dtype.itemsize)  # what the array spans
    ipc_handle = IpcHandle(None, _ipc_mem_handle_of(handle), size, offset=offset)
    array = ipc_handle.open_array(get_context(), shape, dtype, strides)
    try:
        yield array
    finally:
        ipc_handle.close()


def _allocate(shape, dtype, strides, order, host_written=False):
    return _fresh(_empty(shape, dtype, order, strides), host_written)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    host, gpu_data = _device_empty(shape, dtype, order, strides)
    return DeviceNDArray._from_host(_fresh(host), stream, gpu_data)


def device_array_like(ary, stream=0):
    host, gpu_data = _device_empty_like(ary._host if isinstance(ary, DeviceNDArray)
                                        else np.asarray(ary))
    return DeviceNDArray._from_host(_fresh(host), stream, gpu_data)


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    return _allocate(shape, dtype, strides, order, host_written=True)


def pinned_array_like(ary):
    return _fresh(_empty_like(np.asarray(ary)), host_written=True)


def _mapped(host, stream):
    mapped = host.view(MappedNDArray)
    mapped.stream = stream
    return mapped


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False,
                 wc=False):
    return _mapped(_allocate(shape, dtype, strides, order, host_written=True), stream)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    return _mapped(_fresh(_empty_like(np.asarray(ary)), host_written=True), stream)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0,
                  attach_global=True):
    return _mapped(_allocate(shape, dtype, strides, order, host_written=True), stream)


@contextlib.contextmanager
def pinned(*arylist):
    """Host memory is always "pinned" here: a no-op context manager, as in Numba's API."""
    yield


@contextlib.contextmanager
def mapped(*arylist, stream=0):
    """Maps host arrays into device memory: the device arrays share the host arrays' memory."""
    devarys = [DeviceNDArray._from_host(np.asarray(a), stream) for a in arylist]
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
    stream = 0
    if desc.get("stream") is not None:  # the producer's stream, synchronised before use
        stream = get_context().create_external_stream(desc["stream"])
        if sync and _array_interface_sync():
            stream.synchronize()
    if desc["data"][0] == 0:  # no memory (an array of no elements): NumPy wants a pointer
        descr = desc.get("descr")
        named = descr and any(field[0] for field in descr)  # a record's fields
        host = np.empty(tuple(desc["shape"]), np.dtype(descr if named else desc["typestr"]))
    else:
        host = np.asarray(_InterfaceHolder(desc, owner))
    return DeviceNDArray._from_host(host, stream)


def _array_interface_sync():
    """NUMBA_CUDA_ARRAY_INTERFACE_SYNC (numba.core.config's when Numba is loaded)."""
    return _config("CUDA_ARRAY_INTERFACE_SYNC", "NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "1",
                   lambda text: text not in ("", "0"))


# DLPack device types whose memory the host addresses: the CPU's, CUDA's and ROCm's pinned host
# memory, CUDA's managed memory.
_DLPACK_CPU = 1
_DLPACK_HOST_DEVICES = (_DLPACK_CPU, 3, 11, 13)


class _Capsule:
    """A DLPack producer of a capsule made already (NumPy's from_dlpack takes producers)."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (_DLPACK_CPU, 0)


def from_dlpack(obj):
    """A device array over the memory of `obj`, a DLPack exporter (`__dlpack__`,
    `__dlpack_device__`: a NumPy array, a CPU tensor), without a copy: kernels and the exporter
    see each other's writes. simt's device memory is host memory, so the tensor must be in
    memory the host addresses (the CPU's, or pinned or managed memory)."""
    if not hasattr(obj, "__dlpack__"):
        raise TypeError("*obj* doesn't implement the DLPack protocol (__dlpack__).")
    device_type, _ = obj.__dlpack_device__()
    if device_type not in _DLPACK_HOST_DEVICES:
        raise NotImplementedError(
            "simt: from_dlpack of a tensor on DLPack device type %d: simt's device memory is "
            "host memory, and this tensor's is not memory the host can address" % device_type)
    # DLPack's unversioned capsule cannot mark memory read-only (producers refuse to export
    # read-only memory that way), so the memory is writable, as CuPy's and PyTorch's from_dlpack
    # take it. NumPy's from_dlpack makes its array read-only to be safe: view it writable.
    host = np.from_dlpack(_Capsule(obj.__dlpack__()))
    interface = dict(host.__array_interface__, data=(host.__array_interface__["data"][0], False))
    return from_cuda_array_interface(interface, owner=host, sync=False)


# What a StridedMemoryView (cuda.core.utils, which numba-cuda's kernels accept) describes.
_STRIDED_MEMORY_VIEW_FIELDS = ("ptr", "shape", "strides", "dtype", "readonly")


def from_strided_memory_view(view):
    """A device array over the memory a StridedMemoryView describes (cuda.core's, or any object
    with its fields: `ptr`, `shape`, `strides` counted in elements or None for C order, `dtype`,
    `readonly`), without a copy; `view` is kept alive with the array. Memory that is not
    device-accessible on a GPU (`is_device_accessible` False: host memory) is simt's device
    memory too."""
    dtype = np.dtype(view.dtype)
    strides = None if view.strides is None else tuple(s * dtype.itemsize for s in view.strides)
    return from_cuda_array_interface(
        {"shape": tuple(view.shape), "strides": strides, "data": (view.ptr, bool(view.readonly)),
         "typestr": dtype.str, "descr": dtype.descr, "version": 3}, owner=view, sync=False)


def interchange_argument(value):
    """A kernel argument as launches take it: a device array over the memory of a
    StridedMemoryView or of a DLPack exporter that is neither a NumPy array nor a CUDA array
    interface object (launches take those as they are); any other value as it is."""
    if all(hasattr(value, field) for field in _STRIDED_MEMORY_VIEW_FIELDS):
        return from_strided_memory_view(value)
    if (hasattr(value, "__dlpack__") and not isinstance(value, np.ndarray)
            and not hasattr(value, "__cuda_array_interface__")):
        return from_dlpack(value)
    return value


def as_cuda_array(obj, sync=True):
    if isinstance(obj, DeviceNDArray):
        return obj._view(obj._host)
    if not is_cuda_array(obj):
        raise TypeError("*obj* doesn't implement the cuda array interface.")
    return from_cuda_array_interface(obj.__cuda_array_interface__, owner=obj, sync=sync)


def transpose(a, b=None):
    """The transpose of the 2-d array `a`, stored into `b` (a device array) if given, or else into
    a new C-contiguous device array; returns it."""
    if a.ndim != 2:
        raise NotImplementedError("transposing a non-2D DeviceNDArray isn't supported")
    stream = getattr(a, "stream", 0)
    host = a._host if isinstance(a, DeviceNDArray) else np.asarray(a)
    if b is None:
        b = device_array(host.shape[::-1], dtype=host.dtype, stream=stream)
    if b.shape != host.shape[::-1]:
        raise ValueError("transpose: the output has shape %s, %s is needed"
                         % (b.shape, host.shape[::-1]))
    b._host[...] = host.T
    return b


def _array_of(memory, shape, dtype, strides):
    """A device array over `memory` (C-contiguous where `strides` is None): what the driver's
    IpcHandle.open_array gives."""
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if strides is None:
        strides = _contiguous_strides(shape, dtype.itemsize, "C")
    return DeviceNDArray(shape, strides, dtype, gpu_data=memory)


driver.device_array_of = _array_of
