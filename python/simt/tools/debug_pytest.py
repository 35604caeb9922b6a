"""simt's debugger in pytest (simt.pytest_plugin): `pytest --simt-debug` stops at a kernel fault,
post-mortem on the faulting thread, as --pdb does at a test's exception; `simt debug -m pytest`
stops at each launch, as `simt debug` does. Either way the debugger talks to the terminal with
pytest's capture suspended, as --pdb does, and resumes it when the threads run on; `quit` ends
the test run."""
import contextlib
import sys

import pytest

from . import debug_input, debugger, debugging


class CaptureSuspendingInput(debug_input.TerminalInput):
    """The terminal, with pytest's capture (global and capsys/capfd) suspended, stdin too, while
    the debugger talks to the user."""

    def __init__(self, config):
        super().__init__()
        self.config = config

    @contextlib.contextmanager
    def _capture_suspended(self):
        capture = self.config.pluginmanager.getplugin("capturemanager")
        if capture is not None:
            capture.suspend(in_=True)
        try:
            yield
        finally:
            if capture is not None:
                capture.resume()

    @contextlib.contextmanager
    def conversation(self):
        with self._capture_suspended():
            # The stop starts on a line of its own, not after the test file's progress dots.
            self.config.get_terminal_writer().line()
            yield

    def can_prompt(self):
        """Whether stdin is a terminal, asked while a test runs (pytest's capture is started then,
        and stdin is the terminal's once it is suspended)."""
        with self._capture_suspended():
            return sys.stdin.isatty()

    def why_no_prompt(self):
        return "stdin is not a terminal"


class DebuggingPlugin:
    """Asks whether the debugger can prompt once a test runs, and ends the test run at the
    debugger's `quit` (which raised SystemExit in the test)."""

    def __init__(self, session):
        self.session = session
        self.asked = False

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        if not self.asked:
            self.asked = True
            self.session.interactive = self.session.input.can_prompt()
        yield
        if self.session.quitting:
            pytest.exit("quit in simt's debugger")  # as --pdb's quit: "Interrupted"


def configure(config, stop_at_launch):
    """Debugs the run's kernels, stopping at faults and breakpoints (and at each launch with
    `stop_at_launch`), in a session that talks past pytest's capture; under `simt debug -m
    pytest` it takes over `simt debug`'s commands (-x) and --batch."""
    debugging.set_debug_mode(True)
    started = debugger.current()  # simt debug's, with its -x commands and --batch
    session = debugger.start(started.script if started else [],
                             started.batch if started else False, CaptureSuspendingInput(config),
                             interactive=True)  # until a test runs (DebuggingPlugin)
    session.native.break_on_launch = stop_at_launch
    config.pluginmanager.register(DebuggingPlugin(session), "simt-debugging")
