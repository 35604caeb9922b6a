"""What a stop of the kernel debugger shows a Debug Adapter Protocol client (simt/tools/dap.py):
CUDA threads as DAP threads, their device-function frames, scopes (Arguments, Locals, Shared
memory) and variables, with arrays expandable by index ranges. Frame and thread ids are computed
from the thread and call depth; variable references are handed out per stop and dropped when the
threads resume, as the protocol allows."""
import ast
import inspect
import os
import re
import textwrap

import numpy as np

from . import debug_values as values
from .debug_breakpoints import DebugError, find_function

# A thread's frames are numbered below this: frame id = thread index * MAX_DEPTH + depth + 1.
MAX_DEPTH = 1024
# An array shows at most this many children: elements, or index ranges of elements.
CHUNK = 100
# The placeholder thread listed while no kernel is stopped (clients want one to pause).
HOST_THREAD = {"id": 0, "name": "host (no kernel stopped)"}
SCOPES = ("Arguments", "Locals", "Shared memory")


class StopViews:
    """The DAP face of the session's current stop."""

    def __init__(self, session):
        self.session = session
        self.native = session.native
        self.references = [None]  # variablesReference -> what it expands (0 is "none")
        self.shared_names = {}  # function name -> names of its cuda.shared.array locals

    def reset(self):
        """The threads resume: every variable reference handed out is stale."""
        del self.references[1:]

    # -- threads -------------------------------------------------------------------------------
    def _block_size(self):
        _, block = self.native.launch_config()
        return block[0] * block[1] * block[2]

    def _block_linear(self):
        grid, _ = self.native.launch_config()
        ctaid = self.session._thread(0)[2]
        return ctaid[0] + grid[0] * (ctaid[1] + grid[1] * ctaid[2])

    def thread_id(self, index):
        """The DAP id of thread `index` of the running block: its linear index in the grid, + 1."""
        return self._block_linear() * self._block_size() + index + 1

    def thread_index(self, thread_id):
        """The running block's index of DAP thread `thread_id`; a DebugError for another block."""
        if not self.native.running:
            raise DebugError("No kernel is stopped.")
        block_linear, index = divmod(int(thread_id) - 1, self._block_size())
        if thread_id < 1 or block_linear != self._block_linear():
            raise DebugError("Thread %d is not in the running block: only its threads can take "
                             "the focus." % thread_id)
        return index

    def focus(self, thread_id):
        """Moves the debugger's focus to DAP thread `thread_id` (when given)."""
        if thread_id is None:
            return
        index = self.thread_index(thread_id)
        if index != self.native.focus:
            self.native.set_focus(index)
            self.session.frame = 0

    def thread_name(self, index):
        _, tid, ctaid, state, _ = self.session._thread(index)
        note = "" if state in ("stopped", "running") else " [%s]" % state
        return "block (%d,%d,%d) warp %d thread (%d,%d,%d)%s" % (
            tuple(ctaid) + (index // 32,) + tuple(tid) + (note,))

    def threads(self):
        """The focused warp's lanes and every other stopped thread: a block has up to 1024
        threads, too many for a client's list; focusing a thread (any request naming it, or
        `cuda thread` in the console) brings its warp into the list."""
        if not self.native.running:
            return [HOST_THREAD]
        focus = self.native.focus
        shown = [index for index, _, _, state, _ in self.session._threads()
                 if index // 32 == focus // 32 or state == "stopped"]
        return [{"id": self.thread_id(index), "name": self.thread_name(index)} for index in shown]

    # -- frames --------------------------------------------------------------------------------
    def stack(self, thread_id, start=0, levels=0):
        index = self.thread_index(thread_id)
        frames = self.session._frames(index)
        picked = frames[start:start + levels] if levels else frames[start:]
        result = []
        for depth, (function, address, loc) in enumerate(picked, start):
            where = self.session._location(loc)
            frame = {"id": index * MAX_DEPTH + depth + 1,
                     "name": self.session._signature(function, address), "line": 0, "column": 0}
            if where is not None:
                frame.update(source={"name": os.path.basename(where[0]), "path": where[0]},
                             line=where[1], column=max(where[2], 1))
            result.append(frame)
        return result, len(frames)

    def select_frame(self, frame_id):
        """Focuses the thread of frame `frame_id` and selects the frame; returns (index, depth)."""
        index, depth = divmod(int(frame_id) - 1, MAX_DEPTH)
        if not self.native.running or frame_id < 1:
            raise DebugError("No kernel is stopped.")
        if index != self.native.focus:
            self.native.set_focus(index)
        if depth >= len(self.session._frames(index)):
            raise DebugError("No frame at level %d." % depth)
        self.session.frame = depth
        return index, depth

    def scopes(self, frame_id):
        index, depth = self.select_frame(frame_id)
        hints = {"Arguments": "arguments", "Locals": "locals"}
        scopes = []
        for name in SCOPES:
            scope = {"name": name, "expensive": False,
                     "variablesReference": self._reference(("scope", index, depth, name))}
            if name in hints:
                scope["presentationHint"] = hints[name]
            scopes.append(scope)
        return scopes

    def _shared(self, function):
        """Names the source of device function or kernel `function` binds to shared arrays."""
        name = self.native.layouts()[function][0]
        if name not in self.shared_names:
            self.shared_names[name] = _shared_array_names(find_function(name))
        return self.shared_names[name]

    def _scope_variables(self, index, depth, scope):
        function = self.session._frames(index)[depth][0]
        shared = self._shared(function)
        wanted = {"Arguments": lambda i, params: i < params,
                  "Locals": lambda i, params: i >= params}.get(scope, lambda i, params: i >= params)
        result = []
        for name, desc, address in self.session._slots(index, depth, wanted):
            if (scope == "Shared memory") != (name in shared):
                continue
            try:
                result.append(self.variable(name, values.read(address, desc), name))
            except (TypeError, ValueError):  # an array header not assigned yet
                result.append({"name": name, "value": "<not assigned yet>",
                               "variablesReference": 0})
        return result

    # -- variables -----------------------------------------------------------------------------
    def _reference(self, expandable):
        self.references.append(expandable)
        return len(self.references) - 1

    def variable(self, name, value, evaluate_name):
        """A DAP Variable of `value`: arrays, tuples and records expand."""
        entry = {"name": name, "value": values.show(value).split("\n")[0],
                 "type": values.type_name(value), "evaluateName": evaluate_name,
                 "variablesReference": 0}
        if isinstance(value, np.ndarray) and value.ndim:
            entry["variablesReference"] = self._reference(("range", value, evaluate_name, 0,
                                                           value.shape[0]))
            entry["indexedVariables"] = value.shape[0]
        elif isinstance(value, tuple) or (isinstance(value, np.void) and value.dtype.names):
            entry["variablesReference"] = self._reference(("fields", value, evaluate_name))
            entry["namedVariables"] = len(value)
        return entry

    def variables(self, reference, start=None, count=None):
        if not 0 < reference < len(self.references):
            raise DebugError("Variable reference %d is stale: the threads ran since." % reference)
        expandable = self.references[reference]
        if expandable[0] == "scope":
            return self._scope_variables(*expandable[1:])
        if expandable[0] == "fields":
            _, value, name = expandable
            if isinstance(value, tuple):
                return [self.variable("[%d]" % i, v, "%s[%d]" % (name, i))
                        for i, v in enumerate(value)]
            return [self.variable(field, value[field], "%s[%r]" % (name, field))
                    for field in value.dtype.names]
        _, array, name, first, end = expandable
        if start is not None or count is not None:  # the client pages through the elements
            first = first + (start or 0)
            end = min(end, first + count) if count else end
        return self._range_children(array, name, first, end)

    def _range_children(self, array, name, first, end):
        """Elements first..end-1 of `array`, or, for more than CHUNK, ranges of them."""
        if end - first <= CHUNK:
            return [self.variable("[%d]" % i, array[i], "%s[%d]" % (name, i))
                    for i in range(first, end)]
        size = CHUNK
        while (end - first) > size * CHUNK:
            size *= CHUNK
        ranges = []
        for low in range(first, end, size):
            high = min(low + size, end)
            ranges.append({"name": "[%d:%d]" % (low, high), "value": "", "evaluateName":
                           "%s[%d:%d]" % (name, low, high), "indexedVariables": high - low,
                           "variablesReference": self._reference(("range", array, name, low,
                                                                  high))})
        return ranges

    def set_variable(self, reference, name, text):
        """Assigns `text`'s value to variable `name` of scope or array `reference`: `set var`."""
        if not 0 < reference < len(self.references):
            raise DebugError("Variable reference %d is stale: the threads ran since." % reference)
        expandable = self.references[reference]
        if expandable[0] == "scope":
            _, index, depth, _ = expandable
            self.native.set_focus(index)
            self.session.frame = depth
            self.session.execute("set var %s = %s" % (name, text))
            return self.variable(name, self.session._evaluate(name), name)
        if expandable[0] != "range" or not re.fullmatch(r"\[\d+\]", name):
            raise DebugError("Only locals, arguments and array elements can be set.")
        array, element = expandable[1], int(name[1:-1])
        try:
            array[element] = self.session._evaluate(text)
        except (TypeError, ValueError, OverflowError) as error:
            raise DebugError(str(error)) from None
        return self.variable(name, array[element], "%s[%d]" % (expandable[2], element))


def _shared_array_names(function):
    """The names `function`'s source assigns from cuda.shared.array(...) (none without source)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            called = node.value.func
            if isinstance(called, ast.Attribute) and called.attr == "array" and \
                    isinstance(called.value, ast.Attribute) and called.value.attr == "shared":
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names
