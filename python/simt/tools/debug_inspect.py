"""The debugger's commands that look at values and source: print with gdb's /FMT letters and its
value history ($1, $, $$, $$N), display, x, ptype, whatis, list, and info frame, line, source and
display. Commands of simt/tools/debugger.py's Session, which takes them in as a mixin."""
import ast
import linecache
import os
import re

import numpy as np

from . import debug_values as values
from .debug_breakpoints import DebugError, find_function

# gdb's value history: $$N (N back from the last), $N (absolute), $ (the last); $$ is $$1.
_HISTORY_REFERENCE = re.compile(r"\$\$(\d*)|\$(\d+)|\$(?![\w$])")
_LIST_SIZE = 10  # gdb's `set listsize`


def split_format(command, arg, counted=False):
    """(letter or None, count, the rest) of "/x EXPR" (print, display) or "/4f EXPR" (x)."""
    match = re.match(r"/(\w*)\s*", arg)
    if not match:
        return None, 1, arg
    count, letters = re.fullmatch(r"(\d*)(\D*)", match.group(1)).groups()
    if (count and not counted) or len(letters) > 1 or (letters and letters not in values.FORMATS):
        raise DebugError('Invalid format "/%s": %s takes /%s, one of %s.' % (
            match.group(1), command, "N" if counted else "", ", ".join(values.FORMATS)))
    if counted and count and int(count) == 0:
        raise DebugError("Invalid count 0: x shows at least one element.")
    return letters or None, int(count or 1), arg[match.end():]


