"""SIMT_PTX_CHECK: every kernel the simulator compiles is also compiled for the GPU (LLVM's NVPTX
backend, simt.compiler.ptx) and its PTX assembled by the CUDA toolkit's ptxas for sm_75 and
sm_90, so a test suite run on a machine without a GPU shows that its kernels compile for one.

  SIMT_PTX_CHECK=1        check each kernel once per (argument types, options); collect failures
  SIMT_PTX_CHECK=strict   a failure raises PtxCheckError (a RuntimeError) at once
  SIMT_PTX_CHECK_REPORT   a file: one JSON line per kernel is appended as it is checked (so the
                          kernels of a process that is killed are not lost); processes that
                          inherit the variable append to the same file
  SIMT_PTX_CHECK_QUIET=1  no summary line on stderr at exit (the pytest plugin prints its own)
  SIMT_PTX_CHECK_TIMEOUT  seconds a GPU compile may take (300) before it is stopped and failed
  SIMT_PTX_CHECK_FORK=0   compile in this process rather than in a forked child

Each kernel's outcome: "ok" (compiled, and ptxas accepted it for every architecture), "refused"
(the GPU target deliberately does not compile it yet, and says so), or "failed" (ptxas rejected
the PTX, the GPU compile raised anything else, or crashed: the compile runs in a forked child,
so an LLVM abort is recorded rather than taking the process down). Without ptxas the PTX is
still compiled, and the summary says the assembly was skipped and why; without CUDA's libdevice
a kernel calling math functions cannot be compiled, and is "skipped".

The check never changes what the simulator runs: it compiles after the simulator's compile has
succeeded, and swallows its own exceptions (except PtxCheckError in strict mode)."""
import atexit
import collections
import hashlib
import json
import os
import pickle
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import simt.types as simt_types
from simt.base import config
from simt.compiler import gpu, launch_hooks
from simt.compiler import ptx as nvptx
from simt.errors import CompileError

__all__ = ["ARCHS", "CC", "PtxCheckError", "enabled", "strict", "check", "records", "reset",
           "read_report", "summarize", "summary_line"]

# The architectures ptxas assembles each kernel for, and the compute capability it is compiled
# for (PTX for sm_75 is valid for every later architecture).
ARCHS = ("sm_75", "sm_90")
CC = (7, 5)

# What the GPU target says when it deliberately does not compile something (gpu/nvptx_target.cpp's
# not_on_gpu and require_sm, gpu/ptx.cpp's instrumentation check).
_REFUSAL = re.compile(r"not supported by the GPU target|not available on the GPU|"
                      r"needs compute capability")
# gpu/ptx.cpp's link_libdevice, where CUDA is not installed.
_NO_LIBDEVICE = re.compile(r"need CUDA's libdevice, and .* cannot be read")
# A compile that takes longer than this (seconds; SIMT_PTX_CHECK_TIMEOUT) is stopped and counted
# as a failure.
_COMPILE_TIMEOUT = 300
_PTXAS_TIMEOUT = 300
_NO_PTXAS = ("ptxas is not installed (not on the PATH, in $CUDA_HOME/bin or "
             "/usr/local/cuda/bin)")

_lock = threading.RLock()
_records = []  # this process' outcomes, in order, one per kernel key
_by_key = {}  # kernel key -> its record
_assembled = {}  # (ptxas, sha256 of the PTX) -> [(arch, message)] of the rejections
_state = {"atexit": False, "tmpdir": None, "ptxas_missing": False}


class PtxCheckError(RuntimeError):
    """SIMT_PTX_CHECK=strict: a kernel does not compile to PTX that ptxas accepts."""


def enabled():
    return config.enabled("SIMT_PTX_CHECK")


def strict():
    return config.value("SIMT_PTX_CHECK").strip().lower() == "strict"


def records():
    """This process' records (dicts, as the report's JSON lines)."""
    with _lock:
        return [dict(r) for r in _records]


def reset():
    """Forgets this process' records and assembled PTX (for tests)."""
    with _lock:
        del _records[:]
        _by_key.clear()
        _assembled.clear()
        _state["ptxas_missing"] = False


