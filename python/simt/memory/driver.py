"""numba.cuda.cudadrv.driver, where it has a host meaning: simt's device memory is host memory.

The context allocates through a memory manager with Numba's External Memory Management (EMM)
interface (NBEP 7): simt's own manager hands out host buffers; a user's plugin, set with
`cuda.set_memory_manager` or NUMBA_CUDA_MEMORY_MANAGER, backs device arrays with whatever its
memalloc returns, which must be memory the host can address. Memory pointers, their reference
counts and owners, pending deallocations (flushed by count and by size, deferred by
`defer_cleanup`) and the memory functions (host_to_device, device_memset, ...) behave as Numba's,
so code written against Numba's driver layer runs unchanged. What needs a GPU (PTX modules,
linking, raw cu* calls) raises NotImplementedError naming it."""
import asyncio
import collections
import contextlib
import ctypes
import importlib
import operator
import os
import sys
import weakref

import numpy as np

from simt.base import config, host
from simt.base.numpy_compat import byte_bounds

from . import ipc, watch
from .pointers import (AutoFreePointer, ManagedMemory, MappedMemory, MemoryPointer,  # noqa: F401
                       OwnedPointer, PinnedMemory, _pointer_value, device_pointer_type,
                       page_buffer)

__all__ = ["USE_NV_BINDING", "MemoryInfo", "IpcHandle", "MemoryPointer", "AutoFreePointer",
           "MappedMemory", "PinnedMemory", "ManagedMemory", "OwnedPointer",
           "BaseCUDAMemoryManager", "HostOnlyCUDAMemoryManager", "GetIpcHandleMixin",
           "NumbaCUDAMemoryManager", "set_memory_manager", "Context", "Stream", "Event", "driver",
           "host_to_device", "device_to_host", "device_to_device", "device_memset",
           "device_pointer", "device_ctypes_pointer", "host_pointer", "host_memory_extents",
           "host_memory_size", "memory_size_from_info", "device_extents", "device_memory_size",
           "is_device_memory", "require_device_memory", "device_memory_depends",
           "event_elapsed_time", "UnsupportedAttribute", "launch_kernel", "Linker", "LinkerError",
           "NvrtcError", "make_logger", "get_version", "profile_start", "profile_stop",
           "profiling"]

USE_NV_BINDING = False

MemoryInfo = collections.namedtuple("MemoryInfo", "free,total")


_SUPPORTED_EMM_INTERFACE_VERSION = 1

# The EMM plugin class contexts are created with (Numba's module global of the same name, which
# code resets to None to go back to the default).
_memory_manager = None


class UnsupportedAttribute(NotImplementedError, AttributeError):
    """A driver-level attribute Numba has and simt does not: NotImplementedError naming it (an
    AttributeError too, so hasattr() and getattr() with a default still work)."""


def _unsupported_attribute(owner, name):
    if name.startswith("_"):  # Python's and tools' probes (__getstate__, _repr_html_)
        return AttributeError(name)
    return UnsupportedAttribute("simt: %s.%s is not supported yet (there is no CUDA driver: "
                                "device memory is host memory)" % (owner, name))


def _config(name, variable, default, convert):
    """A setting of numba.core.config when Numba is loaded (code changes them at run time), else
    its environment variable."""
    config = sys.modules.get("numba.core.config")
    if config is not None and hasattr(config, name):
        return getattr(config, name)
    return convert(os.environ.get(variable, default))


# -- memory managers (External Memory Management plugins) -------------------------------------

# Numba's cu_ipc_mem_handle (CUDA's cudaIpcMemHandle_t): 64 bytes, naming simt's shared memory.
_IPC_HANDLE_BYTES = 64
_ipc_mem_handle = ctypes.c_byte * _IPC_HANDLE_BYTES


def _ipc_mem_handle_of(handle):
    """The cu_ipc_mem_handle of a handle given as its bytes (bytes, or the ints of
    tuple(ipc_handle.handle))."""
    handle = tuple(handle)
    if len(handle) > _IPC_HANDLE_BYTES:
        raise ValueError("simt: a CUDA IPC handle is %d bytes, not %d"
                         % (_IPC_HANDLE_BYTES, len(handle)))
    return _ipc_mem_handle(*handle)


