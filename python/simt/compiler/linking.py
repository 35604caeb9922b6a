"""@cuda.jit(link=[...]): the files holding the external device functions a kernel calls
(cuda.declare_device), for the target the kernel runs on.

On the simulator, CUDA C/C++ sources (.cu, .c, .cpp, .cc, .cxx) are compiled for the host by the
system's C++ compiler ($CXX, else c++) into a shared library, which the simulator's backend loads
with its symbols global so the kernel's JIT code finds them (sim/host_backend.h). That works for plain C-like device functions: the CUDA
qualifiers (__device__, __host__, __forceinline__, ...) are defined away by a prelude, and CUDA's
built-in variables and intrinsics are not there, so a source that uses them fails to compile and
is reported (NotImplementedError naming the file). Libraries are cached under $SIMT_CACHE_DIR/link
(default ~/.cache/simt/link), keyed by the preprocessed source (so an edited #include'd header
compiles anew) and the compiler, by the cache that holds compiled kernels (sim/object_cache.h:
private folders, signed entries, anything else recompiled). A library is loaded from a copy in
memory of the verified bytes, so what runs is what was checked. PTX and GPU binaries cannot run
on the host.

On the GPU, PTX files (.ptx) are linked as they are, CUDA sources compiled to PTX by the
toolkit's nvcc (found on the PATH or in $CUDA_HOME/bin) for the device's compute capability."""
import hashlib
import os
import subprocess
import tempfile

__all__ = ["CUDA_SOURCES", "libraries_for_simulator", "ptx_for_gpu", "for_target"]

from simt.memory.device import get_current_device
from simt.memory.driver import LinkerError

from . import gpu

CUDA_SOURCES = (".cu", ".c", ".cpp", ".cc", ".cxx")
_GPU_ONLY = (".ptx", ".cubin", ".fatbin", ".o", ".a", ".ltoir")

# What nvcc would give a device function's source that the host compiler lacks.
_PRELUDE = """\
#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#include <math.h>
#include <stdint.h>
"""


class _MissingFile(LinkerError, FileNotFoundError):
    """A link= file that does not exist: Numba's LinkerError, and a FileNotFoundError."""


