"""`simt debug`: the per-thread kernel debugger driven as a user drives it, in batch mode
(`-x FILE --batch`) and on a real pseudo-terminal. The kernels are the small scripts in
debug_scripts/, which also run correctly without the debugger."""
import os
import re
import time

import numpy as np
import pytest

from conftest import REPO, run_python
from pty_terminal import PROMPT, Terminal

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "debug_scripts")


def script(name):
    return os.path.join(SCRIPTS, name)


def debug(name, commands, tmp_path, batch=True):
    """Runs debug_scripts/NAME under `python3 -m simt debug -x FILE [--batch]`, FILE holding
    `commands`, in tmp_path (HOME too, so no history is read or written elsewhere)."""
    path = tmp_path / "commands.txt"
    path.write_text("\n".join(commands) + "\n")
    args = ["-m", "simt", "debug", "-x", str(path)] + (["--batch"] if batch else [])
    return run_python(args + [script(name)], env={"HOME": str(tmp_path)}, cwd=str(tmp_path))


def replies(stdout):
    """The transcript split at the prompts: [(command, the lines it printed)], the lines before
    the first prompt under the command None."""
    parts = stdout.split(PROMPT)
    result = [(None, parts[0].splitlines())]
    for part in parts[1:]:
        command, _, rest = part.partition("\n")
        result.append((command, rest.splitlines()))
    return result


def answer(stdout, command, nth=0):
    """The lines the nth `command` of the transcript printed."""
    found = [lines for given, lines in replies(stdout) if given == command]
    assert len(found) > nth, "no %r (#%d) in:\n%s" % (command, nth, stdout)
    return found[nth]


def where(function, line, source):
    """The two lines that say where a thread is: the frame and the source line."""
    return ["%s at %s" % (function, line), "%s\t%s" % (line.split(":")[1], source)]


RECIPROCAL = "reciprocal (x=float64[::1])"
SQUARES = "squares (out=int64[::1], k=int64)"
ROTATE = "rotate (x=float32[::1], out=float32[::1])"
SCALE = "scale (x=int32[::1], out=int32[::1], factor=int64)"
MATMUL = "matmul (A=float32[:, ::1], B=float32[:, ::1], C=float32[:, ::1])"


# -- the scripts themselves ------------------------------------------------------------------------
@pytest.mark.parametrize("name, expected", [
    ("device_calls.py", "out = [5, 11, 21, 35, 53, 75, 101, 131]\n"),
    ("rotate.py", "out = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 0.0]\n"),
    ("scale.py", "first = [0, 2, 4, 6, 8, 10]\nsecond = [0, 3, 6, 9, 12, 15]\n"),
    ("matmul.py", "matches numpy: True\nC[1, 2] = 203.0\n"),
    ("versions.py", "total = 6.75\n"),
    ("bf16_array.py", "doubled = [3.0, 6.0, 0.2001953125]\n"),
], ids=lambda value: value if value.endswith(".py") else "")
def test_scripts_run_without_the_debugger(name, expected):
    proc = run_python(["-m", "simt", "run", script(name)])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected


def test_reciprocal_faults_without_the_debugger():
    proc = run_python(["-m", "simt", "run", script("reciprocal.py")])
    assert proc.returncode == 1
    assert ("IndexError: In function 'reciprocal', file %s, line 11, tid=[10, 0, 0] "
            "ctaid=[0, 0, 0]: index 10 is out of bounds" % script("reciprocal.py")) in proc.stderr


