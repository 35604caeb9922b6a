"""The debugger's breakpoints and watchpoints: where launches stop (`break`, `tbreak`,
`condition`, `ignore`, `delete`, `disable`, `enable`, `watch`, `rwatch` and their listings), and
the conditions the controller calls back for or evaluates itself (debugger/condition.h). The
commands of simt/tools/debugger.py's Session, which takes them in as a mixin."""
import ast
import linecache
import os
import re

import numpy as np

from simt.compiler.dispatcher import all_dispatchers

from . import debug_values as values


class DebugError(Exception):
    """A command that cannot be done: one line at the prompt, and debugging goes on."""


class BreakpointCommands:
    """The Session's commands and callbacks about where threads stop."""

    def _condition(self, number, thread):
        text, code = self.conditions.get(number, (None, None))
        if code is None:
            return True
        try:
            program = self._condition_program(text, thread)
            if program is not None:  # the controller evaluates the next hits itself
                self.native.set_condition_program(number, program)
            return bool(eval(code, self._globals(thread, 0),
                             self._namespace(thread, 0, code.co_names)))
        except BaseException as error:  # a bad condition stops, as gdb does, and says why
            self._say("Error in condition of breakpoint %d (%s): %s" % (number, text, error))
            return True

    def _condition_program(self, text, thread):
        """The condition as a program of the controller's (debugger/condition.h) over the
        innermost frame of `thread`, or None when it uses more than the controller evaluates
        (_ConditionProgram)."""
        slots = {name: (desc, address) for name, desc, address in self._slots(thread, 0)}
        frames = self._frames(thread)
        program = _ConditionProgram(slots, frames[0][1] if frames else 0,
                                    set(type(self.native).condition_functions))
        try:
            program.emit(ast.parse(text, mode="eval").body)
        except (ValueError, SyntaxError):
            return None
        return program.steps

    def _breakpoint_place(self, spec):
        """(file, line) of "FILE:LINE", "LINE" or "FUNCTION"."""
        if ":" in spec:
            file, line = spec.rsplit(":", 1)
            if not re.fullmatch(r"\d+", line):
                raise DebugError("bad line number %r" % line)
            return file, int(line)
        if re.fullmatch(r"\d+", spec):
            where = self._current_file()
            if where is None:
                raise DebugError("No kernel is running: give FILE:LINE")
            return where, int(spec)
        function = find_function(spec)
        if function is None:
            raise DebugError('Function "%s" not defined.' % spec)
        return function.__code__.co_filename, _body_line(function)

    def _current_file(self):
        if not self.native.running:
            return None
        frames = self._frames(self.native.focus)
        if frames and frames[0][2] >= 0:
            return self._location(frames[0][2])[0]
        return self.native.locations()[0][0] if self.native.locations() else None

    def _add_breakpoint(self, arg, temporary):
        match = re.fullmatch(r"(\S+)(?:\s+if\s+(.+))?", arg)
        if not match:
            raise DebugError("usage: break FILE:LINE|LINE|FUNCTION [if COND]")
        # Everything is checked before the breakpoint is made: a bad one takes no number.
        condition = _condition_of(match.group(2))
        spec, line = self._breakpoint_place(match.group(1))
        file = self._kernel_file(spec)
        if file is None:
            raise DebugError("No source file named %s in the kernels." % spec)
        _check_line_in_file(file, line)
        number = self.native.add_breakpoint(file, line, temporary)
        self._set_condition(number, condition)
        moved = ""
        if self.native.running:
            actual = self.native.line_with_code(file, line)
            if actual and actual != line:
                moved = " (line %d has no code: moved to line %d)" % (line, actual)
                line = actual
                self.resolved_lines[number] = actual
            elif not actual:
                moved = " (%s: pending)" % _pending_place(file, line, self.native.kernel_name())
        self._say("%s %d at %s:%d%s" % ("Temporary breakpoint" if temporary else "Breakpoint",
                                         number, os.path.basename(file), line, moved))

    def _kernel_file(self, spec):
        """The name breakpoints give the kernels' file that `spec` names, or None: `spec` itself
        when it is the end of kernel files' paths ("kernels.py", "pkg/kernels.py"; every such
        file), else the kernel file that is the same file as `spec` (IDEs send absolute paths;
        relative paths and symlinks resolved)."""
        files = kernel_files() | ({where[0] for where in self.native.locations()}
                                   if self.native.running else set())
        if any(path == spec or path.endswith(os.sep + spec) for path in files):
            return spec
        real = os.path.realpath(spec)
        for path in sorted(files):
            real_path = os.path.realpath(path)
            if real_path == real or real_path.endswith(os.sep + spec):
                return path
        return None

    def cmd_break(self, _, arg):
        self._add_breakpoint(arg, False)

    def cmd_tbreak(self, _, arg):
        self._add_breakpoint(arg, True)

    def _set_condition(self, number, condition):
        """Breakpoint `number` stops where `condition` ((text, code) or None: always) holds,
        from its next crossing on."""
        if condition:
            self.conditions[number] = condition
        else:
            self.conditions.pop(number, None)
        self.native.configure_breakpoint(number, conditional=condition is not None)

    def _breakpoint_number(self, text):
        if not re.fullmatch(r"\d+", text or ""):
            raise DebugError("expected a breakpoint number, not %r" % text)
        number = int(text)
        if number not in self.watches and not any(
                b["number"] == number for b in self.native.breakpoints()):
            raise DebugError("No breakpoint number %d." % number)
        return number

    def cmd_condition(self, _, arg):
        number, _, text = arg.partition(" ")
        number = self._breakpoint_number(number)
        self._set_condition(number, _condition_of(text.strip()))
        if not text.strip():
            self._say("Breakpoint %d now unconditional." % number)

    def cmd_ignore(self, _, arg):
        parts = arg.split()
        if len(parts) != 2 or not parts[1].isdigit():
            raise DebugError("usage: ignore N COUNT")
        number = self._breakpoint_number(parts[0])
        self.native.configure_breakpoint(number, ignore=int(parts[1]))
        self._say("Will ignore next %s crossings of breakpoint %d." % (parts[1], number))

    def cmd_delete(self, _, arg):
        if not arg:
            self.native.clear_breakpoints()
            self.conditions.clear()
            return
        for text in arg.split():
            number = self._breakpoint_number(text)
            self.native.remove_breakpoint(number)
            self.conditions.pop(number, None)
            self.watches.pop(number, None)

    def cmd_disable(self, _, arg):
        for text in arg.split():
            self.native.configure_breakpoint(self._breakpoint_number(text), enabled=False)

    def cmd_enable(self, _, arg):
        for text in arg.split():
            self.native.configure_breakpoint(self._breakpoint_number(text), enabled=True)

    def _watch(self, arg, reads):
        """watch/rwatch EXPR: EXPR names one array element (global, shared or local memory)."""
        try:
            tree = ast.parse(arg, mode="eval").body
        except SyntaxError as error:
            raise DebugError("bad expression %r: %s" % (arg, error.msg)) from None
        if not isinstance(tree, ast.Subscript):
            raise DebugError("watch needs an array element, such as x[3] or sA[ty, tx]")
        array = self._evaluate(ast.unparse(tree.value))
        index = self._evaluate(ast.unparse(tree.slice))
        if not isinstance(array, np.ndarray):
            raise DebugError("%s is not an array" % ast.unparse(tree.value))
        index = index if isinstance(index, tuple) else (index,)
        if len(index) != array.ndim or not all(isinstance(i, (int, np.integer)) for i in index):
            raise DebugError("watch needs one integer index per axis of %s"
                             % ast.unparse(tree.value))
        offset = 0
        for i, n, stride in zip(index, array.shape, array.strides):
            i = int(i) + n if i < 0 else int(i)
            if not 0 <= i < n:
                raise DebugError("index %d is out of bounds for an axis of size %d" % (i, n))
            offset += i * stride
        address = array.__array_interface__["data"][0] + offset
        number = self.native.add_watchpoint(address, array.dtype.itemsize, reads)
        self.watches[number] = (arg, address, array.dtype, reads)
        self._say("%s %d: %s" % ("Read watchpoint" if reads else "Hardware watchpoint", number,
                                 arg))

    def cmd_watch(self, _, arg):
        self._watch(arg, False)

    def cmd_rwatch(self, _, arg):
        self._watch(arg, True)

    def cmd_info_watchpoints(self, _, arg):
        rows = self.native.watchpoints()
        if not rows:
            self._say("No watchpoints.")
            return
        self._say("Num  Type            What")
        for number, address, size, reads in rows:
            self._say("%-4d %-15s %s" % (number, "read watchpoint" if reads else "hw watchpoint",
                                         self.watches[number][0]))

    def cmd_info_breakpoints(self, _, arg):
        rows = self.native.breakpoints()
        if not rows:
            self._say("No breakpoints.")
            return
        self._say("Num  Type         Enb  Where                 Hits")
        for b in rows:
            kind = "breakpoint()" if b["in_source"] else \
                "tbreakpoint" if b["temporary"] else "breakpoint"
            self._say("%-4d %-12s %-4s %-21s %d" % (
                b["number"], kind, "y" if b["enabled"] else "n", "%s:%d" % (
                    os.path.basename(b["file"]), self.resolved_lines.get(b["number"], b["line"])),
                b["hits"]))
            if b["number"] in self.conditions:
                self._say("        stop only if %s" % self.conditions[b["number"]][0])
            if b["ignore"]:
                self._say("        will ignore next %d hits" % b["ignore"])