class _DirectIpc:
    """An IPC handle opened by mapping its memory into this process."""

    def __init__(self, parent):
        self.parent = parent
        self._opened_mem = None

    def open(self, context):
        parent = self.parent
        if parent.base is not None:
            raise ValueError("opening IpcHandle from original process")
        mem = context.open_ipc_handle(parent.handle, parent.offset + parent.size)
        self._opened_mem = mem
        return mem.own().view(parent.offset)

    def close(self):
        # CUDA unmaps the memory here; simt's mapping goes with the last array over it, so an
        # array still in use after close() does not touch unmapped memory.
        self._opened_mem = None


class _StagedIpc:
    """An IPC handle opened as a copy in new memory of this context (Numba's open_staged, for
    devices that cannot access each other's memory)."""

    def __init__(self, parent):
        self.parent = parent

    def open(self, context):
        source = _DirectIpc(self.parent)
        memory = context.memalloc(self.parent.size)
        device_to_device(memory, source.open(context), self.parent.size)
        source.close()
        return memory

    def close(self):
        """Nothing to release: the copy is the caller's memory."""


# What IpcHandle.open_array makes a device array with, (memory, shape, dtype, strides) -> array:
# simt.memory.devicearray's, which sits above the driver, sets it as it loads.
device_array_of = None


class IpcHandle:
    """Device memory exported to other processes (Numba's IpcHandle): `handle`, 64 bytes naming
    the memory (simt.memory.ipc: POSIX shared memory), `size` bytes from `offset` in the allocation.
    `base` is the exported memory in the exporting process, None where unpickled elsewhere."""

    def __init__(self, base, handle, size, source_info=None, offset=0):
        for name, value in (("size", size), ("offset", offset)):
            if operator.index(value) < 0:
                raise ValueError("simt: an IPC handle's %s is a count of bytes, not %d"
                                 % (name, value))
        self.base = base
        self.handle = handle
        self.size = size
        self.source_info = source_info
        self.offset = offset
        self._impl = None

    def _sentry_source_info(self):
        if self.source_info is None:
            raise RuntimeError("IPC handle doesn't have source info")

    def can_access_peer(self, context):
        """Whether `context`'s device can access the memory directly (simt has one device)."""
        self._sentry_source_info()
        return self.source_info == context.device.get_device_identity()

    def _open_with(self, impl, context):
        if self._impl is not None:
            raise ValueError("IpcHandle is already opened")
        memory = impl.open(context)
        self._impl = impl
        return memory

    def open_direct(self, context):
        """The memory, mapped into this process: a memory pointer."""
        return self._open_with(_DirectIpc(self), context)

    def open_staged(self, context):
        """A copy of the memory in new memory of `context`."""
        self._sentry_source_info()
        return self._open_with(_StagedIpc(self), context)

    def open(self, context):
        if self.source_info is None or self.can_access_peer(context):
            return self.open_direct(context)
        return self.open_staged(context)

    def open_array(self, context, shape, dtype, strides=None):
        """open() as a device array (C-contiguous where `strides` is None)."""
        return device_array_of(self.open(context), shape, dtype, strides)

    def close(self):
        if self._impl is None:
            raise ValueError("IpcHandle not opened")
        self._impl.close()
        self._impl = None

    def __reduce__(self):
        return (_rebuild_ipc_handle, (type(self), tuple(self.handle), self.size,
                                      self.source_info, self.offset))


def _rebuild_ipc_handle(cls, handle, size, source_info, offset):
    return cls(None, _ipc_mem_handle_of(handle), size, source_info, offset)


class _PendingDeallocs:
    """Frees that wait: flushed when more than NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT are pending
    or their bytes exceed NUMBA_CUDA_MAX_PENDING_DEALLOCS_RATIO of the memory, unless disabled
    (defer_cleanup)."""

    def __init__(self, capacity=None):
        self._pending = collections.deque()
        self._disabled = 0
        self._size = 0
        self.memory_capacity = capacity

    @property
    def _max_pending_bytes(self):
        ratio = _config("CUDA_DEALLOCS_RATIO", "NUMBA_CUDA_MAX_PENDING_DEALLOCS_RATIO", 0.2,
                        float)
        return int((self.memory_capacity or 0) * ratio)

    def add_item(self, dtor, handle, size=0):
        self._pending.append((dtor, handle, size))
        self._size += int(size)
        count = _config("CUDA_DEALLOCS_COUNT", "NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT", 10, int)
        if len(self._pending) > count or self._size > self._max_pending_bytes:
            self.clear()

    def clear(self):
        if not self.is_disabled:
            while self._pending:
                dtor, handle, _ = self._pending.popleft()
                dtor(handle)
            self._size = 0

    @contextlib.contextmanager
    def disable(self):
        self._disabled += 1
        try:
            yield
        finally:
            self._disabled -= 1

    @property
    def is_disabled(self):
        return self._disabled > 0

    def __len__(self):
        return len(self._pending)


