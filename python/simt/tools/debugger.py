"""`simt debug`: the per-thread kernel debugger's commands (cuda-gdb's names), over the native
controller (simt._simt.Debugger) that stops, steps and resumes single threads of a launch.

The controller calls back here whenever a thread stops (every thread of the block is then
parked at a statement boundary, a barrier or its exit); the commands read the stopped threads'
frames in place (simt/tools/debug_values.py) and evaluate expressions as Python over them."""
import ast
import inspect
import math
import os
import re
import sys
import textwrap

import numpy as np

import simt._simt as _simt

from . import debug_input
from . import debug_values as values
from .debug_breakpoints import BreakpointCommands, DebugError, find_function
from .debug_completion import Completion
from .debug_cuda_info import CudaInfoCommands
from .debug_inspect import InspectCommands

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


class Session(BreakpointCommands, CudaInfoCommands, InspectCommands, Completion):
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
        self.displays = {}  # number -> (expression, format letter or None)
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
        self.last_list = None  # (file, first, last line) of the last `list`, until the next stop
        self.last_examined = None  # where `x` goes on: (array expression, index, count, format)
        self.repeated = None  # the command Enter repeats: the last next, step, continue, list...
        self.until_from = None  # bare `until`: (line, depth) it leaves, not going back in a loop
        self.finishing = None  # finish: (depth it returns from, the return value seen)
        self.completions = []  # what Tab offers for the word being completed
        self.kernel_globals = {}  # function of this launch -> its globals and closure
        self.launches = 0  # launches under this session so far (cuda-gdb's grid ids)
        self.kernel_function = None  # the Python function of the launch's kernel

    def launching(self, dispatcher):
        """A launch of `dispatcher`'s kernel begins under this session."""
        self.launches += 1
        self.kernel_function = dispatcher.py_func
        self.kernel_globals.clear()  # the last launch's functions are done with

    # -- what the controller calls -------------------------------------------------------------
    def _stopped(self, reason, thread, loc, number, message, access="load", value=0):
        if not self.script and not self.interactive and not self.detached:
            self.detached = True  # nothing can prompt: the kernels just run
            self._say_no_prompt(loc, message)
        if self.detached:
            return "continue"
        resume = self._step_goes_on(reason, message)
        if resume:
            return resume
        self.frame = 0
        self.last_list = None  # `list` shows the new stop
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
            line = self.input.read(PROMPT, self._complete)
            return line if line.strip() else self.repeated or ""  # Enter repeats, as in gdb
        except EOFError:
            self._say()
            return "quit"
        except KeyboardInterrupt:
            self._say()
            return ""


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
        line = re.sub(r"^(\w+)/", r"\1 /", line)  # print/x, x/4f: the format is the argument's
        for name, handler in _matching_commands(line):
            resume = handler(self, name, line[len(name):].strip())
            self.repeated = _REPEATED_BY_ENTER[handler] or line \
                if handler in _REPEATED_BY_ENTER else None
            return resume
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
                 "blockIdx": cuda.blockIdx, "blockDim": cuda.blockDim, "gridDim": cuda.gridDim,
                 **values.LITERALS}
        for slot, desc, address in self._slots(index, frame):
            if names is None or slot in names:
                try:
                    space[slot] = values.read(address, desc)
                except (TypeError, ValueError):  # not assigned yet (an array header of garbage)
                    continue
        return space

    def _globals(self, index, frame):
        """The module globals and closure of the function of frame `frame` of thread `index`
        (TILE, R), as first read in this launch."""
        frames = self._frames(index)
        if frame >= len(frames):
            return {}
        key = frames[frame][0]
        if key not in self.kernel_globals:
            name = self.native.layouts()[key][0]
            # the launched kernel itself: kernels a closure makes share their name
            function = self.kernel_function if getattr(self.kernel_function, "__name__", "") \
                == name else find_function(name)
            closure = zip(function.__code__.co_freevars, function.__closure__ or ()) \
                if function else ()
            scope = dict(function.__globals__ if function else {}, **{
                name: cell.cell_contents for name, cell in closure})
            # numbers as the kernel sees them: int64, float64 (values.LITERALS)
            self.kernel_globals[key] = {name: values.as_kernel_number(value)
                                        for name, value in scope.items()}
        return self.kernel_globals[key]

    def _evaluate(self, text):
        if not self.native.running:
            raise DebugError("No kernel is running.")
        rewritten, history = self._history_names(text)
        try:
            code = values.compile_expression(rewritten, "<expression>")
        except SyntaxError as error:
            raise DebugError("bad expression %r: %s" % (text, error.msg)) from None
        try:
            space = self._namespace(self.native.focus, self.frame, code.co_names)
            space.update(history)
            return eval(code, self._globals(self.native.focus, self.frame), space)
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
            params.append("%s=%s" % (slot, values.short_type(desc)))
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
            if self.finishing and self.finishing[1] is not None:
                returned = self.finishing[1]
                self._say("Value returned is " + self._value_text(self._record(returned),
                                                                  returned))
            self.finishing = None
        self._show_displays()

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

    def _not_resident(self, wanted, running, grid):
        """Why block `wanted` cannot take the focus, and how to get there."""
        name = "(%d,%d,%d)" % wanted
        if any(c >= n for c, n in zip(wanted, grid)):
            return "Invalid coordinates: block %s is outside the grid (%d,%d,%d)." % (
                (name,) + grid)
        if self.native.cooperative():
            return "Block %s is resident, but only the block of the last stop %s can take the " \
                "focus: stop a thread of it with `break LINE if blockIdx.x == %d`." % (
                    name, "(%d,%d,%d)" % running, wanted[0])

        def linear(b):
            return b[0] + grid[0] * (b[1] + grid[1] * b[2])
        if linear(wanted) < linear(running):
            return "Block %s has finished: blocks run one after another, in order, and only " \
                "the running block (%d,%d,%d) is resident." % ((name,) + running)
        condition = " and ".join("blockIdx.%s == %d" % (axis, c)
                                 for axis, c, n in zip("xyz", wanted, grid) if n > 1)
        return "Block %s is not resident yet: blocks run one after another, in order. To stop " \
            "in it: break LINE if %s, then continue." % (name, condition)

    def _resume(self, command):
        if not self.native.running:
            raise DebugError("The program is not being run.")
        self.warp_step = command.endswith("warp")
        self.steps_left, self.until_from, self.finishing = 0, None, None
        return command

    def _step(self, command, arg, warp):
        """step/next [N]: N steps of the focused thread (of each lane of its warp with `warp`),
        shown where the last one ends; a stop of another kind ends them sooner, as in gdb."""
        count = _step_count(command + (" warp" if warp else ""), arg)
        self.step_command = self._resume(command + " warp" if warp else command)
        self.steps_left = count - 1
        return self.step_command

    def _step_goes_on(self, reason, message):
        """The resume command that goes on without a prompt at this stop, or None: the next
        step of `step N`/`next N`, `until` still in its loop, `finish` not yet returned; each
        ends at a stop of another kind or the thread's exit, as in gdb."""
        if reason != "step" or self._thread(self.native.focus)[3] == "exited":
            self.steps_left, self.until_from, self.finishing = 0, None, None
            return None
        frames = self._frames(self.native.focus)
        line = self._location(frames[0][2])[1] if frames else 0
        if self.steps_left > 0:
            self.steps_left -= 1
            resume = self.step_command
        elif self.until_from and len(frames) == self.until_from[1] and line <= self.until_from[0]:
            resume = "next"  # back to a loop's head: gdb's until goes on to a line past it
        elif self.finishing and len(frames) >= self.finishing[0]:
            resume = self._finish_step(frames)
        else:
            self.until_from = None
            return None
        if message:  # the other threads were brought to a barrier on the way
            self._say("[%s]" % message)
        return resume

    def _finish_step(self, frames):
        """finish of a function that returns a value: it runs `next` by `next` to its return
        statement, whose value is computed there, then returns ("Value returned is")."""
        if len(frames) > self.finishing[0]:
            return "finish"  # in a call the finishing function made: back to it
        expression = _returned_expression(self._source_line(*self._location(frames[0][2])[:2]))
        if expression is None:
            return "next"
        try:
            self.finishing = (self.finishing[0], self._evaluate(expression))
        except DebugError:  # not computable here: finish shows no value
            self.finishing = (self.finishing[0], None)
        return "finish"

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
        """finish: the innermost frame runs until it returns (gdb's, from frame 0)."""
        frames = self._frames(self.native.focus) if self.native.running else []
        resume = self._resume("finish")
        if len(frames) == 1:
            raise DebugError('"finish" not meaningful in the outermost frame.')
        if not frames:
            return resume
        self._say("Run till exit from %s" % self._frame_row(0, *frames[0]))
        if _returns_a_value(find_function(self.native.layouts()[frames[0][0]][0])):
            self.finishing = (len(frames), None)
            return self._finish_step(frames)
        return resume

    def cmd_until(self, _, arg):
        if not arg:  # gdb's bare until: next, but on past a loop's head back to where it was
            resume = self._resume("next")
            frames = self._frames(self.native.focus)
            if frames:
                self.until_from = (self._location(frames[0][2])[1], len(frames))
            return resume
        return self.cmd_advance("until", arg)

    def cmd_advance(self, name, arg):
        if not re.fullmatch(r"\d+", arg):
            raise DebugError("%s takes a line number" % name)
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
                        warning = values.write(address, desc, value)
                    except (TypeError, ValueError, OverflowError) as error:
                        raise DebugError(str(error)) from None
                    if warning:
                        self._say(warning)
                    return
            if target in self._globals(self.native.focus, self.frame):
                raise DebugError("%s is a global the kernel was compiled with: it cannot change."
                                 % target)
            raise DebugError("No symbol %s in current context." % target)
        # An array element or slice: assigned through the array's view of kernel memory.
        namespace = self._namespace(self.native.focus, self.frame)
        namespace["__value"] = value
        try:
            exec(compile("%s = __value" % target, "<set var>", "exec"),
                 self._globals(self.native.focus, self.frame), namespace)
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
            self._say("%s%s" % ("*" if depth == self.frame else " ",
                                self._frame_row(depth, function, address, loc)))

    def _frame_row(self, depth, function, address, loc):
        """"#1  sum_of_squares (a=5, b=3) at device_calls.py:14": a frame with its arguments."""
        where = self._location(loc)
        place = " at %s:%d" % (os.path.basename(where[0]), where[1]) if where else ""
        args = []
        name, _, _, num_params, slots = self.native.layouts()[function]
        for slot, desc, offset, *_ in slots[:num_params]:
            value = values.read(address + offset, desc)
            shown = values.short_type(desc) if isinstance(value, np.ndarray) else values.show(value)
            args.append("%s=%s" % (slot, shown))
        return "#%d  %s (%s)%s" % (depth, name, ", ".join(args), place)

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
            raise DebugError(self._not_resident(new_ctaid, tuple(ctaid), tuple(grid)))
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


