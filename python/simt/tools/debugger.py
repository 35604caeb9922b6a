"""`simt debug`: the per-thread kernel debugger's commands (cuda-gdb's names), over the native
controller (simt._simt.Debugger) that stops, steps and resumes single threads of a launch.

The controller calls back here whenever a thread stops (every thread of the block is then
parked at a statement boundary, a barrier or its exit); the commands read the stopped threads'
frames in place (simt/tools/debug_values.py) and evaluate expressions as Python over them."""
import math
import os
import re
import sys

import numpy as np

import simt._simt as _simt

from . import debug_input
from . import debug_values as values
from .debug_breakpoints import BreakpointCommands, DebugError, find_function

PROMPT = "(simt) "


class Xyz:
    """threadIdx / blockIdx / blockDim / gridDim in expressions."""

    def __init__(self, v):
        self.x, self.y, self.z = (np.int32(c) for c in v)

    def __repr__(self):
        return "(%d, %d, %d)" % (self.x, self.y, self.z)


class _Cuda:
    """`cuda` in expressions: its thread ids, and its functions a condition may use."""

    def __init__(self, tid, ctaid, ntid, nctaid):
        self.threadIdx, self.blockIdx = Xyz(tid), Xyz(ctaid)
        self.blockDim, self.gridDim = Xyz(ntid), Xyz(nctaid)

    def grid(self, ndim):
        ids = [int(b) * int(n) + int(t) for t, b, n in zip(
            (self.threadIdx.x, self.threadIdx.y, self.threadIdx.z),
            (self.blockIdx.x, self.blockIdx.y, self.blockIdx.z),
            (self.blockDim.x, self.blockDim.y, self.blockDim.z))]
        return ids[0] if ndim == 1 else tuple(ids[:ndim])


def _xyz(text, current):
    """(x, y, z) from "(1,0,0)", "1,0,0" or "1"; omitted coordinates keep `current`'s."""
    parts = [p.strip() for p in text.strip().strip("()").split(",") if p.strip()]
    if not parts or len(parts) > 3 or not all(re.fullmatch(r"\d+", p) for p in parts):
        raise DebugError("expected coordinates like (1,0,0), not %r" % text.strip())
    return tuple(int(parts[i]) if i < len(parts) else current[i] for i in range(3))


