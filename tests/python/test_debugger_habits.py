"""`simt debug` keeps gdb's and cuda-gdb's habits: Enter repeats, list goes on, the value history,
print's /FMT, x, ptype and whatis, info frame/line/source/display, bare until, advance, finish's
value, globals in expressions, info cuda kernels, completion, set var's conversions, and clear
words for breakpoints pending in another kernel and blocks not resident. Driven in batch mode and
(Enter, Tab) on a real pseudo-terminal, as test_debugger.py drives the rest."""
import os

import pytest

from pty_terminal import PROMPT, Terminal
from test_debugger import answer, debug, script, where

FILL = "fill (a=float32[::1], points=Record[::1])"
AT_16 = ["break 16 if i == 2", "continue", "delete"]  # thread 2 in fill's loop, k == 0


def test_list_goes_on_goes_back_and_takes_a_range(tmp_path):
    proc = debug("habits.py", AT_16 + ["list", "list", "list -", "list 12,14", "list 34,",
                                       "list ,3", "list 99", "next", "list", "continue"],
                 tmp_path)
    out = proc.stdout

    def numbers(lines):
        return [int(row.split("\t")[0].strip("-> ")) for row in lines]
    assert numbers(answer(out, "list")) == list(range(11, 21))
    assert "->16\t        total += k" in answer(out, "list")
    assert numbers(answer(out, "list", 1)) == list(range(21, 31))  # the next ten
    assert numbers(answer(out, "list -")) == list(range(11, 21))  # the ten before the last
    assert answer(out, "list 12,14") == ["  12\tdef fill(a, points):", "  13\t    i = cuda.grid(1)",
                                         "  14\t    total = 0.0"]
    assert numbers(answer(out, "list 34,")) == [34, 35]  # to the end of the file
    assert numbers(answer(out, "list ,3")) == [1, 2, 3]
    assert answer(out, "list 99") == ['Line number 94 out of range; "habits.py" has 35 lines.']
    # A new stop lists around itself again.
    assert numbers(answer(out, "list", 2)) == list(range(10, 20))
    assert proc.returncode == 0, proc.stderr


def test_an_empty_line_of_a_command_file_does_nothing(tmp_path):
    # As in gdb: only Enter at the terminal repeats.
    proc = debug("habits.py", AT_16 + ["next", "", "info line", "continue"], tmp_path)
    assert answer(proc.stdout, "info line") == ['Line 15 of "habits.py" is in fill.']


