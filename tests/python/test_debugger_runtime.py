"""The debugger meets the running kernel: breakpoint() in a kernel (with a terminal, without one,
and disabled by PYTHONBREAKPOINT=0), and Ctrl-C while threads run (back to the prompt with every
thread parked; at the prompt, a fresh prompt), driven through a real pseudo-terminal."""
import os
import re
import time

from conftest import run_python
from pty_terminal import PROMPT, Terminal

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "debug_runtime")


def terminal(args, tmp_path):
    return Terminal(args, tmp_path, HERE)


def finish(term):
    """Everything the script prints until it ends, and its exit status."""
    rest = term.rest()
    return rest, term.wait()


def test_breakpoint_in_a_kernel_stops_there_with_a_terminal(tmp_path):
    term = terminal([os.path.join(HERE, "breakpoint_kernel.py")], tmp_path)
    text = term.read_until(PROMPT)
    assert ("Thread (5,0,0) block (0,0,0) called breakpoint() (Breakpoint 1), "
            "k (x=float64[::1])") in text, text
    assert "breakpoint_kernel.py:9" in text, text
    term.send("p i")
    assert "$1 = 5 (int32)" in term.read_until(PROMPT)
    term.send("p x[:5]")
    assert "[0. 2. 4. 6. 8.]" in term.read_until(PROMPT)
    term.send("continue")
    rest, code = finish(term)
    assert code == 0, rest
    assert "result [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0] np,debug,O3" in rest, rest


def test_breakpoint_without_a_terminal_is_ignored_with_a_warning():
    result = run_python([os.path.join(HERE, "breakpoint_kernel.py")])
    assert result.returncode == 0, result.stderr
    assert "result [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]" in result.stdout
    warnings = [line for line in result.stderr.splitlines() if "breakpoint()" in line]
    assert warnings == ["simt: breakpoint() in kernel k at breakpoint_kernel.py:9 ignored: "
                        "stdin is not a terminal"], result.stderr


def test_pythonbreakpoint_0_compiles_the_release_variant():
    result = run_python([os.path.join(HERE, "breakpoint_kernel.py")],
                        env={"PYTHONBREAKPOINT": "0"})
    assert result.returncode == 0, result.stderr
    assert "np,release,O3" in result.stdout and "breakpoint()" not in result.stderr


def test_ctrl_c_returns_to_the_prompt_with_every_thread_parked(tmp_path):
    term = terminal(["-m", "simt", "debug", os.path.join(HERE, "endless_kernel.py")], tmp_path)
    assert "Kernel forever launched" in term.read_until(PROMPT)
    term.send("continue")
    time.sleep(0.5)  # the threads spin
    term.send(b"\x03")
    text = term.read_until(PROMPT)
    # Whichever thread reached a statement first (where Ctrl-C found the threads is timing).
    assert re.search(r"Interrupted: Thread \(\d,0,0\) block \(0,0,0\) at forever "
                     r"\(flag=float64\[::1\], out=float64\[::1\]\) at endless_kernel.py:(9|10)", text), text
    term.send("p n > 0")
    assert "$1 = True (bool)" in term.read_until(PROMPT)
    # At the prompt: a fresh prompt, the launch goes on. (Readline needs a moment after printing
    # the prompt before it takes Ctrl-C as a key; a signal sent sooner waits for the next one.)
    time.sleep(0.3)
    term.send(b"\x03")
    assert term.read_until(PROMPT).endswith("(simt) ")
    term.send("info cuda threads")
    text = term.read_until(PROMPT)
    assert "stopped" in text and "running" in text, text
    term.send("kill")
    text = term.read_until(PROMPT)
    assert "raised: simt: kernel forever killed in the debugger" in text, text
    assert "Kernel forever launched" in text  # the next launch, under the debugger too
    term.send("delete")
    term.read_until(PROMPT)
    term.send("set cuda break_on_launch off")
    term.read_until(PROMPT)
    term.send("continue")
    rest, code = finish(term)
    assert code == 0, rest
    assert "second launch [0.0, 0.0, 0.0, 0.0]" in rest, rest


