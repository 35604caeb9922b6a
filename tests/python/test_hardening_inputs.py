"""Issue 24, Python-side inputs that used to crash the process or mislead: IPC handles and
open_ipc_array's arguments, file descriptors (exports, source capture), what an EMM plugin
returns, the `simt check` and `simt debug` options, `set var` out of range, negative shapes and
object dtypes. Probes that used to kill the process run in a subprocess; each asserts on the exit
status and the message."""
import os
import sys
import textwrap

import numpy as np
import pytest

from simt.tools import check
from simt import cuda
from simt.memory.devicearray import DeviceNDArray

from conftest import REPO

LINUX_ONLY = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="CUDA IPC is Linux-only, as in Numba")


def run_probe(python, source, *args, env=None):
    return python(["-c", textwrap.dedent(source)] + list(args), env=env)


# -- IPC handles and open_ipc_array ----------------------------------------------------------

# Exports an array, edits its handle as argv[1] says, opens it: prints the error it raised.
EDITED_HANDLE = """
    import sys
    import numpy as np
    from simt import cuda
    exported = cuda.to_device(np.arange(10.0))
    raw = bytes(cuda.current_context().get_ipc_handle(exported.gpu_data).handle)
    magic, offset, pid, segment = raw.rstrip(b"\\0").decode().split()
    number, first, pages = segment.split(":")
    edited = {"pages": (number, first, "64"), "first": (number, "5", pages),  # 0x64 pages
              "negative": (number, "-1", pages), "zero": (number, first, "0")}[sys.argv[1]]
    text = " ".join([magic, offset, pid, ":".join(edited)])
    try:
        with cuda.open_ipc_array(text.encode().ljust(64, b"\\0"), shape=10,
                                 dtype=np.float64) as array:
            array.copy_to_host()
    except ValueError as error:
        print(error)
    """


@LINUX_ONLY
@pytest.mark.parametrize("edit, message", [
    ("pages", "names pages 0 to 99 of shared memory file 0 of process"),
    ("first", "names pages 5 to 5 of shared memory file 0 of process"),
    ("negative", "is not a simt CUDA IPC handle"),
    ("zero", "is not a simt CUDA IPC handle"),
])
def test_a_handle_edited_to_name_other_pages_is_refused(python, edit, message):
    # Pages past a file's end used to be mapped, and touching them was a SIGBUS.
    proc = run_probe(python, EDITED_HANDLE, edit)
    assert proc.returncode == 0, proc.stderr
    assert message in proc.stdout, proc.stdout
    if edit in ("pages", "first"):
        assert "past the file's end (1 pages): the handle was altered" in proc.stdout


OPENED_WITH = """
    import sys
    import numpy as np
    from simt import cuda
    exported = cuda.to_device(np.arange(10.0))
    handle = bytes(cuda.current_context().get_ipc_handle(exported.gpu_data).handle)
    arguments = {"offset": dict(shape=10, dtype=np.float64, offset=-4096),
                 "strides": dict(shape=10, dtype=np.float64, strides=(10 ** 6,)),
                 "object": dict(shape=10, dtype=object),
                 "long": dict(shape=10, dtype=np.float64),
                 "shape": dict(shape=(-1,), dtype=np.float64)}[sys.argv[1]]
    if sys.argv[1] == "long":
        handle += b"x"
    try:
        with cuda.open_ipc_array(handle, **arguments) as array:
            array.copy_to_host()
    except (ValueError, TypeError) as error:
        print("%s: %s" % (type(error).__name__, error))
    """


@LINUX_ONLY
@pytest.mark.parametrize("case, message", [
    ("offset", "ValueError: simt: an IPC handle's offset is a count of bytes, not -4096"),
    ("strides", "ValueError: simt: 9000008 bytes do not fit the IPC handle's memory (4096 bytes)"),
    ("object", "TypeError: simt: device memory cannot hold Python objects (dtype object)"),
    ("long", "ValueError: simt: a CUDA IPC handle is 64 bytes, not 65"),
    ("shape", "ValueError: negative dimensions are not allowed"),
])
def test_open_ipc_array_refuses_arguments_outside_the_memory(python, case, message):
    # A negative offset, oversized strides and dtype=object were SIGSEGVs, a long handle an
    # IndexError.
    proc = run_probe(python, OPENED_WITH, case)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(message), proc.stdout