class Session(BreakpointCommands):
    """One debugging session: breakpoints, displays and the command loop, across launches."""

    def __init__(self, commands=None, batch=False, interactive=None, out=None,
                 commands_input=None):
        self.native = _simt.Debugger(self._stopped, self._condition)
        self.out = out  # None: sys.stdout when it prints (pytest swaps it while it captures)
        self.script = list(commands or [])
        self.batch = batch
        self.input = commands_input or debug_input.for_this_process()
        self.interactive = self.input.can_prompt() if interactive is None else interactive
        self.conditions = {}  # breakpoint number -> (text, code object)
        self.displays = {}  # number -> expression
        self.next_display = 1
        self.frame = 0  # the selected frame of the focused thread, 0 innermost
        self.detached = False  # batch commands done: no more stops
        self.quitting = False  # quit: the script ends after this launch
        self.values = []  # $1, $2, ...
        self.watches = {}  # number -> (expression, address, dtype, reads)
        self.resolved_lines = {}  # breakpoint number -> the line with code it moved to
        self.step_warp = False  # set cuda step warp: step and next move the focused warp
        self.warp_step = False  # the last resume stepped a warp
        self.steps_left = 0  # step N / next N: the steps still to take after the one running
        self.step_command = None  # and the resume command that takes each
        self.last_list = None

    # -- what the controller calls -------------------------------------------------------------
    def _stopped(self, reason, thread, loc, number, message, access="load", value=0):
        if not self.script and not self.interactive and not self.detached:
            self.detached = True  # nothing can prompt: the kernels just run
            self._say_no_prompt(loc, message)
        if self.detached:
            return "continue"
        if self._step_goes_on(reason, message):
            return self.step_command
        self.frame = 0
        try:
            with self.input.conversation():
                self._describe_stop(reason, thread, loc, number, message, access, value)
                return self._command_loop()
        except BaseException as error:  # nothing may unwind into the simulator
            self._say("simt: the debugger failed: %s: %s" % (type(error).__name__, error))
            self.detached = True
            return "kill"

    # -- input and output ----------------------------------------------------------------------
    def _say(self, text=""):
        out = self.out or sys.stdout
        print(text, file=out)
        out.flush()

    def _say_no_prompt(self, loc, message):
        """The one line (stderr, or a warning under pytest) when a stop finds nothing to prompt."""
        where = self._location(loc)
        kernel = self.native.kernel_name()
        if message == "breakpoint()":
            what = "breakpoint() in kernel %s at %s:%d ignored" % (
                kernel, os.path.basename(where[0]), where[1])
        else:
            what = "the debugger cannot stop kernel %s (it and later kernels run on)" % kernel
        debug_input.say_no_prompt(what, self.input.why_no_prompt())

    def _read_command(self):
        if self.script:
            line = self.script.pop(0)
            self._say(PROMPT + line)
            return line
        if not self.interactive:
            return None
        try:
            return self.input.read(PROMPT, self._complete)
        except EOFError:
            self._say()
            return "quit"
        except KeyboardInterrupt:
            self._say()
            return ""

    def _complete(self, text, state):
        words = [name for name in COMMANDS if " " not in name]
        if self.native.running:
            words += [name for name, _, _ in self._slots(self.native.focus, 0)]
        matches = sorted(w for w in set(words) if w.startswith(text))
        return matches[state] if state < len(matches) else None

    def _command_loop(self):
        """Reads and runs commands until one resumes the threads; returns it."""
        while True:
            line = self._read_command()
            if line is None:  # no more commands and no terminal
                if self.batch or not self.interactive:
                    self.detached = True
                return "continue"
            try:
                resume = self.execute(line)
            except DebugError as error:
                self._say(str(error))
                continue
            if resume:
                return resume

    def execute(self, line):
        """Runs one command line; returns the resume command when it resumes the threads."""
        line = line.strip()
        if not line:
            return None
        for name, handler in _matching_commands(line):
            return handler(self, name, line[len(name):].strip()) if name else None
        raise DebugError(_undefined_command(line))

    # -- the state of a stop -------------------------------------------------------------------
    def _threads(self):
        return self.native.threads()

    def _thread(self, index):
        threads = self._threads()
        if not 0 <= index < len(threads):
            raise DebugError("no thread %d in the running block" % index)
        return threads[index]

    def _frames(self, index):
        """The calls of thread `index`, innermost first: (function, address, loc)."""
        return list(reversed(self.native.frames(index)))

    def _slots(self, index, frame, wanted=lambda i, num_params: True):
        """(name, type, address) of the variables frame `frame` of thread `index` sees where it
        stands, among the slots (i, num_params) that `wanted` picks."""
        frames = self._frames(index)
        if not frames or frame >= len(frames):
            return []
        function, address, loc = frames[frame]
        name, file, first_line, num_params, slots = self.native.layouts()[function]
        where = self._location(loc)
        picked = [(i,) + slot for i, slot in enumerate(slots) if wanted(i, num_params)]
        return [(slot, desc, address + offset)
                for slot, desc, offset in _visible(picked, where[1] if where else 0)]

    def _namespace(self, index, frame, names=None):
        """What an expression sees: the frame's locals, the thread's ids, cuda, math, np."""
        _, tid, ctaid, _, _ = self._thread(index)
        grid, block = self.native.launch_config()
        cuda = _Cuda(tid, ctaid, block, grid)
        space = {"cuda": cuda, "math": math, "np": np, "threadIdx": cuda.threadIdx,
                 "blockIdx": cuda.blockIdx, "blockDim": cuda.blockDim, "gridDim": cuda.gridDim}
        for slot, desc, address in self._slots(index, frame):
            if names is None or slot in names:
                try:
                    space[slot] = values.read(address, desc)
                except (TypeError, ValueError):  # not assigned yet (an array header of garbage)
                    continue
        return space

    def _evaluate(self, text):
        if not self.native.running:
            raise DebugError("No kernel is running.")
        try:
            code = compile(text, "<expression>", "eval")
        except SyntaxError as error:
            raise DebugError("bad expression %r: %s" % (text, error.msg)) from None
        try:
            return eval(code, {}, self._namespace(self.native.focus, self.frame, code.co_names))
        except NameError as error:
            raise DebugError("No symbol %s in current context." %
                             str(error).split("'")[1] if "'" in str(error) else str(error))
        except Exception as error:
            raise DebugError("%s: %s" % (type(error).__name__, error)) from None

    def _location(self, loc):
        if loc < 0:
            return None
        return self.native.locations()[loc]

    def _signature(self, function, address):
        name, _, _, num_params, slots = self.native.layouts()[function]
        params = []
        for slot, desc, *_ in slots[:num_params]:
            params.append("%s=%s" % (slot, _short_type(desc)))
        return "%s (%s)" % (name, ", ".join(params))

    def _source_line(self, file, line):
        import linecache
        return linecache.getline(file, line).rstrip("\n")

    def _where(self, index, loc):
        """"reciprocal (x=float64[:]) at debug_check.py:13" and the line's source."""
        frames = self._frames(index)
        where = self._location(loc)
        if not frames or where is None:
            return ""
        function, address, _ = frames[0]
        file, line = where[0], where[1]
        return "%s at %s:%d\n%d\t%s" % (self._signature(function, address),
                                        os.path.basename(file), line, line,
                                        self._source_line(file, line))

    def _ids(self, index):
        _, tid, ctaid, _, _ = self._thread(index)
        return "Thread (%d,%d,%d) block (%d,%d,%d)" % (tuple(tid) + tuple(ctaid))

    def _describe_stop(self, reason, thread, loc, number, message, access="load", value=0):
        if reason == "launch":
            grid, block = self.native.launch_config()
            self._say("Kernel %s launched: grid (%d,%d,%d) block (%d,%d,%d)"
                      % ((self.native.kernel_name(),) + tuple(grid) + tuple(block)))
            self._say("Focus on block (0,0,0) thread (0,0,0)")
            self._say(self._where(thread, loc))
        elif reason == "breakpoint" and message == "breakpoint()":
            self._say("%s called breakpoint()%s, %s" % (
                self._ids(thread), " (Breakpoint %d)" % number if number else "",
                self._where(thread, loc)))
        elif reason == "breakpoint":
            self._say("%s hit Breakpoint %d, %s" % (self._ids(thread), number,
                                                    self._where(thread, loc)))
        elif reason == "fault":
            self._say("%s faulted: %s" % (self._ids(thread), message))
            if loc >= 0:
                self._say(self._where(thread, loc))
        elif reason == "watch":
            expression, address, dtype, reads = self.watches[number]
            old = values.show(np.frombuffer(values._memory(address, dtype.itemsize), dtype)[0])
            kind = "Read watchpoint" if reads else "Hardware watchpoint"
            self._say("%s hit %s %d: %s" % (self._ids(thread), kind, number, expression))
            if access == "store":
                new = np.frombuffer(int(value).to_bytes(8, "little")[:dtype.itemsize], dtype)[0]
                self._say("\nOld value = %s\nNew value = %s" % (old, values.show(new)))
            elif access == "atomic":
                self._say("\nValue = %s (an atomic operation is about to change it)" % old)
            else:
                self._say("\nValue = %s" % old)
            self._say(self._where(thread, loc))
        elif reason == "interrupt":
            self._say("\nInterrupted: %s at %s" % (self._ids(thread), self._where(thread, loc)))
        elif reason == "exited":
            self._say("%s exited" % self._ids(thread))
        else:
            if message:
                self._say("[%s]" % message)
            if self.warp_step:
                self._say(self._warp_summary(thread))
            self._say(self._where(thread, loc))
        for n, expression in sorted(self.displays.items()):
            try:
                self._say("%d: %s = %s" % (n, expression, values.show(self._evaluate(expression))))
            except DebugError as error:
                self._say("%d: %s: %s" % (n, expression, error))

    # -- commands ------------------------------------------------------------------------------
    def cmd_help(self, _, arg):
        if arg:
            for name, handler in _matching_commands(arg):
                self._say(COMMANDS[name][1])
                return
            raise DebugError('Undefined command: "%s".  Try "help".' % arg)
        self._say("Commands (unambiguous prefixes work; `help COMMAND` for more):")
        for name in sorted(COMMANDS):
            self._say("  %-22s %s" % (name, COMMANDS[name][1].split("\n")[0]))

    def _resume(self, command):
        if not self.native.running:
            raise DebugError("The program is not being run.")
        self.warp_step = command.endswith("warp")
        self.steps_left = 0
        return command

    def _step(self, command, arg, warp):
        """step/next [N]: N steps of the focused thread (of each lane of its warp with `warp`),
        shown where the last one ends; a stop of another kind ends them sooner, as in gdb."""
        count = _step_count(command + (" warp" if warp else ""), arg)
        self.step_command = self._resume(command + " warp" if warp else command)
        self.steps_left = count - 1
        return self.step_command

    def _step_goes_on(self, reason, message):
        """Whether this stop is the end of a step of `step N`/`next N` with steps left to take,
        while the focused thread lives: the next one starts without a prompt."""
        if reason != "step" or self.steps_left <= 0 or \
                self._thread(self.native.focus)[3] == "exited":
            self.steps_left = 0
            return False
        self.steps_left -= 1
        if message:  # the other threads were brought to a barrier on the way
            self._say("[%s]" % message)
        return True

    def cmd_continue(self, _, arg):
        return self._resume("continue")

    def cmd_step(self, _, arg):
        return self._step("step", arg, self.step_warp)

    def cmd_next(self, _, arg):
        return self._step("next", arg, self.step_warp)

    def cmd_step_warp(self, _, arg):
        return self._step("step", arg, True)

    def cmd_next_warp(self, _, arg):
        return self._step("next", arg, True)

    def cmd_set_cuda_step_warp(self, _, arg):
        if arg not in ("on", "off"):
            raise DebugError("usage: set cuda step warp on|off")
        self.step_warp = arg == "on"

    def cmd_finish(self, _, arg):
        return self._resume("finish")

    def cmd_until(self, _, arg):
        if not re.fullmatch(r"\d+", arg):
            raise DebugError("until takes a line number")
        self._resume("continue")
        self.native.run_until(int(arg))
        return "continue"

    def cmd_kill(self, _, arg):
        return self._resume("kill")

    def cmd_quit(self, _, arg):
        self.detached = True
        self.quitting = True
        self.native.clear_breakpoints()
        return "kill"

    def cmd_print(self, name, arg):
        hex_format = name.endswith("/x") or arg.startswith("/x")
        if arg.startswith("/x"):
            arg = arg[2:].strip()
        if not arg:
            raise DebugError("print needs an expression")
        value = self._evaluate(arg)
        self.values.append(value)
        shown = values.show(value, hex_format)
        if isinstance(value, np.ndarray):
            self._say("$%d = %s" % (len(self.values), shown))
        else:
            self._say("$%d = %s (%s)" % (len(self.values), shown, values.type_name(value)))

    def cmd_display(self, _, arg):
        if not arg:
            for n, expression in sorted(self.displays.items()):
                self._say("%d: %s = %s" % (n, expression, values.show(self._evaluate(expression))))
            return
        self.displays[self.next_display] = arg
        self.next_display += 1
        if self.native.running:
            self._say("%d: %s = %s" % (self.next_display - 1, arg,
                                       values.show(self._evaluate(arg))))

    def cmd_undisplay(self, _, arg):
        if not arg:
            self.displays.clear()
        for text in arg.split():
            self.displays.pop(int(text) if text.isdigit() else -1, None)

    def cmd_set_var(self, _, arg):
        target, sep, expression = arg.partition("=")
        if not sep:
            raise DebugError("usage: set var NAME = VALUE")
        target = target.strip()
        value = self._evaluate(expression.strip())
        if re.fullmatch(r"[A-Za-z_]\w*", target):
            for slot, desc, address in self._slots(self.native.focus, self.frame):
                if slot == target:
                    try:
                        values.write(address, desc, value)
                    except (TypeError, ValueError, OverflowError) as error:
                        raise DebugError(str(error)) from None
                    return
            raise DebugError("No symbol %s in current context." % target)
        # An array element or slice: assigned through the array's view of kernel memory.
        namespace = self._namespace(self.native.focus, self.frame)
        namespace["__value"] = value
        try:
            exec(compile("%s = __value" % target, "<set var>", "exec"), {}, namespace)
        except Exception as error:
            raise DebugError("%s: %s" % (type(error).__name__, error)) from None

    def cmd_set_cuda_break_on_launch(self, _, arg):
        if arg not in ("on", "off"):
            raise DebugError("usage: set cuda break_on_launch on|off")
        self.native.break_on_launch = arg == "on"

    def cmd_info_locals(self, _, arg):
        self._show_slots(lambda i, n: i >= n)

    def cmd_info_args(self, _, arg):
        self._show_slots(lambda i, n: i < n)

    def _show_slots(self, wanted):
        if not self.native.running:
            raise DebugError("No frame selected.")
        frames = self._frames(self.native.focus)
        if self.frame >= len(frames):
            raise DebugError("No frame selected: the thread has %s." % (
                "exited" if self._thread(self.native.focus)[3] == "exited" else "not started"))
        shown = False
        for slot, desc, address in self._slots(self.native.focus, self.frame, wanted):
            try:
                shown_value = values.show(values.read(address, desc))
            except (TypeError, ValueError):
                shown_value = "<not assigned yet>"
            self._say("%s = %s" % (slot, shown_value))
            shown = True
        if not shown:
            # slot 0 of a function without parameters is a local: `wanted` says which was asked
            self._say("No locals." if wanted(0, 0) else "No arguments.")

    def cmd_backtrace(self, _, arg):
        if not self.native.running or not self._frames(self.native.focus):
            raise DebugError("No stack.")
        for depth, (function, address, loc) in enumerate(self._frames(self.native.focus)):
            where = self._location(loc)
            place = " at %s:%d" % (os.path.basename(where[0]), where[1]) if where else ""
            marker = "*" if depth == self.frame else " "
            args = []
            name, _, _, num_params, slots = self.native.layouts()[function]
            for slot, desc, offset, *_ in slots[:num_params]:
                value = values.read(address + offset, desc)
                shown = _short_type(desc) if isinstance(value, np.ndarray) else values.show(value)
                args.append("%s=%s" % (slot, shown))
            self._say("%s#%d  %s (%s)%s" % (marker, depth, name, ", ".join(args), place))

    def _select_frame(self, frame):
        frames = self._frames(self.native.focus)
        if not 0 <= frame < len(frames):
            raise DebugError("No frame at level %d." % frame)
        self.frame = frame
        function, address, loc = frames[frame]
        self._say("#%d  %s" % (frame, self._where_frame(function, address, loc)))

    def _where_frame(self, function, address, loc):
        where = self._location(loc)
        if where is None:
            return self._signature(function, address)
        return "%s at %s:%d\n%d\t%s" % (self._signature(function, address),
                                        os.path.basename(where[0]), where[1], where[1],
                                        self._source_line(where[0], where[1]))

    def cmd_frame(self, _, arg):
        self._select_frame(int(arg) if arg.isdigit() else self.frame)

    def cmd_up(self, _, arg):
        self._select_frame(self.frame + (int(arg) if arg.isdigit() else 1))

    def cmd_down(self, _, arg):
        self._select_frame(self.frame - (int(arg) if arg.isdigit() else 1))

    def cmd_list(self, _, arg):
        if arg and not arg.isdigit():
            function = find_function(arg)
            if function is None:
                raise DebugError('Function "%s" not defined.' % arg)
            file, center, current = function.__code__.co_filename, \
                function.__code__.co_firstlineno + 4, None
        else:
            if not self.native.running:
                raise DebugError("No kernel is running.")
            frames = self._frames(self.native.focus)
            where = self._location(frames[self.frame][2]) if frames else None
            if where is None:
                raise DebugError("No source line here.")
            file, current = where[0], where[1]
            center = int(arg) if arg else current
        import linecache
        for line in range(max(1, center - 5), center + 5):
            if not linecache.getline(file, line):  # past the end of the file
                break
            self._say("%s%d\t%s" % ("->" if line == current else "  ", line,
                                     self._source_line(file, line)))

    def cmd_cuda(self, _, arg):
        """cuda thread (x,y,z) / cuda block (x,y,z) [thread (x,y,z)] / cuda warp N / cuda lane N."""
        if not self.native.running:
            raise DebugError("Focus not set on any active CUDA kernel.")
        focus = self._thread(self.native.focus)
        tid, ctaid = focus[1], focus[2]
        grid, block = self.native.launch_config()
        if not arg.strip() or arg.strip() in ("thread", "block"):
            self._say("block (%d,%d,%d) thread (%d,%d,%d)" % (tuple(ctaid) + tuple(tid)))
            return
        parts = re.findall(r"(block|thread|warp|lane)\s*(\([^)]*\)|[\d,]+)?", arg)
        if not parts:
            raise DebugError("usage: cuda [block (x,y,z)] [thread (x,y,z)] | cuda warp N | "
                             "cuda lane N")
        new_tid, new_ctaid = tuple(tid), tuple(ctaid)
        linear = None
        for kind, value in parts:
            if kind == "block":
                new_ctaid = _xyz(value, ctaid)
            elif kind == "thread":
                new_tid = _xyz(value, tid)
            else:
                if not value.isdigit():
                    raise DebugError("cuda %s takes a number" % kind)
                if kind == "warp":
                    linear = int(value) * 32 + self.native.focus % 32
                else:
                    linear = self.native.focus // 32 * 32 + int(value)
        if new_ctaid != tuple(ctaid):
            raise DebugError("Block (%d,%d,%d) is not resident: only the running block (%d,%d,%d) "
                             "can take the focus." % (new_ctaid + tuple(ctaid)))
        if linear is None:
            if any(c >= n for c, n in zip(new_tid, block)):
                raise DebugError("Invalid coordinates: thread (%d,%d,%d) is outside the block "
                                 "(%d,%d,%d)." % (new_tid + tuple(block)))
            linear = new_tid[0] + block[0] * (new_tid[1] + block[1] * new_tid[2])
        if not self.native.set_focus(linear):
            raise DebugError("No such thread in the block.")
        self.frame = 0
        _, tid, ctaid, state, loc = self._thread(linear)
        self._say("[Switching focus to block (%d,%d,%d) thread (%d,%d,%d)]" %
                  (tuple(ctaid) + tuple(tid)))
        if loc >= 0:
            self._say(self._where(linear, loc))
        else:
            self._say("(thread %s)" % state)

    def cmd_info_cuda_threads(self, _, arg):
        if not self.native.running:
            raise DebugError("No CUDA kernel is running.")
        rows = []
        for index, tid, ctaid, state, loc in self._threads():
            where = self._location(loc)
            place = "%s:%d" % (os.path.basename(where[0]), where[1]) if where else "-"
            key = (place, state)
            if rows and rows[-1][0] == key and rows[-1][2] == index - 1:
                rows[-1][2], rows[-1][4] = index, tid
                rows[-1][5] += 1
            else:
                rows.append([key, index, index, tid, tid, 1, ctaid])
        self._say("  BlockIdx ThreadIdx To BlockIdx ThreadIdx Count Location             State")
        focus = self.native.focus
        for (place, state), first, last, tid_from, tid_to, count, ctaid in rows:
            marker = "*" if first <= focus <= last else " "
            block = "(%d,%d,%d)" % tuple(ctaid)
            self._say("%s %-8s %-9s    %-8s %-9s %5d %-20s %s" % (
                marker, block, "(%d,%d,%d)" % tuple(tid_from), block,
                "(%d,%d,%d)" % tuple(tid_to), count, place, state))

    def _warp_lanes(self, index):
        """(lane, index, tid, state, line or None) of the warp of thread `index`."""
        threads = self._threads()
        first = index // 32 * 32
        lanes = []
        for lane_index in range(first, min(first + 32, len(threads))):
            _, tid, _, state, loc = threads[lane_index]
            where = self._location(loc)
            lanes.append((lane_index - first, lane_index, tid, state,
                          where[1] if where else None))
        return lanes

    @staticmethod
    def _lane_ranges(lanes):
        """"0-15" style ranges of lane numbers."""
        ranges, start = [], None
        for i, lane in enumerate(lanes):
            if start is None:
                start = lane
            if i + 1 == len(lanes) or lanes[i + 1] != lane + 1:
                ranges.append(str(start) if start == lane else "%d-%d" % (start, lane))
                start = None
        return ",".join(ranges)

    def _warp_summary(self, index):
        """Where the lanes of the focused warp are after a warp step, and whether they diverged."""
        by_place = {}
        for lane, _, _, state, line in self._warp_lanes(index):
            place = "at line %d" % line if line is not None and state != "exited" else state
            by_place.setdefault(place, []).append(lane)
        parts = ["lanes %s %s" % (self._lane_ranges(lanes), place)
                 for place, lanes in sorted(by_place.items(), key=lambda item: item[1][0])]
        text = "[warp %d: %s" % (index // 32, "; ".join(parts))
        return text + ("; diverged]" if len(by_place) > 1 else "]")

    def cmd_info_cuda_warps(self, _, arg):
        if not self.native.running:
            raise DebugError("No CUDA kernel is running.")
        threads = self._threads()
        self._say("  Warp Active lanes                      Lines")
        for first in range(0, len(threads), 32):
            lanes = self._warp_lanes(first)
            active = [lane for lane, _, _, state, _ in lanes if state != "exited"]
            lines = sorted({line for _, _, _, state, line in lanes
                            if line is not None and state != "exited"})
            marker = "*" if first // 32 == self.native.focus // 32 else " "
            self._say("%s %4d %-32s %s" % (marker, first // 32,
                                           self._lane_ranges(active) or "(none)",
                                           ", ".join(map(str, lines)) or "-"))

    def cmd_info_cuda_lanes(self, _, arg):
        if not self.native.running:
            raise DebugError("No CUDA kernel is running.")
        self._say("  Lane ThreadIdx   State        Line")
        for lane, index, tid, state, line in self._warp_lanes(self.native.focus):
            marker = "*" if index == self.native.focus else " "
            self._say("%s %4d %-12s %-12s %s" % (marker, lane, "(%d,%d,%d)" % tuple(tid), state,
                                                 line if line is not None else "-"))

    def cmd_info_cuda_barriers(self, _, arg):
        if not self.native.running:
            raise DebugError("No CUDA kernel is running.")
        waiting = {}
        for index, tid, _, state, loc in self._threads():
            if state == "at barrier":
                where = self._location(loc)
                waiting.setdefault(where[1] if where else 0, []).append(index)
        if not waiting:
            self._say("No thread of the block waits at a barrier.")
        for line, indices in sorted(waiting.items()):
            self._say("syncthreads at line %d: %d of %d threads wait (threads %s)" % (
                line, len(indices), len(self._threads()), self._lane_ranges(indices)))

    def cmd_info_cuda_blocks(self, _, arg):
        """Every block's state: blocks run one after another in block order (all at once when
        the kernel syncs the grid); only the focused block's threads can take the focus."""
        if not self.native.running:
            raise DebugError("No CUDA kernel is running.")
        grid, _ = self.native.launch_config()
        ctaid = self._thread(0)[2]
        linear = ctaid[0] + grid[0] * (ctaid[1] + grid[1] * ctaid[2])
        total = grid[0] * grid[1] * grid[2]

        def block(n):
            return "(%d,%d,%d)" % (n % grid[0], n // grid[0] % grid[1], n // (grid[0] * grid[1]))
        self._say("  BlockIdx  To BlockIdx Count State")
        if self.native.cooperative():  # the grid syncs: every block is resident
            rows = [(0, linear - 1, "resident"), (linear, linear, "resident (focus)"),
                    (linear + 1, total - 1, "resident")]
        else:
            rows = [(0, linear - 1, "done"), (linear, linear, "running (focus)"),
                    (linear + 1, total - 1, "not started")]
        for first, last, state in rows:
            if first <= last:
                self._say("%s %-9s %-11s %5d %s" % ("*" if first == linear else " ", block(first),
                                                     block(last), last - first + 1, state))

def _step_count(command, arg):
    """The N of `step N`, `next N` (1 when not given): a positive number."""
    if not arg:
        return 1
    if not re.fullmatch(r"\+?\d+", arg) or int(arg) == 0:
        raise DebugError('Invalid count "%s": %s takes a positive number of steps.' % (
            arg, command))
    return int(arg)


def _visible(slots, line):
    """(name, type, offset) of the variables that slots (index, name, type, offset, first line,
    last line) hold at `line`, in frame order: one slot per name, a loop's own version of a
    variable (lines around `line`) before any other, else the later (a local before the
    parameter it redefines); compiler temporaries ('$1') and versions elsewhere left out."""
    chosen = {}
    for index, name, desc, offset, first, last in slots:
        if name.startswith("$") or (first and not first <= line <= last):
            continue
        known = chosen.get(name)
        if known is None or first or not known[1]:
            chosen[name] = (index, first, (name, desc, offset))
    return [slot for _, _, slot in sorted(chosen.values(), key=lambda c: c[0])]


def _short_type(desc):
    if desc and desc[0] == "array":
        element = "Record" if isinstance(desc[1], tuple) else desc[1]
        axes = ", ".join([":"] * (desc[2] - 1) + ["::1" if desc[3] == "C" else ":"])
        return "%s[%s]" % (element, axes)
    if desc and desc[0] == "scalar":
        return desc[1]
    return str(desc[1]) if desc else "none"


# name -> (handler, help). A command line is matched by its longest command name that it starts
# with, or by an unambiguous prefix of a name's first word.
COMMANDS = {
    "help": (Session.cmd_help, "help [COMMAND]: list the commands, or describe one"),
    "break": (Session.cmd_break, "break FILE:LINE|LINE|FUNCTION [if COND]: stop each thread "
              "that reaches it (COND: a Python expression over its locals, arguments and "
              "threadIdx/blockIdx)"),
    "tbreak": (Session.cmd_tbreak, "tbreak LOCATION [if COND]: a breakpoint deleted at its "
               "first stop"),
    "condition": (Session.cmd_condition, "condition N [COND]: set or remove breakpoint N's "
                  "condition"),
    "ignore": (Session.cmd_ignore, "ignore N COUNT: pass over breakpoint N COUNT times"),
    "delete": (Session.cmd_delete, "delete [N...]: delete breakpoints (all without N)"),
    "disable": (Session.cmd_disable, "disable N...: disable breakpoints"),
    "enable": (Session.cmd_enable, "enable N...: enable breakpoints"),
    "info breakpoints": (Session.cmd_info_breakpoints, "info breakpoints: breakpoints with "
                         "their hit counts"),
    "watch": (Session.cmd_watch, "watch ARRAY[INDEX]: stop any thread about to write that "
              "element (global, shared or local memory), showing the old and new value"),
    "rwatch": (Session.cmd_rwatch, "rwatch ARRAY[INDEX]: stop any thread about to read it"),
    "info watchpoints": (Session.cmd_info_watchpoints, "info watchpoints: the watchpoints"),
    "run": (Session.cmd_continue, "run: start or go on running all threads"),
    "continue": (Session.cmd_continue, "continue: run all threads until one stops"),
    "step": (Session.cmd_step, "step [N]: the focused thread runs to its next line, into calls "
             "(N times)"),
    "next": (Session.cmd_next, "next [N]: the focused thread runs to its next line, over calls "
             "(N times; a barrier on the way brings the block's other threads to it)"),
    "finish": (Session.cmd_finish, "finish: the focused thread runs until its function returns"),
    "until": (Session.cmd_until, "until LINE: run until the focused thread reaches LINE"),
    "kill": (Session.cmd_kill, "kill: end the kernel; the script sees an exception"),
    "quit": (Session.cmd_quit, "quit: end the kernel and the debugger"),
    "print": (Session.cmd_print, "print EXPR, print/x EXPR: evaluate over the focused thread "
              "(locals, arguments, array elements and slices, threadIdx...)"),
    "p": (Session.cmd_print, "p EXPR: print"),
    "p/x": (Session.cmd_print, "p/x EXPR: print in hexadecimal"),
    "print/x": (Session.cmd_print, "print/x EXPR: print in hexadecimal"),
    "display": (Session.cmd_display, "display EXPR: print EXPR at every stop"),
    "undisplay": (Session.cmd_undisplay, "undisplay [N...]: stop displaying"),
    "set var": (Session.cmd_set_var, "set var NAME = VALUE, set var a[i] = VALUE: change a local "
                "or an array element"),
    "set cuda break_on_launch": (Session.cmd_set_cuda_break_on_launch,
                                 "set cuda break_on_launch on|off: stop at each launch's first "
                                 "line"),
    "info locals": (Session.cmd_info_locals, "info locals: the selected frame's locals"),
    "info args": (Session.cmd_info_args, "info args: the selected frame's arguments"),
    "backtrace": (Session.cmd_backtrace, "backtrace: the focused thread's calls, with their "
                  "arguments"),
    "bt": (Session.cmd_backtrace, "bt: backtrace"),
    "where": (Session.cmd_backtrace, "where: backtrace"),
    "frame": (Session.cmd_frame, "frame N: select frame N of the backtrace"),
    "up": (Session.cmd_up, "up [N]: select the caller's frame"),
    "down": (Session.cmd_down, "down [N]: select the callee's frame"),
    "list": (Session.cmd_list, "list [LINE|FUNCTION]: source around the stop"),
    "cuda": (Session.cmd_cuda, "cuda thread (x,y,z) | cuda block (x,y,z) [thread (x,y,z)] | "
             "cuda warp N | cuda lane N: move the focus; bare `cuda thread` shows it"),
    "info cuda threads": (Session.cmd_info_cuda_threads, "info cuda threads: the block's "
                          "threads grouped by line and state"),
    "info cuda blocks": (Session.cmd_info_cuda_blocks, "info cuda blocks: the resident blocks"),
    "info cuda warps": (Session.cmd_info_cuda_warps, "info cuda warps: each warp's live lanes "
                        "and the lines they are at"),
    "info cuda lanes": (Session.cmd_info_cuda_lanes, "info cuda lanes: the focused warp's lanes"),
    "info cuda barriers": (Session.cmd_info_cuda_barriers, "info cuda barriers: the threads "
                           "waiting at each syncthreads"),
    "step warp": (Session.cmd_step_warp, "step warp [N]: each lane of the focused warp steps one "
                  "line; shows where the lanes diverged"),
    "next warp": (Session.cmd_next_warp, "next warp [N]: each lane of the focused warp runs to its "
                  "next line, over calls"),
    "set cuda step warp": (Session.cmd_set_cuda_step_warp, "set cuda step warp on|off: step and "
                           "next move the whole focused warp"),
}
_ALIASES = {"b": "break", "c": "continue", "s": "step", "n": "next", "r": "run", "q": "quit",
            "l": "list", "i": "info", "bt": "bt"}


def _matching_commands(line):
    """[(name, handler)]: the command `line` invokes (its words may be prefixes)."""
    words = line.split()
    first = _ALIASES.get(words[0], words[0])
    candidates, exact = [], []
    for name, (handler, _) in COMMANDS.items():
        parts = name.split()
        if len(words) < len(parts):
            continue
        given = [first] + words[1:len(parts)]
        if all(p.startswith(g) for p, g in zip(parts, given)):
            (exact if given == parts else candidates).append((len(parts), name, handler))
    if exact:  # "step warp" over "step"
        words_used, _, handler = max(exact)
        return [(_consumed(line, words_used), handler)]
    longest = [c for c in candidates if c[0] == max((c[0] for c in candidates), default=0)]
    if len(longest) == 1:
        return [(_consumed(line, longest[0][0]), longest[0][2])]
    if len(longest) > 1:
        raise DebugError('Ambiguous command "%s": %s.' % (
            words[0], ", ".join(sorted(c[1] for c in longest))))
    return []


def _undefined_command(line):
    """Why `line` names no command: the words some command names begin with and the first that
    none goes on with ("info cuda kernels"), or the subcommands that may follow them ("info")."""
    words = line.split()
    first = _ALIASES.get(words[0], words[0])
    for count in range(1, len(words) + 1):
        given = [first] + words[1:count]
        following = [name.split()[count:] for name in COMMANDS
                     if len(name.split()) >= count and
                     all(p.startswith(g) for p, g in zip(name.split(), given))]
        if not following:
            return 'Undefined command: "%s".  Try "help".' % " ".join(words[:count])
    return '"%s" must be followed by the name of a subcommand: %s.' % (
        line.strip(), ", ".join(sorted(" ".join(rest) for rest in following if rest)))


def _consumed(line, word_count):
    """The text of `line`'s first `word_count` words (what the handler's argument follows)."""
    match = re.match(r"\s*" + r"\s+".join([r"\S+"] * word_count), line)
    return match.group(0).strip()


_session = None


def session(break_on_launch=False):
    """The process's debugging session, made at the first launch under the debugger; one made
    then with `break_on_launch` stops at each launch (debug mode), else only at breakpoint()."""
    global _session
    if _session is None:
        _session = Session()
        _session.native.break_on_launch = break_on_launch
    return _session


def install(debugging_session):
    """Makes `debugging_session` the process's session (the DAP adapter's, simt/tools/dap.py)."""
    global _session
    _session = debugging_session


def current():
    """The process's debugging session, None before one is made."""
    return _session


def start(commands=None, batch=False, commands_input=None, interactive=None):
    """Starts the session `simt debug` runs the script under."""
    global _session
    _session = Session(commands, batch, interactive, commands_input=commands_input)
    return _session


def end():
    """Forgets the session (after `quit`, or a notebook's %simt_debug): a later launch under the
    debugger starts a fresh one."""
    global _session
    _session = None
