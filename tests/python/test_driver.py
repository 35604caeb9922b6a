"""Numba's driver layer where it has a host meaning (simt.memory.driver, numba.cuda.cudadrv.driver
under the hook): memory pointers and their owners, pending deallocations, External Memory
Management plugins backing device arrays, the memory functions, device records and mapped arrays,
and the __cuda_array_interface__ stream protocol."""
import ctypes
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from simt import cuda
from simt.memory import driver


@pytest.fixture
def fresh_context():
    cuda.close()
    yield cuda.current_context()
    cuda.close()
    driver._memory_manager = None


class CountingPlugin(cuda.HostOnlyCUDAMemoryManager):
    """An EMM plugin whose device memory is ctypes buffers it owns and counts."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.buffers = {}
        self.initialized = self.reset_called = False

    def initialize(self):
        self.initialized = True

    def memalloc(self, size):
        buffer = (ctypes.c_ubyte * size)()
        address = ctypes.addressof(buffer)
        self.buffers[address] = buffer

        def free():
            del self.buffers[address]

        return driver.AutoFreePointer(self.context, ctypes.c_size_t(address), size,
                                      finalizer=free)

    def get_memory_info(self):
        return cuda.MemoryInfo(free=32, total=64)

    def get_ipc_handle(self, memory):
        return "handle of %d" % memory.device_pointer.value

    def reset(self):
        super().reset()
        self.reset_called = True

    @property
    def interface_version(self):
        return 1


@cuda.jit
def double_it(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= 2


def test_a_plugins_allocations_back_device_arrays(fresh_context):
    cuda.set_memory_manager(CountingPlugin)
    cuda.close()
    ctx = cuda.current_context()
    plugin = ctx.memory_manager
    assert isinstance(plugin, CountingPlugin) and plugin.initialized
    assert ctx.get_memory_info() == (32, 64)

    d = cuda.to_device(np.arange(8, dtype=np.int64))
    (address, buffer), = plugin.buffers.items()
    assert d.gpu_data.device_pointer.value == address == d.device_ctypes_pointer.value
    double_it[1, 8](d)
    assert list(buffer)[:16] == [0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]
    assert d.copy_to_host().tolist() == [0, 2, 4, 6, 8, 10, 12, 14]
    view = d[2:5]
    del d
    assert len(plugin.buffers) == 1  # the view keeps its parent's memory
    assert view.copy_to_host().tolist() == [4, 6, 8]
    del view
    assert plugin.buffers == {}
    assert cuda.device_array(3).get_ipc_handle()._ipc_handle.startswith("handle of ")
    cuda.close()
    assert plugin.reset_called


def test_plugins_of_another_interface_version_are_refused(fresh_context):
    class Version2(CountingPlugin):
        @property
        def interface_version(self):
            return 2

    with pytest.raises(RuntimeError, match="version 1 required"):
        cuda.set_memory_manager(Version2)


def test_the_memory_manager_named_by_the_environment(tmp_path):
    (tmp_path / "my_manager.py").write_text(textwrap.dedent("""
        from simt import cuda

        class Plugin(cuda.HostOnlyCUDAMemoryManager):
            def initialize(self):
                pass

            def memalloc(self, size):
                raise MemoryError("my_manager refuses %d bytes" % size)

            def get_memory_info(self):
                return cuda.MemoryInfo(1, 2)

            @property
            def interface_version(self):
                return 1

        _numba_memory_manager = Plugin
        """))
    script = ("from simt import cuda\n"
              "print(cuda.current_context().get_memory_info())\n"
              "try:\n    cuda.device_array(4)\nexcept MemoryError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={"NUMBA_CUDA_MEMORY_MANAGER": "my_manager",
                              "PYTHONPATH": "%s:%s" % (tmp_path, ":".join(sys.path))},
                         check=True).stdout
    assert out.splitlines() == ["MemoryInfo(free=1, total=2)", "my_manager refuses 32 bytes"]


def test_pending_deallocations_flush_by_count_and_wait_under_defer_cleanup(fresh_context):
    deallocs = fresh_context.memory_manager.deallocations
    deallocs.clear()
    for i in range(10):  # NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT
        cuda.to_device(np.arange(3))
        assert len(deallocs) == i + 1
    cuda.to_device(np.arange(3))
    assert len(deallocs) == 0
    with cuda.defer_cleanup():
        for _ in range(12):
            cuda.device_array(4)
        assert len(deallocs) == 12
    deallocs.clear()
    assert len(deallocs) == 0


def test_memory_pointers_views_and_owned_references(fresh_context):
    m = fresh_context.memalloc(64)
    assert isinstance(m.device_ctypes_pointer, ctypes.c_size_t) and m.refct == 1
    v = m.view(8)
    assert v.owner.handle.value == m.handle.value and m.refct == 2
    assert v.handle.value - 8 == m.handle.value and v.size == 56
    del v
    assert m.refct == 1
    freed = []
    p = driver.MemoryPointer(fresh_context, ctypes.c_size_t(0xdead), 4,
                             finalizer=lambda: freed.append(1))
    owned = p.own()
    del owned
    assert freed == []
    del p
    assert freed == [1]


def test_memory_functions_copy_and_set_bytes(fresh_context):
    host = np.arange(10, dtype=np.uint32)
    a, b = fresh_context.memalloc(40), fresh_context.memalloc(40)
    driver.host_to_device(a, host, 40)
    driver.device_to_device(b, a, 40)
    back = np.zeros_like(host)
    driver.device_to_host(back, b, 40)
    assert back.tolist() == host.tolist()
    driver.device_memset(b, 0xab, 8)
    driver.device_to_host(back, b, 40)
    assert back[:3].tolist() == [0xabababab, 0xabababab, 2]
    assert driver.host_memory_size(host) == 40 == driver.device_memory_size(a)
    record = np.zeros(1, dtype=[("x", np.int32), ("y", np.float64)])[0]
    assert driver.host_memory_size(record) == 12 and driver.host_memory_size(b"abc") == 3
    keep = object()
    driver.device_memory_depends(a, keep)
    assert a._depends_ == [keep]  # kept alive with the memory
    assert driver.memory_size_from_info((3, 4), (32, 8), 8) == 96
    with pytest.raises(NotImplementedError, match="cuMemGetInfo"):
        driver.driver.cuMemGetInfo()


def test_host_allocations_expose_their_memory_as_buffers(fresh_context):
    mapped = fresh_context.memhostalloc(16, mapped=True)
    view = np.ndarray(16, np.uint8, buffer=mapped)
    driver.device_memset(mapped, 7, 16)
    assert view.tolist() == [7] * 16
    managed = fresh_context.memallocmanaged(8)
    assert np.ndarray(8, np.uint8, buffer=managed).size == 8
    pinned = fresh_context.mempin(view, view.ctypes.data, 16)
    assert np.frombuffer(pinned, np.uint8)[0] == 7


def test_device_records_reach_kernels_as_records():
    dtype = np.dtype([("a", np.int32), ("b", np.float32)], align=True)
    host = np.zeros(1, dtype)[0]
    host["a"], host["b"] = 10, 1.5

    @cuda.jit
    def bump(rec):
        rec.a += 1
        rec.b *= 2

    record = cuda.to_device(host)
    assert isinstance(record, cuda.DeviceRecord) and record.shape == ()
    bump[1, 1](record)
    back = record.copy_to_host()
    assert (back["a"], back["b"]) == (11, 3.0)


def test_mapped_arrays_are_device_memory_too():
    a = cuda.mapped_array(4, dtype=np.int64)
    a[:] = [1, 2, 3, 4]
    assert driver.is_device_memory(a) and driver.device_memory_size(a) == 32
    double_it[1, 4](a)
    assert a.tolist() == [2, 4, 6, 8]
    assert a.__cuda_array_interface__["data"][0] == a.ctypes.data


def test_copies_need_one_region_as_numba_does():
    with pytest.raises(ValueError, match="non-contiguous buffer"):
        cuda.to_device(np.arange(10)[::2])
    d = cuda.to_device(np.arange(10.0))
    with pytest.raises(NotImplementedError, match="negative strides"):
        d[::-1].copy_to_host()
    with pytest.raises(ValueError, match="incompatible shape"):
        d.copy_to_device(np.zeros(5))
    broadcast = cuda.to_device(np.broadcast_to(np.array([3.0]), (4,)))
    assert broadcast.strides == (0,) and broadcast.copy_to_host().tolist() == [3.0] * 4


def test_stream_handles_convert_to_int_as_cuda_bindings_ones_do():
    # numba-cuda's and numba-cuda-mlir's tests check int(cuda.external_stream(ptr).handle).
    s = cuda.external_stream(0x12345678)
    assert int(s.handle) == s.handle.value == 0x12345678
    created = cuda.stream()
    assert int(cuda.default_stream().handle) == 0 and int(created.handle) == int(created) > 0

class _Foreign:
    def __init__(self, array):
        self.__cuda_array_interface__ = array.__cuda_array_interface__
        self._keep = array


def test_array_interface_streams_are_produced_consumed_and_synchronised(monkeypatch):
    s = cuda.stream()
    produced = cuda.device_array(4, stream=s)
    assert produced.__cuda_array_interface__["stream"] == s.handle.value
    assert cuda.device_array(4).__cuda_array_interface__["stream"] is None
    assert cuda.device_array(0).__cuda_array_interface__["data"][0] == 0

    synchronised = []
    monkeypatch.setattr(driver.Stream, "synchronize", lambda self: synchronised.append(self))
    consumed = cuda.as_cuda_array(_Foreign(produced))
    assert consumed.stream.external and consumed.stream.handle.value == s.handle.value
    assert len(synchronised) == 1
    double_it[1, 4](_Foreign(produced))  # a launch synchronises the producer's stream once
    assert len(synchronised) == 2
    double_it[1, 4](_Foreign(cuda.device_array(4)))
    assert len(synchronised) == 2


def test_numba_disable_cuda_makes_the_device_unavailable():
    script = ("from simt import cuda\n"
              "print(cuda.is_available())\n"
              "try:\n    cuda.device_array(1)\nexcept ImportError as e:\n"
              "    print(type(e).__name__, e)\n"
              "print(cuda.cuda_error() is not None)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={"NUMBA_DISABLE_CUDA": "1", "PYTHONPATH": ":".join(sys.path)},
                         check=True).stdout.splitlines()
    assert out[0] == "False" and out[2] == "True"
    assert "CUDA is disabled due to setting NUMBA_DISABLE_CUDA=1" in out[1]


def test_driver_version_is_the_cuda_version_simt_reports():
    # numba.cuda.cudadrv.driver.driver.get_version(): (major, minor), as cuda.runtime's
    assert driver.driver.get_version() == driver.get_version() == cuda.runtime.get_version()
    assert driver.get_version() == (12, 0)
    code = textwrap.dedent("""
        import os
        os.environ["NUMBA_DISABLE_CUDA"] = "1"
        from simt.memory import driver
        try:
            driver.driver.get_version()
        except ImportError as error:  # CudaSupportError, as Numba's driver gives
            print("refused:", error)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "refused: CUDA is disabled" in proc.stdout, proc.stderr


def test_stream_callbacks_get_the_success_status():
    seen = []
    stream = cuda.stream()
    stream.add_callback(lambda s, status, arg: seen.append((s is stream, status, arg)), "x")
    stream.synchronize()
    assert seen == [(True, 0, "x")]