def test_the_value_history(tmp_path):
    proc = debug("habits.py", AT_16 + [
        "p TILE * 2", "p i", "p $", "p $$", "p $$2 + $1", "p $1 * $$0", "p $9", "p $$7",
        "p a[0:2]", "continue", "p $5 + $4", "p $7", "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "p TILE * 2") == ["$1 = 8 (int64)"]
    assert answer(out, "p i") == ["$2 = 2 (int32)"]
    assert answer(out, "p $") == ["$3 = 2 (int32)"]
    assert answer(out, "p $$") == ["$4 = 2 (int32)"]  # the one before the last
    assert answer(out, "p $$2 + $1") == ["$5 = 10 (int64)"]  # $2 + $1
    assert answer(out, "p $1 * $$0") == ["$6 = 80 (int64)"]  # $$0 is $
    assert answer(out, "p $9") == ["History has not yet reached $9."]
    assert answer(out, "p $$7") == ["History does not go back to $$7."]
    assert answer(out, "p a[0:2]") == ["$7 = array(float32, 1d, C) shape=(2,)", "[3. 7.]"]
    # The launch has ended; its values have not (they were copied out of its memory).
    assert answer(out, "p $5 + $4") == ["$8 = 12 (int64)"]
    assert answer(out, "p $7") == ["$9 = array(float32, 1d, C) shape=(2,)", "[3. 7.]"]


def test_print_formats_show_bits_as_gdb_does(tmp_path):
    proc = debug("habits.py", AT_16 + [
        "p/x 1.5", "p/x np.float32(1.5)", "p/d np.float32(-1.5)", "p/t 5", "p/o 8", "p/u -1",
        "p/f 3", "p/x i", "p/x a[0:2]", "p/x points[1]", "p/z i", "p/2x i", "p/x 1j",
        "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "p/x 1.5") == ["$1 = 0x3ff8000000000000 (float64)"]
    assert answer(out, "p/x np.float32(1.5)") == ["$2 = 0x3fc00000 (float32)"]
    assert answer(out, "p/d np.float32(-1.5)") == ["$3 = -1077936128 (float32)"]
    assert answer(out, "p/t 5") == ["$4 = 101 (int64)"]
    assert answer(out, "p/o 8") == ["$5 = 010 (int64)"]
    assert answer(out, "p/u -1") == ["$6 = 18446744073709551615 (int64)"]
    assert answer(out, "p/f 3") == ["$7 = 3.0 (int64)"]
    assert answer(out, "p/x i") == ["$8 = 0x2 (int32)"]
    assert answer(out, "p/x a[0:2]") == ["$9 = array(float32, 1d, C) shape=(2,)",
                                         "[0x40400000 0x40e00000]"]
    assert answer(out, "p/x points[1]") == ["$10 = {x = 0x1, y = 0x0} (Record(x, y))"]
    assert answer(out, "p/z i") == ['Invalid format "/z": print takes /, one of x, d, u, o, t, f.']
    assert answer(out, "p/2x i") == ['Invalid format "/2x": print takes /, one of x, d, u, o, '
                                     't, f.']
    assert answer(out, "p/x 1j") == ["/format applies to numbers, not complex128"]


def test_x_shows_elements_from_an_address(tmp_path):
    proc = debug("habits.py", AT_16 + [
        "x/4f &a[0]", "x", "x/2x a", "x/3d &a[-2]", "x/4f a[0]", "x/4f &i", "x/4f &a[9]",
        "x/2 points", "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "x/4f &a[0]") == ["a[0]:\t3.0\t7.0\t0.0\t0.0"]
    assert answer(out, "x") == ["a[4]:\t0.0\t0.0\t0.0\t0.0"]  # x alone goes on
    assert answer(out, "x/2x a") == ["a[0]:\t0x40400000\t0x40e00000"]
    assert answer(out, "x/3d &a[-2]") == [
        "a[6]:\t0\t0", "Cannot access memory past the end of a (8 elements)."]
    assert answer(out, "x/4f a[0]") == [
        "x needs an array or an element's address: x/4f a, x/4f &a[8]"]
    assert answer(out, "x/4f &i") == ["& takes an array element, such as &a[8] or &sA[1, 2]"]
    assert answer(out, "x/4f &a[9]") == ["index 9 is out of bounds for a of shape (8,)"]
    assert answer(out, "x/2 points") == ["points[0]:\t{x = 0, y = 0.0}",
                                         "points[1]:\t{x = 1, y = 0.0}"]


def test_ptype_and_whatis_name_numba_types(tmp_path):
    proc = debug("habits.py", AT_16 + ["whatis a", "whatis i", "whatis total", "whatis a[1:3]",
                                       "ptype points", "whatis points[0]", "ptype i", "whatis",
                                       "continue"],
                 tmp_path)
    out = proc.stdout
    assert answer(out, "whatis a") == ["type = array(float32, 1d, C)"]
    assert answer(out, "whatis i") == ["type = int32"]
    assert answer(out, "whatis total") == ["type = float64"]
    assert answer(out, "whatis a[1:3]") == ["type = array(float32, 1d, C)"]
    assert answer(out, "ptype points") == [
        "type = array(Record, 1d, C)", "Record {", "    x: int32 (offset 0)",
        "    y: float64 (offset 4)", "} (12 bytes)"]
    assert answer(out, "whatis points[0]") == ["type = Record(x, y)"]
    assert answer(out, "ptype i") == ["type = int32"]
    assert answer(out, "whatis") == ["whatis needs an expression"]


def test_info_frame_line_source_and_display(tmp_path):
    proc = debug("device_calls.py", [
        "break device_calls.py:22 if i == 3", "continue", "step", "info frame", "up",
        "info frame", "info line", "info line 5", "info line square", "info source",
        "display/x i", "display t", "info display", "undisplay 9", "undisplay 1", "next",
        "info display", "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "info frame") == [
        "Stack level 0, frame of sum_of_squares at device_calls.py:14:",
        " called by frame at level 1 (squares)",
        " thread (3,0,0) block (0,0,0) of kernel squares",
        " args: a=5, b=3", " locals: s=0"]
    assert answer(out, "info frame", 1) == [
        "Stack level 1, frame of squares at device_calls.py:22:",
        " caller of frame at level 0 (sum_of_squares)",
        " thread (3,0,0) block (0,0,0) of kernel squares",
        " args: out=int64[::1], k=2", " locals: i=3, t=5"]
    assert answer(out, "info line") == ['Line 22 of "device_calls.py" is in squares.']
    assert answer(out, "info line 5") == [
        'Line 5 of "device_calls.py" has no code; the next line with code is 8 in square.']
    assert answer(out, "info line square") == ['Line 8 of "device_calls.py" is in square.']
    source = answer(out, "info source")
    assert source[0] == "Current source file is device_calls.py"
    assert source[1] == "Located in " + script("device_calls.py")
    assert source[2:] == ["Contains 28 lines.",
                          "Source language is python (Numba CUDA kernels, compiled by simt)."]
    assert answer(out, "display/x i") == ["1: /x i = 0x3"]
    assert answer(out, "info display") == ["Auto-display expressions now in effect:",
                                           "Num Enb Expression", "1:   y  /x i", "2:   y  t"]
    assert answer(out, "undisplay 9") == ["No display number 9."]
    # next runs frame 0 (sum_of_squares); the display is evaluated in the selected frame 0.
    assert answer(out, "next")[-1] == "2: t: No symbol t in current context."
    assert answer(out, "info display", 1) == ["Auto-display expressions now in effect:",
                                              "Num Enb Expression", "2:   y  t"]


def test_until_leaves_a_loop_and_advance_runs_to_a_line(tmp_path):
    proc = debug("habits.py", AT_16 + ["finish", "until", "p total", "advance 18", "p a[i]",
                                       "until", "advance x", "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "finish") == ['"finish" not meaningful in the outermost frame.']
    # From the loop's body, until runs the loop out (next would go back to line 15).
    assert answer(out, "until") == where(FILL, "habits.py:17", "    a[i] = total + i * TILE")
    assert answer(out, "p total") == ["$1 = 3.0 (float64)"]
    assert answer(out, "advance 18") == where(FILL, "habits.py:18", "    points[i].x = i")
    assert answer(out, "p a[i]") == ["$2 = 11.0 (float32)"]
    assert answer(out, "until", 1) == ["Thread (2,0,0) block (0,0,0) exited"]
    assert answer(out, "advance x") == ["advance takes a line number"]


def test_globals_and_closures_in_expressions_and_info_cuda_kernels(tmp_path):
    proc = debug("habits.py", [
        "info cuda kernels", "break 17 if i == TILE", "continue", "p i, TILE",
        "set var TILE = 3", "delete", "continue", "p R", "p a[i] + R", "info cuda kernels",
        "continue"], tmp_path)
    out = proc.stdout
    header = "  Kernel Parent Dev Grid Status SMs Mask   GridDim  BlockDim   Invocation"
    assert answer(out, "info cuda kernels") == [
        header, "*      0      -   0    1 Active 0x00000001 (1,1,1)  (8,1,1)    " +
        FILL.replace(" (", "(")]
    assert answer(out, "p i, TILE") == ["$1 = (4, 4) (Tuple(int32, int64))"]
    assert answer(out, "set var TILE = 3") == [
        "TILE is a global the kernel was compiled with: it cannot change."]
    assert answer(out, "p R") == ["$2 = 100 (int64)"]  # closed over by shift
    assert answer(out, "p a[i] + R") == ["$3 = 103.0 (float64)"]
    assert answer(out, "info cuda kernels", 1) == [
        header, "*      1      -   0    2 Active 0x00000001 (1,1,1)  (8,1,1)    "
        "shift(a=float32[::1])"]
    assert answer(out, "continue", 2)[-2:] == [
        "a = [103.0, 107.0, 111.0, 115.0, 119.0, 123.0, 127.0, 131.0]",
        "x = [0, 1, 2, 3, 4, 5, 6, 7]"]


def test_kernels_of_one_name_each_read_their_own_closure(tmp_path):
    proc = debug("closures.py", ["p R", "break 10 if R == 20", "continue", "p R",
                                 "continue", "continue"], tmp_path)
    assert answer(proc.stdout, "p R") == ["$1 = 1 (int64)"]
    assert answer(proc.stdout, "continue")[0] == "Kernel add launched: grid (1,1,1) block (4,1,1)"
    assert answer(proc.stdout, "p R", 1) == ["$2 = 20 (int64)"]
    assert answer(proc.stdout, "continue", 1)[0].startswith(
        "Thread (0,0,0) block (0,0,0) hit Breakpoint 1")
    assert answer(proc.stdout, "continue", 2)[-1] == "a = [21, 21, 21, 21]"


def test_set_var_converts_with_a_warning_and_refuses_what_does_not_fit(tmp_path):
    proc = debug("habits.py", AT_16 + [
        "set var i = 2.7", "p i", "set var i = 10**30", "set var total = 10**400",
        "set var total = 1e300", "p total", "set var total = 0", "continue"], tmp_path)
    out = proc.stdout
    assert answer(out, "set var i = 2.7") == ["warning: 2.7 truncated to int32 2"]
    assert answer(out, "p i") == ["$1 = 2 (int32)"]
    assert answer(out, "set var i = 10**30") == [
        "1000000000000000000000000000000 does not fit int32 (-2147483648 to 2147483647)"]
    assert answer(out, "set var total = 10**400") == [
        "100000000000... (401 digits) does not fit float64 (largest 1.7976931348623157e+308)"]
    assert answer(out, "p total") == ["$2 = 1e+300 (float64)"]
    assert proc.returncode == 0, proc.stderr


def test_pending_breakpoints_and_blocks_not_resident_say_where(tmp_path):
    proc = debug("habits.py", ["break 25", "break 33", "continue"], tmp_path)
    assert answer(proc.stdout, "break 25") == [
        "Breakpoint 1 at habits.py:25 (in shift, not in the running kernel fill: pending)"]
    assert answer(proc.stdout, "break 33") == [
        "Breakpoint 2 at habits.py:33 (no code at or after line 33 in kernel fill: pending)"]
    proc = debug("matmul.py", [
        "cuda block (1,0,0)", "break 24 if blockIdx.x == 1 and tx == 0 and ty == 0", "continue",
        "cuda block (0,0,0)", "cuda block (0,1,0)", "cuda block (2,0,0)", "kill"], tmp_path)
    out = proc.stdout
    assert answer(out, "cuda block (1,0,0)") == [
        "Block (1,0,0) is not resident yet: blocks run one after another, in order. To stop in "
        "it: break LINE if blockIdx.x == 1 and blockIdx.y == 0, then continue."]
    assert answer(out, "cuda block (0,0,0)") == [
        "Block (0,0,0) has finished: blocks run one after another, in order, and only the "
        "running block (1,0,0) is resident."]
    assert answer(out, "cuda block (0,1,0)")[0].startswith("Block (0,1,0) is not resident yet")
    assert answer(out, "cuda block (2,0,0)") == [
        "Invalid coordinates: block (2,0,0) is outside the grid (2,2,1)."]


# -- on a terminal ---------------------------------------------------------------------------------
@pytest.fixture
def term(tmp_path):
    opened = Terminal(["-m", "simt", "debug", script("habits.py")], tmp_path, tmp_path)
    yield opened
    opened.close()


def typed(term, keys):
    """What the keys (Tab and Enter among them) echo and print, up to the next prompt."""
    os.write(term.fd, keys)
    return term.read_until(PROMPT)[:-len(PROMPT)].splitlines()


def test_enter_repeats_next_step_and_list(term):
    term.read_until(PROMPT)
    assert term.command("next") == where(FILL, "habits.py:14", "    total = 0.0")
    assert typed(term, b"\r")[1:] == where(FILL, "habits.py:15", "    for k in range(3):")
    assert typed(term, b"\r")[1:] == where(FILL, "habits.py:16", "        total += k")
    assert term.command("list 1,3")[0].startswith("  1\t")
    assert [row.split("\t")[0] for row in typed(term, b"\r")[1:]] == [
        "  %d" % n for n in range(4, 14)]  # list goes on
    assert term.command("p i") == ["$1 = 0 (int32)"]
    assert typed(term, b"\r") == [""]  # print is not repeated
    assert term.command("step 2") == where(FILL, "habits.py:16", "        total += k")
    assert typed(term, b"\r")[1:] == where(FILL, "habits.py:16", "        total += k")
    assert term.command("p total") == ["$2 = 1.0 (float64)"]  # k = 0 and 1 added
    os.write(term.fd, b"quit\r")
    assert term.wait() == 0


def test_tab_completes_subcommands_files_functions_and_attributes(term):
    term.read_until(PROMPT)
    shown = typed(term, b"info cu\tth\t\r")
    assert shown[0].endswith("info cuda threads ")
    assert shown[1].startswith("  BlockIdx ThreadIdx")
    assert typed(term, b"break hab\t16\r") == ["break habits.py:16",
                                               "Breakpoint 1 at habits.py:16"]
    assert typed(term, b"tbreak fi\t\r")[-1] == "Temporary breakpoint 2 at habits.py:13"
    assert typed(term, b"p cuda.gri\t(1)\r")[-1] == "$1 = 0 (int64)"
    assert typed(term, b"p TI\t\r")[-1] == "$2 = 4 (int64)"
    assert typed(term, b"p a.sha\t[0]\r")[-1] == "$3 = 8 (int64)"
    os.write(term.fd, b"quit\r")
    assert term.wait() == 0
