"""CUDA IPC (simt.memory.ipc): device memory exported with get_ipc_handle is shared with the
processes that open its handle (IpcArrayHandle, IpcHandle, cuda.open_ipc_array), writes are seen
both ways, and the /dev/shm files behind it are unlinked when the memory is freed or its process
exits."""
import ctypes
import mmap
import multiprocessing
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from simt import cuda
from simt.memory import driver
from simt.base.numpy_compat import byte_bounds

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="CUDA IPC is Linux-only, as in Numba")

SHM = "/dev/shm"
TIMEOUT = 120


def shm_files(pid):
    prefix = "simt-ipc-%d-" % pid
    return sorted(name for name in os.listdir(SHM) if name.startswith(prefix))


def free_pending_deallocations():
    cuda.current_context().memory_manager.deallocations.clear()


def reopened(handle):
    """The handle as another process gets it (pickled): opening it maps the memory again."""
    return pickle.loads(pickle.dumps(handle))


@cuda.jit
def add_to_all(a, value):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += value


def _blocks(n):
    return (n + 31) // 32


# -- across processes (multiprocessing's spawn context: fresh interpreters) -------------------

def _child_adding(array_handle, conn):
    with array_handle as array:
        conn.send(array.copy_to_host())
        add_to_all[_blocks(array.size), 32](array, 100)
        conn.send("added")
        conn.recv()  # the parent has written
        conn.send(array.copy_to_host())


def _spawn(target, *args):
    context = multiprocessing.get_context("spawn")
    parent_end, child_end = context.Pipe()
    process = context.Process(target=target, args=args + (child_end,))
    process.start()
    return process, parent_end


def _finish(process):
    process.join(TIMEOUT)
    assert process.exitcode == 0


def test_a_kernel_in_another_process_writes_the_exported_array_and_sees_its_writes():
    values = np.arange(10, dtype=np.intp)
    exported = cuda.to_device(values)
    process, conn = _spawn(_child_adding, exported.get_ipc_handle())
    assert conn.poll(TIMEOUT)
    np.testing.assert_array_equal(conn.recv(), values)
    assert conn.recv() == "added"
    np.testing.assert_array_equal(exported.copy_to_host(), values + 100)
    add_to_all[1, 32](exported, 1000)
    conn.send("written")
    np.testing.assert_array_equal(conn.recv(), values + 1100)
    _finish(process)


