"""Tab completion at the debugger's prompt (readline), as gdb completes: command names, the
subcommands that may follow the words typed (`info cu` -> `info cuda`), kernel files and
functions where a location goes, and in expressions the names in scope and the attributes of
a value (`threadIdx.`, `a.sha`). The Session takes it in as a mixin."""
import os
import re

from .debug_breakpoints import DebugError, kernel_files
from simt.compiler.dispatcher import all_dispatchers

_LOCATION_COMMANDS = ("break", "tbreak", "until", "advance", "list", "info line")
_EXPRESSION_NAMES = ("cuda", "math", "np", "threadIdx", "blockIdx", "blockDim", "gridDim")


class Completion:
    """The Session's completer: readline calls `_complete(text, state)` for state 0, 1, ...
    The Session gives it `command_names` and `command_aliases` (its command table's)."""

    def _complete(self, text, state):
        if state == 0:
            import readline
            try:
                self.completions = self._completions(
                    readline.get_line_buffer()[:readline.get_begidx()], text)
            except Exception:  # nothing may escape into readline; no completions then
                self.completions = []
        return self.completions[state] if state < len(self.completions) else None

    def _completions(self, before, text):
        """The words that may replace `text`, typed after `before`."""
        commands, aliases = self.command_names, self.command_aliases
        words = before.split()
        if words:
            words[0] = aliases.get(words[0], words[0])
        following = sorted({name.split()[len(words)] for name in commands
                            if len(name.split()) > len(words) and
                            all(part.startswith(word) for part, word
                                in zip(name.split(), words))})
        if not words:
            following += [alias for alias in aliases if alias not in following]
        if following:  # Python's readline adds no space after a completed word: this does
            return sorted(word + " " for word in following if word.startswith(text))
        command = " ".join(words)
        if any(command == name or command.startswith(name + " ") for name in _LOCATION_COMMANDS) \
                and " if " not in " %s " % before:
            return self._location_completions(text)
        return self._expression_completions(text)

    def _location_completions(self, text):
        """Kernel files (FILE:, the line follows) and kernel and device function names."""
        files = sorted({os.path.basename(path) + ":" for path in kernel_files()})
        functions = sorted({d.py_func.__name__ + " " for d in all_dispatchers()})
        found = [word for word in files + functions if word.startswith(text)]
        return found

    def _expression_completions(self, text):
        if not self.native.running:
            return []
        owner, dot, start = text.rpartition(".")
        if dot:
            if not re.fullmatch(r"[A-Za-z_][\w.]*", owner):
                return []
            try:
                value = self._evaluate(owner)
            except DebugError:
                return []
            return sorted(owner + "." + name for name in dir(value)
                          if name.startswith(start) and not name.startswith("_"))
        names = {name for name, _, _ in self._slots(self.native.focus, self.frame)}
        names.update(_EXPRESSION_NAMES)
        names.update(name for name in self._globals(self.native.focus, self.frame)
                     if not name.startswith("_"))
        return sorted(name for name in names if name.startswith(text))

