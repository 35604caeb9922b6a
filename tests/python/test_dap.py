"""`simt debug --dap` / `--dap-port`: the kernel debugger as a Debug Adapter Protocol server,
driven by a hand-written client over stdio and TCP. Every wait has a timeout: a test fails, never
hangs."""
import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading

import numpy as np
import pytest

from conftest import STAGE

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "debug_scripts")
TIMEOUT_S = 60  # a launch compiles its kernel in the debug variant: seconds here


def script(name):
    return os.path.join(SCRIPTS, name)


class DapClient:
    """Sends requests and takes the adapter's responses and events, each within TIMEOUT_S; keeps
    the exchange (`transcript`) for docs/debugger.md."""

    def __init__(self, reader, writer):
        self.writer = writer
        self.seq = 0
        self.arrived = queue.Queue()
        self.unclaimed = []  # messages read but not yet asked for
        self.transcript = []
        threading.Thread(target=self._read, args=(reader,), daemon=True).start()

    def _read(self, reader):
        while True:
            length = None
            while True:
                line = reader.readline()
                if not line:
                    self.arrived.put(None)
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                elif not line.strip() and length is not None:
                    break
            self.arrived.put(json.loads(reader.read(length)))

    def send(self, command, **arguments):
        self.seq += 1
        message = {"seq": self.seq, "type": "request", "command": command,
                   "arguments": arguments}
        self.transcript.append(("->", message))
        body = json.dumps(message).encode()
        self.writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.writer.flush()
        return self.seq

    def take(self, wanted, what):
        """The first message (read or to come) that `wanted` accepts."""
        for message in self.unclaimed:
            if wanted(message):
                self.unclaimed.remove(message)
                return message
        while True:
            try:
                message = self.arrived.get(timeout=TIMEOUT_S)
            except queue.Empty:
                pytest.fail("no %s within %d s; got %s" % (what, TIMEOUT_S, self.unclaimed))
            if message is None:
                pytest.fail("the adapter closed the connection before %s; got %s"
                            % (what, self.unclaimed))
            self.transcript.append(("<-", message))
            if wanted(message):
                return message
            self.unclaimed.append(message)

    def request(self, command, **arguments):
        """The response's body; the request must succeed."""
        response = self.response(command, **arguments)
        assert response["success"], response
        return response["body"]

    def response(self, command, **arguments):
        seq = self.send(command, **arguments)
        return self.take(lambda m: m["type"] == "response" and m["request_seq"] == seq,
                         "response to %s" % command)

    def event(self, name):
        return self.take(lambda m: m["type"] == "event" and m["event"] == name,
                         "%s event" % name)["body"]

    def output(self, category):
        """The text of the output events of `category` received so far."""
        return "".join(m["body"]["output"] for _, m in self.transcript
                       if m.get("event") == "output" and m["body"]["category"] == category)


