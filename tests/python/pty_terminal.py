"""A command on a pseudo-terminal, for the tests of interactive features (the debugger's prompt,
readline, Ctrl-C): its controlling terminal, so Ctrl-C is a SIGINT; every wait is bounded, and the
process is killed if it outlives the test."""
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

from conftest import STAGE

PROMPT = "(simt) "


class Terminal:
    """A command run on a pseudo-terminal (its controlling terminal, so Ctrl-C is a SIGINT),
    read with bounded waits; the process is killed if it outlives the test."""

    def __init__(self, args, home, cwd, env=None):
        full_env = dict(os.environ)
        full_env["PYTHONPATH"] = STAGE + os.pathsep + full_env.get("PYTHONPATH", "")
        for name in ("SIMT_ENABLE", "SIMT_DEBUG", "NUMBA_ENABLE_CUDASIM"):
            full_env.pop(name, None)
        full_env.update({"HOME": str(home), "TERM": "dumb"}, **(env or {}))
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: nothing may return into pytest
            try:
                # A wide terminal: readline echoes a long line (an absolute path) whole, rather
                # than scrolled to its end.
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 400, 0, 0))
                os.chdir(str(cwd))
                os.execve(sys.executable, [sys.executable] + list(args), full_env)
            finally:
                os._exit(127)
        self.pending = ""
        self.status = None

    def read_until(self, token, timeout=30):
        """The output up to and including `token` (\\r\\n as \\n, escapes dropped)."""
        deadline = time.monotonic() + timeout
        while token not in self.pending:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.fd], [], [], max(0.0, left))
            if not ready:
                raise AssertionError("no %r within %ss; got %r" % (token, timeout, self.pending))
            try:
                data = os.read(self.fd, 4096)
            except OSError:  # the child is gone
                data = b""
            if not data:
                raise AssertionError("output ended before %r; got %r" % (token, self.pending))
            text = data.decode("utf-8", "replace").replace("\r\n", "\n")
            self.pending += re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r", "", text)
        end = self.pending.index(token) + len(token)
        result, self.pending = self.pending[:end], self.pending[end:]
        return result

    def rest(self, timeout=30):
        """Everything until the output ends."""
        deadline = time.monotonic() + timeout
        chunks = [self.pending]
        self.pending = ""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    data = os.read(self.fd, 4096)
                except OSError:
                    break
                if not data:
                    break
                chunks.append(data.decode("utf-8", "replace"))
            elif self.poll() is not None:
                break
        return "".join(chunks).replace("\r\n", "\n")

    def command(self, line):
        """Types `line` and Enter at the prompt: the lines it printed, up to the next prompt."""
        os.write(self.fd, line.encode() + b"\r")
        text = self.read_until(PROMPT)
        echo, _, printed = text[:-len(PROMPT)].partition("\n")
        assert echo.endswith(line), (echo, line)
        return printed.splitlines()

    def poll(self):
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
        return self.status

    def wait(self, timeout=30):
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > deadline:
                raise AssertionError("the debugged script did not end")
            time.sleep(0.02)
        return self.status

    def close(self):
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)
            self.wait()
        os.close(self.fd)

    def send(self, data):
        """Writes `data` (bytes as they are; text with Enter after it)."""
        os.write(self.fd, data if isinstance(data, bytes) else data.encode() + b"\r")