class BaseCUDAMemoryManager:
    """The interface of an EMM plugin (Numba's, NBEP 7): memalloc, memhostalloc, mempin,
    initialize, get_ipc_handle, get_memory_info, reset, defer_cleanup, interface_version."""

    def __init__(self, *args, **kwargs):
        if "context" not in kwargs:
            raise RuntimeError("Memory manager requires a context")
        self.context = kwargs.pop("context")

    def memalloc(self, size):
        raise NotImplementedError

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        raise NotImplementedError

    def mempin(self, owner, pointer, size, mapped=False):
        raise NotImplementedError

    def initialize(self):
        raise NotImplementedError

    def get_ipc_handle(self, memory):
        raise NotImplementedError

    def get_memory_info(self):
        raise NotImplementedError

    def reset(self):
        raise NotImplementedError

    def defer_cleanup(self):
        raise NotImplementedError

    @property
    def interface_version(self):
        raise NotImplementedError


def _release(buffer):
    """A pending deallocation's destructor: the buffer goes with the last reference to it."""


def _allocation_finalizer(manager, key, buffer, size):
    allocations, deallocations = manager.allocations, manager.deallocations

    def finalize():
        allocations.pop(key, None)
        deallocations.add_item(_release, buffer, size)

    return finalize


class HostOnlyCUDAMemoryManager(BaseCUDAMemoryManager):
    """An EMM plugin base implementing the host allocations (memhostalloc, mempin,
    memallocmanaged), reset and defer_cleanup; a subclass implements memalloc."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.allocations = {}
        self.deallocations = _PendingDeallocs()

    def _host_buffer(self, size, pointer_type=ctypes.c_void_p, own_pages=False):
        """A new buffer of `size` bytes and a pointer to it (host or device pointer type);
        `own_pages`: pointers.page_buffer's."""
        buffer = page_buffer(size, own_pages)
        return buffer, pointer_type(buffer.ctypes.data if size else 0)

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        buffer, pointer = self._host_buffer(size)
        finalizer = _allocation_finalizer(self, pointer.value, buffer, size)
        context = weakref.proxy(self.context)
        if mapped:
            memory = MappedMemory(context, pointer, size, finalizer=finalizer)
            self.allocations[pointer.value] = memory
            return memory.own()
        return PinnedMemory(context, pointer, size, finalizer=finalizer)

    def mempin(self, owner, pointer, size, mapped=False):
        if isinstance(pointer, int):
            pointer = ctypes.c_void_p(pointer)
        allocations, key = self.allocations, pointer.value

        def unpin():
            allocations.pop(key, None)

        context = weakref.proxy(self.context)
        if mapped:
            memory = MappedMemory(context, pointer, size, owner=owner, finalizer=unpin)
            self.allocations[key] = memory
            return memory.own()
        return PinnedMemory(context, pointer, size, owner=owner, finalizer=unpin)

    def memallocmanaged(self, size, attach_global):
        buffer, pointer = self._host_buffer(size, device_pointer_type)
        memory = ManagedMemory(weakref.proxy(self.context), pointer, size,
                               finalizer=_allocation_finalizer(self, pointer.value, buffer, size))
        self.allocations[pointer.value] = memory
        return memory.own()

    def reset(self):
        self.allocations.clear()
        self.deallocations.clear()

    @contextlib.contextmanager
    def defer_cleanup(self):
        with self.deallocations.disable():
            yield


class GetIpcHandleMixin:
    """Numba's default get_ipc_handle: an IpcHandle of the allocation `memory` lies in, made
    shared memory in place (simt.memory.ipc). Only memory simt's memory manager allocated can be
    exported; an EMM plugin exports its own memory with its own get_ipc_handle."""

    def get_ipc_handle(self, memory):
        address = _pointer_value(memory.device_pointer)
        for allocation in getattr(self, "allocations", {}).values():
            buffer = getattr(allocation, "_simt_buffer", None)
            base = allocation.device_pointer_value
            if buffer is not None and base <= address < base + allocation.size:
                break
        else:
            raise NotImplementedError(
                "simt: get_ipc_handle of memory that simt's memory manager did not allocate "
                "(mapped, pinned or managed host memory, an EMM plugin's memory or another "
                "context's) is not supported: export device arrays (device_array, to_device)")
        handle = IpcHandle(memory, _ipc_mem_handle.from_buffer_copy(
            ipc.export(base, allocation.size, buffer)), memory.size,
            self.context.device.get_device_identity(), offset=address - base)
        handle._exported_buffer = buffer  # the memory stays exported while the handle lives
        return handle


class NumbaCUDAMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """simt's own memory manager: device memory is host memory (page-aligned from 64 KiB)."""

    def initialize(self):
        if self.deallocations.memory_capacity is None:
            self.deallocations.memory_capacity = self.get_memory_info().total

    def memalloc(self, size):
        # on pages of its own: get_ipc_handle shares device memory by whole pages (simt.memory.ipc)
        buffer, pointer = self._host_buffer(size, device_pointer_type, own_pages=True)
        memory = AutoFreePointer(weakref.proxy(self.context), pointer, size,
                                 finalizer=_allocation_finalizer(self, pointer.value, buffer,
                                                                 size))
        memory._simt_buffer = buffer
        self.allocations[pointer.value] = memory
        return memory.own()

    def get_memory_info(self):
        """Free and total memory of the host, which holds simt's device memory."""
        page = os.sysconf("SC_PAGE_SIZE")
        return MemoryInfo(free=os.sysconf("SC_AVPHYS_PAGES") * page,
                          total=os.sysconf("SC_PHYS_PAGES") * page)

    @property
    def interface_version(self):
        return _SUPPORTED_EMM_INTERFACE_VERSION


def set_memory_manager(mm_plugin):
    """Makes contexts created from now on allocate through the EMM plugin class `mm_plugin`
    (RuntimeError for an interface version other than 1)."""
    global _memory_manager
    version = mm_plugin(context=None).interface_version
    if version != _SUPPORTED_EMM_INTERFACE_VERSION:
        raise RuntimeError("EMM Plugin interface has version %d - version %d required"
                           % (version, _SUPPORTED_EMM_INTERFACE_VERSION))
    _memory_manager = mm_plugin


def _memory_manager_class():
    if _memory_manager is None:
        name = _config("CUDA_MEMORY_MANAGER", "NUMBA_CUDA_MEMORY_MANAGER", "default", str)
        if name == "default":
            return NumbaCUDAMemoryManager
        try:
            set_memory_manager(importlib.import_module(name)._numba_memory_manager)
        except Exception as error:
            raise RuntimeError("Failed to use memory manager from %s" % name) from error
    return _memory_manager


def _checked_memory(manager, method, size, memory, pointer_name="device_pointer"):
    """`memory`, what the memory manager's `method` returned for `size` bytes, once checked to be
    a memory object (Numba's EMM interface: a pointer attribute and `size`) of `size` bytes or
    more: kernels and copies address it through the pointer, up to the size asked for, so a
    smaller allocation would corrupt whatever lies past it."""
    def refuse(error, needed):
        return error("simt: the EMM plugin %s.%s(%d) returned %r: %s"
                     % (type(manager).__name__, method, size, memory, needed))

    pointer = getattr(memory, pointer_name, None)
    if isinstance(pointer, ctypes._SimpleCData):
        pointer = pointer.value or 0
    held = getattr(memory, "size", None)
    if not isinstance(pointer, int) or isinstance(held, bool) or \
            not isinstance(held, (int, np.integer)):
        raise refuse(TypeError, "a memory object with `%s` (a ctypes pointer or int) and "
                                "`size` in bytes was needed, as Numba's MemoryPointer"
                     % pointer_name)
    if held < size:
        raise refuse(ValueError, "%d bytes of memory, where %d were needed" % (held, size))
    if size and not pointer:
        raise refuse(ValueError, "a null pointer, where %d bytes of memory were needed" % size)
    return memory


# -- contexts, streams, events ----------------------------------------------------------------

class _StreamHandle(ctypes.c_void_p):
    """A stream's handle: a c_void_p as Numba's ctypes driver gives, which int() converts as
    numba-cuda's and numba-cuda-mlir's CUstream (cuda.bindings) does."""

    def __int__(self):
        return self.value or 0

    __index__ = __int__


