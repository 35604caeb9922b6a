"""The simulated device and its context (numba.cuda.cudadrv.devices), streams and events.
Launches are synchronous, so streams and events only keep Numba's API (and events measure host
time). The context, memory and streams are simt.driver's."""
import contextlib
import os

from . import config
from .driver import (Context, Event, MemoryInfo, Stream, UnsupportedAttribute,  # noqa: F401
                     event_elapsed_time, profile_start, profile_stop, profiling)

__all__ = ["Device", "Context", "Stream", "Event", "gpus", "get_current_device", "get_context",
           "MemoryInfo", "UnsupportedAttribute", "reset",
           "current_context", "list_devices", "select_device", "close", "detect",
           "is_available", "is_supported_version", "synchronize", "stream", "default_stream",
           "legacy_default_stream", "per_thread_default_stream", "external_stream", "event",
           "event_elapsed_time", "require_context", "defer_cleanup", "profile_start",
           "profile_stop", "profiling", "cuda_error", "is_bfloat16_supported", "is_fp8_supported",
           "is_float16_supported"]


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
        from .driver import Context, driver
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


def get_current_device():
    return _DEVICE


def current_context(devnum=None):
    return get_context(devnum)


def require_context(fn):
    return fn


def list_devices():
    return list(gpus)


def select_device(device_id):
    if device_id != 0:
        raise ValueError("simt has one device, 0; cannot select device %r" % (device_id,))
    return _DEVICE


def close():
    """Ends the context (Context.reset: its memory manager's too), and the next use makes a new
    context; device memory is freed in any case."""
    global _context
    if _context is None:
        _free_device_memory()
        return
    _context.reset()
    _context = None


reset = close  # numba.cuda.cudadrv.devices.reset


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
    from .driver import driver
    return driver.is_available


def is_supported_version():
    return True


def is_float16_supported():
    """cuda.is_float16_supported(): float16 is always supported, as in Numba and numba-cuda."""
    return True


def is_fp8_supported():
    """numba-cuda's cuda.is_fp8_supported(): the current device's supports_fp8."""
    return get_current_device().supports_fp8


def is_bfloat16_supported():
    """numba-cuda's cuda.is_bfloat16_supported(): bfloat16 needs compute capability 8.0 (the
    simulated device has it)."""
    return tuple(get_current_device().compute_capability) >= (8, 0)


def cuda_error():
    """The message of the error the driver's initialisation gave, or None (simt.driver: the
    simulated device initialises unless CUDA is disabled)."""
    from .driver import driver
    try:
        driver.initialize()
    except ImportError:
        pass
    return driver.initialization_error


def synchronize():
    pass


def stream():
    return get_context().create_stream()


def default_stream():
    return get_context().get_default_stream()


def legacy_default_stream():
    return get_context().get_legacy_default_stream()


def per_thread_default_stream():
    return get_context().get_per_thread_default_stream()


def external_stream(ptr):
    return get_context().create_external_stream(ptr)


def event(timing=True):
    return get_context().create_event(timing)


@contextlib.contextmanager
def defer_cleanup():
    with get_context().defer_cleanup():
        yield


