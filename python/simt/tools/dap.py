"""`simt debug --dap` and `simt debug --dap-port PORT`: the kernel debugger as a Debug Adapter
Protocol server, for VS Code and any other DAP client (docs/debugger.md, "VS Code").

The program runs in the adapter's own process, on its main thread, as under `simt debug`: the
controller calls back at each stop, and the callback answers the client's requests until one
resumes the threads. A reader thread takes the client's messages; while the program runs it
answers those that cannot wait (pause, disconnect, threads, breakpoints applied at the next stop)
itself. File descriptors 1 and 2 (the program's, Python's and the runtime's stdout and stderr)
are pipes whose bytes become `output` events; stdin is /dev/null, since over stdio it carries the
protocol."""
import codecs
import ctypes
import io
import json
import operator
import os
import queue
import re
import select
import socket
import sys
import threading
import time
import traceback

from . import debug_values as values
from . import debugger, debugging
from .dap_views import HOST_THREAD, StopViews
from .debug_breakpoints import DebugError

USAGE = "usage: simt debug --dap [SCRIPT [ARGS...]] | simt debug --dap-port PORT [SCRIPT [ARGS...]]"
CAPABILITIES = {
    "supportsConfigurationDoneRequest": True, "supportsConditionalBreakpoints": True,
    "supportsHitConditionalBreakpoints": True, "supportsEvaluateForHovers": True,
    "supportsSetVariable": True, "supportsTerminateRequest": True, "exceptionBreakpointFilters": [],
}
# The controller's stop reasons (pybind/debugger_binding.cpp) as DAP's.
STOP_REASONS = {"launch": "entry", "breakpoint": "breakpoint", "step": "step", "exited": "step",
                "barrier": "step", "fault": "exception", "interrupt": "pause",
                "watch": "data breakpoint"}
# How long output is gathered into one event once some arrives.
OUTPUT_BATCH_S = 0.02
# How long the adapter waits for the client's disconnect once the program has ended.
DISCONNECT_WAIT_S = 10
_HIT_OPERATORS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
                  ">": operator.gt, ">=": operator.ge,
                  "%": lambda hits, n: n > 0 and hits % n == 0}