class Stream:
    """A stream. Launches and copies complete before they return, so there is nothing to wait
    for: synchronize() returns, callbacks run at once, async_done() is a finished future."""

    def __init__(self, context=None, handle=0, finalizer=None, external=False):
        self.context = context
        self.handle = _StreamHandle(handle) if isinstance(handle, int) else handle
        self.external = external
        if finalizer is not None:
            weakref.finalize(self, finalizer)

    def __int__(self):
        return self.handle.value or 0

    def synchronize(self):
        pass

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self
        self.synchronize()

    def add_callback(self, callback, arg=None):
        callback(self, 0, arg)  # the status: CUDA_SUCCESS, as Numba passes the driver's

    def async_done(self):
        """An asyncio future (of the running loop) whose result is this stream, set by the loop's
        next round: the work queued on it has completed already."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()

        def resolve():
            if not future.done():  # not cancelled meanwhile
                future.set_result(self)

        loop.call_soon(resolve)
        return future

    def __repr__(self):
        handle = int(self)
        default = {0: "Default", 1: "Legacy default", 2: "Per-thread default"}
        if handle in default and not self.external:
            return "<%s CUDA stream on %s>" % (default[handle], self.context)
        return "<%sCUDA stream %d on %s>" % ("External " if self.external else "", handle,
                                             self.context)


class Event:
    """An event records the host time at which it is recorded (work before it has completed)."""

    def __init__(self, context=None, handle=0, finalizer=None, timing=True):
        self.context = context
        self.handle = handle
        self.timing = timing
        self._time = None
        if finalizer is not None:
            weakref.finalize(self, finalizer)

    def record(self, stream=0):
        import time
        self._time = time.perf_counter()

    def synchronize(self):
        pass

    def wait(self, stream=0):
        pass

    def query(self):
        return True

    def elapsed_time(self, evtend):
        """Milliseconds from this event to `evtend`, as a float."""
        if self._time is None or evtend._time is None:
            raise RuntimeError("simt: both events must be recorded before elapsed_time")
        return (evtend._time - self._time) * 1000.0


def event_elapsed_time(evtstart, evtend):
    return evtstart.elapsed_time(evtend)


class Context:
    """The simulated device's context: allocations through its memory manager, streams, events."""

    def __init__(self, device, handle=None):
        self.device = device
        self.handle = handle if handle is not None else ctypes.c_void_p(id(self))
        self.deallocations = _PendingDeallocs()
        self.memory_manager = _memory_manager_class()(context=self)
        self._streams_made = 0
        self.memory_manager.initialize()

    def reset(self):
        self.memory_manager.reset()
        self.deallocations.clear()
        _free_device_memory()

    def get_memory_info(self):
        return self.memory_manager.get_memory_info()

    def prepare_for_use(self):
        pass

    def push(self):
        pass

    def pop(self):
        pass

    def synchronize(self):
        pass

    def memalloc(self, bytesize):
        return _checked_memory(self.memory_manager, "memalloc", bytesize,
                               self.memory_manager.memalloc(bytesize))

    def memallocmanaged(self, bytesize, attach_global=True):
        return _checked_memory(self.memory_manager, "memallocmanaged", bytesize,
                               self.memory_manager.memallocmanaged(bytesize, attach_global))

    def memhostalloc(self, bytesize, mapped=False, portable=False, wc=False):
        return _checked_memory(self.memory_manager, "memhostalloc", bytesize,
                               self.memory_manager.memhostalloc(bytesize, mapped, portable, wc),
                               "device_pointer" if mapped else "host_pointer")

    def mempin(self, owner, pointer, size, mapped=False):
        return _checked_memory(self.memory_manager, "mempin", size,
                               self.memory_manager.mempin(owner, pointer, size, mapped),
                               "device_pointer" if mapped else "host_pointer")

    def get_ipc_handle(self, memory):
        if not sys.platform.startswith("linux"):
            raise OSError("OS does not support CUDA IPC")
        return self.memory_manager.get_ipc_handle(memory)

    def open_ipc_handle(self, handle, size):
        """A memory pointer to `size` bytes of the memory an IPC handle names, mapped into this
        process (until the pointer and the arrays over it die)."""
        mapping, address = ipc.open_shared(handle, size)
        memory = MemoryPointer(weakref.proxy(self), device_pointer_type(address), size)
        memory._ipc_mapping = mapping  # unmapped with the pointer, which its views keep alive
        return memory

    def defer_cleanup(self):
        return self.memory_manager.defer_cleanup()

    def _stream(self, handle, external=False, finalizer=None):
        return Stream(weakref.proxy(self), handle, finalizer, external)

    def get_default_stream(self):
        return self._stream(0)

    def get_legacy_default_stream(self):
        return self._stream(1)

    def get_per_thread_default_stream(self):
        return self._stream(2)

    def create_stream(self):
        self._streams_made += 1
        return self._stream(1000 + self._streams_made)

    def create_external_stream(self, ptr):
        return self._stream(ptr, external=True)

    def create_event(self, timing=True):
        return Event(weakref.proxy(self), timing=timing)

    def create_module_ptx(self, ptx):
        raise NotImplementedError("simt: loading PTX modules needs a GPU (the simulator runs "
                                  "kernels compiled from Python source)")

    def __getattr__(self, name):
        raise _unsupported_attribute("Context", name)

    def __eq__(self, other):
        return isinstance(other, Context) and self.handle.value == other.handle.value

    def __hash__(self):
        return hash(self.handle.value)

    def __repr__(self):
        return "<CUDA context c_void_p(%d) of device %d>" % (self.handle.value, self.device.id)


