"""The simulated device and its context (numba.cuda.cudadrv.devices), streams and events.
Launches are synchronous, so streams and events only keep Numba's API (and events measure host
time). The device, its context, memory and streams are simt.memory.driver's."""
import contextlib

from .driver import (Context, Device, Event, MemoryInfo, Stream,  # noqa: F401
                     UnsupportedAttribute, _DEVICE, close, driver, event_elapsed_time,
                     get_context, gpus, profile_start, profile_stop, profiling)

__all__ = ["Device", "Context", "Stream", "Event", "gpus", "get_current_device", "get_context",
           "MemoryInfo", "UnsupportedAttribute", "reset",
           "current_context", "list_devices", "select_device", "close", "detect",
           "is_available", "is_supported_version", "synchronize", "stream", "default_stream",
           "legacy_default_stream", "per_thread_default_stream", "external_stream", "event",
           "event_elapsed_time", "require_context", "defer_cleanup", "profile_start",
           "profile_stop", "profiling", "cuda_error", "is_bfloat16_supported", "is_fp8_supported",
           "is_float16_supported"]


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


reset = close  # numba.cuda.cudadrv.devices.reset


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
    """The message of the error the driver's initialisation gave, or None (simt.memory.driver: the
    simulated device initialises unless CUDA is disabled)."""
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


