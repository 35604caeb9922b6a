"""simt's settings, in one table: every environment variable simt reads, in Python or in its C++
layers, with its default and what it does. Python code reads them here (`config.value(name)`,
`config.enabled(name)`); the C++ layers read theirs where they are used, named in the table's
`reader`. `simt config` prints each with its value in this environment."""
import collections
import os

__all__ = ["Setting", "SETTINGS", "value", "enabled", "number", "effective", "report"]

# name: the environment variable; default: its value when unset ("" for none: the meaning says
# what then happens); reader: the file that reads it; meaning: one line.
Setting = collections.namedtuple("Setting", "name default reader meaning")

SETTINGS = (
    # where kernels run
    Setting("SIMT_ENABLE", "", "simt/base/hosts.py",
            "1: `numba.cuda` (and numba-cuda-mlir's cuda) is simt's module; 0: never"),
    Setting("SIMT_TARGET", "sim", "simt/compiler/targets.py",
            "where kernels run: sim (the simulator), gpu, or both (compared)"),
    Setting("SIMT_PARITY", "", "simt/compiler/targets.py",
            "warn: a difference under SIMT_TARGET=both warns instead of raising ParityError"),
    Setting("SIMT_PARITY_RTOL", "", "simt/compiler/targets.py",
            "relative tolerance of floats under both (default 1e-5; float64 1e-12)"),
    Setting("SIMT_PARITY_ATOL", "", "simt/compiler/targets.py",
            "absolute tolerance of floats under both (default 1e-8; float64 1e-300)"),
    Setting("SIMT_GPU_TIMEOUT", "60", "gpu/gpu_backend.cpp",
            "seconds a GPU launch may run before it is an error (0: no limit)"),
    Setting("SIMT_LIBCUDA", "", "gpu/driver.cpp",
            "the CUDA driver library the GPU target loads (default libcuda.so.1)"),
    Setting("SIMT_LIBDEVICE", "", "gpu/ptx.cpp",
            "libdevice.10.bc for GPU code (default: the CUDA toolkit's)"),
    # the simulator
    Setting("SIMT_THREADS", "", "sim/worker_pool.cpp",
            "worker threads blocks are spread over (default: one per core)"),
    Setting("SIMT_FISSION", "1", "simt/compiler/dispatcher.py",
            "0: kernels with barriers run on fibers, never by loop fission"),
    Setting("SIMT_OPT_TIER", "auto", "sim/host_backend.cpp",
            "auto (quick code first, full in the background), quick or full"),
    Setting("SIMT_TIER_UP_MS", "20", "sim/host_backend.cpp",
            "milliseconds of a kernel's launches before it is recompiled at full level"),
    Setting("SIMT_BOUNDSCHECK", "raise", "simt/compiler/dispatcher.py",
            "raise: an index out of bounds is an IndexError; warn: reported once per site (an "
            "OutOfBoundsWarning), the read poisoned, the write lost, and the kernel goes on"),
    Setting("SIMT_DEADLOCK_TIMEOUT", "10", "sim/block_scheduler.cpp",
            "seconds threads may spin without progress before it is a deadlock"),
    Setting("SIMT_CACHE", "1", "simt/compiler/dispatcher.py, sim/object_cache.cpp",
            "0: no on-disk cache of compiled kernels"),
    Setting("SIMT_CACHE_DIR", "", "simt/compiler/dispatcher.py, sim/object_cache.cpp",
            "the on-disk cache's folder (default $XDG_CACHE_HOME/simt or ~/.cache/simt)"),
    Setting("SIMT_CACHE_DEBUG", "", "sim/object_cache.cpp",
            "1: the on-disk cache says what it finds and stores, on stderr"),
    Setting("SIMT_CRASH_LOG", "", "pybind/abort_log.cpp",
            "a file where an abort or a segmentation fault leaves its native backtrace"),
    Setting("SIMT_VERIFY_IR", "", "ir/verify.cpp",
            "1: every kernel's typed IR is verified after the typer (the tests set it)"),
    # the tools
    Setting("SIMT_DEBUG", "", "simt/tools/debugging.py",
            "1: kernels compile for the debugger (simt debug sets it)"),
    Setting("SIMT_CHECK", "", "simt/tools/check.py",
            "the checkers every launch runs under, comma-separated (simt check sets it)"),
    Setting("SIMT_CHECK_SCHEDULE", "in-order", "simt/tools/check.py",
            "the checked threads' order: in-order, random or reverse"),
    Setting("SIMT_CHECK_SEED", "", "simt/tools/check.py", "the random schedule's seed"),
    Setting("SIMT_CHECK_SUPPRESS", "", "simt/tools/check.py", "a file of findings not to report"),
    Setting("SIMT_CHECK_REPORT", "", "simt/tools/check.py", "a file for the findings as JSON"),
    Setting("SIMT_PTX_CHECK", "", "simt/tools/ptx_check.py",
            "1: every kernel is also compiled to PTX (ptxas checks it); strict: failures raise"),
    Setting("SIMT_PTX_CHECK_TIMEOUT", "300", "simt/tools/ptx_check.py",
            "seconds a kernel's PTX compile may take under SIMT_PTX_CHECK"),
    Setting("SIMT_PTX_CHECK_REPORT", "", "simt/tools/ptx_check.py",
            "a file the PTX checks of a run are summed up in"),
    Setting("SIMT_PTX_CHECK_FORK", "1", "simt/tools/ptx_check.py",
            "0: PTX checks compile in the process, not in a forked child"),
    Setting("SIMT_PTX_CHECK_QUIET", "", "simt/tools/ptx_check.py",
            "1: no line per kernel on stderr"),
    Setting("SIMT_BUNDLE", "", "simt/tools/bundle.py",
            "a folder every launch is written to, for simt-gpu-run on a GPU machine"),
    Setting("SIMT_BUNDLE_PER_FILE", "", "simt/tools/bundle.py",
            "a prefix: one bundle per test file (or kernel file) in SIMT_BUNDLE"),
    Setting("SIMT_BUNDLE_MAX_MB", "48", "simt/tools/bundle.py",
            "megabytes a bundle holds; further launches are left out"),
    Setting("SIMT_BUNDLE_CC", "7.5", "simt/tools/bundle.py",
            "the compute capability of bundles' PTX"),
)

_BY_NAME = {setting.name: setting for setting in SETTINGS}


def value(name, environ=None):
    """The setting's text: the environment's, else its default."""
    environ = os.environ if environ is None else environ
    text = environ.get(name)
    return _BY_NAME[name].default if text is None else text


def enabled(name, environ=None):
    """Whether a switch is on: set to something other than "" or "0"."""
    return value(name, environ).strip() not in ("", "0")


def number(name, fallback, environ=None):
    """The setting as a float; `fallback` where it is empty (ValueError names a bad one)."""
    text = value(name, environ).strip()
    if not text:
        return float(fallback)
    try:
        return float(text)
    except ValueError:
        raise ValueError("simt: %s=%s is not a number" % (name, text)) from None


def effective(environ=None):
    """(setting, its text, 'environment' or 'default') of every setting."""
    environ = os.environ if environ is None else environ
    return [(s, value(s.name, environ), "environment" if s.name in environ else "default")
            for s in SETTINGS]


def report(environ=None):
    """The lines `simt config` prints: each setting, its value and where it comes from, what it
    does."""
    lines = []
    for setting, text, source in effective(environ):
        shown = text if text else "(unset)"
        lines.append("%-24s %-14s %-11s %s" % (setting.name, shown, source, setting.meaning))
    return lines