class InspectCommands:
    """The Session's commands that show values, types and source."""

    # -- the value history ---------------------------------------------------------------------
    def _history_names(self, text):
        """`text` with its value history references ($, $N, $$, $$N) as names, and their
        values: {name: value}."""
        found = {}

        def name_of(match):
            back, number = match.group(1), match.group(2)
            if number is not None:
                index = int(number)
            elif back is not None:
                index = len(self.values) - (int(back) if back else 1)
            else:
                index = len(self.values)
            if not self.values:
                raise DebugError("History is empty.")
            if index > len(self.values):
                raise DebugError("History has not yet reached $%d." % index)
            if index < 1:
                raise DebugError("History does not go back to %s." % match.group(0))
            found["_history_%d" % index] = self.values[index - 1]
            return "_history_%d" % index
        return _HISTORY_REFERENCE.sub(name_of, text), found

    def _record(self, value):
        """Enters `value` in the value history: its number."""
        self.values.append(values.detached(value))
        return len(self.values)

    def _value_text(self, number, value, fmt=None):
        """"$3 = 4.0 (float32)": value number `number`, arrays with their type and shape."""
        try:
            shown = values.show(value, fmt)
        except TypeError as error:
            raise DebugError(str(error)) from None
        if isinstance(value, np.ndarray):
            return "$%d = %s" % (number, shown)
        return "$%d = %s (%s)" % (number, shown, values.type_name(value))

    def cmd_print(self, _, arg):
        fmt, _, expression = split_format("print", arg)
        if not expression:
            raise DebugError("print needs an expression")
        value = self._evaluate(expression)
        self._value_text(0, value, fmt)  # a format that does not apply takes no history number
        self._say(self._value_text(self._record(value), value, fmt))

    # -- displays ------------------------------------------------------------------------------
    def _display_line(self, number):
        expression, fmt = self.displays[number]
        label = "%d: %s%s" % (number, "/%s " % fmt if fmt else "", expression)
        try:
            return "%s = %s" % (label, values.show(self._evaluate(expression), fmt))
        except (DebugError, TypeError) as error:
            return "%s: %s" % (label, error)

    def _show_displays(self):
        for number in sorted(self.displays):
            self._say(self._display_line(number))

    def cmd_display(self, _, arg):
        fmt, _, expression = split_format("display", arg)
        if not expression:
            self._show_displays()
            return
        self.displays[self.next_display] = (expression, fmt)
        self.next_display += 1
        if self.native.running:
            self._say(self._display_line(self.next_display - 1))

    def cmd_undisplay(self, _, arg):
        if not arg:
            self.displays.clear()
        for text in arg.split():
            if not text.isdigit() or int(text) not in self.displays:
                raise DebugError("No display number %s." % text)
            del self.displays[int(text)]

    def cmd_info_display(self, _, arg):
        if not self.displays:
            self._say("There are no auto-display expressions now.")
            return
        self._say("Auto-display expressions now in effect:\nNum Enb Expression")
        for number, (expression, fmt) in sorted(self.displays.items()):
            self._say("%d:   y  %s%s" % (number, "/%s " % fmt if fmt else "", expression))

    # -- memory and types ----------------------------------------------------------------------
    def _examined_start(self, expression):
        """(array expression, flat index) where `x` starts: "&a[8]" (an element), "a" (an
        array's first element)."""
        if not expression.startswith("&"):
            if isinstance(self._evaluate(expression), np.ndarray):
                return expression, 0
            raise DebugError("x needs an array or an element's address: x/4f a, x/4f &a[8]")
        try:
            tree = ast.parse(expression[1:].strip(), mode="eval").body
        except SyntaxError as error:
            raise DebugError("bad expression %r: %s" % (expression, error.msg)) from None
        if not isinstance(tree, ast.Subscript):
            raise DebugError("& takes an array element, such as &a[8] or &sA[1, 2]")
        array_text = ast.unparse(tree.value)
        array = self._evaluate(array_text)
        index = self._evaluate(ast.unparse(tree.slice))
        index = index if isinstance(index, tuple) else (index,)
        if not isinstance(array, np.ndarray) or len(index) != array.ndim or \
                not all(isinstance(i, (int, np.integer)) for i in index):
            raise DebugError("& takes an element of an array, one integer index per axis")
        try:
            return array_text, int(np.ravel_multi_index(
                tuple(int(i) % n if -n <= i < 0 else int(i) for i, n in zip(index, array.shape)),
                array.shape))
        except ValueError:
            raise DebugError("index %s is out of bounds for %s of shape %s" % (
                ast.unparse(tree.slice), array_text, array.shape)) from None

    def cmd_x(self, _, arg):
        """x/NF EXPR: N elements from an array's element on, in the array's element order."""
        if arg:
            fmt, count, expression = split_format("x", arg, counted=True)
            array_text, first = self._examined_start(expression.strip())
        elif self.last_examined:  # x alone (or Enter) goes on after the last
            array_text, first, count, fmt = self.last_examined
        else:
            raise DebugError("Argument required (starting display address).")
        array = self._evaluate(array_text)
        elements = array.ravel()
        last = min(first + count, elements.size)
        try:
            shown = [values.show(elements[k], fmt) for k in range(first, last)]
        except TypeError as error:
            raise DebugError(str(error)) from None
        per_line = {1: 8, 2: 8, 4: 4, 8: 2}.get(array.dtype.itemsize, 1)  # as gdb's b/h/w/g
        for row in range(0, len(shown), per_line):
            index = np.unravel_index(first + row, array.shape)
            self._say("%s[%s]:\t%s" % (array_text, ", ".join(str(int(i)) for i in index),
                                       "\t".join(shown[row:row + per_line])))
        self.last_examined = (array_text, last, count, fmt)
        if first + count > elements.size:
            raise DebugError("Cannot access memory past the end of %s (%d elements)." % (
                array_text, elements.size))

    def cmd_whatis(self, _, arg):
        if not arg:
            raise DebugError("whatis needs an expression")
        self._say("type = %s" % values.type_name(self._evaluate(arg)))

    def cmd_ptype(self, _, arg):
        if not arg:
            raise DebugError("ptype needs an expression")
        self._say("type = %s" % values.describe_type(self._evaluate(arg)))

    # -- source --------------------------------------------------------------------------------
    def _selected_place(self):
        """(file, line) where the selected frame of the focused thread stands."""
        if not self.native.running:
            raise DebugError("No kernel is running.")
        frames = self._frames(self.native.focus)
        where = self._location(frames[self.frame][2]) if frames else None
        if where is None:
            raise DebugError("No source line here.")
        return where[0], where[1]

    def _list_range(self, arg):
        """(file, first, last, the current line or None) that `list ARG` shows, as gdb's list:
        around a line or function, FIRST,LAST, or the ten lines after (none) or before (-) the
        last listing."""
        last_list = self.last_list
        if arg and arg != "-" and not re.fullmatch(r"\d*\s*,?\s*\d*", arg):
            function = find_function(arg)
            if function is None:
                raise DebugError('Function "%s" not defined.' % arg)
            center = function.__code__.co_firstlineno + 4
            return function.__code__.co_filename, center - 5, center + 4, None
        file, current = last_list[0] if last_list else self._selected_place()[0], None
        if self.native.running:
            try:
                here = self._selected_place()
                current = here[1] if here[0] == file else None
            except DebugError:
                pass
        if arg == "-":
            first = last_list[1] if last_list else max(1, (current or 1) - 5)
            if first <= 1:
                raise DebugError('Already at the start of %s.' % os.path.basename(file))
            return file, max(1, first - _LIST_SIZE), first - 1, current
        if not arg:
            if last_list:
                return file, last_list[2] + 1, last_list[2] + _LIST_SIZE, current
            return file, max(1, current - 5), max(1, current - 5) + _LIST_SIZE - 1, current
        start, comma, end = (part.strip() for part in arg.partition(","))
        if not comma:
            return file, max(1, int(start) - 5), max(1, int(start) - 5) + _LIST_SIZE - 1, current
        if not start and not end:
            raise DebugError("list FIRST,LAST needs a line number")
        first = int(start) if start else max(1, int(end) - _LIST_SIZE + 1)
        return file, first, int(end) if end else first + _LIST_SIZE - 1, current

    def cmd_list(self, _, arg):
        file, first, last, current = self._list_range(arg.strip())
        count = len(linecache.getlines(file))
        if first > count:
            raise DebugError('Line number %d out of range; "%s" has %d lines.' % (
                first, os.path.basename(file), count))
        last = min(last, count)
        for line in range(first, last + 1):
            self._say("%s%d\t%s" % ("->" if line == current else "  ", line,
                                     self._source_line(file, line)))
        self.last_list = (file, first, last)

    def cmd_info_source(self, _, arg):
        file = self._selected_place()[0]
        self._say("Current source file is %s\nLocated in %s\nContains %d lines.\n"
                  "Source language is python (Numba CUDA kernels, compiled by simt)." % (
                      os.path.basename(file), os.path.abspath(file),
                      len(linecache.getlines(file))))

    def cmd_info_line(self, _, arg):
        if arg:
            spec, line = self._breakpoint_place(arg)
            file = self._kernel_file(spec) or spec
        else:
            file, line = self._selected_place()
        name = os.path.basename(file)
        with_code = self.native.line_with_code(file, line) if self.native.running else line
        if not with_code:
            raise DebugError('Line %d of "%s" has no code in kernel %s.' % (
                line, name, self.native.kernel_name()))
        functions = [(first, function) for function, path, first, _, _ in self.native.layouts()
                     if os.path.basename(path) == name and first <= with_code]
        function = " in %s" % max(functions)[1] if functions else ""
        if with_code != line:
            self._say('Line %d of "%s" has no code; the next line with code is %d%s.' % (
                line, name, with_code, function))
        else:
            self._say('Line %d of "%s" is%s.' % (line, name, function or " code"))

    def cmd_info_frame(self, _, arg):
        if not self.native.running or not self._frames(self.native.focus):
            raise DebugError("No stack.")
        frames = self._frames(self.native.focus)
        function, address, loc = frames[self.frame]
        layouts = self.native.layouts()
        where = self._location(loc)
        self._say("Stack level %d, frame of %s at %s:%d:" % (
            self.frame, layouts[function][0], os.path.basename(where[0]), where[1]))
        callers = []
        if self.frame + 1 < len(frames):
            callers.append("called by frame at level %d (%s)" % (
                self.frame + 1, layouts[frames[self.frame + 1][0]][0]))
        if self.frame > 0:
            callers.append("caller of frame at level %d (%s)" % (
                self.frame - 1, layouts[frames[self.frame - 1][0]][0]))
        if callers:
            self._say(" " + ", ".join(callers))
        self._say(" %s of kernel %s" % (self._ids(self.native.focus).lower(),
                                       self.native.kernel_name()))
        for title, wanted in (("args", lambda i, n: i < n), ("locals", lambda i, n: i >= n)):
            shown = []
            for slot, desc, slot_address in self._slots(self.native.focus, self.frame, wanted):
                try:
                    shown.append("%s=%s" % (slot, values.show(values.read(slot_address, desc))
                                            if desc[0] != "array" else values.short_type(desc)))
                except (TypeError, ValueError):
                    shown.append("%s=<not assigned yet>" % slot)
            self._say(" %s: %s" % (title, ", ".join(shown) or "none"))