def debug_batch(script, commands, tmp_path):
    path = tmp_path / "commands.txt"
    path.write_text("\n".join(commands) + "\n")
    return run_python(["-m", "simt", "debug", "-x", str(path), "--batch",
                       os.path.join(HERE, script)], cwd=HERE)


def test_watchpoints_on_shared_and_global_memory(tmp_path):
    result = debug_batch("watched_kernel.py", [
        "next", "next", "watch s[2]", "watch out[1]", "rwatch x[3]", "info watchpoints",
        "continue", "continue", "continue", "delete 3", "continue", "bt", "delete",
        "continue"], tmp_path)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "Hardware watchpoint 1: s[2]\n" in text and "Read watchpoint 3: x[3]\n" in text, text
    assert ("1    hw watchpoint   s[2]\n2    hw watchpoint   out[1]\n"
            "3    read watchpoint x[3]\n") in text, text
    # Thread 2 writes s[2] = x[2] * 2, after thread 3 read x[3]... in thread order: 0, 1, 2, 3.
    assert ("Thread (2,0,0) block (0,0,0) hit Hardware watchpoint 1: s[2]\n\n"
            "Old value = 0.0\nNew value = 4.0\n") in text, text
    assert "Thread (3,0,0) block (0,0,0) hit Read watchpoint 3: x[3]\n\nValue = 3.0\n" in text
    assert ("Thread (1,0,0) block (0,0,0) hit Hardware watchpoint 2: out[1]\n\n"
            "Old value = 0.0\nNew value = 4.0\n") in text, text
    assert text.rstrip().endswith("[6. 4. 2. 0.]"), text


def test_conditional_breakpoints_in_many_threads(tmp_path):
    # `i == 50000` the controller evaluates itself; `a[i] > 1.5` (an array element) the REPL.
    result = debug_batch("vector_add.py", [
        "break vector_add.py:9 if i == 50000", "continue", "p i", "info cuda blocks", "delete",
        "break vector_add.py:9 if a[i] > 1.5 and i % 2 == 1", "continue", "p i, a[i]",
        "info breakpoints", "delete", "continue"], tmp_path)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "Thread (80,0,0) block (195,0,0) hit Breakpoint 1" in text, text
    assert "$1 = 50000 (int32)" in text, text
    assert ("  (0,0,0)   (194,0,0)     195 done\n* (195,0,0) (195,0,0)       1 running (focus)\n"
            "  (196,0,0) (255,0,0)      60 not started\n") in text, text
    # a[i] is 2.0 from element 7 on; the threads before 50000 have run: the next odd one.
    assert "Thread (81,0,0) block (195,0,0) hit Breakpoint 2" in text, text
    assert "$2 = (50001, 2.0) (Tuple(int32, float32))" in text, text
    assert text.rstrip().endswith("sum 196601.0"), text
    assert "        stop only if a[i] > 1.5 and i % 2 == 1" in text, text


def test_warp_stepping_shows_divergence_and_crosses_a_shuffle(tmp_path):
    result = debug_batch("diverging_warp.py", [
        "next warp", "next warp", "next warp", "info cuda warps", "next warp",
        "set cuda step warp on", "next", "info cuda lanes", "next", "continue"], tmp_path)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "[warp 0: lanes 0-31 at line 8]" in text, text
    evens = ",".join(str(i) for i in range(0, 32, 2))
    odds = ",".join(str(i) for i in range(1, 32, 2))
    assert "[warp 0: lanes %s at line 10; lanes %s at line 12; diverged]" % (evens, odds) in text
    assert "*    0 0-31                             10, 12\n" in text, text
    assert "[warp 0: lanes 0-31 at line 13]" in text, text
    # Over the shuffle: every lane takes part and all reach the next line.
    assert "[warp 0: lanes 0-31 at line 14]" in text, text
    assert "*    0 (0,0,0)      stopped      14\n" in text, text
    assert "[warp 0: lanes 0-31 exited]" in text, text
    assert text.rstrip().endswith("[1001   20 1003   40] [1033  340 1035  360]"), text