def _condition_of(text):
    """(text, code) of a breakpoint's condition, None for none; a syntax error is the command's
    error, so a bad condition changes nothing."""
    if not text:
        return None
    try:
        return text, values.compile_expression(text, "<condition>")
    except SyntaxError as error:
        raise DebugError("bad condition %r: %s" % (text, error.msg)) from None


def _check_line_in_file(file, line):
    """Refuses a line past the end of `file` (as gdb does); a file without source is not checked."""
    count = len(linecache.getlines(file))
    if count and line > count:
        raise DebugError('Line %d out of range; "%s" has %d lines.' % (
            line, os.path.basename(file), count))


def _pending_place(file, line, running):
    """Where a breakpoint no code of the running kernel reaches waits: the functions of other
    kernels whose source holds the line, else the running kernel's lack of code there."""
    import inspect
    holders = []
    for dispatcher in all_dispatchers():
        function = dispatcher.py_func
        path = function.__code__.co_filename
        if path != file and not path.endswith(os.sep + file):
            continue
        try:
            lines, first = inspect.getsourcelines(function)
        except (OSError, TypeError):
            continue
        if first <= line < first + len(lines) and function.__name__ != running:
            holders.append(function.__name__)
    if holders:
        return "in %s, not in the running kernel %s" % (", ".join(sorted(set(holders))), running)
    return "no code at or after line %d in kernel %s" % (line, running)


