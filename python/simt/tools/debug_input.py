"""Where the debugger reads the commands a person types, by where the program runs:

- a terminal: readline's line editing, a history (~/.simt_history) and completion;
- a Jupyter kernel (ipykernel): input(), which the kernel forwards to the notebook's frontend
  (stdin is no terminal there); pdb works in notebooks the same way;
- pytest: the terminal, with pytest's capture suspended while the debugger talks
  (simt.tools.debug_pytest).

Elsewhere (stdin a pipe or a file, pytest's captured stdin) nothing can prompt, and the debugger
says so once (say_no_prompt) and lets the kernels run."""
import contextlib
import os
import sys
import warnings

# Where readline splits the words Tab completes (simt/tools/debug_completion.py): not at '.', so
# `a.sha` completes as an attribute of `a`.
WORD_DELIMITERS = " \t\n()[]{},+-*/%=<>!&|~^"

HISTORY = os.path.join(os.path.expanduser("~"), ".simt_history")


class TerminalInput:
    """Commands typed at the terminal (stdin), with readline when Python has it."""

    def __init__(self):
        self.readline_ready = False

    def can_prompt(self):
        return sys.stdin.isatty()

    def conversation(self):
        """Around one stop's talk with the user: its description, then its commands."""
        return contextlib.nullcontext()

    def why_no_prompt(self):
        if _pytest_captures():
            return ("pytest captures stdin (pytest --simt-debug, or simt debug -m pytest, debugs "
                    "with capture on)")
        return "stdin is not a terminal"

    def read(self, prompt, completer):
        """One line (EOFError at Ctrl-D, KeyboardInterrupt at Ctrl-C); `completer` completes
        words at Tab (readline's)."""
        self._setup_readline(completer)
        return input(prompt)

    def _setup_readline(self, completer):
        if self.readline_ready:
            return
        self.readline_ready = True
        try:
            import readline
        except ImportError:
            return
        try:
            readline.read_history_file(HISTORY)
        except OSError:
            pass
        import atexit
        atexit.register(_save_history, readline)
        readline.set_completer(completer)
        readline.set_completer_delims(WORD_DELIMITERS)
        readline.parse_and_bind("tab: complete")


def _save_history(readline):
    try:
        readline.write_history_file(HISTORY)
    except OSError:
        pass


class NotebookInput:
    """Commands typed in a Jupyter notebook: input(), forwarded by the kernel to the frontend
    (a text box under the cell). A frontend that takes no input (nbconvert, papermill) cannot
    prompt."""

    def __init__(self, kernel):
        self.kernel = kernel

    def can_prompt(self):
        return bool(getattr(self.kernel, "_allow_stdin", True))

    def conversation(self):
        return contextlib.nullcontext()

    def why_no_prompt(self):
        return "this notebook's frontend takes no input"

    def read(self, prompt, completer):
        return input(prompt)


def jupyter_kernel():
    """The Jupyter kernel (ipykernel) running this code, or None: IPython's shell in a kernel
    has one; in a terminal IPython it has none and stdin is the terminal."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None)


def for_this_process():
    """The input of a new debugging session, by where the program runs."""
    kernel = jupyter_kernel()
    if kernel is not None and not sys.stdin.isatty():
        return NotebookInput(kernel)
    return TerminalInput()



def say_no_prompt(what, why):
    """Says that a stop (`what` happens then) found nothing to prompt, and why: a line on stderr,
    or under pytest's capture a warning (pytest lists those, also for tests that passed)."""
    text = "simt: %s: %s" % (what, why)
    if _pytest_captures():
        warnings.warn(text, RuntimeWarning, stacklevel=2)
    else:
        print(text, file=sys.stderr)


def _pytest_captures():
    return type(sys.stdin).__module__.startswith("_pytest")