def adapter_process(options, tmp_path):
    env = dict(os.environ, HOME=str(tmp_path), PYTHONPATH=STAGE)
    return subprocess.Popen([sys.executable, "-m", "simt", "debug"] + options, cwd=str(tmp_path),
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


@pytest.fixture
def stdio_adapter(tmp_path):
    process = adapter_process(["--dap"], tmp_path)
    yield DapClient(process.stdout, process.stdin), process
    process.kill()
    process.wait(timeout=TIMEOUT_S)


def start(client, name, breakpoints=(), **launch):
    """initialize, the breakpoints in debug_scripts/NAME, launch and configurationDone."""
    capabilities = client.request("initialize", adapterID="simt", clientID="test",
                                  linesStartAt1=True, columnsStartAt1=True)
    assert client.event("initialized") == {}
    described = []
    if breakpoints:
        described = client.request("setBreakpoints", source={"path": script(name)},
                                   breakpoints=list(breakpoints))["breakpoints"]
    client.request("launch", program=script(name), **launch)
    client.request("configurationDone")
    return capabilities, described


def finish(client, process, exit_code):
    """continue to the end: exited with `exit_code`, terminated, and the process ends."""
    assert client.event("exited") == {"exitCode": exit_code}
    assert client.event("terminated") == {}
    client.request("disconnect")
    assert process.wait(timeout=TIMEOUT_S) == exit_code


def variables(client, reference):
    return {v["name"]: v for v in client.request("variables",
                                                 variablesReference=reference)["variables"]}


SQUARES = "squares (out=int64[::1], k=int64)"


def test_a_conditional_breakpoint_session(stdio_adapter):
    client, process = stdio_adapter
    capabilities, described = start(client, "device_calls.py", [{"line": 22,
                                                                 "condition": "i == 5"}])
    for capability in ("supportsConditionalBreakpoints", "supportsHitConditionalBreakpoints",
                       "supportsEvaluateForHovers", "supportsConfigurationDoneRequest",
                       "supportsSetVariable"):
        assert capabilities[capability] is True
    assert described == [{"id": 1, "verified": True, "line": 22,
                          "source": {"path": script("device_calls.py")}}]
    stopped = client.event("stopped")
    assert stopped == {"reason": "breakpoint", "threadId": 6, "allThreadsStopped": True,
                       "hitBreakpointIds": [1]}
    threads = client.request("threads")["threads"]
    assert {"id": 6, "name": "block (0,0,0) warp 0 thread (5,0,0)"} in threads
    assert [t["id"] for t in threads] == list(range(1, 9))  # the warp's 8 lanes
    frames = client.request("stackTrace", threadId=6)["stackFrames"]
    assert [(f["name"], f["line"], f["source"]["path"]) for f in frames] == [
        (SQUARES, 22, script("device_calls.py"))]
    scopes = client.request("scopes", frameId=frames[0]["id"])["scopes"]
    assert [s["name"] for s in scopes] == ["Arguments", "Locals", "Shared memory"]
    arguments = variables(client, scopes[0]["variablesReference"])
    local = variables(client, scopes[1]["variablesReference"])
    assert (local["i"]["value"], local["i"]["type"]) == ("5", "int32")
    assert (local["t"]["value"], arguments["k"]["value"]) == ("7", "2")
    out = arguments["out"]
    assert (out["type"], out["indexedVariables"]) == ("array(int64, 1d, C)", 8)
    elements = variables(client, out["variablesReference"])
    assert [elements["[%d]" % i]["value"] for i in range(6)] == ["5", "11", "21", "35", "53", "0"]
    assert elements["[3]"]["evaluateName"] == "out[3]"
    assert variables(client, scopes[2]["variablesReference"]) == {}
    assert client.request("evaluate", expression="t * k", frameId=frames[0]["id"],
                          context="hover")["result"] == "14"
    assert client.request("evaluate", expression="p out[i - 1]",
                          context="repl")["result"] == "$1 = 53 (int64)"
    changed = client.request("setVariable", variablesReference=scopes[1]["variablesReference"],
                             name="t", value="10")
    assert changed["value"] == "10"

    client.request("stepIn", threadId=6)
    assert client.event("stopped")["reason"] == "step"
    frames = client.request("stackTrace", threadId=6)["stackFrames"]
    assert [(f["name"], f["line"]) for f in frames] == [
        ("sum_of_squares (a=int64, b=int32)", 14), (SQUARES, 22)]
    client.request("stepOut", threadId=6)
    assert client.event("stopped")["reason"] == "step"
    assert client.request("stackTrace", threadId=6)["stackFrames"][0]["line"] == 23
    client.request("next", threadId=6)  # from the kernel's last line: the thread returns
    assert client.event("stopped") == {"reason": "step", "threadId": 6, "allThreadsStopped": True,
                                       "description": "Thread (5,0,0) block (0,0,0) exited"}
    assert client.request("stackTrace", threadId=6)["stackFrames"] == []
    assert {"id": 6, "name": "block (0,0,0) warp 0 thread (5,0,0) [exited]"} in \
        client.request("threads")["threads"]

    client.request("continue", threadId=6)
    finish(client, process, 0)
    # t = 10 in thread 5: 10 * 10 + 5 * 5 + 1
    assert client.output("stdout") == "out = [5, 11, 21, 35, 53, 126, 101, 131]\n"


def test_a_fault_stops_post_mortem_with_reason_exception(stdio_adapter):
    client, process = stdio_adapter
    start(client, "reciprocal.py")
    stopped = client.event("stopped")
    assert stopped == {"reason": "exception", "threadId": 11, "allThreadsStopped": True,
                       "text": "IndexError", "description": "Exception: IndexError: index 10 is "
                       "out of bounds for axis 0 with size 10"}
    frames = client.request("stackTrace", threadId=11)["stackFrames"]
    assert [(f["name"], f["line"]) for f in frames] == [("reciprocal (x=float64[::1])", 11)]
    assert client.request("evaluate", expression="i", frameId=frames[0]["id"],
                          context="watch")["result"] == "10"
    assert "  (0,0,0)  (0,0,0)      (0,0,0)  (9,0,0)      10 -                    exited" in \
        client.request("evaluate", expression="info cuda threads", context="repl")["result"]
    client.request("continue")
    finish(client, process, 1)
    assert "IndexError: In function 'reciprocal'" in client.output("stderr")
    assert "x =" not in client.output("stdout")


def test_pause_stops_a_running_kernel_and_terminate_ends_it(stdio_adapter):
    client, process = stdio_adapter
    start(client, "spin.py")
    client.take(lambda m: m.get("event") == "output" and "launching" in m["body"]["output"],
                "the script's output")
    assert client.request("threads") == {"threads": [{"id": 0,
                                                      "name": "host (no kernel stopped)"}]}
    # The first pause may come before the launch (which then stops at its first line), the
    # second comes while the loop runs.
    for _ in range(2):
        client.request("pause", threadId=0)
        stopped = client.event("stopped")
        assert (stopped["reason"], stopped["threadId"]) == ("pause", 1)
        frames = client.request("stackTrace", threadId=1)["stackFrames"]
        assert frames[0]["name"] == "spin (out=int64[::1], n=int64)"
        assert 8 <= frames[0]["line"] <= 11
        client.request("continue")
    client.request("pause", threadId=1)
    client.event("stopped")
    assert 10 <= client.request("stackTrace", threadId=1)["stackFrames"][0]["line"] <= 11
    assert client.request("evaluate", expression="n", context="repl")["result"] == str(1 << 62)
    client.request("terminate")
    assert process.wait(timeout=TIMEOUT_S) == 0


def test_hit_conditions_and_bad_conditions(stdio_adapter):
    client, process = stdio_adapter
    _, described = start(client, "device_calls.py", [
        {"line": 21, "hitCondition": "3"}, {"line": 22, "condition": "i ==="},
        {"line": 23, "hitCondition": "every other"}])
    assert [b["verified"] for b in described] == [True, False, False]
    assert described[1]["message"].startswith("bad condition 'i ==='")
    assert described[2]["message"].startswith("bad hit condition 'every other'")
    stopped = client.event("stopped")
    assert (stopped["reason"], stopped["threadId"]) == ("breakpoint", 3)  # the third hit
    client.request("setBreakpoints", source={"path": script("device_calls.py")},
                   breakpoints=[{"line": 21, "hitCondition": "% 4"}])
    client.request("continue")
    # Hits count afresh from the new breakpoint: threads 3, 4, 5, then 6 stops.
    assert client.event("stopped")["threadId"] == 7
    client.request("continue")
    finish(client, process, 0)


def test_attach_is_refused_and_unknown_requests_fail(stdio_adapter):
    client, _ = stdio_adapter
    client.request("initialize", adapterID="simt")
    refused = client.response("attach", processId=1)
    assert not refused["success"] and "cannot attach" in refused["message"]
    assert not client.response("stepBack", threadId=1)["success"]


def test_over_tcp_with_stop_on_entry(tmp_path):
    process = adapter_process(["--dap-port", "0"], tmp_path)
    try:
        announced = process.stderr.readline().decode()
        port = int(re.search(r"127\.0\.0\.1:(\d+)", announced).group(1))
        connection = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT_S)
        client = DapClient(connection.makefile("rb"), connection.makefile("wb"))
        start(client, "device_calls.py", stopOnEntry=True)
        stopped = client.event("stopped")
        assert (stopped["reason"], stopped["threadId"]) == ("entry", 1)
        frames = client.request("stackTrace", threadId=1)["stackFrames"]
        assert (frames[0]["line"], frames[0]["source"]["name"]) == (20, "device_calls.py")
        assert client.request("evaluate", expression="k", frameId=frames[0]["id"],
                              context="hover")["result"] == "2"
        client.request("continue")
        finish(client, process, 0)
        assert client.output("stdout") == "out = [5, 11, 21, 35, 53, 75, 101, 131]\n"
    finally:
        process.kill()
        process.wait(timeout=TIMEOUT_S)