def _step_count(command, arg):
    """The N of `step N`, `next N` (1 when not given): a positive number."""
    if not arg:
        return 1
    if not re.fullmatch(r"\+?\d+", arg) or int(arg) == 0:
        raise DebugError('Invalid count "%s": %s takes a positive number of steps.' % (
            arg, command))
    return int(arg)


def _returned_expression(source):
    """The text of EXPR when the source line `source` is `return EXPR`, else None."""
    try:
        tree = ast.parse(source.strip())
    except SyntaxError:
        return None
    statement = tree.body[0] if len(tree.body) == 1 else None
    if isinstance(statement, ast.Return) and statement.value is not None:
        return ast.unparse(statement.value)
    return None


def _returns_a_value(function):
    """Whether the device function returns a value (finish then shows it)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return False
    return any(isinstance(node, ast.Return) and node.value is not None
               for node in ast.walk(tree))


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
    "finish": (Session.cmd_finish, "finish: the focused thread runs until its function returns; "
               "shows the value returned ($N)"),
    "until": (Session.cmd_until, "until [LINE]: run until the focused thread reaches LINE; "
              "bare: next, but on past a loop's head to a line after the current one"),
    "advance": (Session.cmd_advance, "advance LINE: run until the focused thread reaches LINE"),
    "kill": (Session.cmd_kill, "kill: end the kernel; the script sees an exception"),
    "quit": (Session.cmd_quit, "quit: end the kernel and the debugger"),
    "print": (Session.cmd_print, "print[/F] EXPR: evaluate over the focused thread (locals, "
              "arguments, globals, array elements and slices, threadIdx, $N, $, $$N...); F: x, d, "
              "u, o, t (the bits) or f"),
    "p": (Session.cmd_print, "p[/F] EXPR: print"),
    "x": (Session.cmd_x, "x/NF &a[i] | x/NF a: N elements of an array from element i (or its "
          "first) on, in format F (x, d, u, o, t, f)"),
    "ptype": (Session.cmd_ptype, "ptype EXPR: the type of EXPR, a record's fields spelled out"),
    "whatis": (Session.cmd_whatis, "whatis EXPR: the type of EXPR, as Numba names it"),
    "display": (Session.cmd_display, "display[/F] EXPR: print EXPR at every stop"),
    "undisplay": (Session.cmd_undisplay, "undisplay [N...]: stop displaying"),
    "info display": (Session.cmd_info_display, "info display: the expressions displayed"),
    "info frame": (Session.cmd_info_frame, "info frame: the selected frame, its caller, "
                   "arguments and locals"),
    "info line": (Session.cmd_info_line, "info line [LINE|FUNCTION]: where a line's code is"),
    "info source": (Session.cmd_info_source, "info source: the current source file"),
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
    "list": (Session.cmd_list, "list [LINE|FUNCTION|FIRST,LAST|-]: source around the stop; "
             "again: the next lines (-: the lines before)"),
    "cuda": (Session.cmd_cuda, "cuda thread (x,y,z) | cuda block (x,y,z) [thread (x,y,z)] | "
             "cuda warp N | cuda lane N: move the focus; bare `cuda thread` shows it"),
    "info cuda threads": (Session.cmd_info_cuda_threads, "info cuda threads: the block's "
                          "threads grouped by line and state"),
    "info cuda kernels": (Session.cmd_info_cuda_kernels, "info cuda kernels: the running "
                          "kernel, with cuda-gdb's columns"),
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
# The commands Enter repeats (from the terminal, as in gdb), and what it runs: None, the same
# line; list and x go on after what they showed.
_REPEATED_BY_ENTER = {Session.cmd_step: None, Session.cmd_next: None, Session.cmd_step_warp: None,
                      Session.cmd_next_warp: None, Session.cmd_continue: None,
                      Session.cmd_list: "list", Session.cmd_x: "x"}
_ALIASES = {"b": "break", "c": "continue", "s": "step", "n": "next", "r": "run", "q": "quit",
            "l": "list", "i": "info", "bt": "bt"}
Session.command_names, Session.command_aliases = tuple(COMMANDS), _ALIASES  # for completion


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
