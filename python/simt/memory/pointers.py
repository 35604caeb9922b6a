"""Memory pointers as Numba's driver has them (numba.cuda.cudadrv.driver re-exports them,
simt.memory.driver): device memory is host memory, so every pointer is a host address too."""
import ctypes
import weakref

import numpy as np

__all__ = ["device_pointer_type", "host_bytes", "MemoryPointer", "AutoFreePointer",
           "MappedMemory", "PinnedMemory", "ManagedMemory", "OwnedPointer"]

# Pointers are ctypes objects, as with Numba's ctypes binding: device pointers c_size_t (its
# drvapi.cu_device_ptr), host pointers c_void_p.
device_pointer_type = ctypes.c_size_t


def _pointer_value(pointer):
    if pointer is None:
        return 0
    return pointer if isinstance(pointer, int) else (pointer.value or 0)


def host_bytes(address, size):
    """A uint8 array over `size` bytes of host memory at `address` (which must stay alive)."""
    if size == 0:
        return np.empty(0, np.uint8)
    return np.ctypeslib.as_array((ctypes.c_ubyte * size).from_address(address))


# -- memory objects ---------------------------------------------------------------------------

class MemoryPointer:
    """Memory of a context: `device_pointer` (a ctypes.c_size_t) and `size` bytes, with an
    optional finalizer run when the memory is freed (when this object dies, or by free()).
    `refct` counts the owned references that views and own() hand out."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.context = context
        self.device_pointer = pointer
        self.size = size
        self._cuda_memsize_ = size
        self.is_managed = finalizer is not None
        self.refct = 1
        self.handle = pointer
        self._owner = owner
        if finalizer is not None:
            self._finalizer = weakref.finalize(self, finalizer)

    @property
    def owner(self):
        return self if self._owner is None else self._owner

    def own(self):
        return OwnedPointer(weakref.proxy(self))

    def free(self):
        """Frees the memory now (runs the finalizer)."""
        if self.is_managed:
            if not self._finalizer.alive:
                raise RuntimeError("Freeing dead memory")
            self._finalizer()

    def memset(self, byte, count=None, stream=0):
        ctypes.memset(self.device_pointer_value or 0, byte, self.size if count is None else count)

    def view(self, start, stop=None):
        size = self.size - start if stop is None else stop - start
        if not self.device_pointer_value:
            if size != 0:
                raise RuntimeError("non-empty slice into empty slice")
            view = self
        else:
            if size < 0:
                raise RuntimeError("size cannot be negative")
            address = device_pointer_type(self.device_pointer_value + start)
            view = MemoryPointer(self.context, address, size, owner=self.owner)
        if isinstance(self.owner, (MemoryPointer, OwnedPointer)):
            return OwnedPointer(weakref.proxy(self.owner), view)
        return view

    @property
    def device_ctypes_pointer(self):
        return self.device_pointer

    @property
    def device_pointer_value(self):
        return self.device_pointer.value


class AutoFreePointer(MemoryPointer):
    """A MemoryPointer freed when the last owned reference to it (own(), views) goes."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.refct -= 1


def _with_buffer(cls, address, size):
    """An instance of `cls` that also exposes `size` bytes at `address` through Python's buffer
    protocol (np.ndarray(buffer=...), memoryview), as Numba's host memory objects do: a subclass
    of `cls` and a ctypes array over the memory. __init__ is the caller's to run."""
    sized = type(cls.__name__, (cls, ctypes.c_ubyte * size), {"__module__": cls.__module__})
    return sized.from_address(address)


class _HostBuffer:
    """Memory objects that expose their memory through Python's buffer protocol, as Numba's
    host memory objects do (each instance is of a subclass sized by _with_buffer)."""

    def __new__(cls, context, pointer, size, owner=None, finalizer=None):
        return _with_buffer(cls, _pointer_value(pointer), size)

    def _expose(self, pointer, size):
        self._buflen_ = size
        self._bufptr_ = _pointer_value(pointer)


class MappedMemory(_HostBuffer, AutoFreePointer):
    """Host memory mapped into the device's address space (the same address here)."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.owned = owner
        self.host_pointer = pointer
        super().__init__(context, device_pointer_type(_pointer_value(pointer)), size,
                         finalizer=finalizer)
        self.handle = self.host_pointer
        self._expose(pointer, size)

    def own(self):
        return MappedOwnedPointer(weakref.proxy(self))


class PinnedMemory(_HostBuffer):
    """Page-locked host memory (ordinary host memory here), exposed as a buffer."""

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.context = context
        self.owned = owner
        self.size = size
        self.host_pointer = pointer
        self.is_managed = finalizer is not None
        self.handle = pointer
        self._expose(pointer, size)
        if finalizer is not None:
            weakref.finalize(self, finalizer)

    def own(self):
        return self


class ManagedMemory(_HostBuffer, AutoFreePointer):
    """Managed memory, addressable from host and device, exposed as a buffer."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.owned = owner
        super().__init__(context, pointer, size, finalizer=finalizer)
        self._expose(pointer, size)

    def own(self):
        return ManagedOwnedPointer(weakref.proxy(self))


class OwnedPointer:
    """An owned reference to a memory pointer (`memptr`, a weak proxy), or to a view of it: it
    counts in the pointer's refct while alive, and frees the memory when it was the last."""

    def __init__(self, memptr, view=None):
        self._mem = memptr
        self._view = memptr if view is None else view
        mem = memptr

        def release():
            try:
                mem.refct -= 1
                if mem.refct == 0:
                    mem.free()
            except ReferenceError:  # the memory is gone already
                pass

        mem.refct += 1
        weakref.finalize(self, release)

    def __getattr__(self, name):
        return getattr(self._view, name)


def _owned_with_buffer(cls):
    """An OwnedPointer class whose instances also expose the memory as a buffer."""

    def __new__(owned_cls, memptr, view=None):
        target = memptr if view is None else view
        return _with_buffer(owned_cls, target._bufptr_, target._buflen_)

    return type(cls.__name__, (cls,), {"__new__": __new__, "__module__": __name__})


MappedOwnedPointer = _owned_with_buffer(type("MappedOwnedPointer", (OwnedPointer,), {}))
ManagedOwnedPointer = _owned_with_buffer(type("ManagedOwnedPointer", (OwnedPointer,), {}))


# Memory of at least this many bytes starts at a page boundary, as a GPU's large allocations
# do (racecheck's shadow memory is allocated by page: no page of it is shared with another
# array), and its last page is its own too.
_PAGE = 4096
_PAGE_ALIGNED_BYTES = 16 * _PAGE


def page_buffer(nbytes, own_pages=False):
    """`nbytes` of new memory; `own_pages`: on pages of its own whatever its size (device
    memory, which IPC may share with other processes by whole pages, simt.memory.ipc: a page it
    shared with the heap's other blocks would be the parent's and a forked child's at once, and
    their mallocs would corrupt each other's heap)."""
    if nbytes < _PAGE_ALIGNED_BYTES and not own_pages:
        return np.empty(nbytes, dtype=np.uint8)
    raw = np.empty(-(-nbytes // _PAGE) * _PAGE + _PAGE, dtype=np.uint8)
    start = -raw.ctypes.data % _PAGE
    return raw[start:start + nbytes]
