"""Who watches device memory: the memory layer reports allocations, the host's writes and frees
here, and the checkers (simt.tools.check) watch them while they check a run. The memory layer
knows no checker: a watcher registers itself with watch()."""

__all__ = ["watch", "allocated", "written", "written_at", "free_all"]

# The object told of memory events (allocated, written, written_at, free_all), or None.
_watcher = None


def watch(watcher):
    """Reports memory events to `watcher` from now on (None: to nobody)."""
    global _watcher
    _watcher = watcher


def allocated(host, initialised=False, host_written=False):
    """A device allocation (a NumPy array owning its memory) kernels will use."""
    if _watcher is not None:
        _watcher.allocated(host, initialised, host_written)


def written(view):
    """The host wrote `view` of device memory (copy_to_device, setitem)."""
    if _watcher is not None:
        _watcher.written(view)


def written_at(array, key):
    """The host wrote `array[key]` of device memory (DeviceNDArray.__setitem__)."""
    if _watcher is not None:
        _watcher.written_at(array, key)


def free_all():
    """A device or context reset, or cuda.close(), freed the device's memory."""
    if _watcher is not None:
        _watcher.free_all()