def check(dispatcher, argtypes):
    """Compiles `dispatcher`'s kernel for `argtypes` with its GPU options for compute capability
    7.5, assembles the PTX with ptxas for ARCHS, and records the outcome. Raises only in strict
    mode, when the kernel failed."""
    try:
        record = _check(dispatcher, argtypes)
    except Exception as error:  # the check's own bug: reported as a failure, never raised
        try:
            record = _identify(dispatcher, argtypes)
        except Exception:
            name = getattr(getattr(dispatcher, "py_func", None), "__name__", repr(dispatcher))
            record = {"kernel": "%s%r" % (name, tuple(map(str, argtypes))), "name": name,
                      "pid": os.getpid()}
        record.update(outcome="failed", stage="check",
                      message="the PTX check raised %s: %s" % (type(error).__name__, error))
    _add(record)
    if record["outcome"] == "failed" and strict():
        raise PtxCheckError("simt: PTX check (SIMT_PTX_CHECK=strict): %s" % describe(record))


def describe(record):
    """One line: the kernel and what happened to it."""
    text = "%s: %s" % (record["kernel"], record["outcome"])
    if record.get("stage") and record["outcome"] != "ok":
        text += " (%s)" % record["stage"]
    if record.get("message"):
        text += ": " + record["message"]
    return text


# -- one kernel --------------------------------------------------------------------------------
def _identify(dispatcher, argtypes):
    py_func = dispatcher.py_func
    code = py_func.__code__
    options = dict(dispatcher._gpu_options(), cc=CC)
    signature = "(%s)" % ", ".join(simt_types.type_text(a) for a in argtypes)
    flags = ["%s=%s" % (name, options[name]) for name in ("debug", "lineinfo", "fastmath")
             if options.get(name)]
    if options.get("opt") is False:
        flags.append("opt=False")
    kernel = "%s:%d %s%s" % (code.co_filename, code.co_firstlineno, py_func.__name__, signature)
    if flags:
        kernel += " [%s]" % ", ".join(flags)
    return {"kernel": kernel, "file": code.co_filename, "line": code.co_firstlineno,
            "name": py_func.__name__, "signature": signature, "options": flags,
            "outcome": None, "stage": None, "message": "", "pid": os.getpid()}


def _check(dispatcher, argtypes):
    record = _identify(dispatcher, argtypes)
    options = dict(dispatcher._gpu_options(), cc=CC)
    captured = getattr(dispatcher, "_captured_source", None)

    def compile_ptx():
        return nvptx.compile_ptx(dispatcher.py_func, argtypes, captured_source=captured,
                            **options)["ptx"]

    start = time.monotonic()
    status, payload = _isolated(compile_ptx)
    record["compile_s"] = round(time.monotonic() - start, 4)
    if status == "error":
        kind, message, outcome = payload
        record.update(outcome=outcome, stage="compile",
                      message=message if outcome != "failed" else "%s: %s" % (kind, message))
        return record
    if status == "crash":
        record.update(outcome="failed", stage="crash", message=payload)
        return record
    ptx = payload
    record["ptx_sha256"] = hashlib.sha256(ptx.encode()).hexdigest()
    ptxas = _ptxas()
    if ptxas is None:
        record.update(outcome="ok", stage="compile", message="", assembled=False)
        return record
    start = time.monotonic()
    rejections = _assemble(ptxas, ptx, record["ptx_sha256"])
    record["ptxas_s"] = round(time.monotonic() - start, 4)
    if rejections:
        record.update(outcome="failed", stage="ptxas", message="; ".join(
            "ptxas -arch=%s: %s" % (arch, message) for arch, message in rejections))
        saved = _save_ptx(ptx, record["ptx_sha256"])
        if saved:
            record["ptx_file"] = saved
    else:
        record.update(outcome="ok", stage="ptxas", assembled=True)
    return record


def _classify(error):
    """(exception class, message, outcome) of an exception of the GPU compile: "refused" when
    the GPU target says it does not compile that, "skipped" when CUDA's libdevice (for math
    functions) is not installed, else "failed"."""
    message = str(error)
    outcome = "failed"
    if isinstance(error, (RuntimeError, NotImplementedError, CompileError)):
        if _REFUSAL.search(message):
            outcome = "refused"
        elif _NO_LIBDEVICE.search(message):
            outcome = "skipped"
    return type(error).__name__, message, outcome


