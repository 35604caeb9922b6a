"""CUDA IPC on simt: device memory shared between processes (get_ipc_handle, IpcHandle.open,
open_ipc_array). Linux only, as Numba's.

simt's device memory is host memory private to the process. Exporting an allocation makes it
shared in place: the pages it lies in are copied into files under /dev/shm, and each file is
mapped over the same pages (mmap MAP_FIXED | MAP_SHARED). Every pointer, array and view of the
allocation keeps its address, its bytes are from then on the files', and a process opening the
handle maps the same files: writes by kernels, copies or NumPy are seen both ways. Allocations
become shared when first exported, not from the start: exports are rare, and a file per
allocation would cost every allocation system calls and whole pages. (The bytes are copied at
the export: another thread must not write the allocation meanwhile.)

A page is shared through one file at most (a "run" of pages). Device memory lies on pages of its
own (pointers.page_buffer: a page shared with the heap's other blocks would be shared with a
forked child too, whose mallocs would then corrupt this process's heap), but exported views of
one allocation share pages, which another export may have shared already, so a handle lists the
runs its memory lies in (up to three: the first page, the middle, the last page).
When an exported allocation's buffer dies (or the process exits) the runs no other export uses
become private again and their files are unlinked; multiprocessing's resource tracker unlinks the
files of an exporter that crashed. A handle is valid while its exporter keeps the memory, as
CUDA's are. An importer's mapping lives as long as the memory pointer and the arrays over it."""
import atexit
import bisect
import ctypes
import itertools
import mmap
import os
import threading
import weakref

from multiprocessing import resource_tracker

from .pointers import host_bytes

__all__ = ["HANDLE_BYTES", "export", "open_shared"]

# A handle is as long as CUDA's cudaIpcMemHandle_t, whose bytes Numba's API passes around.
HANDLE_BYTES = 64
_MAGIC = "simt"
_PAGE = mmap.PAGESIZE
_SHM_FOLDER = "/dev/shm"
# Linux's values, which Python's mmap module does not name.
_MAP_FIXED = 0x10
_PROT_NONE = 0

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_long)
_libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
_MAP_FAILED = ctypes.c_void_p(-1).value


def _map(address, size, flags, fd=-1, offset=0, protection=mmap.PROT_READ | mmap.PROT_WRITE):
    result = _libc.mmap(address, size, protection, flags, fd, offset)
    if result == _MAP_FAILED:
        error = ctypes.get_errno()
        raise OSError(error, "simt: mmap for CUDA IPC failed: %s" % os.strerror(error))
    return result


def _page_floor(address):
    return address - address % _PAGE