def _check(path):
    """(path, extension) of a link= file; RuntimeError for a kind Numba does not link,
    LinkerError when it does not exist (Numba's checks, in its order)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError("simt: link= takes file paths, not %r" % (path,))
    path = os.fspath(path)
    extension = os.path.splitext(path)[1].lower()
    if not extension:
        raise RuntimeError("Don't know how to link file with no extension")
    if extension not in CUDA_SOURCES + _GPU_ONLY + (".lib",):
        raise RuntimeError("Don't know how to link file with extension %s" % extension)
    if not os.path.isfile(path):
        raise _MissingFile("%s not found" % path)
    return path, extension


_COMPILE_FLAGS = ["-x", "c++", "-std=c++17", "-O2", "-fPIC", "-shared"]

# Loaded libraries by cache key: each stays loaded (and its memory file open) for the process.
_loaded = {}


def _run_compiler(compiler, arguments, path):
    try:
        run = subprocess.run([compiler] + arguments, capture_output=True)
    except OSError as e:
        raise NotImplementedError("simt: %s: linking CUDA C/C++ on the simulator needs a C++"
                                  " compiler (%s: %s)" % (path, compiler, e)) from None
    if run.returncode != 0:
        errors = "\n".join(run.stderr.decode(errors="replace").strip().splitlines()[:12])
        raise NotImplementedError(
            "simt: %s: the simulator compiles linked CUDA C/C++ for the host with %s, which"
            " only works for plain C-like device functions; it failed:\n%s"
            % (path, compiler, errors))
    return run.stdout


def _in_memory(key, library):
    """A path dlopen() loads `library` (bytes) from: an anonymous memory file, never a file in
    the cache that another process could change after it was verified."""
    if key not in _loaded:
        fd = os.memfd_create("simt-link-" + key)
        with open(fd, "wb", closefd=False) as f:
            f.write(library)
        _loaded[key] = "/proc/self/fd/%d" % fd
    return _loaded[key]


def _host_library(path):
    import simt._simt as _simt
    compiler = os.environ.get("CXX", "c++")
    with tempfile.TemporaryDirectory() as scratch:
        prelude = os.path.join(scratch, "simt_cuda_prelude.h")
        with open(prelude, "w") as f:
            f.write(_PRELUDE)
        include = ["-include", prelude, path]
        # The key covers every header the source includes, as the compiler sees them (without
        # line markers, which name the prelude's temporary folder).
        source = _run_compiler(compiler, _COMPILE_FLAGS[:3] + ["-E", "-P"] + include, path)
        key = hashlib.sha256(b"\0".join([compiler.encode(), " ".join(_COMPILE_FLAGS).encode(),
                                         _PRELUDE.encode(), source])).hexdigest()[:32]
        if key in _loaded:
            return _loaded[key]
        library = _simt.link_cache_load(key)
        if library is None:
            output = os.path.join(scratch, "link.so")
            _run_compiler(compiler, _COMPILE_FLAGS + include + ["-o", output], path)
            with open(output, "rb") as f:
                library = f.read()
            _simt.link_cache_store(key, library)
    return _in_memory(key, library)


# numba-cuda's in-memory link= objects (numba.cuda.cudadrv.linkable_code), by class name: the
# extension of the file simt writes each to.
_LINKABLE_CODE_EXTENSIONS = {"CUSource": ".cu", "PTXSource": ".ptx", "Cubin": ".cubin",
                             "Fatbin": ".fatbin", "Object": ".o", "Archive": ".a",
                             "LTOIR": ".ltoir"}
_linkable_code_folder = []  # this process's private folder for them, made at the first


def _as_path(given):
    """A link= entry as a file path: numba-cuda's LinkableCode objects (CUSource(...)) are written
    to a file named by their content, which is linked as the file would be."""
    extension = _LINKABLE_CODE_EXTENSIONS.get(type(given).__name__)
    if extension is None or not hasattr(given, "data"):
        return given
    data = given.data
    data = data.encode() if isinstance(data, str) else bytes(data)
    if not _linkable_code_folder:
        _linkable_code_folder.append(tempfile.mkdtemp(prefix="simt-linkable-code-"))
    path = os.path.join(_linkable_code_folder[0], hashlib.sha256(data).hexdigest() + extension)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)
    return path


def libraries_for_simulator(paths):
    """The shared libraries of the link= files for the simulator (NotImplementedError for what
    cannot run on the host, naming the file)."""
    libraries = []
    for given in paths:
        path, extension = _check(given)
        if extension in _GPU_ONLY or extension not in CUDA_SOURCES:
            raise NotImplementedError(
                "simt: %s: %s code cannot run on the simulator (link= of CUDA C/C++ sources"
                " does; PTX links on the GPU target, SIMT_TARGET=gpu)" % (path, extension or
                                                                          "this"))
        libraries.append(_host_library(path))
    return libraries


def ptx_for_gpu(paths, cc):
    """The PTX texts of the link= files for compute capability `cc` ((major, minor))."""
    texts = []
    for given in paths:
        path, extension = _check(given)
        if extension == ".ptx":
            with open(path) as f:
                texts.append(f.read())
            continue
        if extension not in CUDA_SOURCES:
            raise NotImplementedError("simt: %s: the GPU target links PTX and CUDA C/C++ sources"
                                      ", not %s files" % (path, extension))
        nvcc = gpu.toolkit_program("nvcc")
        if nvcc is None:
            raise NotImplementedError("simt: %s: compiling CUDA C/C++ for the GPU needs the CUDA"
                                      " toolkit's nvcc, which was not found" % path)
        with tempfile.TemporaryDirectory() as scratch:
            output = os.path.join(scratch, "link.ptx")
            run = subprocess.run([nvcc, "-ptx", "-rdc=true", "-arch=sm_%d%d" % tuple(cc), "-x",
                                  "cu", path, "-o", output], capture_output=True, text=True)
            if run.returncode != 0:
                raise RuntimeError("simt: %s: nvcc failed:\n%s" % (path, run.stderr.strip()))
            with open(output) as f:
                texts.append(f.read())
    return texts


def for_target(paths, target):
    """What the backend of `target` ("sim" or "gpu") links for the link= files (see
    codegen/backend.h): libraries' paths, or PTX texts for the current device."""
    if not paths:
        return []
    paths = [_as_path(path) for path in paths]
    if target == "sim":
        return libraries_for_simulator(paths)
    return ptx_for_gpu(paths, get_current_device().compute_capability)