def test_breakpoints_set_while_a_kernel_runs_take_effect(stdio_adapter):
    client, process = stdio_adapter
    start(client, "spin.py")
    client.take(lambda m: m.get("event") == "output" and "launching" in m["body"]["output"],
                "the script's output")
    set_while_running = client.request("setBreakpoints", source={"path": script("spin.py")},
                                       breakpoints=[{"line": 11}])
    assert set_while_running["breakpoints"][0]["verified"]
    stopped = client.event("stopped")
    assert (stopped["reason"], stopped["threadId"]) == ("breakpoint", 1)
    assert client.request("stackTrace", threadId=1)["stackFrames"][0]["line"] == 11
    client.request("disconnect")
    assert process.wait(timeout=TIMEOUT_S) == 0


def test_a_module_with_arguments_and_a_console_focus_move(stdio_adapter):
    client, process = stdio_adapter
    client.request("initialize", adapterID="simt")
    client.event("initialized")
    client.request("launch", module="device_calls", cwd=SCRIPTS, args=["unused"],
                   env={"SIMT_UNUSED": "1"}, stopOnEntry=True)
    client.request("configurationDone")
    assert client.event("stopped")["reason"] == "entry"
    moved = client.request("evaluate", expression="cuda thread 3", context="repl")["result"]
    assert moved.startswith("[Switching focus to block (0,0,0) thread (3,0,0)]")
    assert client.event("stopped")["threadId"] == 4
    assert client.request("evaluate", expression="-exec next 2", context="repl")["result"] == ""
    assert client.event("continued")["threadId"] == 4
    assert client.event("stopped")["reason"] == "step"
    assert client.request("stackTrace", threadId=4)["stackFrames"][0]["line"] == 22
    client.request("continue")
    finish(client, process, 0)
    assert client.output("stdout") == "out = [5, 11, 21, 35, 53, 75, 101, 131]\n"