def _body_line(function):
    """The first line of `function`'s body (after its decorators and def line)."""
    import inspect
    try:
        lines, first = inspect.getsourcelines(function)
    except (OSError, TypeError):
        return function.__code__.co_firstlineno + 1
    for offset, text in enumerate(lines):
        if text.lstrip().startswith("def "):
            return first + offset + 1
    return first + 1


def find_function(name):
    for dispatcher in all_dispatchers():
        if dispatcher.py_func.__name__ == name:
            return dispatcher.py_func
    return None


def kernel_files():
    return {d.py_func.__code__.co_filename for d in all_dispatchers()}


# The scalars the controller reads in a condition (debugger/condition.cpp's load_scalar).
_CONDITION_SCALARS = frozenset(("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
                                "int64", "uint64", "float32", "float64"))

class _ConditionProgram:
    """A condition as the controller's program (debugger/condition.h): scalar locals, elements
    of array locals, thread ids, numbers, arithmetic/comparison/boolean operators and the math
    functions the controller knows; emit() raises ValueError at anything else."""

    _SPECIALS = {"threadIdx": 0, "blockIdx": 1, "blockDim": 2, "gridDim": 3}
    _BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Mod: "mod",
               ast.Div: "truediv", ast.FloorDiv: "floordiv"}
    _COMPARES = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt",
                 ast.GtE: "ge"}

    def __init__(self, slots, base, functions):
        self.slots = slots  # name -> (type description, address)
        self.base = base  # the innermost frame's locals
        self.functions = functions
        self.steps = []

    def step(self, op, offset=0, scalar="", special=0, axis=0, value=None):
        self.steps.append((op, offset, scalar, special, axis, value))

    def special_of(self, node):
        if isinstance(node, ast.Attribute) and node.attr in ("x", "y", "z"):
            owner = node.value
            if isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and \
                    owner.value.id == "cuda":
                owner = ast.Name(owner.attr)
            if isinstance(owner, ast.Name) and owner.id in self._SPECIALS:
                return self._SPECIALS[owner.id], "xyz".index(node.attr)
        return None

    def scalar_local(self, node):
        return isinstance(node, ast.Name) and node.id in self.slots and \
            self.slots[node.id][0][0] == "scalar" and \
            self.slots[node.id][0][1] in _CONDITION_SCALARS

    def element_of(self, node):
        """(array slot's description, address, index nodes) of `name[i, j]` over an array
        local of plain scalars, indexed on every axis."""
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and
                node.value.id in self.slots and self.slots[node.value.id][0][0] == "array"):
            return None
        desc, address = self.slots[node.value.id]
        index = node.slice.value if isinstance(node.slice, ast.Index) else node.slice
        indices = index.elts if isinstance(index, ast.Tuple) else [index]
        plain = isinstance(desc[1], str) and desc[1] in _CONDITION_SCALARS
        if not plain or len(indices) != desc[2] or \
                any(isinstance(i, (ast.Slice, ast.Starred)) for i in indices):
            return None
        return desc, address, indices

    def function_of(self, node):
        """The name of `math.NAME(x)` or `abs(x)` that the controller evaluates itself."""
        if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords:
            return None
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                func.value.id == "math" and func.attr in self.functions:
            return func.attr
        if isinstance(func, ast.Name) and func.id == "abs" and "abs" in self.functions and \
                func.id not in self.slots:
            return "abs"
        return None

    def emit(self, node):
        if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
            self.step("const", value=int(node.value) if isinstance(node.value, bool)
                      else node.value)
        elif self.scalar_local(node):
            desc, address = self.slots[node.id]
            self.step("local", offset=address - self.base, scalar=desc[1])
        elif self.element_of(node) is not None:
            desc, address, indices = self.element_of(node)
            for index in indices:
                self.emit(index)
            self.step("element", offset=address - self.base, scalar=desc[1], axis=desc[2])
        elif self.function_of(node) is not None:
            self.emit(node.args[0])
            self.step("call", scalar=self.function_of(node))
        elif self.special_of(node) is not None:
            which, axis = self.special_of(node)
            self.step("special", special=which, axis=axis)
        else:
            self.emit_operator(node)

    def emit_operator(self, node):
        if isinstance(node, ast.BinOp) and type(node.op) in self._BINARY:
            self.emit(node.left)
            self.emit(node.right)
            self.step(self._BINARY[type(node.op)])
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
            self.emit(node.operand)
            self.step("not" if isinstance(node.op, ast.Not) else "neg")
        elif isinstance(node, ast.BoolOp):
            self.emit(node.values[0])
            for value in node.values[1:]:
                self.emit(value)
                self.step("and" if isinstance(node.op, ast.And) else "or")
        elif isinstance(node, ast.Compare) and all(type(op) in self._COMPARES for op in node.ops):
            operands = [node.left] + node.comparators
            for i, op in enumerate(node.ops):  # a < b < c: (a < b) and (b < c)
                self.emit(operands[i])
                self.emit(operands[i + 1])
                self.step(self._COMPARES[type(op)])
                if i:
                    self.step("and")
        else:
            raise ValueError