class Transport:
    """DAP's base protocol: JSON messages, each after a Content-Length header."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer
        self.lock = threading.Lock()
        self.seq = 0

    def read(self):
        """The next message, or None when the client has gone."""
        length = None
        while True:
            line = self.reader.readline()
            if not line:
                return None
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
            elif not line.strip() and length is not None:
                break
        body = self.reader.read(length)
        return json.loads(body) if len(body) == length else None

    def send(self, message):
        with self.lock:
            self.seq += 1
            message["seq"] = self.seq
            body = json.dumps(message).encode()
            try:
                self.writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
                self.writer.flush()
            except OSError:  # the client has gone: nothing is left to debug for
                os._exit(0)


def stdio_transport():
    """The protocol over this process's stdin and stdout (kept apart from the program's)."""
    return Transport(os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb"))


def tcp_transport(port):
    """The protocol over the first connection to 127.0.0.1:PORT (0: a free port); the port is
    announced on stderr, for `debugServer` clients and tests."""
    server = socket.create_server(("127.0.0.1", port))
    print("simt debug: waiting for a DAP client on 127.0.0.1:%d" % server.getsockname()[1],
          file=sys.stderr, flush=True)
    connection, _ = server.accept()
    server.close()
    return Transport(connection.makefile("rb"), connection.makefile("wb"))


class OutputCapture:
    """Descriptors 1 and 2 become pipes read into `output` events (stdin: /dev/null)."""

    def __init__(self, send):
        self.send = send
        self.lock = threading.Lock()
        self.pipes = {}
        for fd, category in ((1, "stdout"), (2, "stderr")):
            read_end, write_end = os.pipe()
            os.dup2(write_end, fd)
            os.close(write_end)
            os.set_blocking(read_end, False)
            self.pipes[read_end] = (category, codecs.getincrementaldecoder("utf-8")("replace"))
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        sys.stdout.reconfigure(line_buffering=True)
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        while True:
            readable, _, _ = select.select(list(self.pipes), [], [], 0.1)
            if readable:
                time.sleep(OUTPUT_BATCH_S)  # the rest of a print comes as one event
                self.drain(flush=False)

    def drain(self, flush=True):
        """Sends what was written so far (flushing Python's and C's buffers first with `flush`),
        so that output comes before the event that follows it."""
        if flush:
            sys.stdout.flush()
            sys.stderr.flush()
            ctypes.CDLL(None).fflush(None)
        with self.lock:
            for fd, (category, decoder) in self.pipes.items():
                while True:
                    try:
                        chunk = os.read(fd, 65536)
                    except BlockingIOError:
                        break
                    text = decoder.decode(chunk)
                    if text:
                        self.send(category, text)
                    if not chunk:
                        break


class _Console(io.TextIOBase):
    """The session's own messages (a condition's error): console output events."""

    def __init__(self, adapter):
        self.adapter = adapter

    def write(self, text):
        self.adapter.event("output", {"category": "console", "output": text})
        return len(text)


class DapSession(debugger.Session):
    """The debugger's session with its stops handed to the adapter instead of a prompt, and
    breakpoints that also stop at a hit count (DAP's hitCondition)."""

    def __init__(self, adapter):
        super().__init__(interactive=False, out=_Console(adapter))
        self.adapter = adapter
        self.hit_tests = {}  # breakpoint number -> [test of the hit count, hits so far]

    def _stopped(self, reason, thread, loc, number, message, access="load", value=0):
        if self._step_goes_on(reason, message):  # `next 3` typed in the console
            return self.step_command
        self.frame = 0
        try:
            return self.adapter.stopped(reason, thread, number, message)
        except BaseException as error:  # nothing may unwind into the simulator
            self._say("simt: the debugger failed: %s: %s" % (type(error).__name__, error))
            return "kill"

    def _condition(self, number, thread):
        if number not in self.hit_tests:
            return super()._condition(number, thread)
        # Counted here at each crossing: never handed to the controller as a program.
        text, code = self.conditions.get(number, (None, None))
        try:
            holds = code is None or bool(eval(code, {}, self._namespace(thread, 0,
                                                                        code.co_names)))
        except Exception as error:  # a bad condition stops, as gdb does, and says why
            self._say("Error in condition of breakpoint %d (%s): %s" % (number, text, error))
            return True
        if holds:
            self.hit_tests[number][1] += 1
        return holds and self.hit_tests[number][0](self.hit_tests[number][1])


def _hit_test(text):
    """The test of a breakpoint's hit count that DAP's hitCondition `text` gives: "N" (the Nth
    hit, as debugpy), "== N", "!= N", "< N", "<= N", "> N", ">= N", "% N" (every Nth)."""
    match = re.fullmatch(r"\s*(==|!=|<=|>=|<|>|%)?\s*(\d+)\s*", text)
    if not match:
        raise DebugError('bad hit condition %r: expected N, "> N", "%% N" or the like' % text)
    test, count = _HIT_OPERATORS[match.group(1) or "=="], int(match.group(2))
    return lambda hits: test(hits, count)


class Adapter:
    """One client's debugging session: its requests, answered on the main thread before the
    program runs and at each stop, and on the reader thread while the program runs."""

    def __init__(self, transport, program, runner):
        self.transport = transport
        self.program = program  # [SCRIPT, ARGS...] of the command line, or []
        self.runner = runner  # run_script(path, args), run_module(name, args): the `simt` command's
        self.requests = queue.Queue()
        self.lock = threading.RLock()
        self.serving = True  # the main thread takes the requests (not while the program runs)
        self.resume = None  # what the request just answered resumes: "start", "continue", ...
        self.after_response = []  # what the request just answered does once answered
        self.launch_arguments = None
        self.configured = False
        self.stop_on_entry = False
        self.pausing = False  # a pause request waits for the threads' next statement
        self.applying = False  # breakpoints set while threads ran wait for their next statement
        self.pending = {}  # source path -> breakpoints set while the program ran
        self.numbers = {}  # source path -> the session's numbers of its breakpoints
        self.output = None
        self.exit_code = 0  # the script's, once it has ended; the adapter exits with it
        self.session = DapSession(self)
        self.views = StopViews(self.session)

    # -- messages ------------------------------------------------------------------------------
    def event(self, name, body=None):
        self.transport.send({"type": "event", "event": name, "body": body or {}})

    def send_output(self, category, text):
        self.event("output", {"category": category, "output": text})

    def _respond(self, request, body=None, error=None):
        response = {"type": "response", "request_seq": request.get("seq"),
                    "command": request.get("command"), "success": error is None}
        if error is None:
            response["body"] = body or {}
        else:
            response["message"] = error
            response["body"] = {"error": {"id": 1, "format": error, "showUser": True}}
        self.transport.send(response)

    def _answer(self, request, handlers, refusal):
        self.after_response = []
        handler = handlers.get(request.get("command"))
        if handler is None:
            self._respond(request, error=refusal % request.get("command"))
            return
        try:
            body = handler(self, request.get("arguments") or {})
        except DebugError as error:
            self._respond(request, error=str(error))
        except Exception as error:  # a request never ends the session
            self._respond(request, error="%s: %s" % (type(error).__name__, error))
        else:
            self._respond(request, body)
        for then in self.after_response:
            then()

    def _read_requests(self):
        while True:
            message = self.transport.read()
            if message is None:  # the client has gone
                self.end(self.exit_code)
            if message.get("type") != "request":
                continue
            with self.lock:
                if self.serving:
                    self.requests.put(message)
                else:
                    self._answer(message, RUNNING_HANDLERS,
                                 "The program is running: pause it before a %s request.")

    def serve(self, timeout=None):
        """Answers requests on this thread until one resumes the program (or none came for
        `timeout` seconds); returns how it resumes."""
        with self.lock:
            self.serving = True
        self.resume = None
        while self.resume is None:
            try:
                request = self.requests.get(timeout=timeout)
            except queue.Empty:
                return None
            self._answer(request, HANDLERS, "simt debug does not support the %s request.")
        with self.lock:
            self.serving = False
            while not self.requests.empty():  # came with the resume: answered as running
                self._answer(self.requests.get(), RUNNING_HANDLERS,
                             "The program is running: pause it before a %s request.")
        return self.resume

    def end(self, code):
        """Ends the adapter and the program (disconnect, terminate, the client gone)."""
        if self.output is not None:
            self.output.drain()
        os._exit(code)

    # -- the program ---------------------------------------------------------------------------
    def run(self):
        threading.Thread(target=self._read_requests, daemon=True).start()
        self.serve()  # until launch and configurationDone
        self.exit_code = self._run_program()
        self.output.drain()
        self.event("exited", {"exitCode": self.exit_code})
        self.event("terminated")
        self.serve(timeout=DISCONNECT_WAIT_S)
        self.end(self.exit_code)

    def _run_program(self):
        arguments = self.launch_arguments
        os.environ.update({name: str(value) for name, value in
                           (arguments.get("env") or {}).items() if value is not None})
        if arguments.get("cwd"):
            os.chdir(arguments["cwd"])
        self.stop_on_entry = bool(arguments.get("stopOnEntry"))
        self.session.native.break_on_launch = self.stop_on_entry or bool(self.pending)
        given = arguments.get("args")
        args = [str(a) for a in given] if given is not None else self.program[1:]
        try:
            if arguments.get("module"):
                self.runner.run_module(arguments["module"], args)
            else:
                self.runner.run_script(
                    os.path.abspath(arguments.get("program") or self.program[0]), args)
        except SystemExit as exit:
            return exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
        except BaseException:  # the script's own exception: on its stderr, as without DAP
            traceback.print_exc()
            return 1
        return 0

    def stopped(self, reason, thread, number, message):
        """A stop of the controller's: the client hears of it and asks until it resumes."""
        native = self.session.native
        native.break_on_launch = self.stop_on_entry
        self.views.reset()
        self._apply_pending()
        pausing, self.pausing = self.pausing, False
        applying, self.applying = self.applying, False
        if not pausing and (reason == "launch" and not self.stop_on_entry or
                            reason == "interrupt" and applying):
            return "continue"  # stopped only for breakpoints set while the program ran
        self.output.drain()
        body = {"reason": "pause" if pausing and reason == "launch" else STOP_REASONS[reason],
                "threadId": self.views.thread_id(thread), "allThreadsStopped": True}
        if reason == "fault":
            body.update(description="Exception: %s" % message, text=message.split(":")[0])
        elif reason == "breakpoint":
            body["hitBreakpointIds"] = [number]
        elif reason == "exited":
            body["description"] = "%s exited" % self.session._ids(thread)
        elif reason == "watch":
            body["description"] = "Watchpoint %d: %s" % (number, self.session.watches[number][0])
        elif message:
            body["description"] = message
        with self.lock:  # the requests that follow the event are the stop's
            self.serving = True
        self.event("stopped", body)
        resume = self.serve()
        self.views.reset()
        return resume

    # -- breakpoints ---------------------------------------------------------------------------
    def _apply_pending(self):
        with self.lock:
            pending, self.pending = self.pending, {}
        for path, requested in pending.items():
            self._set_breakpoints(path, requested)

    def _set_breakpoints(self, path, requested):
        """Replaces source `path`'s breakpoints by the client's `requested`; their descriptions."""
        session, native = self.session, self.session.native
        for number in self.numbers.pop(path, []):
            native.remove_breakpoint(number)
            session.conditions.pop(number, None)
            session.hit_tests.pop(number, None)
        file = session._kernel_file(path) or path
        numbers, described = [], []
        for wanted in requested:
            line = int(wanted["line"])
            number = native.add_breakpoint(file, line, False)
            try:
                if wanted.get("condition"):
                    session.execute("condition %d %s" % (number, wanted["condition"]))
                if wanted.get("hitCondition"):
                    session.hit_tests[number] = [_hit_test(wanted["hitCondition"]), 0]
                    native.configure_breakpoint(number, conditional=True)
            except DebugError as error:
                native.remove_breakpoint(number)
                session.conditions.pop(number, None)
                described.append({"verified": False, "line": line, "message": str(error)})
                continue
            numbers.append(number)
            moved = native.line_with_code(file, line) if native.running else 0
            described.append({"id": number, "verified": True, "line": moved or line,
                              "source": {"path": path}})
        self.numbers[path] = numbers
        return described

    # -- requests before the program runs and at stops -----------------------------------------
    def initialize(self, arguments):
        self.after_response.append(lambda: self.event("initialized"))
        return CAPABILITIES

    def launch(self, arguments):
        if not (arguments.get("program") or arguments.get("module") or self.program):
            raise DebugError("launch needs a program (or a module) to run")
        self.launch_arguments = arguments
        self.resume = "start" if self.configured else None
        return {}

    def attach(self, arguments):
        raise DebugError("simt debug cannot attach to a running process: it runs the program "
                         "itself (use a launch request)")

    def configuration_done(self, arguments):
        self.configured = True
        self.resume = "start" if self.launch_arguments is not None else None
        return {}

    def set_breakpoints(self, arguments):
        path = arguments["source"]["path"]
        return {"breakpoints": self._set_breakpoints(path, arguments.get("breakpoints") or [])}

    def set_exception_breakpoints(self, arguments):
        return {}  # faults always stop: there is nothing to choose

    def threads(self, arguments):
        return {"threads": self.views.threads()}

    def stack_trace(self, arguments):
        frames, total = self.views.stack(arguments["threadId"], arguments.get("startFrame") or 0,
                                         arguments.get("levels") or 0)
        return {"stackFrames": frames, "totalFrames": total}

    def scopes(self, arguments):
        return {"scopes": self.views.scopes(arguments["frameId"])}

    def variables(self, arguments):
        return {"variables": self.views.variables(arguments["variablesReference"],
                                                  arguments.get("start"),
                                                  arguments.get("count"))}

    def set_variable(self, arguments):
        entry = self.views.set_variable(arguments["variablesReference"], arguments["name"],
                                        arguments["value"])
        return {key: entry[key] for key in ("value", "type", "variablesReference")}

    def evaluate(self, arguments):
        """An expression as `print` evaluates it; in the console (context "repl") a debugger
        command too: a line after `-exec`, or one that is no expression of the stop."""
        expression = arguments.get("expression", "").strip()
        repl = arguments.get("context", "repl") == "repl"
        if repl and expression.startswith("-exec "):
            return self._console_command(expression[len("-exec "):], None)
        try:
            if arguments.get("frameId") is not None:
                self.views.select_frame(arguments["frameId"])
            value = self.session._evaluate(expression)
        except DebugError as error:
            if not repl:
                raise
            return self._console_command(expression, error)
        entry = self.views.variable(expression, value, expression)
        return {"result": values.show(value) if repl else entry["value"], "type": entry["type"],
                "variablesReference": entry["variablesReference"]}

    def _console_command(self, line, expression_error):
        """Runs debugger command `line` as typed at the prompt; what it printed is the result."""
        printed, self.session.out = self.session.out, io.StringIO()
        focus = self.session.native.focus if self.session.native.running else None
        try:
            resume = self.session.execute(line)
        except DebugError as error:
            if expression_error is not None and str(error).startswith("Undefined command"):
                raise expression_error from None
            raise
        finally:
            printed, self.session.out = self.session.out, printed
        native = self.session.native
        if resume:
            self.resume = resume
            self.after_response.append(lambda: self.event("continued", {
                "threadId": self.views.thread_id(native.focus), "allThreadsContinued": True}))
        elif focus is not None and native.focus != focus:  # `cuda thread ...`: the client follows
            self.after_response.append(lambda: self.event("stopped", {
                "reason": "focus", "threadId": self.views.thread_id(native.focus),
                "allThreadsStopped": True, "description": "Focus moved (cuda thread)"}))
        return {"result": printed.getvalue().rstrip("\n"), "variablesReference": 0}

    def _step(self, arguments, command):
        self.views.focus(arguments.get("threadId"))
        self.resume = self.session.execute(command)
        return {}

    def continue_(self, arguments):
        self.resume = self.session.execute("continue")
        return {"allThreadsContinued": True}

    def next(self, arguments):
        return self._step(arguments, "next")

    def step_in(self, arguments):
        return self._step(arguments, "step")

    def step_out(self, arguments):
        return self._step(arguments, "finish")

    def pause(self, arguments):
        return {}  # answered at a stop or before the run: already paused

    def disconnect(self, arguments):
        self.after_response.append(lambda: self.end(self.exit_code))
        return {}

    # -- requests while the program runs (on the reader thread) --------------------------------
    def pause_running(self, arguments):
        """As Ctrl-C: the threads stop at their next statement; between kernels, the next
        launch stops at its first."""
        self.pausing = True
        self.session.native.break_on_launch = True
        self.session.native.interrupt()
        return {}

    def threads_running(self, arguments):
        return {"threads": [HOST_THREAD]}  # the kernel's threads are not to be read now

    def set_breakpoints_running(self, arguments):
        """Set at the threads' next statement (or the next launch's first), where they stop
        for it and go on: the controller's breakpoints are not to be touched while they run."""
        path = arguments["source"]["path"]
        requested = arguments.get("breakpoints") or []
        self.pending[path] = requested
        self.applying = True
        self.session.native.break_on_launch = True
        self.session.native.interrupt()
        return {"breakpoints": [{"verified": True, "line": int(b["line"]), "source":
                                 {"path": path}} for b in requested]}


HANDLERS = {
    "initialize": Adapter.initialize, "launch": Adapter.launch, "attach": Adapter.attach,
    "configurationDone": Adapter.configuration_done, "setBreakpoints": Adapter.set_breakpoints,
    "setExceptionBreakpoints": Adapter.set_exception_breakpoints, "threads": Adapter.threads,
    "stackTrace": Adapter.stack_trace, "scopes": Adapter.scopes, "variables": Adapter.variables,
    "setVariable": Adapter.set_variable, "evaluate": Adapter.evaluate,
    "continue": Adapter.continue_, "next": Adapter.next, "stepIn": Adapter.step_in,
    "stepOut": Adapter.step_out, "pause": Adapter.pause, "disconnect": Adapter.disconnect,
    "terminate": Adapter.disconnect,
}
RUNNING_HANDLERS = {
    "pause": Adapter.pause_running, "setBreakpoints": Adapter.set_breakpoints_running,
    "setExceptionBreakpoints": Adapter.set_exception_breakpoints,
    "threads": Adapter.threads_running, "disconnect": Adapter.disconnect,
    "terminate": Adapter.disconnect,
}


def main(option, argv, runner):
    """`simt debug --dap [SCRIPT [ARGS...]]` or `--dap-port PORT ...`: serves one client; the
    launch request's program, when it names one, replaces SCRIPT. `runner` runs it: the `simt`
    command's run_script(path, args) and run_module(name, args) (simt.cli, a layer above)."""
    port = None
    if option == "--dap-port":
        if not argv or not argv[0].isdigit():
            print(USAGE, file=sys.stderr)
            return 2
        port = int(argv.pop(0))
    os.environ["SIMT_DEBUG"] = "1"
    debugging.set_debug_mode(True)
    transport = tcp_transport(port) if port is not None else stdio_transport()
    adapter = Adapter(transport, argv, runner)
    debugger.install(adapter.session)
    adapter.output = OutputCapture(adapter.send_output)
    adapter.run()
    return 0
