"""The simulated device, its context, streams and events. Launches are synchronous, so streams and
events only keep Numba's API (and events measure host time)."""
import collections
import contextlib
import os
import time

__all__ = ["Device", "Context", "Stream", "Event", "gpus", "get_current_device",
           "current_context", "list_devices", "select_device", "close", "detect",
           "is_available", "is_supported_version", "synchronize", "stream", "default_stream",
           "legacy_default_stream", "per_thread_default_stream", "external_stream", "event",
           "event_elapsed_time", "require_context", "defer_cleanup", "profile_start",
           "profile_stop", "profiling", "cuda_error"]


class Device:
    """A simulated device with the properties Numba reports for a compute capability 8.0 GPU."""

    id = 0
    name = "simt"
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
        return int(os.environ.get("SIMT_THREADS", 0)) or os.cpu_count() or 1

    supports_float16 = True

    def get_device_identity(self):
        return {"pci_domain_id": 0, "pci_bus_id": 0, "pci_device_id": 0}

    def reset(self):
        _free_device_memory()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return "<CUDA device %d '%s'>" % (self.id, self.name)


_DEVICE = Device()


MemoryInfo = collections.namedtuple("MemoryInfo", "free,total")  # numba.cuda.cudadrv.driver's


def _memory_info():
    """Free and total memory of the host, which holds simt's device memory."""
    page = os.sysconf("SC_PAGE_SIZE")
    return MemoryInfo(free=os.sysconf("SC_AVPHYS_PAGES") * page,
                      total=os.sysconf("SC_PHYS_PAGES") * page)


class _Deallocations:
    """Context.deallocations (Numba's _PendingDeallocs): simt frees device memory with its
    array, so nothing waits to be freed, except what add_item queues while disabled."""

    def __init__(self):
        self._disabled = 0
        self._pending = []

    def add_item(self, dtor, handle, size=-1):
        if self._disabled:
            self._pending.append((dtor, handle))
        else:
            dtor(handle)

    def clear(self):
        if not self._disabled:
            pending, self._pending = self._pending, []
            for dtor, handle in pending:
                dtor(handle)

    @contextlib.contextmanager
    def disable(self):
        self._disabled += 1
        try:
            yield
        finally:
            self._disabled -= 1
        self.clear()

    @property
    def is_disabled(self):
        return self._disabled > 0

    def __len__(self):
        return len(self._pending)


class _MemoryManager:
    """Context.memory_manager: the host's memory, as Numba's default manager describes the
    device's (External Memory Management plugins are not supported yet)."""

    interface_version = 1

    def initialize(self):
        pass

    def get_memory_info(self):
        return _memory_info()

    def reset(self):
        _free_device_memory()

    def defer_cleanup(self):
        return _CONTEXT.deallocations.disable()

    def __getattr__(self, name):
        raise _unsupported_attribute("Context.memory_manager", name)


class UnsupportedAttribute(NotImplementedError, AttributeError):
    """A driver-level attribute Numba has and simt does not: NotImplementedError naming it (an
    AttributeError too, so hasattr() and getattr() with a default still work)."""


def _unsupported_attribute(owner, name):
    if name.startswith("_"):  # Python's and tools' probes (__getstate__, _repr_html_)
        return AttributeError(name)
    return UnsupportedAttribute("simt: %s.%s is not supported yet (there is no CUDA driver: "
                                "device memory is host memory)" % (owner, name))


class Context:
    device = _DEVICE

    def __init__(self):
        self.deallocations = _Deallocations()
        self.memory_manager = _MemoryManager()

    def get_memory_info(self):
        return _memory_info()

    def synchronize(self):
        pass

    def reset(self):
        _free_device_memory()

    def __getattr__(self, name):
        raise _unsupported_attribute("Context", name)

    def __repr__(self):
        return "<simt context on %r>" % self.device


_CONTEXT = Context()


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
    def current(self):
        return _DEVICE

    def __repr__(self):
        return "[%r]" % _DEVICE


gpus = _Gpus()


def get_current_device():
    return _DEVICE


def current_context(devnum=None):
    return _CONTEXT


def require_context(fn):
    return fn


def list_devices():
    return list(gpus)


def select_device(device_id):
    if device_id != 0:
        raise ValueError("simt has one device, 0; cannot select device %r" % (device_id,))
    return _DEVICE


def close():
    _free_device_memory()


def _free_device_memory():
    """A device or context reset, or cuda.close(), frees the device's memory: simt's device arrays
    keep their memory, and `simt check` reports kernels that still use it (memcheck)."""
    from . import check
    check.free_all()


def detect():
    print("Found 1 CUDA devices")
    print("id %d    %20s                              [SUPPORTED]" % (_DEVICE.id, _DEVICE.name))
    print("                      Compute Capability: %d.%d" % _DEVICE.compute_capability)
    print("                           PCI Device ID: 0")
    print("                              PCI Bus ID: 0")
    print("                                    UUID: %s" % _DEVICE.uuid)
    print("                                Watchdog: Disabled")
    print("             FP32/FP64 Performance Ratio: 1")
    print("Summary:")
    print("\t1/1 devices are supported")
    return True


def is_available():
    return True


def is_supported_version():
    return True


def cuda_error():
    """The error the driver's initialisation gave, or None: the simulated device always
    initialises."""
    return None


def synchronize():
    pass


class Stream:
    """A stream. Launches and copies complete before they return, so synchronize() is a no-op."""

    def __init__(self, handle=0):
        self.handle = handle

    def synchronize(self):
        pass

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self
        self.synchronize()

    def add_callback(self, callback, arg=None):
        callback(self, None, arg)

    def __int__(self):
        return self.handle

    def __repr__(self):
        return "<simt stream %d>" % self.handle


_DEFAULT_STREAM = Stream(0)
_streams_made = [0]


def stream():
    _streams_made[0] += 1
    return Stream(_streams_made[0])


def default_stream():
    return _DEFAULT_STREAM


legacy_default_stream = default_stream
per_thread_default_stream = default_stream


def external_stream(ptr):
    return Stream(ptr)


class Event:
    """An event records the host time at which it is recorded (work before it has completed)."""

    def __init__(self, timing=True):
        self.timing = timing
        self._time = None

    def record(self, stream=0):
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


def event(timing=True):
    return Event(timing)


def event_elapsed_time(evtstart, evtend):
    return evtstart.elapsed_time(evtend)


@contextlib.contextmanager
def defer_cleanup():
    with _CONTEXT.deallocations.disable():
        yield


def profile_start():
    pass


def profile_stop():
    pass


@contextlib.contextmanager
def profiling():
    yield