@LINUX_ONLY
def test_an_array_over_memory_of_a_handle_keeps_within_it():
    exported = cuda.to_device(np.arange(20000.0))
    handle = bytes(cuda.current_context().get_ipc_handle(exported.gpu_data).handle)
    # A strided view spans more than its elements' bytes, and is opened as long as it fits.
    with cuda.open_ipc_array(handle, shape=100, dtype=np.float64, strides=(16,)) as alias:
        assert alias.copy_to_host().tolist() == list(np.arange(0.0, 200.0, 2.0))
    with pytest.raises(ValueError, match="do not fit the IPC handle's memory"):
        with cuda.open_ipc_array(handle, shape=20000, dtype=np.float64, strides=(16,)):
            pass


def open_descriptors():
    return len(os.listdir("/proc/self/fd"))


@LINUX_ONLY
def test_exports_hold_no_file_descriptor():
    before = open_descriptors()
    arrays = [cuda.to_device(np.arange(4.0)) for _ in range(50)]
    handles = [a.get_ipc_handle() for a in arrays]
    assert open_descriptors() == before
    del arrays, handles
    cuda.current_context().memory_manager.deallocations.clear()


@LINUX_ONLY
def test_many_exports_under_a_low_descriptor_limit_leave_kernels_compiling(python, tmp_path):
    # At ulimit -n 1024, export 1,019 failed and kernels then failed to compile.
    script = tmp_path / "exports.py"
    script.write_text(textwrap.dedent("""\
        import resource
        import numpy as np
        from simt import cuda
        resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))
        arrays = [cuda.to_device(np.arange(4.0)) for _ in range(300)]
        handles = [a.get_ipc_handle() for a in arrays]

        @cuda.jit
        def increment(a):
            a[0] += 1

        increment[1, 1](arrays[0])
        print(len(handles), arrays[0][0])
        """))
    proc = python([str(script)])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "300 1.0\n"


OUT_OF_DESCRIPTORS = """\
import os
import resource
import numpy as np
from simt import cuda
resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
held = []
try:
    while True:
        held.append(os.open(os.devnull, os.O_RDONLY))
except OSError:
    pass

@cuda.jit
def write_one(a):
    a[0] = 1

write_one[1, 1](np.zeros(1))
"""


@pytest.mark.parametrize("where", ["file", "command line"])
def test_no_descriptor_left_to_read_a_kernels_source_is_named(python, tmp_path, where):
    # The message used to be "kernels must be defined in a source file".
    script = tmp_path / "kernel.py"
    script.write_text(OUT_OF_DESCRIPTORS)
    proc = python([str(script)] if where == "file" else ["-c", OUT_OF_DESCRIPTORS])
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1] == (
        "OSError: [Errno 24] simt: cannot read the source of 'write_one': too many open files "
        "(the limit is `ulimit -n`): close files or raise the limit"), proc.stderr


# -- External Memory Management plugins --------------------------------------------------------

PLUGIN = """
    import ctypes, sys
    import numpy as np
    from simt import cuda
    from simt.memory import driver

    class ShortPlugin(cuda.HostOnlyCUDAMemoryManager):
        def initialize(self):
            self.buffers = []

        def memalloc(self, size):
            if sys.argv[1] == "none":
                return None
            if sys.argv[1] == "int":
                return 12345
            buffer = (ctypes.c_ubyte * 8)()
            self.buffers.append(buffer)
            return driver.MemoryPointer(self.context,
                                        ctypes.c_size_t(ctypes.addressof(buffer)), 8)

        def get_memory_info(self):
            return cuda.MemoryInfo(1, 2)

        def get_ipc_handle(self, memory):
            raise NotImplementedError

        @property
        def interface_version(self):
            return 1

    cuda.set_memory_manager(ShortPlugin)
    try:
        cuda.to_device(np.arange(1000.0))
    except (TypeError, ValueError) as error:
        print("%s: %s" % (type(error).__name__, error))
    """


@pytest.mark.parametrize("returned, message", [
    ("short", "ValueError: simt: the EMM plugin ShortPlugin.memalloc(8000) returned "
              "<simt.memory.pointers.MemoryPointer object at 0x"),
    ("none", "TypeError: simt: the EMM plugin ShortPlugin.memalloc(8000) returned None: a "
             "memory object with `device_pointer` (a ctypes pointer or int) and `size` in bytes "
             "was needed, as Numba's MemoryPointer"),
    ("int", "TypeError: simt: the EMM plugin ShortPlugin.memalloc(8000) returned 12345: a "
            "memory object with `device_pointer`"),
])
def test_what_a_plugins_memalloc_returns_is_checked(python, returned, message):
    # 8 bytes for 8,000 corrupted the heap, then SIGSEGV at exit; None or an int was an
    # AttributeError deep inside.
    proc = run_probe(python, PLUGIN, returned)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(message), proc.stdout
    if returned == "short":
        assert proc.stdout.rstrip().endswith(": 8 bytes of memory, where 8000 were needed")


