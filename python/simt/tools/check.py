"""`simt check`: kernels run under simt's checkers (racecheck, initcheck, synccheck, memcheck).

While checking is on (`simt check script.py`, SIMT_CHECK=race,init, the pytest option
--simt-check or marker simt_check, or enable()), every kernel is compiled in its checkers'
variant (CompileOptions' instrumentation 'check', a separate entry of every cache) and launched
under one simt._simt.Checker, which finds the hazards; this module prints them as
compute-sanitizer does, with the Python source, and writes the summary, the JSON report and the
exit status. Release kernels are untouched."""
import atexit
import json
import linecache
import operator
import os
import random
import sys
import threading
import types
import weakref

import numpy as np

from simt.base import config
from simt.base.numpy_compat import byte_bounds
from simt.compiler import launch_hooks
from simt.memory import watch

TOOLS = ("racecheck", "initcheck", "synccheck", "memcheck")
_ALIASES = {"race": "racecheck", "init": "initcheck", "sync": "synccheck", "mem": "memcheck"}
SCHEDULES = ("in-order", "random", "reverse")

_session = None


def tool_names(text):
    """The tools a comma-separated list names ("race,init", "racecheck", "all" or "1")."""
    names = [word.strip() for word in text.split(",") if word.strip()]
    if not names or names in (["1"], ["all"]):
        return list(TOOLS)
    tools = []
    for name in names:
        tool = _ALIASES.get(name, name)
        if tool not in TOOLS:
            raise ValueError("simt: unknown checker %r (race, init, sync, mem, or their "
                             "full names racecheck, ...)" % name)
        if tool not in tools:
            tools.append(tool)
    return tools


SEED_RANGE = "an integer from 0 to 2**64 - 1"  # the Checker's random schedule takes 64 bits


def seed_value(seed):
    """The random schedule's seed given as an int or its decimal text; ValueError unless
    SEED_RANGE holds it."""
    try:
        value = int(seed) if isinstance(seed, str) else operator.index(seed)
        if 0 <= value < 2 ** 64:
            return value
    except (TypeError, ValueError):
        pass
    raise ValueError("simt: the check seed is %s, not %r" % (SEED_RANGE, seed))


def writable_report(path):
    """`path`, once found that the report can be written there: before the run, whose report
    would be lost after it."""
    existed = os.path.exists(path)
    try:
        with open(path, "a"):
            pass
    except OSError as error:
        raise OSError("simt: cannot write the report to %s: %s" % (path, error.strerror)) \
            from None
    if not existed:
        os.unlink(path)
    return path


def parse_suppressions(path):
    """Suppressions from `path`: one `file:line` per line (`tool file:line` limits it to one
    tool); `#` starts a comment. A finding with an access at a suppressed line is not
    reported."""
    entries = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            tool, _, where = line.rpartition(" ")
            tool = _ALIASES.get(tool.strip(), tool.strip()) or None
            file, _, lineno = where.rpartition(":")
            if not file or not lineno.isdigit() or (tool is not None and tool not in TOOLS):
                raise ValueError("simt: %s:%d: a suppression is [tool] file:line, not %r"
                                 % (path, number, line))
            entries.append((tool, file, int(lineno)))
    return entries