class _Driver:
    """numba.cuda.cudadrv.driver.driver: the simulated device, and no raw driver functions."""

    pid = os.getpid()
    initialization_error = None  # the message of the error initialisation gave, as Numba's

    def __init__(self):
        self._initialized = False

    def initialize(self):
        """Numba's driver initialisation, done at the first use of the device. The simulated
        device initialises unless CUDA is disabled (NUMBA_DISABLE_CUDA=1), or a program has
        replaced cuInit with one that fails (as Numba's tests do): then CudaSupportError, on
        this use and every later one."""
        if not self._initialized:
            self._initialized = True
            if _config("DISABLE_CUDA", "NUMBA_DISABLE_CUDA", "0",
                       lambda text: text.strip() not in ("", "0")):
                self.initialization_error = (
                    "CUDA is disabled due to setting NUMBA_DISABLE_CUDA=1 in the environment, "
                    "or because CUDA is unsupported on 32-bit systems.")
            elif "cuInit" in self.__dict__:
                try:
                    self.__dict__["cuInit"](0)
                except Exception as error:  # CudaAPIError: (code, msg)
                    self.initialization_error = "Error at driver init: %s (%s)" % (
                        getattr(error, "msg", error), getattr(error, "code", "?"))
        if self.initialization_error is not None:
            raise _support_error(self.initialization_error)

    @property
    def is_available(self):
        try:
            self.initialize()
        except ImportError:  # CudaSupportError
            return False
        return True

    def get_device(self, devnum=0):
        return gpus[devnum]

    def get_device_count(self):
        return 1

    def get_version(self):
        """The CUDA driver's version as (major, minor): CUDA 12.0, the version simt's PTX is
        for (as cuda.runtime.get_version()). Initialises the driver first, as Numba's does
        (CudaSupportError where CUDA is disabled)."""
        self.initialize()
        return CUDA_VERSION

    def list_devices(self):
        return list(gpus)

    def reset(self):
        close()

    def __getattr__(self, name):
        if name.startswith("cu"):
            return _raw_driver_function(name)
        raise _unsupported_attribute("driver", name)


# -- the device and its context ----------------------------------------------------------------

class _DeviceName(str):
    """A device's name: a str, as numba-cuda gives it, that also decodes as the bytes of Numba
    0.56's ctypes binding (`get_current_device().name.decode()`, a common idiom)."""

    def decode(self, encoding="utf-8", errors="strict"):
        return str(self)


class Device:
    """A simulated device with the properties Numba reports for a compute capability 8.0 GPU."""

    id = 0
    name = _DeviceName("simt")
    uuid = "GPU-00000000-0000-0000-0000-000000000000"
    compute_capability = (8, 0)
    MAX_THREADS_PER_BLOCK = 1024
    MAX_BLOCK_DIM_X = 1024
    MAX_BLOCK_DIM_Y = 1024
    MAX_BLOCK_DIM_Z = 64
    MAX_GRID_DIM_X = 2**31 - 1
    MAX_GRID_DIM_Y = 65535
    MAX_GRID_DIM_Z = 65535
    WARP_SIZE = 32
    MAX_SHARED_MEMORY_PER_BLOCK = 48 * 1024
    MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 163 * 1024
    MAX_REGISTERS_PER_BLOCK = 65536
    MAX_THREADS_PER_MULTI_PROCESSOR = 2048
    TOTAL_CONSTANT_MEMORY = 64 * 1024
    ASYNC_ENGINE_COUNT = 1
    CAN_MAP_HOST_MEMORY = 1
    UNIFIED_ADDRESSING = 1
    CONCURRENT_KERNELS = 1
    COOPERATIVE_LAUNCH = 1
    ECC_ENABLED = 0
    PCI_BUS_ID = 0
    PCI_DEVICE_ID = 0
    PCI_DOMAIN_ID = 0

    @property
    def MULTIPROCESSOR_COUNT(self):
        return int(config.number("SIMT_THREADS", 0)) or os.cpu_count() or 1

    supports_float16 = True
    supports_bfloat16 = True  # compute capability 8.0 has it
    # numba-cuda's FP8 types and conversions need compute capability 8.9 on its GPU target; simt
    # computes them in software (cuda_fp8.h's conversions, on the simulator and in the PTX it
    # makes for any GPU), so they are supported here
    supports_fp8 = True

    def get_device_identity(self):
        return {"pci_domain_id": 0, "pci_bus_id": 0, "pci_device_id": 0}

    def reset(self):
        close()

    def get_primary_context(self):
        return get_context()

    def __enter__(self):
        get_context()
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return "<CUDA device %d '%s'>" % (self.id, self.name)