def _child_opening_bytes(handle_bytes, size, conn):
    with cuda.open_ipc_array(handle_bytes, shape=(size // 8,), dtype=np.float64,
                             offset=8) as array:
        conn.send(array.copy_to_host())
        array[0] = -1.0
        conn.send("written")
        conn.recv()


def test_open_ipc_array_maps_a_large_allocation_from_its_handle_bytes():
    values = np.arange(20000.0)  # page-aligned memory (simt.memory.devicearray._buffer)
    exported = cuda.to_device(values)
    ipc_handle = cuda.current_context().get_ipc_handle(exported.gpu_data)
    assert len(bytes(ipc_handle.handle)) == 64 and ipc_handle.offset == 0
    process, conn = _spawn(_child_opening_bytes, bytes(ipc_handle.handle), 8 * 100)
    assert conn.poll(TIMEOUT)
    np.testing.assert_array_equal(conn.recv(), values[1:101])
    assert conn.recv() == "written"
    assert exported[1] == -1.0 and exported[0] == 0.0 and exported[2] == 2.0
    conn.send("done")
    _finish(process)


# -- handles opened again in this process: the same memory at a second address ----------------

def test_a_reopened_handle_aliases_the_memory_both_ways():
    exported = cuda.to_device(np.arange(10, dtype=np.int32))
    with reopened(exported.get_ipc_handle()) as alias:
        assert alias.device_ctypes_pointer.value != exported.device_ctypes_pointer.value
        add_to_all[1, 32](alias, 5)
        assert exported.copy_to_host().tolist() == list(range(5, 15))
        exported[9] = 0
        assert alias[9] == 0


def test_slices_of_neighbouring_small_arrays_are_exported_independently():
    # Each handle names the pages its slice lies in.
    arrays = [cuda.to_device(np.full(10, k, dtype=np.int64)) for k in range(6)]
    handles = [reopened(a[2:7].get_ipc_handle()) for a in arrays]
    aliases = [handle.open() for handle in handles]
    for k, alias in enumerate(aliases):
        assert alias.shape == (5,) and alias.copy_to_host().tolist() == [k] * 5
        add_to_all[1, 32](alias, 10)
    for k, array in enumerate(arrays):
        assert array.copy_to_host().tolist() == [k] * 2 + [k + 10] * 5 + [k] * 3
    for handle in handles:
        handle.close()


def test_a_two_dimensional_view_keeps_its_shape_and_strides():
    exported = cuda.to_device(np.arange(20000.0).reshape(100, 200))
    view = exported[10:20, ::2]
    with reopened(view.get_ipc_handle()) as alias:
        assert alias.shape == (10, 100) and alias.strides == view.strides
        np.testing.assert_array_equal(alias.copy_to_host(), view.copy_to_host())


def test_ipc_handles_pickle_as_numbas():
    exported = cuda.to_device(np.arange(10, dtype=np.intp))
    ipc_handle = cuda.current_context().get_ipc_handle(exported[3:8].gpu_data)
    assert isinstance(ipc_handle, cuda.IpcHandle) and ipc_handle.base is not None
    assert (ipc_handle.size, ipc_handle.offset) == (40, 24)
    rebuilt = reopened(ipc_handle)
    assert rebuilt.base is None and (rebuilt.size, rebuilt.offset) == (40, 24)
    assert tuple(rebuilt.handle) == tuple(ipc_handle.handle)
    assert rebuilt.source_info == cuda.get_current_device().get_device_identity()
    memory = rebuilt.open(cuda.current_context())
    host = np.zeros(5, dtype=np.intp)
    driver.device_to_host(host, memory, 40)
    assert host.tolist() == [3, 4, 5, 6, 7]
    rebuilt.close()


def test_open_staged_copies_the_memory():
    exported = cuda.to_device(np.arange(4, dtype=np.int64))
    rebuilt = reopened(cuda.current_context().get_ipc_handle(exported.gpu_data))
    copy = rebuilt.open_staged(cuda.current_context())
    rebuilt.close()
    exported[0] = 7
    host = np.zeros(4, dtype=np.int64)
    driver.device_to_host(host, copy, 32)
    assert host.tolist() == [0, 1, 2, 3]


def test_opening_twice_closing_unopened_and_opening_in_the_exporter_raise():
    exported = cuda.to_device(np.arange(4.0))
    handle = exported.get_ipc_handle()
    with pytest.raises(ValueError, match="opening IpcHandle from original process"):
        handle.open()
    with pytest.raises(ValueError, match="IpcHandle not opened"):
        handle.close()
    rebuilt = reopened(handle)
    with rebuilt:
        with pytest.raises(ValueError, match="IpcHandle is already opened"):
            rebuilt.open()


def test_an_array_outlives_the_closed_handle():
    # CUDA unmaps at close; simt's mapping goes with the last array over it.
    exported = cuda.to_device(np.arange(4.0))
    with reopened(exported.get_ipc_handle()) as alias:
        pass
    exported[1] = 9.0
    assert alias.copy_to_host().tolist() == [0.0, 9.0, 2.0, 3.0]


def test_memory_simt_did_not_allocate_cannot_be_exported():
    mapped = cuda.mapped_array(4)
    with pytest.raises(NotImplementedError, match="simt's memory manager did not allocate"):
        cuda.current_context().get_ipc_handle(mapped.gpu_data)


class _Plugin(cuda.GetIpcHandleMixin, cuda.HostOnlyCUDAMemoryManager):
    """An EMM plugin whose device memory is ctypes buffers of its own."""

    def initialize(self):
        self.buffers = []

    def memalloc(self, size):
        buffer = (ctypes.c_ubyte * size)()
        self.buffers.append(buffer)
        return driver.AutoFreePointer(self.context, ctypes.c_size_t(ctypes.addressof(buffer)),
                                      size, finalizer=lambda: self.buffers.remove(buffer))

    def get_memory_info(self):
        return cuda.MemoryInfo(1, 2)

    @property
    def interface_version(self):
        return 1


class _ExportingPlugin(_Plugin):
    def get_ipc_handle(self, memory):
        return "plugin handle of %d bytes" % memory.size


@pytest.mark.parametrize("plugin", [_Plugin, _ExportingPlugin])
def test_an_emm_plugins_memory_is_exported_by_the_plugin(plugin):
    cuda.close()
    try:
        cuda.set_memory_manager(plugin)
        array = cuda.device_array(3)
        if plugin is _Plugin:
            with pytest.raises(NotImplementedError, match="an EMM plugin's memory"):
                array.get_ipc_handle()
        else:
            assert array.get_ipc_handle()._ipc_handle == "plugin handle of 24 bytes"
    finally:
        cuda.close()
        driver._memory_manager = None


# -- the files behind the handles --------------------------------------------------------------

def test_the_shared_memory_files_go_with_the_memory():
    free_pending_deallocations()
    before = shm_files(os.getpid())
    small = cuda.to_device(np.arange(10.0))
    large = cuda.to_device(np.arange(50000.0))
    handles = [small.get_ipc_handle(), large.get_ipc_handle()]
    with reopened(handles[0]) as alias:
        assert len(shm_files(os.getpid())) > len(before)
    del small, large, handles, alias
    free_pending_deallocations()
    assert shm_files(os.getpid()) == before


def test_a_handle_of_freed_memory_cannot_be_opened():
    exported = cuda.to_device(np.arange(50000.0))
    rebuilt = reopened(exported.get_ipc_handle())
    del exported
    free_pending_deallocations()
    with pytest.raises(ValueError, match="memory is gone"):
        rebuilt.open()


EXPORTER = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    from simt import cuda
    arrays = [cuda.to_device(np.arange(n, dtype=np.float64)) for n in (10, 50000)]
    handles = [a.get_ipc_handle() for a in arrays]
    print(len([f for f in os.listdir("/dev/shm") if f.startswith("simt-ipc-%d-" % os.getpid())]),
          flush=True)
    if sys.argv[1] == "wait":
        time.sleep(600)
    """)


def _run_exporter(mode):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen([sys.executable, "-c", EXPORTER, mode], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def test_an_exporter_that_exits_leaves_no_files():
    exporter = _run_exporter("exit")
    out, err = exporter.communicate(timeout=TIMEOUT)
    assert exporter.returncode == 0, err
    assert int(out) == 2
    assert shm_files(exporter.pid) == []
    assert "leaked" not in err


def test_an_exporter_killed_leaves_no_files():
    # multiprocessing's resource tracker unlinks the files of an exporter that cannot.
    exporter = _run_exporter("wait")
    assert int(exporter.stdout.readline()) == 2
    assert len(shm_files(exporter.pid)) == 2
    exporter.send_signal(signal.SIGKILL)
    exporter.communicate(timeout=TIMEOUT)
    deadline = time.monotonic() + 30
    while shm_files(exporter.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert shm_files(exporter.pid) == []


def test_a_forked_child_gets_a_copy_not_the_shared_pages():
    exported = cuda.to_device(np.arange(10.0))
    rebuilt = reopened(exported.get_ipc_handle())
    pid = os.fork()
    if pid == 0:  # the child writes its copy of the exported memory, then exits at once
        exported[:] = -1.0
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0
    assert exported.copy_to_host().tolist() == list(np.arange(10.0))
    with rebuilt as alias:  # still shared with this process's importers
        exported[0] = 5.0
        assert alias[0] == 5.0


def test_device_memory_lies_on_pages_of_its_own():
    # Exporting shares whole pages: a page shared with the heap's other blocks would be shared
    # with a forked child as well, whose mallocs would corrupt this process's heap.
    page = mmap.PAGESIZE
    for nbytes in (8, 100, page - 8, page + 8, 3 * page):
        d = cuda.device_array(nbytes, np.uint8)
        start = d.device_ctypes_pointer.value
        owner = d._host if d._host.base is None else d._host.base
        while owner.base is not None:
            owner = owner.base
        low, high = byte_bounds(owner)
        assert start % page == 0
        assert low <= start and start + -(-nbytes // page) * page <= high


def test_forked_children_leave_the_exporters_heap_alone(python):
    # Small arrays exported, then children forked that allocate and free at length (the PTX
    # check compiles in forked children): the parent's heap must stay sound.
    script = textwrap.dedent("""\
        import os
        import numpy as np
        from simt import cuda
        kept = []
        for i in range(50):
            d = cuda.to_device(np.arange(16, dtype=np.int64))
            kept.append((d, d.get_ipc_handle()))
        for _ in range(10):
            pid = os.fork()
            if pid == 0:
                junk = [bytearray(100 + 37 * k % 4000) for k in range(20000)]
                os._exit(0)
            os.waitpid(pid, 0)
            junk = [bytes(100 + 41 * k % 4000) for k in range(20000)]
        print("sound")
        """)
    proc = python(["-c", script])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "sound"


def test_bytes_that_are_not_a_handle_are_refused():
    with pytest.raises(ValueError, match="not a simt CUDA IPC handle"):
        with cuda.open_ipc_array(bytes(64), shape=4, dtype=np.float64):
            pass