class Session:
    """One checked run: the Checker, what it found, and how it reports."""

    def __init__(self, tools=None, schedule="in-order", seed=None, suppressions=(),
                 report=None, stream=None, quiet=False):
        import simt._simt as _simt
        self.tools = list(tools or TOOLS)
        if schedule not in SCHEDULES:
            raise ValueError("simt: unknown schedule %r (%s)" % (schedule, ", ".join(SCHEDULES)))
        self.schedule = schedule
        self.seed = seed_value(seed) if seed is not None else \
            random.SystemRandom().randrange(2 ** 32)
        self.suppressions = list(suppressions)
        self.report = writable_report(report) if report else None
        self.stream = stream
        self.quiet = quiet
        self.checker = _simt.Checker(self.tools, schedule, self.seed)
        self.printed = 0
        self.launches = 0
        self._allocations = {}
        # A launch runs with the GIL released and reads what the host calls below change (which
        # memory is tracked, written, freed): they take turns. Re-entrant: a finalizer may run
        # on the launching thread.
        self._turn = threading.RLock()

    # -- launches and memory ------------------------------------------------------------------
    def launch(self, launch):
        """Runs `launch` (simt.compiler.launch_hooks.Launch) under the Checker."""
        try:
            with self._turn:
                return launch.run(checker=self.checker)
        finally:
            self.launches += 1
            if not self.quiet:
                self.print_new()

    def allocated(self, host, initialised=False, host_written=False):
        """A device allocation (a NumPy array owning its memory) kernels will use, tracked until
        it is gone; unless `initialised` (a copy), poisoned, its reads before writes reported.
        `host_written`: NumPy writes it directly (pinned, mapped memory): what no longer holds
        the poison at a launch was written."""
        base = host if host.base is None else host.base
        address = base.__array_interface__["data"][0]
        with self._turn:
            if base.nbytes == 0 or address in self._allocations:
                return
            if not initialised:
                self.checker.allocated(address, base.nbytes, host.dtype.name,
                                       host.dtype.itemsize, host_written)
            self._allocations[address] = base.nbytes
        weakref.finalize(base, self._forget, address, base.nbytes)

    def written(self, address, nbytes):
        with self._turn:
            self.checker.written(address, nbytes)

    def _forget(self, address, nbytes):
        with self._turn:
            if self._allocations.pop(address, None) is not None:
                self.checker.forget(address, nbytes)

    def free_all(self):
        """cuda.close(), device or context reset: every device allocation is freed; a kernel
        still using one is reported."""
        with self._turn:
            for address, nbytes in self._allocations.items():
                self.checker.freed(address, nbytes)

    # -- reports ------------------------------------------------------------------------------
    def findings(self):
        """Every distinct finding, each a dict (simt._simt.Checker.findings) with `suppressed`."""
        found = self.checker.findings()
        for finding in found:
            finding["suppressed"] = self._suppressed(finding)
        return found

    def _suppressed(self, finding):
        for tool, file, line in self.suppressions:
            if tool is not None and tool != finding["tool"]:
                continue
            for access in finding["accesses"]:
                if access["line"] == line and _same_file(access["file"], file):
                    return True
        return False

    def errors(self):
        return [f for f in self.findings() if f["severity"] == "error" and not f["suppressed"]]

    def print_new(self):
        found = self.checker.findings(self.printed)
        self.printed += len(found)
        for finding in found:
            if not self._suppressed(finding):
                print(self.format(finding), file=self.stream or sys.stderr)

    def format(self, finding):
        """compute-sanitizer's shape, with Python source lines."""
        lines = ["%s %s: %s %s" % (finding["tool"].upper(), finding["severity"].upper(),
                                   finding["kind"], finding["subject"])]
        accesses = finding["accesses"]
        several_blocks = len({tuple(a["block"]) for a in accesses}) > 1
        for access in accesses:
            text = "  " + access["action"]
            if access["value"] is not None:
                text += " of " + access["value"]
            if access["action"] != "branch":
                text += " by thread " + _ids(access["thread"])
                if several_blocks:
                    text += " of block " + _ids(access["block"])
            where = "%s:%d" % (_display_path(access["file"]), access["line"])
            text += " at " + where
            source = linecache.getline(access["file"], access["line"]).strip()
            lines.append(text.ljust(44) + "  " + source if source else text)
        if finding["count"] > 1:
            more = finding["count"] - 1
            lines.append("  (%d more instance%s)" % (more, "" if more == 1 else "s"))
        if self.schedule == "random":
            lines.append("  (schedule random, seed %d)" % self.seed)
        return "\n".join(lines)

    def summary(self):
        """One line per tool: its distinct findings by severity."""
        found = self.findings()
        lines = []
        for tool in self.tools:
            mine = [f for f in found if f["tool"] == tool and not f["suppressed"]]
            counts = {s: sum(f["severity"] == s for f in mine) for s in ("error", "warning", "info")}
            noun = "hazard" if tool == "racecheck" else "finding"
            text = "%s SUMMARY: %d %s%s (%d error%s, %d warning%s" % (
                tool.upper(), len(mine), noun, "" if len(mine) == 1 else "s",
                counts["error"], "" if counts["error"] == 1 else "s",
                counts["warning"], "" if counts["warning"] == 1 else "s")
            if counts["info"]:
                text += ", %d info" % counts["info"]
            suppressed = sum(f["tool"] == tool and f["suppressed"] for f in found)
            if suppressed:
                text += ", %d suppressed" % suppressed
            lines.append(text + ")")
        if self.schedule != "in-order":
            lines.append("schedule: %s%s" % (self.schedule, ", seed %d" % self.seed
                                              if self.schedule == "random" else ""))
        return "\n".join(lines)

    def write_report(self, path=None):
        path = path or self.report
        if not path:
            return
        report = {"tools": self.tools, "schedule": self.schedule, "seed": self.seed,
                  "launches": self.launches, "findings": self.findings(),
                  "errors": len(self.errors())}
        with open(path, "w") as f:
            json.dump(report, f, indent=2)
            f.write("\n")

    def finish(self):
        """At the end of a run: what is left to print, the summary, the report."""
        if not self.quiet:
            self.print_new()
            print(self.summary(), file=self.stream or sys.stderr)
        self.write_report()