def test_info_cuda_barriers_names_the_waiting_threads(tmp_path):
    result = debug_batch("watched_kernel.py", [
        "info cuda barriers", "break watched_kernel.py:10 if t == 2", "continue",
        "info cuda barriers", "delete", "continue"], tmp_path)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "No thread of the block waits at a barrier." in text, text
    assert "Thread (2,0,0) block (0,0,0) hit Breakpoint 1" in text, text
    assert "syncthreads at line 10: 2 of 4 threads wait (threads 0-1)" in text, text


def test_generated_kernels_and_grid_sync_under_the_debugger(tmp_path):
    # cuda.reduce's generated kernel lists its generated source; stepping a cooperative kernel
    # steps the focused block while the other resident block runs on to the grid barrier.
    result = debug_batch("generated_and_grid.py", [
        "list", "continue", "next", "info cuda blocks", "next", "next", "info cuda threads",
        "continue"], tmp_path)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "->2\t    sm = __cuda__.shared.array(__BLOCK__, dtype=__dtype__)" in text, text
    assert "sum 4950.0" in text, text
    assert ("* (0,0,0)   (0,0,0)         1 resident (focus)\n"
            "  (1,0,0)   (1,0,0)         1 resident\n") in text, text
    assert ("[the other threads of the block ran to the barrier at line 14, which released]\n"
            "grid_kernel (x=float64[::1], out=float64[::1]) at generated_and_grid.py:15") in text
    assert text.rstrip().endswith("grid [1. 2. 3.] 0.0"), text


def test_a_cuda_vectorize_ufunc_under_the_debugger(tmp_path):
    # The generated kernel lists its generated source; the user's function is a device function
    # with a breakpoint and a frame of its own.
    result = debug_batch("vectorized.py", [
        "list", "break hyp", "continue", "bt", "p a, b", "delete", "continue"], tmp_path)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "  4\t        __out__[__tid__] = __core__(a0[__tid__], a1[__tid__])" in text, text
    assert "Breakpoint 1 at vectorized.py:7" in text, text
    assert ("*#0  hyp (a=0.0, b=0.0) at vectorized.py:7\n"
            " #1  __vectorized_hyp (a0=float64[:], a1=float64[:], __out__=float64[:]) at "
            "<simt vectorize hyp #1>:4\n") in text, text
    assert "[0.         1.41421356 2.82842712 4.24264069]" in text, text


def test_tab_completes_commands_and_local_names(tmp_path):
    term = terminal(["-m", "simt", "debug", os.path.join(HERE, "watched_kernel.py")], tmp_path)
    assert "Kernel k launched" in term.read_until(PROMPT)
    term.send(b"bac\t\n")  # backtrace
    backtrace = term.read_until(PROMPT)
    assert "#0  k (x=float32[::1], out=float32[::1]) at watched_kernel.py:7" in backtrace
    term.send(b"p ou\t.shape\n")  # the kernel's argument `out`
    text = term.read_until(PROMPT)
    assert "$1 = (4,) (Tuple(int64))" in text, text
    term.send("continue")
    rest, code = finish(term)
    assert code == 0, rest
    assert "[6. 4. 2. 0.]" in rest, rest


def test_warp_steps_take_a_count(tmp_path):
    result = debug_batch("diverging_warp.py", [
        "next warp 3", "next warp 0", "set cuda step warp on", "next 2", "continue"], tmp_path)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    # From line 7: lines 8 and 9, then the lanes part at the `if`.
    evens = ",".join(str(i) for i in range(0, 32, 2))
    odds = ",".join(str(i) for i in range(1, 32, 2))
    assert ("(simt) next warp 3\n[warp 0: lanes %s at line 10; lanes %s at line 12; diverged]\n"
            % (evens, odds)) in text, text
    assert ('(simt) next warp 0\nInvalid count "0": next warp takes a positive number of '
            'steps.\n') in text, text
    # Lines 13 (the lanes meet again), then 14 past the shuffle.
    assert "(simt) next 2\n[warp 0: lanes 0-31 at line 14]\n" in text, text



def test_info_args_and_locals_of_a_kernel_without_any(tmp_path):
    result = debug_batch("no_locals.py", ["info args", "info locals", "continue"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert ("(simt) info args\nNo arguments.\n(simt) info locals\nNo locals.\n(simt) continue\n"
            "done\n") in result.stdout, result.stdout