_DEVICE = Device()


_context = None


def get_context(devnum=0):
    """The device's context (numba.cuda.cudadrv.devices.get_context), created at first use and
    after close() or reset(), with the memory manager driver._memory_manager names then."""
    global _context
    if _context is None:
        driver.initialize()
        _context = Context(_DEVICE)
    return _context


class _Gpus:
    """cuda.gpus: the list of devices (one) and the current one."""

    def __getitem__(self, index):
        if index not in (0, -1):
            raise IndexError("simt has one device, 0")
        return _DEVICE

    def __len__(self):
        return 1

    def __iter__(self):
        return iter([_DEVICE])

    @property
    def lst(self):
        return [_DEVICE]

    @property
    def current(self):
        """The device of the current context, or None before one is made (Numba's)."""
        return _DEVICE if _context is not None else None

    def __repr__(self):
        return "[%r]" % _DEVICE


gpus = _Gpus()


def close():
    """Ends the context (Context.reset: its memory manager's too), and the next use makes a new
    context; device memory is freed in any case."""
    global _context
    if _context is None:
        _free_device_memory()
        return
    _context.reset()
    _context = None



def _free_device_memory():
    """A device or context reset, or cuda.close(), frees the device's memory: simt's device arrays
    keep their memory, and `simt check` reports kernels that still use it (memcheck)."""
    watch.free_all()


def _support_error(message):
    """Numba's CudaSupportError (an ImportError) where Numba is installed, else an ImportError."""
    try:
        from numba.cuda.cudadrv.error import CudaSupportError
    except ImportError:
        return ImportError(message)
    return CudaSupportError(message)


def _raw_driver_function(name):
    def unsupported(*args, **kwargs):
        raise NotImplementedError("simt: the CUDA driver function %s is not supported (there is "
                                  "no CUDA driver: device memory is host memory)" % name)
    unsupported.__name__ = name
    return unsupported


driver = _Driver()


# -- memory functions -------------------------------------------------------------------------

def is_device_memory(obj):
    return getattr(obj, "__cuda_memory__", False)


def require_device_memory(obj):
    if not is_device_memory(obj):
        raise Exception("Not a CUDA memory object.")


def device_ctypes_pointer(obj):
    if obj is None:
        return ctypes.c_void_p(0)
    require_device_memory(obj)
    return obj.device_ctypes_pointer


def device_pointer(obj):
    return device_ctypes_pointer(obj).value


def device_memory_depends(devmem, *objs):
    """Keeps `objs` alive as long as `devmem`."""
    devmem._depends_ = getattr(devmem, "_depends_", []) + list(objs)


def host_memory_extents(obj):
    """(start, end) addresses of the host memory `obj` spans: an array's, or any contiguous
    buffer's (ctypes objects, records, bytes)."""
    if isinstance(obj, np.ndarray):
        return byte_bounds(obj.view(np.int64) if obj.dtype.char in "Mm" else obj)
    data = np.frombuffer(memoryview(obj).cast("B"), np.uint8)
    return data.ctypes.data, data.ctypes.data + data.nbytes


def host_memory_size(obj):
    start, end = host_memory_extents(obj)
    return end - start


def memory_size_from_info(shape, strides, itemsize):
    """The bytes an array of this shape, strides and itemsize spans."""
    if any(n == 0 for n in shape):
        return 0
    low = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    return high - low + itemsize


def host_pointer(obj, readonly=False):
    if isinstance(obj, int):
        return obj
    return host_memory_extents(obj)[0]