def _ids(ids):
    return "(%d,%d,%d)" % tuple(ids)


def _display_path(path):
    if not path:
        return "?"
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    return path if relative.startswith("..") else relative


def _same_file(path, pattern):
    if not path:
        return False
    return (path == pattern or os.path.abspath(path) == os.path.abspath(pattern)
            or path.endswith(os.sep + pattern))


def enabled():
    return _session is not None


def session():
    return _session


def checked_fibers():
    """Which threads of checked kernels run on fibers of their own: all of them when the
    session's schedule orders threads (random, reverse); else those release code runs on fibers
    (the others run as loops over a block's threads, by loop fission where they wait at barriers,
    reporting each barrier's release as the fiber schedulers do: a kernel fission can run has no
    divergent barrier or warp operation for synccheck to find)."""
    if _session is None:
        return None
    return "all" if _session.schedule != "in-order" else "none"


def enable(tools=None, schedule="in-order", seed=None, suppress=None, report=None, stream=None,
           quiet=False):
    """Checks every kernel launched from now on; returns the Session. `tools` a list of names
    (default: all), `suppress` a suppressions file."""
    global _session
    if isinstance(tools, str):
        tools = tool_names(tools)
    suppressions = parse_suppressions(suppress) if suppress else ()
    _session = Session(tools, schedule, seed, suppressions, report, stream, quiet)
    return _session


def resume(checking):
    """Checks with the Session `checking` again (one disable() returned)."""
    global _session
    _session = checking


def disable():
    """Stops checking; returns the Session that was checking, or None."""
    global _session
    finished, _session = _session, None
    return finished


def allocated(host, initialised=False, host_written=False):
    if _session is not None:
        _session.allocated(host, initialised, host_written)


def written(view):
    """The host wrote `view` of device memory (copy_to_device, setitem): its elements, not the
    gaps between those of a strided view."""
    if _session is None or not view.size:
        return
    if view.flags.c_contiguous or view.flags.f_contiguous:
        low, high = byte_bounds(view)
        _session.written(low, high - low)
        return
    base = view.__array_interface__["data"][0]
    run, axes = view.itemsize, range(view.ndim)
    if view.strides[-1] == view.itemsize:  # rows of contiguous elements: one run each
        run, axes = view.itemsize * view.shape[-1], range(view.ndim - 1)
    offsets = np.zeros(1, dtype=np.int64)
    for axis in axes:
        offsets = (offsets[:, None] + np.arange(view.shape[axis]) * view.strides[axis]).ravel()
    for offset in offsets.tolist():
        _session.written(base + offset, run)


def written_at(array, key):
    """The host wrote `array[key]` of device memory (DeviceNDArray.__setitem__)."""
    if _session is None:
        return
    target = array[key]
    if not isinstance(target, np.ndarray):  # one element: a view of it (with a new axis)
        target = array[np.index_exp[key] + (np.newaxis,)]
    elif not np.may_share_memory(target, array):  # advanced indexing: somewhere in the array
        target = array
    written(target)


def free_all():
    if _session is not None:
        _session.free_all()


class _CheckerHook(launch_hooks.LaunchHook):
    """While a session checks: kernels in the checkers' variant, launched under its Checker."""

    order = 1

    def variant(self, dispatcher):
        if _session is None:
            return None
        return {"instrumentation": "check", "checked_fibers": checked_fibers()}

    def launches(self, dispatcher):
        return _session is not None

    def launch(self, launch):
        return _session.launch(launch)


launch_hooks.register(_CheckerHook())
# The memory layer's reports (allocations, the host's writes, frees), checked while a session runs.
watch.watch(types.SimpleNamespace(allocated=allocated, written=written, written_at=written_at,
                                  free_all=free_all))


def _finish_at_exit():
    if _session is not None:
        _session.finish()


def enable_from_environment():
    """SIMT_CHECK=race,init (or 1/all) checks the run, with SIMT_CHECK_SCHEDULE,
    SIMT_CHECK_SEED, SIMT_CHECK_SUPPRESS and SIMT_CHECK_REPORT; the summary is printed at exit."""
    tools = config.value("SIMT_CHECK")
    if tools in ("", "0") or _session is not None:
        return
    seed = config.value("SIMT_CHECK_SEED")
    enable(tool_names(tools), config.value("SIMT_CHECK_SCHEDULE"),
           int(seed) if seed else None, config.value("SIMT_CHECK_SUPPRESS") or None,
           config.value("SIMT_CHECK_REPORT") or None)
    atexit.register(_finish_at_exit)


enable_from_environment()
