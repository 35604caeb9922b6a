"""The simulated device, streams and events."""
import time

import pytest

from simt import cuda


def test_is_available_and_marker():
    assert cuda.is_available()
    assert cuda.is_simt


def test_device_properties():
    dev = cuda.get_current_device()
    assert dev.name == "simt"
    assert dev.compute_capability == (8, 0)
    assert dev.MAX_THREADS_PER_BLOCK == 1024
    assert dev.WARP_SIZE == 32
    assert dev.MAX_SHARED_MEMORY_PER_BLOCK == 48 * 1024
    assert dev.MULTIPROCESSOR_COUNT >= 1
    assert cuda.gpus[0] is dev and len(cuda.gpus) == 1
    cuda.close()
    assert cuda.gpus.current is None  # no context yet, as in Numba
    with cuda.gpus[0]:
        assert cuda.gpus.current is dev
    assert cuda.list_devices() == [dev]
    assert cuda.select_device(0) is dev
    with pytest.raises(ValueError):
        cuda.select_device(1)
    with cuda.gpus[0]:
        pass
    cuda.close()
    free, total = cuda.current_context().get_memory_info()
    assert 0 < free <= total


def test_detect_prints_the_device(capsys):
    assert cuda.detect()
    assert "simt" in capsys.readouterr().out


def test_streams():
    s = cuda.stream()
    assert s is not cuda.default_stream()
    s.synchronize()
    with s.auto_synchronize():
        pass
    cuda.synchronize()


def test_events_measure_milliseconds():
    start, end = cuda.event(), cuda.event()
    start.record()
    time.sleep(0.01)
    end.record()
    end.synchronize()
    elapsed = start.elapsed_time(end)
    assert 5 <= elapsed < 1000
    assert cuda.event_elapsed_time(start, end) == elapsed
    with pytest.raises(RuntimeError):
        cuda.event().elapsed_time(end)


def test_kernel_only_names_exist_and_refuse_host_use():
    for name in ("grid", "gridsize", "syncthreads", "threadIdx", "blockIdx", "blockDim",
                 "gridDim", "shared", "local", "const", "atomic", "laneid", "warpsize",
                 "shfl_sync", "ballot_sync", "syncwarp", "fma", "cbrt", "popc"):
        assert hasattr(cuda, name), name
    with pytest.raises(NotImplementedError, match="inside a kernel"):
        cuda.grid(1)
    with pytest.raises(NotImplementedError, match="inside a kernel"):
        cuda.threadIdx.x
    with pytest.raises(NotImplementedError, match="inside a kernel"):
        cuda.atomic.add(None, 0, 1)
    with pytest.raises(NotImplementedError, match="inside a kernel"):
        cuda.shared.array(4, float)
    with pytest.raises(AttributeError):
        cuda.atomic.nonsense


def test_context_reach_ins_of_libraries():
    """What libraries reach for in the context (Numba's driver objects): memory info as a
    MemoryInfo, pending deallocations, the memory manager, allocations; what needs a GPU a
    NotImplementedError naming it, which hasattr() still reads as absent (tests/python/
    test_driver.py tests the memory objects)."""
    ctx = cuda.current_context()
    info = ctx.get_memory_info()
    assert info.free == info[0] and 0 < info.free <= info.total
    assert ctx.memory_manager.get_memory_info().total == info.total
    assert ctx.memory_manager.interface_version == 1
    freed = []
    deallocations = ctx.deallocations
    deallocations.clear()
    with deallocations.disable():
        deallocations.add_item(freed.append, "handle")
        deallocations.clear()
        assert deallocations.is_disabled and len(deallocations) == 1 and freed == []
    assert freed == [] and len(deallocations) == 1  # pending until cleared, as in Numba
    deallocations.clear()
    assert freed == ["handle"] and len(deallocations) == 0
    with cuda.defer_cleanup():
        assert ctx.memory_manager.deallocations.is_disabled
    assert ctx.memalloc(16).size == 16
    assert not hasattr(ctx, "create_module_image")
    with pytest.raises(NotImplementedError, match=r"Context\.create_module_image is not supported"):
        ctx.create_module_image(b"")


def test_the_device_initialises_without_error():
    """cuda.cuda_error(): Numba's record of a failed driver initialisation (Numba's test_init
    reads it in a child process, which must return for the parent not to wait forever)."""
    assert cuda.cuda_error() is None and cuda.is_available()


def test_device_name_is_a_str_that_decodes_like_numba_056s_bytes():
    name = cuda.get_current_device().name
    assert isinstance(name, str) and name == "simt"
    assert name.decode() == "simt"  # `get_current_device().name.decode()` in Numba 0.56 code