# -- simt check and simt debug -----------------------------------------------------------------

@pytest.fixture
def hello(tmp_path):
    path = tmp_path / "hello.py"
    path.write_text("print('ran')\n")
    return str(path)


@pytest.mark.parametrize("seed", ["-5", str(2 ** 80), "2**80", "seven"])
def test_simt_check_refuses_a_seed_out_of_range(python, hello, seed):
    proc = python(["-m", "simt", "check", "--schedule", "random", "--seed", seed, hello])
    assert proc.returncode == 2
    assert proc.stderr == "simt check: --seed is an integer from 0 to 2**64 - 1, not %r\n" % seed
    assert proc.stdout == ""


def test_a_check_session_refuses_a_seed_out_of_range():
    with pytest.raises(ValueError, match=r"the check seed is an integer from 0 to 2\*\*64 - 1, "
                                         r"not -1"):
        check.Session(seed=-1)
    assert check.Session(seed=2 ** 64 - 1).seed == 2 ** 64 - 1


def test_simt_check_refuses_a_report_it_cannot_write_before_the_run(python, hello, tmp_path):
    report = str(tmp_path / "missing" / "report.json")
    proc = python(["-m", "simt", "check", "--report", report, hello])
    assert proc.returncode == 2
    assert proc.stderr == ("simt check: cannot write the report to %s: No such file or "
                           "directory\n" % report)
    assert proc.stdout == ""


def test_a_report_path_is_checked_without_leaving_a_file(tmp_path):
    path = tmp_path / "report.json"
    assert check.writable_report(str(path)) == str(path)
    assert not path.exists()


def test_simt_debug_refuses_a_missing_commands_file(python, hello, tmp_path):
    missing = str(tmp_path / "missing-file")
    proc = python(["-m", "simt", "debug", "-x", missing, hello])
    assert proc.returncode == 2
    assert proc.stderr == ("simt debug: cannot read the commands of -x %s: No such file or "
                           "directory\n" % missing)
    assert proc.stdout == ""


def test_set_var_out_of_the_variables_range_is_refused_and_the_launch_goes_on(python, tmp_path):
    commands = tmp_path / "commands.txt"
    commands.write_text("break 11 if i == 4\ncontinue\nset var f = 10**30\nset var f = -1e30\n"
                        "p f\ndelete\ncontinue\n")
    scale = os.path.join(REPO, "tests", "python", "debug_scripts", "scale.py")
    proc = python(["-m", "simt", "debug", "-x", str(commands), "--batch", scale],
                  env={"HOME": str(tmp_path)}, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    limits = "int64 (-9223372036854775808 to 9223372036854775807)"
    assert "(simt) set var f = 10**30\n%s does not fit %s\n" % (10 ** 30, limits) in proc.stdout
    assert "(simt) set var f = -1e30\n-1e+30 does not fit %s\n" % limits in proc.stdout
    assert "$1 = 2 (int64)" in proc.stdout
    assert "first = [0, 2, 4, 6, 8, 10]\nsecond = [0, 3, 6, 9, 12, 15]\n" in proc.stdout


# -- device array constructors -----------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda: cuda.device_array(-1),
    lambda: cuda.device_array((3, -2)),
    lambda: cuda.device_array(-1, strides=(8,)),
    lambda: DeviceNDArray((-1,), (8,), np.float64),
    lambda: cuda.pinned_array(-1),
    lambda: cuda.mapped_array(-1),
    lambda: cuda.managed_array(-1),
])
def test_negative_dimensions_are_refused_as_numpy_refuses_them(make):
    with pytest.raises(ValueError, match="^negative dimensions are not allowed$"):
        make()


@pytest.mark.parametrize("make", [
    lambda: cuda.device_array(4, dtype=object),
    lambda: cuda.to_device(np.array([object(), None])),
    lambda: cuda.pinned_array(2, dtype=[("x", np.float64), ("y", object)]),
])
def test_device_memory_holds_no_python_objects(make):
    with pytest.raises(TypeError, match=r"simt: device memory cannot hold Python objects"):
        make()


def test_an_array_reaching_past_its_gpu_data_is_refused():
    memory = cuda.current_context().memalloc(80)
    assert DeviceNDArray((10,), (8,), np.float64, gpu_data=memory).shape == (10,)
    with pytest.raises(ValueError, match=r"an array of shape \(10,\), strides \(16,\) and dtype "
                                         r"float64 spans 152 bytes; its gpu_data holds 80"):
        DeviceNDArray((10,), (16,), np.float64, gpu_data=memory)