def test_no_commands_and_no_terminal_runs_the_script_as_usual(tmp_path):
    proc = debug("scale.py", [], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith("first = [0, 2, 4, 6, 8, 10]\nsecond = [0, 3, 6, 9, 12, 15]\n")


# -- post-mortem -----------------------------------------------------------------------------------
def test_post_mortem_on_the_off_by_one(tmp_path):
    proc = debug("reciprocal.py", ["continue", "bt", "print i", "p x.shape[0]",
                                   "info cuda threads", "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, None) == [
        "Kernel reciprocal launched: grid (1,1,1) block (32,1,1)",
        "Focus on block (0,0,0) thread (0,0,0)"] + where(RECIPROCAL, "reciprocal.py:8",
                                                         "    i = cuda.grid(1)")
    assert answer(out, "continue") == [
        "Thread (10,0,0) block (0,0,0) faulted: IndexError: index 10 is out of bounds for axis 0 "
        "with size 10"] + where(RECIPROCAL, "reciprocal.py:11", "    x[i] = 1 / x[i]")
    assert answer(out, "bt") == ["*#0  reciprocal (x=float64[::1]) at reciprocal.py:11"]
    assert answer(out, "print i") == ["$1 = 10 (int32)"]
    assert answer(out, "p x.shape[0]") == ["$2 = 10 (int64)"]
    assert answer(out, "info cuda threads") == [
        "  BlockIdx ThreadIdx To BlockIdx ThreadIdx Count Location             State",
        "  (0,0,0)  (0,0,0)      (0,0,0)  (9,0,0)      10 -                    exited",
        "* (0,0,0)  (10,0,0)     (0,0,0)  (10,0,0)      1 reciprocal.py:11     stopped",
        "  (0,0,0)  (11,0,0)     (0,0,0)  (31,0,0)     21 -                    not started"]
    # The last continue: the launch raises in the script, which prints nothing more.
    assert answer(out, "continue", 1) == []
    assert proc.returncode == 1
    assert proc.stderr.rstrip().splitlines()[-4:-2] == [
        "IndexError: In function 'reciprocal', file %s, line 11, tid=[10, 0, 0] ctaid=[0, 0, 0]: "
        "index 10 is out of bounds for axis 0 with size 10" % script("reciprocal.py"),
        '  File "%s", line 11, in reciprocal' % script("reciprocal.py")]
    assert "x =" not in out


def test_conditional_breakpoint_stops_only_that_thread(tmp_path):
    proc = debug("reciprocal.py", ["break reciprocal.py:11 if i == 3", "continue", "print i",
                                   "p x[i]", "p threadIdx.x", "p cuda.grid(1)", "delete",
                                   "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "break reciprocal.py:11 if i == 3") == ["Breakpoint 1 at reciprocal.py:11"]
    assert answer(out, "continue") == [
        "Thread (3,0,0) block (0,0,0) hit Breakpoint 1, " + RECIPROCAL + " at reciprocal.py:11",
        "11\t    x[i] = 1 / x[i]"]
    assert answer(out, "print i") == ["$1 = 3 (int32)"]
    assert answer(out, "p x[i]") == ["$2 = 4.0 (float64)"]
    assert answer(out, "p threadIdx.x") == ["$3 = 3 (int32)"]
    assert answer(out, "p cuda.grid(1)") == ["$4 = 3 (int64)"]
    # No commands left: the fault no longer stops, it raises in the script.
    assert answer(out, "continue", 1) == []
    assert proc.returncode == 1
    assert "line 11, tid=[10, 0, 0]" in proc.stderr


# -- breakpoints -----------------------------------------------------------------------------------
def test_breakpoint_commands_and_hit_counts(tmp_path):
    proc = debug("device_calls.py", [
        "break 22", "tbreak 21 if i == 5", "ignore 1 2", "info breakpoints",
        "continue", "p i", "continue", "p i", "info breakpoints",
        "condition 1 i == 6", "continue", "p i", "info breakpoints",
        "condition 1", "disable 1", "info breakpoints", "enable 1",
        "continue", "p i", "delete 1", "info breakpoints", "continue"], tmp_path)
    out = proc.stdout
    header = "Num  Type         Enb  Where                 Hits"
    assert answer(out, "break 22") == ["Breakpoint 1 at device_calls.py:22"]
    assert answer(out, "tbreak 21 if i == 5") == ["Temporary breakpoint 2 at device_calls.py:21"]
    assert answer(out, "ignore 1 2") == ["Will ignore next 2 crossings of breakpoint 1."]
    assert answer(out, "info breakpoints") == [
        header,
        "1    breakpoint   y    device_calls.py:22    0",
        "        will ignore next 2 hits",
        "2    tbreakpoint  y    device_calls.py:21    0",
        "        stop only if i == 5"]
    # Threads 0 and 1 cross breakpoint 1 unseen; thread 2 stops, then thread 3.
    assert answer(out, "continue")[0].startswith("Thread (2,0,0) block (0,0,0) hit Breakpoint 1, ")
    assert answer(out, "p i") == ["$1 = 2 (int32)"]
    assert answer(out, "continue", 1)[0].startswith("Thread (3,0,0) block (0,0,0) hit Breakpoint 1")
    assert answer(out, "info breakpoints", 1) == [
        header,
        "1    breakpoint   y    device_calls.py:22    4",
        "2    tbreakpoint  y    device_calls.py:21    0",
        "        stop only if i == 5"]
    # The temporary breakpoint stops thread 5 once and is gone; breakpoint 1 waits for i == 6.
    assert answer(out, "continue", 2)[0].startswith(
        "Thread (5,0,0) block (0,0,0) hit Breakpoint 2, ")
    assert answer(out, "continue", 2)[1] == "21\t    t = i + k"
    assert answer(out, "p i", 2) == ["$3 = 5 (int32)"]
    assert answer(out, "info breakpoints", 2) == [
        header,
        "1    breakpoint   y    device_calls.py:22    4",
        "        stop only if i == 6"]
    assert answer(out, "condition 1") == ["Breakpoint 1 now unconditional."]
    assert answer(out, "info breakpoints", 3) == [
        header, "1    breakpoint   n    device_calls.py:22    4"]
    # Enabled again and unconditional: thread 5 itself stops next, at line 22.
    assert answer(out, "continue", 3)[0].startswith(
        "Thread (5,0,0) block (0,0,0) hit Breakpoint 1, ")
    assert answer(out, "p i", 3) == ["$4 = 5 (int32)"]
    assert answer(out, "delete 1") == []
    assert answer(out, "info breakpoints", 4) == ["No breakpoints."]
    assert answer(out, "continue", 4) == ["out = [5, 11, 21, 35, 53, 75, 101, 131]"]
    assert proc.returncode == 0, proc.stderr


def test_disabled_breakpoint_does_not_stop(tmp_path):
    proc = debug("device_calls.py", ["break 21", "break 23 if i == 6", "disable 1",
                                     "continue", "p i, t", "continue"], tmp_path)
    assert answer(proc.stdout, "continue")[0].startswith(
        "Thread (6,0,0) block (0,0,0) hit Breakpoint 2, ")
    assert answer(proc.stdout, "p i, t") == ["$1 = (6, 8) (Tuple(int32, int64))"]


def test_breakpoint_on_a_line_without_code_moves_down(tmp_path):
    proc = debug("scale.py", ["break scale.py:10", "continue", "p i", "continue", "delete",
                              "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "break scale.py:10") == [
        "Breakpoint 1 at scale.py:11 (line 10 has no code: moved to line 11)"]
    assert answer(out, "continue") == [
        "Thread (0,0,0) block (0,0,0) hit Breakpoint 1, " + SCALE + " at scale.py:11",
        "11\t    out[i] = x[i] * f"]
    assert answer(out, "continue", 1)[0].startswith("Thread (1,0,0) block (0,0,0) hit Breakpoint 1")


def test_breakpoint_on_a_function(tmp_path):
    proc = debug("device_calls.py", ["break square", "continue", "bt", "continue", "delete",
                                     "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "break square")[0].startswith("Breakpoint 1 at device_calls.py:8")
    assert answer(out, "continue") == [
        "Thread (0,0,0) block (0,0,0) hit Breakpoint 1, square (v=int64) at device_calls.py:8",
        "8\t    r = v * v"]
    assert answer(out, "bt") == [
        "*#0  square (v=2) at device_calls.py:8",
        " #1  sum_of_squares (a=2, b=0) at device_calls.py:14",
        " #2  squares (out=int64[::1], k=2) at device_calls.py:22"]
    # The second call of the same thread: square's int32 specialisation stops too.
    assert answer(out, "continue", 1)[0] == (
        "Thread (0,0,0) block (0,0,0) hit Breakpoint 1, square (v=int32) at device_calls.py:8")


# -- stepping through device functions ------------------------------------------------------------
def test_step_into_device_functions_frames_and_finish(tmp_path):
    proc = debug("device_calls.py", [
        "break device_calls.py:22 if i == 3", "continue", "step", "step", "bt", "step", "step",
        "bt", "info args", "up", "info args", "info locals", "p s", "frame 2", "p t",
        "info locals", "info args", "down", "down", "down", "frame", "finish", "finish",
        "p out[3]", "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "step", 0) == where("sum_of_squares (a=int64, b=int32)",
                                           "device_calls.py:14", "    s = square(a) + square(b)")
    assert answer(out, "step", 1) == where("square (v=int64)", "device_calls.py:8",
                                           "    r = v * v")
    assert answer(out, "bt", 0) == [
        "*#0  square (v=5) at device_calls.py:8",
        " #1  sum_of_squares (a=5, b=3) at device_calls.py:14",
        " #2  squares (out=int64[::1], k=2) at device_calls.py:22"]
    assert answer(out, "step", 2) == where("square (v=int64)", "device_calls.py:9", "    return r")
    # Out of the first call and into the second, square(b) with b an int32.
    assert answer(out, "step", 3) == where("square (v=int32)", "device_calls.py:8",
                                           "    r = v * v")
    assert answer(out, "bt", 1)[0] == "*#0  square (v=3) at device_calls.py:8"
    assert answer(out, "info args", 0) == ["v = 3"]
    assert answer(out, "up") == ["#1  " + where("sum_of_squares (a=int64, b=int32)",
                                                "device_calls.py:14",
                                                "    s = square(a) + square(b)")[0],
                                 "14\t    s = square(a) + square(b)"]
    assert answer(out, "info args", 1) == ["a = 5", "b = 3"]
    assert answer(out, "info locals", 0) == ["s = 0"]
    assert answer(out, "p s") == ["$1 = 0 (int64)"]
    assert answer(out, "frame 2") == ["#2  " + SQUARES + " at device_calls.py:22",
                                      "22\t    out[i] = sum_of_squares(t, i)"]
    assert answer(out, "p t") == ["$2 = 5 (int64)"]
    assert answer(out, "info locals", 1) == ["i = 3", "t = 5"]
    assert answer(out, "info args", 2)[0] == "out = array(int64, 1d, C) shape=(8,)"
    assert answer(out, "info args", 2)[-1] == "k = 2"
    assert answer(out, "down", 0)[0] == (
        "#1  sum_of_squares (a=int64, b=int32) at device_calls.py:14")
    assert answer(out, "down", 1)[0] == "#0  square (v=int32) at device_calls.py:8"
    assert answer(out, "down", 2) == ["No frame at level -1."]
    assert answer(out, "frame")[0] == "#0  square (v=int32) at device_calls.py:8"
    # finish says what it leaves and what the function returned, a value of the history.
    assert answer(out, "finish", 0) == [
        "Run till exit from #0  square (v=3) at device_calls.py:8"] + where(
            "sum_of_squares (a=int64, b=int32)", "device_calls.py:15", "    return s") + [
        "Value returned is $3 = 9 (int64)"]
    assert answer(out, "finish", 1) == [
        "Run till exit from #0  sum_of_squares (a=5, b=3) at device_calls.py:15"] + where(
            SQUARES, "device_calls.py:23", "    out[i] += 1") + [
        "Value returned is $4 = 34 (int64)"]
    # Back in the kernel after line 22's store, before line 23's increment.
    assert answer(out, "p out[3]") == ["$5 = 34 (int64)"]
    assert answer(out, "continue", 1) == ["out = [5, 11, 21, 35, 53, 75, 101, 131]"]


def test_next_steps_over_device_functions(tmp_path):
    proc = debug("device_calls.py", ["break 21 if i == 4", "continue", "next", "next", "p out[i]",
                                     "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "next", 0) == where(SQUARES, "device_calls.py:22",
                                           "    out[i] = sum_of_squares(t, i)")
    assert answer(out, "next", 1) == where(SQUARES, "device_calls.py:23", "    out[i] += 1")
    assert answer(out, "p out[i]") == ["$1 = 52 (int64)"]
    assert answer(out, "continue", 1) == ["out = [5, 11, 21, 35, 53, 75, 101, 131]"]
    assert proc.returncode == 0, proc.stderr


# -- barriers and shared memory --------------------------------------------------------------------
def test_next_across_a_barrier_and_shared_memory(tmp_path):
    proc = debug("rotate.py", ["break 11 if i == 2", "continue", "info cuda threads", "p s",
                               "next", "next", "p s", "p s[2]", "p s[1:3]", "p s[(i + 1) % 8]",
                               "info cuda threads", "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "info cuda threads") == [
        "  BlockIdx ThreadIdx To BlockIdx ThreadIdx Count Location             State",
        "  (0,0,0)  (0,0,0)      (0,0,0)  (1,0,0)       2 rotate.py:12         at barrier",
        "* (0,0,0)  (2,0,0)      (0,0,0)  (2,0,0)       1 rotate.py:11         stopped",
        "  (0,0,0)  (3,0,0)      (0,0,0)  (7,0,0)       5 -                    not started"]
    # Threads 0 and 1 wrote their doubled elements before the barrier; thread 2 has not yet.
    assert answer(out, "p s", 0) == ["$1 = array(float32, 1d, C) shape=(8,)",
                                     "[0. 2. 0. 0. 0. 0. 0. 0.]"]
    assert answer(out, "next", 0) == where(ROTATE, "rotate.py:12", "    cuda.syncthreads()")
    assert answer(out, "next", 1) == [
        "[the other threads of the block ran to the barrier at line 12, which released]"] + \
        where(ROTATE, "rotate.py:13", "    out[i] = s[(i + 1) % 8]")
    assert answer(out, "p s", 1) == ["$2 = array(float32, 1d, C) shape=(8,)",
                                     "[ 0.  2.  4.  6.  8. 10. 12. 14.]"]
    assert answer(out, "p s[2]") == ["$3 = 4.0 (float32)"]
    assert answer(out, "p s[1:3]") == ["$4 = array(float32, 1d, C) shape=(2,)", "[2. 4.]"]
    assert answer(out, "p s[(i + 1) % 8]") == ["$5 = 6.0 (float32)"]
    assert answer(out, "info cuda threads", 1)[2] == (
        "* (0,0,0)  (2,0,0)      (0,0,0)  (2,0,0)       1 rotate.py:13         stopped")
    assert answer(out, "continue", 1) == ["out = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 0.0]"]


# -- focus -----------------------------------------------------------------------------------------
def test_focus_switching(tmp_path):
    proc = debug("rotate.py", [
        "break 13 if i == 2", "continue", "cuda thread", "cuda thread (3,0,0)", "p i",
        "p threadIdx.x", "cuda block (0,0,0) thread (1,0,0)", "cuda thread (6,0,0)", "p i",
        "cuda thread 5", "cuda thread", "info cuda blocks", "next", "p out", "continue"],
        tmp_path)
    out = proc.stdout
    assert answer(out, "cuda thread", 0) == ["block (0,0,0) thread (2,0,0)"]
    assert answer(out, "cuda thread (3,0,0)") == [
        "[Switching focus to block (0,0,0) thread (3,0,0)]"] + \
        where(ROTATE, "rotate.py:12", "    cuda.syncthreads()")
    assert answer(out, "p i", 0) == ["$1 = 3 (int32)"]
    assert answer(out, "p threadIdx.x") == ["$2 = 3 (int32)"]
    assert answer(out, "cuda block (0,0,0) thread (1,0,0)") == [
        "[Switching focus to block (0,0,0) thread (1,0,0)]", "(thread exited)"]
    assert answer(out, "p i", 1) == ["$3 = 6 (int32)"]
    assert answer(out, "cuda thread 5")[0] == "[Switching focus to block (0,0,0) thread (5,0,0)]"
    assert answer(out, "cuda thread", 1) == ["block (0,0,0) thread (5,0,0)"]
    blocks = answer(out, "info cuda blocks")
    assert blocks[0].startswith("  BlockIdx")
    assert [row[:10] for row in blocks[1:] if "running" in row] == ["* (0,0,0) "]
    # `next` steps the thread in focus, thread 5, past the barrier it was released from.
    assert answer(out, "next") == where(ROTATE, "rotate.py:13", "    out[i] = s[(i + 1) % 8]")
    assert answer(out, "p out") == ["$4 = array(float32, 1d, C) shape=(8,)",
                                    "[2. 4. 0. 0. 0. 0. 0. 0.]"]
    assert answer(out, "continue", 1) == ["out = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 0.0]"]


# -- changing the kernel's state -------------------------------------------------------------------
def test_set_var_changes_what_the_script_prints(tmp_path):
    proc = debug("scale.py", ["break 11 if i == 4", "continue", "p f", "set var f = 10", "p f",
                              "set var x[5] = 100", "p x", "delete",
                              "set cuda break_on_launch off", "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "p f", 0) == ["$1 = 2 (int64)"]
    assert answer(out, "set var f = 10") == []
    assert answer(out, "p f", 1) == ["$2 = 10 (int64)"]
    assert answer(out, "p x") == ["$3 = array(int32, 1d, C) shape=(6,)",
                                  "[  0   1   2   3   4 100]"]
    # Thread 4 multiplies by 10, thread 5 reads the 100; the second launch runs without stops
    # (and sees the 100 still in x).
    assert answer(out, "continue", 1) == ["first = [0, 2, 4, 6, 40, 200]",
                                          "second = [0, 3, 6, 9, 12, 300]"]
    assert proc.returncode == 0, proc.stderr


def test_names_numba_types_as_several_variables(tmp_path):
    # versions.py: `step = step * 2` redefines a parameter; two loops bind v to an int64 and to a
    # float64. A name means the variable where the thread stands, as in the Python source.
    proc = debug("versions.py", ["print step", "break 12", "break 14", "continue", "print step",
                                 "info args", "info locals", "delete 1", "continue",
                                 "info locals", "print v", "set var v = 2.0", "bt", "delete",
                                 "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "print step", 0) == ["$1 = 1 (int64)"]  # before the redefinition
    assert answer(out, "print step", 1) == ["$2 = 2 (int64)"]
    assert answer(out, "info args") == ["out = array(float64, 1d, C) shape=(1,)", "[0.]",
                                        "step = 1"]
    assert answer(out, "info locals", 0) == ["step = 2", "total = 0.0", "v = 0"]
    assert answer(out, "info locals", 1) == ["step = 2", "total = 6.0", "v = 0.25"]
    assert answer(out, "print v") == ["$3 = 0.25 (float64)"]
    assert answer(out, "bt") == ["*#0  versions (out=float64[::1], step=1) at versions.py:14"]
    # 0 + 2 + 4, then 2.0 (set) + 0.5
    assert answer(out, "continue", 2) == ["total = 8.5"]
    assert proc.returncode == 0, proc.stderr


def test_second_launch_stops_at_its_start(tmp_path):
    proc = debug("scale.py", ["break 11 if i == 1", "continue", "delete", "continue",
                              "p factor", "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "continue", 1) == [
        "first = [0, 2, 4, 6, 8, 10]",
        "Kernel scale launched: grid (1,1,1) block (6,1,1)",
        "Focus on block (0,0,0) thread (0,0,0)"] + where(SCALE, "scale.py:8",
                                                         "    i = cuda.grid(1)")
    assert answer(out, "p factor") == ["$1 = 3 (int64)"]
    assert answer(out, "continue", 2) == ["second = [0, 3, 6, 9, 12, 15]"]


def test_kill_raises_in_the_script(tmp_path):
    proc = debug("scale.py", ["break 11", "continue", "kill"], tmp_path)
    assert answer(proc.stdout, "kill") == []
    assert proc.returncode == 1
    assert proc.stderr.rstrip().splitlines()[-1] == (
        "RuntimeError: simt: kernel scale killed in the debugger")
    assert "first =" not in proc.stdout


def test_quit_mid_launch_ends_the_script(tmp_path):
    proc = debug("scale.py", ["break 11", "continue", "quit"], tmp_path)
    assert answer(proc.stdout, "quit") == []
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "first =" not in proc.stdout


# -- inspection ------------------------------------------------------------------------------------
def test_display_list_print_hex_and_help(tmp_path):
    proc = debug("scale.py", [
        "break 11", "continue", "display i", "display f * 2", "display", "list", "list 4",
        "p/x 255", "print/x i + 10", "p/x x", "help break", "help", "continue", "undisplay 1",
        "continue", "undisplay", "continue", "delete", "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "display i") == ["1: i = 0"]
    assert answer(out, "display f * 2") == ["2: f * 2 = 4"]
    assert answer(out, "display") == ["1: i = 0", "2: f * 2 = 4"]
    assert answer(out, "list") == [
        "  6\t@cuda.jit",
        "  7\tdef scale(x, out, factor):",
        "  8\t    i = cuda.grid(1)",
        "  9\t    f = factor",
        "  10\t",
        "->11\t    out[i] = x[i] * f",
        "  12\t",
        "  13\t",
        "  14\tx = np.arange(6, dtype=np.int32)",
        "  15\tout = np.zeros(6, dtype=np.int32)"]
    assert answer(out, "list 4")[:3] == ["  1\t\"\"\"Two launches of one kernel; the debugger's "
                                         "`set var` changes what the first one computes.\"\"\"",
                                         "  2\timport numpy as np",
                                         "  3\tfrom numba import cuda"]
    assert answer(out, "p/x 255") == ["$1 = 0xff (int64)"]
    # NumPy's arithmetic: int32 + 10 is int64 before NumPy 2 (value-based casting), int32 after.
    assert answer(out, "print/x i + 10") == ["$2 = 0xa (int64)"]  # int32 + a literal, as in kernels
    assert answer(out, "p/x x")[0] == "$3 = array(int32, 1d, C) shape=(6,)"
    assert answer(out, "help break") == [
        "break FILE:LINE|LINE|FUNCTION [if COND]: stop each thread that reaches it (COND: a "
        "Python expression over its locals, arguments and threadIdx/blockIdx)"]
    listing = answer(out, "help")
    assert listing[0] == "Commands (unambiguous prefixes work; `help COMMAND` for more):"
    for name in ("break", "tbreak", "condition", "ignore", "delete", "disable", "enable",
                 "info breakpoints", "continue", "step", "next", "finish", "until", "kill", "quit",
                 "print", "display", "undisplay", "set var", "info locals", "info args",
                 "backtrace", "frame", "up", "down", "list", "cuda", "info cuda threads"):
        assert any(re.match(r"  %s +\S" % re.escape(name), row) for row in listing), name
    # Displays are shown at each stop until undisplayed.
    assert answer(out, "continue", 1)[-2:] == ["1: i = 1", "2: f * 2 = 4"]
    assert answer(out, "continue", 2)[-1] == "2: f * 2 = 4"
    assert answer(out, "continue", 3)[-1] == "11\t    out[i] = x[i] * f"
    assert answer(out, "continue", 4)[-1] == "second = [0, 3, 6, 9, 12, 15]"


def test_errors_are_one_line_and_debugging_goes_on(tmp_path):
    errors = {
        "frobnicate": 'Undefined command: "frobnicate".  Try "help".',
        "p 1 +": "bad expression '1 +': invalid syntax",
        "p nosuch": "No symbol nosuch in current context.",
        "p x[99]": "IndexError: index 99 is out of bounds for axis 0 with size 10",
        "print": "print needs an expression",
        "break other.py:3": "No source file named other.py in the kernels.",
        "break nosuchfunc": 'Function "nosuchfunc" not defined.',
        "break reciprocal.py:abc": "bad line number 'abc'",
        "break reciprocal.py:99": 'Line 99 out of range; "reciprocal.py" has 16 lines.',
        "break 11 if i ==": "bad condition 'i ==': invalid syntax",
        "next xyz": 'Invalid count "xyz": next takes a positive number of steps.',
        "info cuda contexts": 'Undefined command: "info cuda contexts".  Try "help".',
        "delete 7": "No breakpoint number 7.",
        "condition 9 i == 1": "No breakpoint number 9.",
        "ignore 1": "usage: ignore N COUNT",
        "until ten": "until takes a line number",
        "set var nosuch = 3": "No symbol nosuch in current context.",
        "set var i": "usage: set var NAME = VALUE",
        "set var x = 3": "only scalar locals can be assigned",
        "cuda thread (32,0,0)": "Invalid coordinates: thread (32,0,0) is outside the block "
                                "(32,1,1).",
        "cuda block (1,0,0)": "Invalid coordinates: block (1,0,0) is outside the grid (1,1,1).",
        "cuda thread (1,2,3,4)": "expected coordinates like (1,0,0), not '(1,2,3,4)'",
        "up": "No frame at level 1.",
        "help frob": 'Undefined command: "frob".  Try "help".',
    }
    proc = debug("reciprocal.py", ["next"] + list(errors) + ["p i", "cuda thread",
                                                             "continue", "continue"], tmp_path)
    out = proc.stdout
    for command, message in errors.items():
        assert answer(out, command) == [message], command
    # Still at thread 0's second line, focus unchanged; the launch goes on to its fault.
    assert answer(out, "p i") == ["$1 = 0 (int32)"]
    assert answer(out, "cuda thread") == ["block (0,0,0) thread (0,0,0)"]
    assert answer(out, "continue")[0].startswith("Thread (10,0,0) block (0,0,0) faulted")
    assert proc.returncode == 1
    assert "the debugger failed" not in out


def test_condition_that_raises_stops_and_says_why(tmp_path):
    proc = debug("scale.py", ["break 11 if nosuch > 1", "cont", "info b", "delete", "c"],
                 tmp_path)
    assert answer(proc.stdout, "cont") == [
        "Error in condition of breakpoint 1 (nosuch > 1): name 'nosuch' is not defined",
        "Thread (0,0,0) block (0,0,0) hit Breakpoint 1, " + SCALE + " at scale.py:11",
        "11\t    out[i] = x[i] * f"]
    assert answer(proc.stdout, "info b")[2] == "        stop only if nosuch > 1"
    assert proc.returncode == 0, proc.stderr


# -- a tiled matrix product ------------------------------------------------------------------------
def test_tiled_matmul_in_the_tile_loop(tmp_path):
    proc = debug("matmul.py", [
        "break matmul.py:22 if tx == 2 and ty == 1 and i == 1", "continue", "p i", "p tx, ty",
        "p sA[ty, tx]", "p sA[0, :]", "p sB[:, tx]", "p A.shape", "p A[y, tx + i * 16]",
        "p i * 2 + 1", "p acc", "p blockIdx.x, blockIdx.y", "info cuda threads", "next", "p acc",
        "delete", "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, None)[0] == "Kernel matmul launched: grid (2,2,1) block (16,16,1)"
    assert answer(out, "continue") == [
        "Thread (2,1,0) block (0,0,0) hit Breakpoint 1, " + MATMUL + " at matmul.py:22",
        "22\t            acc += sA[ty, j] * sB[j, tx]"]
    assert answer(out, "p i") == ["$1 = 1 (int64)"]
    assert answer(out, "p tx, ty") == ["$2 = (2, 1) (Tuple(int32, int32))"]
    # The second tile of A's rows 0..15 (A[r, c] = (32 r + c) % 7): sA[1, 2] = A[1, 18] = 1.
    assert answer(out, "p sA[ty, tx]") == ["$3 = 1.0 (float32)"]
    assert answer(out, "p sA[0, :]") == [
        "$4 = array(float32, 1d, C) shape=(16,)",
        "[2. 3. 4. 5. 6. 0. 1. 2. 3. 4. 5. 6. 0. 1. 2. 3.]"]
    assert answer(out, "p sB[:, tx]") == [
        "$5 = array(float32, 1d, A) shape=(16,)",
        "[4. 1. 3. 0. 2. 4. 1. 3. 0. 2. 4. 1. 3. 0. 2. 4.]"]
    assert answer(out, "p A.shape") == ["$6 = (32, 32) (Tuple(int64, int64))"]
    assert answer(out, "p A[y, tx + i * 16]") == ["$7 = 1.0 (float32)"]
    assert answer(out, "p i * 2 + 1") == ["$8 = 3 (int64)"]
    assert answer(out, "p acc") == ["$9 = 94.0 (float32)"]
    assert answer(out, "p blockIdx.x, blockIdx.y") == ["$10 = (0, 0) (Tuple(int32, int32))"]
    assert answer(out, "info cuda threads") == [
        "  BlockIdx ThreadIdx To BlockIdx ThreadIdx Count Location             State",
        "  (0,0,0)  (0,0,0)      (0,0,0)  (1,1,0)      18 matmul.py:23         at barrier",
        "* (0,0,0)  (2,1,0)      (0,0,0)  (2,1,0)       1 matmul.py:22         stopped",
        "  (0,0,0)  (3,1,0)      (0,0,0)  (15,15,0)   237 matmul.py:20         running"]
    assert answer(out, "next") == where(MATMUL, "matmul.py:21", "        for j in range(TPB):")
    # One more product of the row and column: acc += sA[1, 0] * sB[0, 2].
    assert answer(out, "p acc", 1) == ["$11 = 118.0 (float32)"]
    assert answer(out, "continue", 1) == ["matches numpy: True", "C[1, 2] = 203.0"]
    assert proc.returncode == 0, proc.stderr


# -- the tutorial's transcripts -------------------------------------------------------------------
DOC = os.path.join(REPO, "docs", "debugger.md")


def doc_transcripts():
    """(script, transcript) for each block of docs/debugger.md after `<!-- transcript: NAME -->`."""
    with open(DOC) as f:
        text = f.read()
    return re.findall(r"<!-- transcript: (\S+) -->\n```text\n(.*?)```", text, re.S)


def test_the_tutorial_has_transcripts():
    assert [name for name, _ in doc_transcripts()] == [
        "reciprocal.py", "rotate.py", "device_calls.py", "matmul.py", "habits.py",
        "breakpoint_calls.py"]


@pytest.mark.parametrize("name, transcript", doc_transcripts(),
                         ids=[name for name, _ in doc_transcripts()])
def test_tutorial_transcript_is_what_the_debugger_prints(name, transcript, tmp_path):
    commands = [line[len(PROMPT):] for line in transcript.splitlines() if line.startswith(PROMPT)]
    proc = debug(name, commands, tmp_path)
    assert proc.stdout == transcript


# -- on a terminal ---------------------------------------------------------------------------------
@pytest.fixture
def terminal(tmp_path):
    opened = []

    def start(args, env=None):
        opened.append(Terminal(args, tmp_path, tmp_path, env))
        return opened[-1]

    yield start
    for term in opened:
        term.close()


def test_interactive_session(terminal, tmp_path):
    term = terminal(["-m", "simt", "debug", script("scale.py")])
    assert term.read_until(PROMPT).splitlines()[:2] == [
        "Kernel scale launched: grid (1,1,1) block (6,1,1)",
        "Focus on block (0,0,0) thread (0,0,0)"]
    assert term.command("break 11 if i == 4") == ["Breakpoint 1 at scale.py:11"]
    assert term.command("continue")[0] == "Thread (4,0,0) block (0,0,0) hit Breakpoint 1, " + \
        SCALE + " at scale.py:11"
    assert term.command("p f") == ["$1 = 2 (int64)"]
    # Ctrl-C at the prompt: the half-typed line is dropped and a fresh prompt comes.
    os.write(term.fd, b"p nosuch")
    time.sleep(0.1)
    os.write(term.fd, b"\x03")
    assert term.read_until(PROMPT).endswith("\n" + PROMPT)
    assert term.command("p i") == ["$2 = 4 (int32)"]
    assert term.command("frobnicate") == ['Undefined command: "frobnicate".  Try "help".']
    assert term.command("set var f = 7") == []
    assert term.command("delete") == []
    # The first launch ends, the script prints, and the second launch stops at its start.
    printed = term.command("continue")
    assert printed[:2] == ["first = [0, 2, 4, 6, 28, 10]",
                           "Kernel scale launched: grid (1,1,1) block (6,1,1)"]
    assert term.command("p factor") == ["$3 = 3 (int64)"]
    os.write(term.fd, b"quit\r")
    assert term.wait() == 0
    assert "second =" not in term.rest()
    history = (tmp_path / ".simt_history").read_text().splitlines()
    assert history[-4:] == ["delete", "continue", "p factor", "quit"]
    assert "break 11 if i == 4" in history


def test_history_is_read_back(terminal, tmp_path):
    (tmp_path / ".simt_history").write_text("p 6 * 7\n")
    term = terminal(["-m", "simt", "debug", script("scale.py")])
    term.read_until(PROMPT)
    os.write(term.fd, b"\x10\r")  # Ctrl-P: the previous line of the history
    assert term.read_until(PROMPT).splitlines()[-3:] == ["p 6 * 7", "$1 = 42 (int64)", PROMPT]
    os.write(term.fd, b"\x04")  # Ctrl-D at the prompt: quit
    assert term.wait() == 0
    assert (tmp_path / ".simt_history").read_text().splitlines()[-1] == "p 6 * 7"


def test_commands_file_then_the_terminal(terminal, tmp_path):
    (tmp_path / "cmds").write_text("break 11 if i == 2\ncontinue\n")
    term = terminal(["-m", "simt", "debug", "-x", str(tmp_path / "cmds"), script("scale.py")])
    text = term.read_until("11\t    out[i] = x[i] * f\n" + PROMPT)
    assert "(simt) break 11 if i == 2\nBreakpoint 1 at scale.py:11\n" in text
    assert term.command("p i") == ["$1 = 2 (int32)"]
    assert term.command("set cuda break_on_launch off") == []
    os.write(term.fd, b"delete\r")
    term.read_until(PROMPT)
    os.write(term.fd, b"continue\r")
    assert term.rest().splitlines()[-2:] == ["first = [0, 2, 4, 6, 8, 10]",
                                              "second = [0, 3, 6, 9, 12, 15]"]
    assert term.wait() == 0


def test_simt_debug_environment_variable(terminal, tmp_path):
    # On a terminal: the launch stops at its start.
    term = terminal(["-m", "simt", "run", script("rotate.py")], env={"SIMT_DEBUG": "1"})
    assert term.read_until(PROMPT).splitlines()[0] == (
        "Kernel rotate launched: grid (1,1,1) block (8,1,1)")
    assert term.command("next") == where(ROTATE, "rotate.py:10", "    i = cuda.threadIdx.x")
    assert term.command("p cuda.blockDim.x") == ["$1 = 8 (int32)"]
    os.write(term.fd, b"continue\r")
    assert term.rest().splitlines()[-1] == "out = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 0.0]"
    assert term.wait() == 0
    # Without a terminal nothing can prompt: the script runs as usual.
    proc = run_python(["-m", "simt", "run", script("rotate.py")],
                      env={"SIMT_DEBUG": "1", "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "out = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 0.0]\n"


# -- fixed bugs: each was found by these tests -------------------------------------------------


def test_info_locals_of_a_thread_without_frames(tmp_path):
    proc = debug("reciprocal.py", ["cuda thread (1,0,0)", "info locals", "info args", "p 42",
                                   "continue"], tmp_path)
    assert len(answer(proc.stdout, "info locals")) == 1
    assert "the debugger failed" not in proc.stdout
    assert answer(proc.stdout, "p 42") == ["$1 = 42 (int64)"]


def test_print_before_a_shared_array_is_made(tmp_path):
    proc = debug("rotate.py", ["p 1", "p x[1]", "info locals", "continue"], tmp_path)
    assert answer(proc.stdout, "p 1") == ["$1 = 1 (int64)"]
    assert answer(proc.stdout, "p x[1]") == ["$2 = 1.0 (float32)"]
    assert "the debugger failed" not in proc.stdout


def test_moved_breakpoint_is_listed_where_it_stops(tmp_path):
    proc = debug("scale.py", ["break scale.py:10", "info breakpoints", "continue"], tmp_path)
    assert answer(proc.stdout, "info breakpoints")[1] == (
        "1    breakpoint   y    scale.py:11           0")


def test_until_takes_no_breakpoint_number(tmp_path):
    proc = debug("scale.py", ["until 11", "break 9", "continue"], tmp_path)
    assert "Breakpoint" not in answer(proc.stdout, "until 11")[0]
    assert answer(proc.stdout, "break 9") == ["Breakpoint 1 at scale.py:9"]


def test_list_goes_on_past_blank_lines(tmp_path):
    proc = debug("scale.py", ["list 4", "continue"], tmp_path)
    # gdb's: ten lines around line 4, from the file's first
    assert [row.split("\t")[0].strip("-> ") for row in answer(proc.stdout, "list 4")] == [
        str(n) for n in range(1, 11)]


def test_breakpoint_on_a_file_no_kernel_comes_from(tmp_path):
    proc = debug("scale.py", ["break /etc/passwd:1", "info breakpoints", "continue"], tmp_path)
    assert not answer(proc.stdout, "break /etc/passwd:1")[0].startswith("Breakpoint")
    assert answer(proc.stdout, "info breakpoints") == ["No breakpoints."]


def test_next_leaves_an_augmented_assignment_in_one_step(tmp_path):
    proc = debug("device_calls.py", ["break 23 if i == 3", "continue", "next", "continue"],
                 tmp_path)
    assert answer(proc.stdout, "next") == ["Thread (3,0,0) block (0,0,0) exited"]


def test_bfloat16_locals_print_as_values_and_assign_rounded(tmp_path):
    proc = debug("bf16_scale.py", ["break 12 if i == 2", "continue", "p h", "set var h = 3.01",
                                   "p h", "delete", "continue"], tmp_path)
    out = proc.stdout
    # 0.1 rounds to bfloat16's 0.10009765625; 3.01 to 3.015625 (8 significant bits)
    assert answer(out, "p h", 0) == ["$1 = 0.10009765625 (__nv_bfloat16)"]
    assert answer(out, "p h", 1) == ["$2 = 3.015625 (__nv_bfloat16)"]
    assert answer(out, "continue", 1) == ["squares = [2.25, 9.0, 9.125]"]  # 9.0945 rounded
    assert proc.returncode == 0, proc.stderr


def test_bfloat16_arrays_print_as_values_and_assign_rounded(tmp_path):
    # Without ml_dtypes the host holds bfloat16 arrays as their bits (uint16); the debugger shows
    # and stores values, as the kernel reads and writes them.
    proc = debug("bf16_array.py", ["break 11 if i == 0", "continue", "p h", "p h[2]", "p h[1:]",
                                   "set var h[1] = 2.01", "p h[1]", "delete", "continue"],
                 tmp_path)
    out = proc.stdout
    assert answer(out, "p h") == ["$1 = array(__nv_bfloat16, 1d, C) shape=(3,)",
                                  "[1.5        3.         0.10009766]"]
    assert answer(out, "p h[2]") == ["$2 = 0.10009765625 (__nv_bfloat16)"]
    assert answer(out, "p h[1:]") == ["$3 = array(__nv_bfloat16, 1d, C) shape=(2,)",
                                      "[3.         0.10009766]"]
    assert answer(out, "p h[1]") == ["$4 = 2.015625 (__nv_bfloat16)"]  # 2.01 rounded
    assert answer(out, "continue", 1) == ["doubled = [3.0, 4.03125, 0.2001953125]"]
    assert proc.returncode == 0, proc.stderr


# -- breakpoints and stepping as gdb has them (issue 28) ------------------------------------------
def test_a_new_condition_takes_effect_at_the_next_crossing(tmp_path):
    # `i == 2` is compiled for the controller at its first crossing (thread 0's); replacing it
    # drops that program, and removing it makes the breakpoint stop every thread.
    proc = debug("device_calls.py", ["break 22 if i == 2", "continue", "condition 1 i == 5",
                                     "info breakpoints", "continue", "p i", "condition 1",
                                     "continue", "p i", "delete", "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "continue", 0)[0].startswith("Thread (2,0,0) block (0,0,0) hit Breakpoint 1")
    assert answer(out, "info breakpoints")[2] == "        stop only if i == 5"
    assert answer(out, "continue", 1)[0].startswith("Thread (5,0,0) block (0,0,0) hit Breakpoint 1")
    assert answer(out, "p i", 0) == ["$1 = 5 (int32)"]
    assert answer(out, "condition 1") == ["Breakpoint 1 now unconditional."]
    assert answer(out, "continue", 2)[0].startswith("Thread (6,0,0) block (0,0,0) hit Breakpoint 1")
    assert answer(out, "continue", 3) == ["out = [5, 11, 21, 35, 53, 75, 101, 131]"]
    assert proc.returncode == 0, proc.stderr


def test_a_bad_condition_makes_no_breakpoint_and_keeps_the_old_one(tmp_path):
    proc = debug("scale.py", ["break 11 if i ==", "tbreak 11 if (i", "info breakpoints",
                              "break 11 if i == 3", "continue", "condition 1 i ==",
                              "info breakpoints", "continue", "delete", "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "break 11 if i ==") == ["bad condition 'i ==': invalid syntax"]
    assert answer(out, "tbreak 11 if (i")[0].startswith("bad condition '(i': ")
    assert answer(out, "info breakpoints", 0) == ["No breakpoints."]
    # No number was taken by the refused ones.
    assert answer(out, "break 11 if i == 3") == ["Breakpoint 1 at scale.py:11"]
    assert answer(out, "continue", 0)[0].startswith("Thread (3,0,0) block (0,0,0) hit Breakpoint 1")
    assert answer(out, "condition 1 i ==") == ["bad condition 'i ==': invalid syntax"]
    assert answer(out, "info breakpoints", 1)[2] == "        stop only if i == 3"
    # Still i == 3: no other thread of the first launch stops; the second launch stops at thread 3.
    assert answer(out, "continue", 1)[:2] == ["first = [0, 2, 4, 6, 8, 10]",
                                              "Kernel scale launched: grid (1,1,1) block (6,1,1)"]
    assert proc.returncode == 0, proc.stderr


def test_step_and_next_take_a_count(tmp_path):
    proc = debug("device_calls.py", [
        "next 2", "p i", "break 23", "next 5", "info breakpoints", "next 10", "next xyz",
        "step -1", "next 0", "cuda thread 3", "step 3", "bt", "next 2", "continue"], tmp_path)
    out = proc.stdout
    # Lines 20 and 21 run; thread 0 stands at line 22.
    assert answer(out, "next 2") == where(SQUARES, "device_calls.py:22",
                                          "    out[i] = sum_of_squares(t, i)")
    assert answer(out, "p i") == ["$1 = 0 (int32)"]
    # A breakpoint on the way ends the steps there, as a hit; the thread's end ends them too.
    assert answer(out, "next 5") == [
        "Thread (0,0,0) block (0,0,0) hit Breakpoint 1, " + SQUARES + " at device_calls.py:23",
        "23\t    out[i] += 1"]
    assert answer(out, "info breakpoints")[1].endswith(" 1")
    assert answer(out, "next 10") == ["Thread (0,0,0) block (0,0,0) exited"]
    assert answer(out, "next xyz") == [
        'Invalid count "xyz": next takes a positive number of steps.']
    assert answer(out, "step -1") == ['Invalid count "-1": step takes a positive number of steps.']
    assert answer(out, "next 0") == ['Invalid count "0": next takes a positive number of steps.']
    # Thread 3 has not started: from line 20 to 21, to 22, into sum_of_squares.
    assert answer(out, "step 3") == where("sum_of_squares (a=int64, b=int32)",
                                          "device_calls.py:14", "    s = square(a) + square(b)")
    assert answer(out, "bt")[0] == "*#0  sum_of_squares (a=5, b=3) at device_calls.py:14"
    assert answer(out, "next 2", 1) == [
        "Thread (3,0,0) block (0,0,0) hit Breakpoint 1, " + SQUARES + " at device_calls.py:23",
        "23\t    out[i] += 1"]
    assert proc.returncode == 0, proc.stderr


def test_break_takes_the_paths_ides_send(tmp_path):
    # The script runs by a relative name; breakpoints name it absolutely, relatively, through a
    # symlinked folder. A file of the same name elsewhere is another file.
    (tmp_path / "scale.py").write_text(open(script("scale.py")).read())
    os.symlink(str(tmp_path), str(tmp_path / "link"))
    commands = ["break %s:11 if i == 1" % (tmp_path / "scale.py"), "break ./scale.py:11 if i == 2",
                "break %s:11 if i == 3" % (tmp_path / "link" / "scale.py"),
                "break %s:11" % (tmp_path / "other" / "scale.py"), "break scale.py:10000",
                "break 20", "info breakpoints", "continue", "continue", "continue", "delete",
                "continue"]
    (tmp_path / "commands.txt").write_text("\n".join(commands) + "\n")
    proc = run_python(["-m", "simt", "debug", "-x", "commands.txt", "--batch", "scale.py"],
                      env={"HOME": str(tmp_path)}, cwd=str(tmp_path))
    out = proc.stdout
    for number, command in enumerate(commands[:3], 1):
        assert answer(out, command) == ["Breakpoint %d at scale.py:11" % number]
    assert answer(out, commands[3]) == [
        "No source file named %s in the kernels." % (tmp_path / "other" / "scale.py")]
    assert answer(out, "break scale.py:10000") == [
        'Line 10000 out of range; "scale.py" has 19 lines.']
    assert answer(out, "break 20") == ['Line 20 out of range; "scale.py" has 19 lines.']
    assert len(answer(out, "info breakpoints")) == 7  # the header, 3 breakpoints, 3 conditions
    for n in range(3):
        assert answer(out, "continue", n)[0].startswith(
            "Thread (%d,0,0) block (0,0,0) hit Breakpoint %d, " % (n + 1, n + 1))
    assert proc.returncode == 0, proc.stderr


def test_break_through_a_symlink_to_the_scripts_folder(tmp_path):
    os.symlink(SCRIPTS, str(tmp_path / "scripts"))
    proc = debug("scale.py", ["break %s:11 if i == 4" % (tmp_path / "scripts" / "scale.py"),
                              "continue", "delete", "continue"], tmp_path)
    assert answer(proc.stdout, "continue")[0].startswith(
        "Thread (4,0,0) block (0,0,0) hit Breakpoint 1, ")


def test_an_unknown_subcommand_names_itself(tmp_path):
    proc = debug("scale.py", ["info cuda contexts", "info", "i cuda", "set", "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "info cuda contexts") == [
        'Undefined command: "info cuda contexts".  Try "help".']
    assert answer(out, "info") == [
        '"info" must be followed by the name of a subcommand: args, breakpoints, cuda barriers, '
        'cuda blocks, cuda kernels, cuda lanes, cuda threads, cuda warps, display, frame, line, '
        'locals, source, watchpoints.']
    assert answer(out, "i cuda") == [
        '"i cuda" must be followed by the name of a subcommand: barriers, blocks, kernels, lanes, '
        'threads, warps.']
    assert answer(out, "set") == [
        '"set" must be followed by the name of a subcommand: cuda break_on_launch, '
        'cuda step warp, var.']


def test_breakpoint_commands_on_a_terminal(terminal, tmp_path):
    # The same commands typed at the prompt: a condition replaced after a hit, a bad condition,
    # counted steps, an absolute path to a script run by a relative name, a line past the end.
    (tmp_path / "device_calls.py").write_text(open(script("device_calls.py")).read())
    term = terminal(["-m", "simt", "debug", "device_calls.py"])
    term.read_until(PROMPT)
    assert term.command("next 2") == where(SQUARES, "device_calls.py:22",
                                           "    out[i] = sum_of_squares(t, i)")
    assert term.command("step 0") == ['Invalid count "0": step takes a positive number of steps.']
    assert term.command("next abc") == [
        'Invalid count "abc": next takes a positive number of steps.']
    assert term.command("break %s:22 if i ==" % (tmp_path / "device_calls.py")) == [
        "bad condition 'i ==': invalid syntax"]
    assert term.command("break %s:22 if i == 2" % (tmp_path / "device_calls.py")) == [
        "Breakpoint 1 at device_calls.py:22"]
    assert term.command("break device_calls.py:99") == [
        'Line 99 out of range; "device_calls.py" has 28 lines.']
    assert term.command("continue")[0].startswith("Thread (2,0,0) block (0,0,0) hit Breakpoint 1")
    assert term.command("condition 1 i == 6") == []
    assert term.command("condition 1 i ==") == ["bad condition 'i ==': invalid syntax"]
    assert term.command("continue")[0].startswith("Thread (6,0,0) block (0,0,0) hit Breakpoint 1")
    assert term.command("next 3") == ["Thread (6,0,0) block (0,0,0) exited"]
    assert term.command("info cuda contexts") == [
        'Undefined command: "info cuda contexts".  Try "help".']
    assert term.command("delete") == []
    os.write(term.fd, b"continue\r")
    assert term.rest().splitlines()[-1] == "out = [5, 11, 21, 35, 53, 75, 101, 131]"
    assert term.wait() == 0


# After the first stop at a breakpoint() call of breakpoint_calls.py.
BREAKPOINT_CALLS = ["info breakpoints", "continue", "disable 1", "continue", "info breakpoints",
                    "enable 1", "delete 2", "continue", "info breakpoints", "continue"]


def check_breakpoint_calls(first_stop, replies):
    """The first stop and the replies to BREAKPOINT_CALLS: each breakpoint() call is a numbered
    breakpoint, made at its first call, listed with its hits, disabled, enabled and deleted like
    the others."""
    header = "Num  Type         Enb  Where                 Hits"
    call = ("Thread (%d,0,0) block (0,0,0) called breakpoint() (Breakpoint %d), "
            "k (x=float64[::1]) at breakpoint_calls.py:%d")
    assert first_stop == call % (1, 1, 11)
    assert replies[0] == [header, "1    breakpoint() y    breakpoint_calls.py:11 1"]
    assert replies[1][0] == call % (3, 1, 11)
    # Disabled, breakpoint 1 lets thread 5 by: thread 6 stops at the second call.
    assert replies[3][0] == call % (6, 2, 14)
    assert replies[4] == [header, "1    breakpoint() n    breakpoint_calls.py:11 2",
                          "2    breakpoint() y    breakpoint_calls.py:14 1"]
    assert replies[7][0] == call % (7, 1, 11)
    # Deleted, the second call no longer stops thread 7.
    assert replies[8] == [header, "1    breakpoint() y    breakpoint_calls.py:11 3"]
    assert replies[9][-1] == "result [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]"


def test_breakpoint_calls_are_numbered_breakpoints(tmp_path):
    commands = ["info breakpoints", "continue"] + BREAKPOINT_CALLS
    out = debug("breakpoint_calls.py", commands, tmp_path).stdout
    # Listed from its first call on.
    assert answer(out, "info breakpoints") == ["No breakpoints."]
    after_first_stop = [lines for _, lines in replies(out)[3:]]
    check_breakpoint_calls(answer(out, "continue")[0], after_first_stop)


def test_breakpoint_calls_on_a_terminal(terminal):
    # Without `simt debug`: the first breakpoint() call opens the debugger, and the commands act
    # on the calls' breakpoints as in batch mode.
    term = terminal([script("breakpoint_calls.py")])
    first_stop = term.read_until(PROMPT).splitlines()[0]
    replies = [term.command(command) for command in BREAKPOINT_CALLS[:-1]]
    os.write(term.fd, b"continue\r")
    rest = term.rest()
    assert term.wait() == 0, rest
    check_breakpoint_calls(first_stop, replies + [rest.splitlines()])