def _page_ceil(address):
    return -(-address // _PAGE) * _PAGE


def _shm_name(pid, number):
    return "simt-ipc-%d-%d" % (pid, number)


class _Run:
    """Pages [start, end) of this process shared through one /dev/shm file. `isolated`: the
    pages hold the bytes of one buffer only, so when it dies they need not keep their bytes."""

    _numbers = itertools.count()

    def __init__(self, start, end, isolated):
        self.start, self.end, self.isolated = start, end, isolated
        self.number = next(self._numbers)
        self.name = _shm_name(os.getpid(), self.number)
        self.users = 0
        resource_tracker.register("/" + self.name, "shared_memory")
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        except BaseException:
            resource_tracker.unregister("/" + self.name, "shared_memory")
            raise
        # The file is closed once mapped, and opened again by name where needed: a descriptor
        # held per export would run a process that exports much out of them (ulimit -n).
        try:
            os.ftruncate(fd, end - start)
            pages = memoryview(host_bytes(start, end - start))
            written = 0
            while written < len(pages):
                written += os.pwrite(fd, pages[written:], written)
            _map(start, end - start, mmap.MAP_SHARED | _MAP_FIXED, fd)
        except BaseException:
            os.unlink(self.path)
            resource_tracker.unregister("/" + self.name, "shared_memory")
            raise
        finally:
            os.close(fd)

    @property
    def path(self):
        return os.path.join(_SHM_FOLDER, self.name)

    def make_private(self, keep_bytes):
        """Maps the pages privately again: a copy-on-write view of the file where they must keep
        their bytes (other buffers' bytes, or at exit), else fresh memory."""
        if not keep_bytes:
            _map(self.start, self.end - self.start,
                 mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_FIXED)
            return
        fd = os.open(self.path, os.O_RDWR)
        try:
            _map(self.start, self.end - self.start, mmap.MAP_PRIVATE | _MAP_FIXED, fd)
        finally:
            os.close(fd)

    def copy_private(self):
        """Maps the pages privately again, keeping their bytes by copying them: in a forked
        child, whose only thread is this one, where the parent may have unlinked the file."""
        pages = host_bytes(self.start, self.end - self.start).copy()
        _map(self.start, self.end - self.start,
             mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_FIXED)
        host_bytes(self.start, self.end - self.start)[:] = pages

    def release(self, keep_bytes):
        try:
            self.make_private(keep_bytes or not self.isolated)
        finally:
            try:
                os.unlink(self.path)
            except FileNotFoundError:  # /dev/shm cleaned by someone else
                pass
            resource_tracker.unregister("/" + self.name, "shared_memory")


class _Export:
    def __init__(self, handle, runs, finalizer):
        self.handle, self.runs, self.finalizer = handle, runs, finalizer


_lock = threading.RLock()
_runs = {}          # start address -> _Run
_run_starts = []    # sorted start addresses of _runs
_exports = {}       # allocation start address -> _Export


def _run_at(page):
    index = bisect.bisect_right(_run_starts, page) - 1
    if index >= 0 and page < _runs[_run_starts[index]].end:
        return _runs[_run_starts[index]]
    return None


def _new_run(start, end, isolated):
    run = _Run(start, end, isolated)
    _runs[start] = run
    bisect.insort(_run_starts, start)
    return run


def _drop_run(run):
    del _runs[run.start]
    _run_starts.remove(run.start)


def export(base, size, buffer):
    """The handle (HANDLE_BYTES bytes) of the allocation of `size` bytes at `base`, whose memory
    is the NumPy array `buffer`'s: its pages are shared from now until the buffer dies."""
    with _lock:
        exported = _exports.get(base)
        if exported is not None:
            return exported.handle
        owner = buffer if buffer.base is None else buffer.base
        owner_start = owner.__array_interface__["data"][0]
        owner_end = owner_start + owner.nbytes
        end = _page_ceil(base + size)
        page, runs, segments = _page_floor(base), [], []
        try:
            while page < end:
                run = _run_at(page)
                if run is None:
                    following = bisect.bisect_right(_run_starts, page)
                    stop = end if following == len(_run_starts) else \
                        min(end, _run_starts[following])
                    run = _new_run(page, stop, owner_start <= page and stop <= owner_end)
                run.users += 1  # at once: a finalizer run meanwhile must not release it
                runs.append(run)
                last = min(run.end, end)
                segments.append("%x:%x:%x" % (run.number, (page - run.start) // _PAGE,
                                              (last - page) // _PAGE))
                page = last
            text = " ".join([_MAGIC, "%x" % (base % _PAGE), "%x" % os.getpid()] + segments)
            if len(text) > HANDLE_BYTES:
                raise NotImplementedError("simt: exporting this allocation: its pages are "
                                          "shared through more files than a 64-byte IPC "
                                          "handle can name")
        except BaseException:
            _stop_using(runs, keep_bytes=True)
            raise
        finalizer = weakref.finalize(owner, _release, base)
        finalizer.atexit = False  # _release_all_at_exit unlinks the files, keeping the bytes
        handle = text.encode("ascii").ljust(HANDLE_BYTES, b"\0")
        _exports[base] = _Export(handle, runs, finalizer)
        return handle


def _stop_using(runs, keep_bytes):
    """Releases the runs no export uses any more."""
    for run in runs:
        run.users -= 1
        if run.users == 0:
            _drop_run(run)
            run.release(keep_bytes)


def _release(base, keep_bytes=False):
    with _lock:
        _stop_using(_exports.pop(base).runs, keep_bytes)


@atexit.register
def _release_all_at_exit():
    for base in list(_exports):
        _exports[base].finalizer.detach()
        _release(base, keep_bytes=True)


def _forget_after_fork():
    """In a forked child: its memory is a copy of the parent's, so the shared pages become
    private copies (a child writing heap memory there would write the parent's), and the
    parent's files are the parent's to unlink."""
    global _lock
    _lock = threading.RLock()
    for run in _runs.values():
        run.copy_private()
    for exported in _exports.values():
        exported.finalizer.detach()
    _runs.clear()
    _run_starts.clear()
    _exports.clear()


os.register_at_fork(after_in_child=_forget_after_fork)


class _Mapping:
    """An importer's mapping of a handle's files: unmapped when this object dies."""

    def __init__(self, address, size):
        weakref.finalize(self, _libc.munmap, address, size)


def _parse(handle):
    """(the allocation's offset in its first page, the exporter's pid, [(run number, first page
    in the run's file, pages)]) of a handle's bytes."""
    fields = bytes(handle).rstrip(b"\0").decode("ascii", "replace").split()
    try:
        if len(fields) < 4 or fields[0] != _MAGIC:
            raise ValueError
        offset, pid = int(fields[1], 16), int(fields[2], 16)
        segments = [tuple(int(value, 16) for value in field.split(":")) for field in fields[3:]]
        if not (0 <= offset < _PAGE and pid > 0) or any(
                len(segment) != 3 or min(segment) < 0 or segment[2] == 0
                for segment in segments):
            raise ValueError
        return offset, pid, segments
    except ValueError:
        raise ValueError("simt: %r is not a simt CUDA IPC handle" % (bytes(handle),)) from None


def _open_run_file(pid, number, first_page, pages):
    """A descriptor of the file of the exporter's run `number`, checked to hold the pages the
    handle names: pages past its end would be mapped, and touching them kills the process
    (SIGBUS)."""
    try:
        fd = os.open(os.path.join(_SHM_FOLDER, _shm_name(pid, number)), os.O_RDWR)
    except FileNotFoundError:
        raise ValueError("simt: the IPC handle's memory is gone: its process (pid %d) freed "
                         "it or exited" % pid) from None
    held = os.fstat(fd).st_size // _PAGE
    if first_page + pages > held:
        os.close(fd)
        raise ValueError("simt: the IPC handle names pages %d to %d of shared memory file %d of "
                         "process %d, past the file's end (%d pages): the handle was altered"
                         % (first_page, first_page + pages - 1, number, pid, held))
    return fd


def open_shared(handle, size):
    """(the mapping, the address of the allocation) of a handle's memory in this process, of
    which `size` bytes are used."""
    offset, pid, segments = _parse(handle)
    total = sum(pages for _, _, pages in segments) * _PAGE
    if size < 0 or offset + size > total:
        raise ValueError("simt: %d bytes do not fit the IPC handle's memory (%d bytes)"
                         % (size, total - offset))
    fds = []
    try:
        for number, first_page, pages in segments:
            fds.append(_open_run_file(pid, number, first_page, pages))
        # Reserve the address range, then map each run's pages over it, in order.
        address = _map(None, total, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                       protection=_PROT_NONE)
        mapping = _Mapping(address, total)
        position = address
        for fd, (_, first_page, pages) in zip(fds, segments):
            _map(position, pages * _PAGE, mmap.MAP_SHARED | _MAP_FIXED, fd, first_page * _PAGE)
            position += pages * _PAGE
    finally:
        for fd in fds:
            os.close(fd)
    return mapping, address + offset