def device_extents(devmem):
    """(start, end) of the allocation `devmem` belongs to."""
    owner = getattr(devmem, "owner", devmem)
    start = device_pointer(owner)
    return start, start + device_memory_size(owner)


def device_memory_size(devmem):
    size = getattr(devmem, "_cuda_memsize_", None)
    if size is None:
        size = devmem.size
    return size


def _address(obj, device):
    if device:
        if hasattr(obj, "__cuda_array_interface__") and not is_device_memory(obj):
            return obj.__cuda_array_interface__["data"][0]
        return device_pointer(obj)
    return host_pointer(obj)


def host_to_device(dst, src, size, stream=0):
    ctypes.memmove(_address(dst, True), _address(src, False), size)


def device_to_host(dst, src, size, stream=0):
    ctypes.memmove(_address(dst, False), _address(src, True), size)


def device_to_device(dst, src, size, stream=0):
    ctypes.memmove(_address(dst, True), _address(src, True), size)


def device_memset(dst, val, size, stream=0):
    ctypes.memset(_address(dst, True), val, size)


# The CUDA version simt reports for the driver and the runtime (simt's PTX is for CUDA 12).
CUDA_VERSION = (12, 0)


def get_version():
    """The driver's version as (major, minor), as Numba's driver.get_version()."""
    return driver.get_version()


def profile_start():
    """Profiling is a profiler's (a GPU's): nothing to start."""


def profile_stop():
    """Profiling is a profiler's (a GPU's): nothing to stop."""


@contextlib.contextmanager
def profiling():
    yield


class LinkerError(RuntimeError):
    """A link= file that cannot be linked (numba.cuda.cudadrv.driver's)."""


class NvrtcError(Exception):
    """NVRTC's failure to compile CUDA C/C++ (numba.cuda.cudadrv.driver's)."""


class Linker:
    """The CUDA driver's linker: it links PTX and cubins for a GPU, which the simulator does not
    load. Kernels link files with @cuda.jit(link=[...]) (see docs/gpu.md)."""

    @classmethod
    def new(cls, max_registers=0, lineinfo=False, cc=None):
        raise NotImplementedError("simt: the CUDA driver's Linker needs a GPU; kernels link "
                                  "files with @cuda.jit(link=[...])")


def launch_kernel(*args, **kwargs):
    raise NotImplementedError("simt: launching a CUDA function handle (launch_kernel) needs a "
                              "GPU; kernels compiled from Python launch as kernel[grid, block]")


def make_logger():
    """The driver's logger (numba.cuda.cudadrv.driver's make_logger)."""
    import logging
    return logging.getLogger("numba.cuda.cudadrv.driver")


def _no_driver_library(*args, **kwargs):
    """numba-cuda's locate_driver_and_loader / load_driver: simt loads no CUDA driver library."""
    raise _support_error("simt simulates CUDA: it loads no CUDA driver library")


# Names numba-cuda's modules and tests import from numba.cuda.cudadrv.driver that Numba 0.56's
# driver lacks, and its name of the Linker: what each is on simt.
_NUMBA_CUDA_DRIVER_NAMES = {
    "locate_driver_and_loader": _no_driver_library,
    "load_driver": _no_driver_library,
    "_have_nvjitlink": lambda: False,  # link= takes no LTO-IR: simt links Python device code
    "_to_core_stream": _no_driver_library,
    "_Linker": Linker,
}


_ERROR_CLASSES = ("CudaAPIError", "CudaDriverError", "CudaSupportError")


def __getattr__(name):
    # Numba's error classes, and ERROR_MAP (CUDA error codes -> their enum names, from Numba's
    # enums): loaded when asked for, since importing Numba is slow.
    if name in _ERROR_CLASSES:
        from numba.cuda.cudadrv import error
        if name != "CudaAPIError":
            return getattr(error, name)

        class CudaAPIError(error.CudaDriverError):  # a driver call's error code and message
            def __init__(self, code, msg):
                self.code = code
                self.msg = msg
                super().__init__(code, msg)

            def __str__(self):
                return "[%s] %s" % (self.code, self.msg)

        globals()[name] = CudaAPIError
        return CudaAPIError
    if name == "ERROR_MAP":
        from numba.cuda.cudadrv import enums
        return {code: key for key, code in vars(enums).items() if key.startswith("CUDA_ERROR")}
    if name in _NUMBA_CUDA_DRIVER_NAMES and host.is_numba_cuda():
        return _NUMBA_CUDA_DRIVER_NAMES[name]
    raise _unsupported_attribute("numba.cuda.cudadrv.driver", name)