def test_disconnect_while_a_kernel_runs_ends_the_script(stdio_adapter):
    client, process = stdio_adapter
    start(client, "spin.py")
    client.take(lambda m: m.get("event") == "output" and "launching" in m["body"]["output"],
                "the script's output")
    client.request("disconnect")
    assert process.wait(timeout=TIMEOUT_S) == 0


def test_large_arrays_expand_by_index_ranges():
    from simt.tools.dap_views import StopViews

    class NoSession:
        native = None

    views = StopViews(NoSession())
    array = np.arange(25000, dtype=np.int32)
    top = views.variable("a", array, "a")
    assert (top["value"], top["indexedVariables"]) == ("array(int32, 1d, C) shape=(25000,)", 25000)
    ranges = views.variables(top["variablesReference"])
    assert [r["name"] for r in ranges] == ["[0:10000]", "[10000:20000]", "[20000:25000]"]
    middle = views.variables(ranges[1]["variablesReference"])
    assert (len(middle), middle[0]["name"], middle[-1]["name"]) == (100, "[10000:10100]",
                                                                   "[19900:20000]")
    elements = views.variables(middle[1]["variablesReference"])
    assert (elements[0]["name"], elements[0]["value"], elements[0]["evaluateName"]) == (
        "[10100]", "10100", "a[10100]")
    paged = views.variables(top["variablesReference"], start=7, count=2)  # a client's paging
    assert [v["name"] for v in paged] == ["[7]", "[8]"]
    rows = views.variables(views.variable("m", array[:6].reshape(2, 3), "m")["variablesReference"])
    assert (rows[1]["name"], rows[1]["value"], rows[1]["indexedVariables"]) == (
        "[1]", "array(int32, 1d, C) shape=(3,)", 3)
    views.reset()
    with pytest.raises(Exception, match="stale"):
        views.variables(top["variablesReference"])