def _isolated(work):
    """("ok", work()), ("error", _classify(its exception)) or ("crash", what was seen): `work`
    runs in a forked child where the platform has fork, so an LLVM abort ("LLVM ERROR: Cannot
    select") ends only the child; SIMT_PTX_CHECK_FORK=0 runs it in this process."""
    if not hasattr(os, "fork") or config.value("SIMT_PTX_CHECK_FORK") == "0":
        try:
            return "ok", work()
        except Exception as error:
            return "error", _classify(error)
    errors = tempfile.TemporaryFile()
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:  # no process to spare: compile here
        os.close(read_end)
        os.close(write_end)
        errors.close()
        try:
            return "ok", work()
        except Exception as failure:
            return "error", _classify(failure)
    if pid == 0:  # the child: compile, send the outcome, leave without running any cleanup
        try:
            os.close(read_end)
            os.dup2(errors.fileno(), 2)
            try:
                outcome = ("ok", work())
            except BaseException as failure:
                outcome = ("error", _classify(failure))
            data = memoryview(pickle.dumps(outcome))
            while data:
                data = data[os.write(write_end, data):]
        finally:
            os._exit(0)
    os.close(write_end)
    try:
        timeout = config.number("SIMT_PTX_CHECK_TIMEOUT", _COMPILE_TIMEOUT)
    except ValueError:
        timeout = _COMPILE_TIMEOUT
    chunks, deadline, timed_out, finished = [], time.monotonic() + timeout, False, False
    try:
        poller = select.poll()  # not select(): the pipe's descriptor may be above FD_SETSIZE
        poller.register(read_end, select.POLLIN)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(int(left * 1000) + 1):
                timed_out = True
                break
            chunk = os.read(read_end, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        finished = True
    finally:
        os.close(read_end)
        if timed_out or not finished:  # too slow, or this process is interrupted (Ctrl-C)
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    errors.seek(0)
    stderr = errors.read().decode(errors="replace").strip()
    errors.close()
    if timed_out:
        return "crash", "the GPU compile did not finish in %g s" % timeout
    try:
        return pickle.loads(b"".join(chunks))
    except Exception:
        pass
    if os.WIFSIGNALED(status):
        try:
            name = signal.Signals(os.WTERMSIG(status)).name
        except ValueError:
            name = "signal %d" % os.WTERMSIG(status)
        what = "the GPU compile crashed (%s)" % name
    else:
        what = "the GPU compile ended without a result (exit status %d)" % (
            os.waitstatus_to_exitcode(status))
    return "crash", what + (": " + _tail(stderr) if stderr else "")


def _tail(text, lines=12):
    return "\n".join(text.splitlines()[-lines:])


def _ptxas():
    found = gpu.toolkit_program("ptxas")
    if found is None:
        _state["ptxas_missing"] = True
    return found


def _tmpdir():
    if _state["tmpdir"] is None or not os.path.isdir(_state["tmpdir"]):
        _state["tmpdir"] = tempfile.mkdtemp(prefix="simt-ptx-check-")
        atexit.register(shutil.rmtree, _state["tmpdir"], True)
    return _state["tmpdir"]


def _assemble(ptxas, ptx, digest):
    """[(arch, ptxas' message)] for each architecture whose ptxas rejects `ptx`; each PTX text is
    assembled once per process (one ptxas process per architecture, run side by side)."""
    key = (ptxas, digest)
    with _lock:
        if key in _assembled:
            return _assembled[key]
    path = os.path.join(_tmpdir(), "%s-%d.ptx" % (digest[:24], threading.get_ident()))
    with open(path, "w") as f:
        f.write(ptx)
    rejections = []
    try:
        running = []
        for arch in ARCHS:
            try:
                running.append((arch, subprocess.Popen(
                    [ptxas, "-arch=" + arch, "--compile-only", path, "-o", os.devnull],
                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    text=True, errors="replace")))
            except OSError as error:
                rejections.append((arch, "cannot run %s: %s" % (ptxas, error)))
        for arch, process in running:
            try:
                out, err = process.communicate(timeout=_PTXAS_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                rejections.append((arch, "did not finish in %d s" % _PTXAS_TIMEOUT))
                continue
            if process.returncode != 0:
                text = (err.strip() or out.strip()) or "exit status %d" % process.returncode
                rejections.append((arch, _tail(text, 20)))
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    with _lock:
        _assembled[key] = rejections
    return rejections


def _save_ptx(ptx, digest):
    """A rejected kernel's PTX, kept beside the report (REPORT.ptx/<sha256>.ptx) when there is
    one."""
    report = config.value("SIMT_PTX_CHECK_REPORT") or None
    if not report:
        return None
    try:
        folder = report + ".ptx"
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, digest[:24] + ".ptx")
        with open(path, "w") as f:
            f.write(ptx)
        return path
    except OSError:
        return None


# -- records, the report and the summary -------------------------------------------------------
_RANK = {"ok": 0, "skipped": 1, "refused": 2, "failed": 3}


def _add(record):
    with _lock:
        key = record["kernel"]
        known = _by_key.get(key)
        if known is not None and _RANK[known["outcome"]] >= _RANK[record["outcome"]]:
            return
        if known is not None:
            _records.remove(known)
        _by_key[key] = record
        _records.append(record)
        if not _state["atexit"]:
            _state["atexit"] = True
            atexit.register(_at_exit)
    _append_to_report(record)


def _append_to_report(record):
    report = config.value("SIMT_PTX_CHECK_REPORT") or None
    if not report:
        return
    line = (json.dumps(record, sort_keys=True) + "\n").encode()
    try:
        # One write per line to a file opened for appending: lines of several processes do not
        # interleave.
        fd = os.open(report, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError as error:
        print("simt: PTX check: cannot write the report %s: %s" % (report, error),
              file=sys.stderr)


def read_report(path, offset=0):
    """The records of a report file (from byte `offset`); lines that do not parse are skipped."""
    found = []
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            for line in f:
                try:
                    found.append(json.loads(line))
                except ValueError:
                    continue
    except OSError:
        pass
    return found


def summarize(found):
    """A dict of the records `found` (of any number of processes), one per kernel, the worst
    outcome kept: kernels, ok, refused, failed (lists of records), assembled (whether ptxas
    ran for any) and refusals (reason -> kernels)."""
    kernels = {}
    for record in found:
        known = kernels.get(record["kernel"])
        if known is None or _RANK[record["outcome"]] > _RANK[known["outcome"]]:
            kernels[record["kernel"]] = record
    by_outcome = collections.defaultdict(list)
    for record in kernels.values():
        by_outcome[record["outcome"]].append(record)
    refusals = collections.defaultdict(list)
    for record in by_outcome["refused"]:
        refusals[record["message"]].append(record["kernel"])
    return {"kernels": len(kernels), "ok": by_outcome["ok"], "refused": by_outcome["refused"],
            "failed": by_outcome["failed"], "skipped": by_outcome["skipped"],
            "refusals": dict(refusals),
            "unassembled": sum(1 for r in kernels.values()
                               if r["outcome"] == "ok" and not r.get("assembled"))}


def summary_line(summary):
    line = "simt: PTX check: %d kernels, %d ok, %d refused, %d failed" % (
        summary["kernels"], len(summary["ok"]), len(summary["refused"]), len(summary["failed"]))
    if summary["skipped"]:
        line += ", %d skipped (they call math functions: CUDA's libdevice is not installed)" % (
            len(summary["skipped"]))
    if summary["unassembled"]:
        line += "; %d of them compiled to PTX only: %s" % (summary["unassembled"], _NO_PTXAS)
    return line


def skipped_line():
    return ("simt: PTX check: ptxas skipped: %s; the kernels were compiled to PTX only"
            % _NO_PTXAS)


def _at_exit():
    if config.enabled("SIMT_PTX_CHECK_QUIET"):
        return
    summary = summarize(records())
    try:
        if _state["ptxas_missing"]:
            print(skipped_line(), file=sys.stderr)
        print(summary_line(summary), file=sys.stderr)
        for record in summary["failed"]:
            print("simt: PTX check failed: " + describe(record), file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def report_text(summary):
    """The summary line, then the refusals grouped by reason and every failure."""
    lines = [summary_line(summary)]
    if summary["refusals"]:
        lines.append("refused by the GPU target:")
        for reason, kernels in sorted(summary["refusals"].items(), key=lambda r: -len(r[1])):
            lines.append("  %d: %s" % (len(kernels), reason))
            lines.extend("      " + kernel for kernel in sorted(kernels))
    if summary["failed"]:
        lines.append("failed:")
        for record in sorted(summary["failed"], key=lambda r: r["kernel"]):
            lines.append("  " + describe(record).replace("\n", "\n      "))
            if record.get("ptx_file"):
                lines.append("      PTX: " + record["ptx_file"])
    return "\n".join(lines)


class _PtxCheckHook(launch_hooks.LaunchHook):
    """Under SIMT_PTX_CHECK each kernel the simulator compiles is checked (check())."""

    order = 3

    def compiled(self, dispatcher, argtypes, kernel):
        if enabled():
            check(dispatcher, argtypes)
        return False


launch_hooks.register(_PtxCheckHook())


def main(argv=None):
    """python3 -m simt.tools.ptx_check REPORT...: the summary of report files; exit status 1 if a
    kernel failed."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python3 -m simt.tools.ptx_check REPORT.jsonl...", file=sys.stderr)
        return 2
    found = []
    for path in argv:
        found.extend(read_report(path))
    summary = summarize(found)
    print(report_text(summary))
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
