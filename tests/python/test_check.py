"""`simt check`: the corpus in tests/check (each kernel's report asserted in full), the options
(--tool, --schedule, --seed, --report, --suppress, --error-exitcode), SIMT_CHECK, the pytest
plugin, and zero findings on the examples (the seed talks' kernels)."""
import glob
import json
import os

import numpy as np
import pytest

from conftest import REPO, STAGE, on_small_thread_stack

CORPUS = os.path.join(REPO, "tests", "check")
EXAMPLES = os.path.join(REPO, "examples")
CASES = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(CORPUS, "*.py")))


def simt_check(python, *args, cwd=CORPUS, env=None):
    return python(["-m", "simt", "check"] + list(args), cwd=cwd, env=env)


@pytest.mark.parametrize("case", CASES)
def test_corpus_report(python, case):
    """Each corpus kernel reports exactly its expected hazards, with their source lines, and the
    exit status says whether an error was found."""
    result = simt_check(python, "--error-exitcode", "3", case + ".py")
    with open(os.path.join(CORPUS, case + ".expected")) as f:
        expected = f.read()
    assert result.stderr + "exit status %d\n" % result.returncode == expected


def tool_lines(report, tool):
    """The lines of `report` that `tool` (its name in capitals) printed: its findings, each with
    the indented lines under it, and its summary."""
    lines, mine = [], False
    for line in report.splitlines():
        if not line.startswith(" "):
            mine = line.startswith(tool + " ")
        if mine:
            lines.append(line)
    return lines


@pytest.mark.parametrize("tool", ["init", "sync", "mem"])
@pytest.mark.parametrize("case", CASES)
def test_corpus_report_of_one_tool(python, case, tool):
    """A checker alone reports what it reports among all four: without racecheck, the kernels
    report only the accesses of the pages initcheck and memcheck watch (sim/watched_pages.h), and
    barrier-free kernels run as loops over their threads."""
    result = simt_check(python, "--tool", tool, case + ".py")
    with open(os.path.join(CORPUS, case + ".expected")) as f:
        expected = f.read()
    name = tool.upper() + "CHECK"
    assert tool_lines(result.stderr, name) == tool_lines(expected, name)


def test_every_corpus_kernel_has_its_report():
    reports = sorted(os.path.basename(p)[:-9] for p in glob.glob(os.path.join(CORPUS, "*.expected")))
    assert reports == CASES


EXAMPLE_FINDINGS = {
    # The off-by-one example reads and writes one past the end on purpose.
    "off_by_one": ["MEMCHECK ERROR: out-of-bounds access"] * 2,
}


@pytest.mark.parametrize("example", sorted(os.path.basename(p)[:-3] for p in
                                           glob.glob(os.path.join(EXAMPLES, "*.py"))))
def test_examples_have_no_findings(python, example):
    """Every example runs checked, unchanged, with no finding of any severity (zero false
    positives on the seed talks' kernels)."""
    result = simt_check(python, example + ".py", cwd=EXAMPLES)
    headlines = [line for line in result.stderr.splitlines()
                 if line.split(" ")[0] in ("RACECHECK", "INITCHECK", "SYNCCHECK", "MEMCHECK")
                 and " SUMMARY: " not in line]
    expected = EXAMPLE_FINDINGS.get(example, [])
    assert len(headlines) == len(expected), result.stderr
    assert all(line.startswith(start) for line, start in zip(headlines, expected))
    assert result.returncode == (1 if expected else 0), result.stderr


def test_tool_selection(python):
    only_init = simt_check(python, "--tool", "initcheck", "reduction_missing_sync.py")
    assert only_init.returncode == 0
    assert only_init.stderr == "INITCHECK SUMMARY: 0 findings (0 errors, 0 warnings)\n"
    race = simt_check(python, "--tool=race", "--error-exitcode=0", "reduction_missing_sync.py")
    assert race.returncode == 0 and "RACECHECK ERROR" in race.stderr
    assert "INITCHECK" not in race.stderr


def test_random_schedule_prints_and_reproduces_its_seed(python):
    first = simt_check(python, "--schedule", "random", "--seed", "7", "reduction_missing_sync.py")
    again = simt_check(python, "--schedule", "random", "--seed", "7", "reduction_missing_sync.py")
    other = simt_check(python, "--schedule", "random", "--seed", "8", "reduction_missing_sync.py")
    assert first.stderr == again.stderr
    assert "(schedule random, seed 7)" in first.stderr
    assert first.stderr.endswith("schedule: random, seed 7\n")
    assert first.stderr != other.stderr
    # Out of order, later threads write partial sums before earlier ones read them.
    assert "read-after-write hazard" in first.stderr


def test_reverse_schedule_finds_the_other_order(python):
    result = simt_check(python, "--schedule", "reverse", "reduction_missing_sync.py")
    assert "RACECHECK ERROR: read-after-write hazard on shared array `buf`" in result.stderr
    assert result.stderr.endswith("schedule: reverse\n")


def test_random_schedule_changes_results_of_racy_kernels(python, tmp_path):
    script = tmp_path / "order.py"
    script.write_text(
        "import numpy as np\nfrom numba import cuda\n\n@cuda.jit\ndef last(out):\n"
        "    out[0] = cuda.threadIdx.x + 100 * cuda.blockIdx.x\n\n"
        "out = np.zeros(1, dtype=np.int64)\nlast[4, 32](out)\nprint(out[0])\n")
    outputs = {simt_check(python, "--tool", "mem", "--schedule", "random", "--seed", str(seed),
                          str(script)).stdout for seed in range(4)}
    assert len(outputs) > 1
    reverse = simt_check(python, "--tool", "mem", "--schedule", "reverse", str(script))
    assert reverse.stdout == "0\n"


def test_json_report(python, tmp_path):
    path = tmp_path / "report.json"
    result = simt_check(python, "--report", str(path), "uninitialised_device_array.py")
    assert result.returncode == 1
    report = json.loads(path.read_text())
    assert report["tools"] == ["racecheck", "initcheck", "synccheck", "memcheck"]
    assert report["errors"] == 1 and report["launches"] == 1
    (finding,) = report["findings"]
    assert finding["tool"] == "initcheck" and finding["severity"] == "error"
    assert finding["kind"] == "uninitialised read"
    assert finding["subject"] == "of global array `b` (b[8]) in block (0,0,0)"
    assert finding["count"] == 8 and finding["suppressed"] is False
    (access,) = finding["accesses"]
    assert access["action"] == "read" and access["thread"] == [8, 0, 0]
    assert access["file"].endswith("uninitialised_device_array.py") and access["line"] == 10


def test_suppressions(python, tmp_path):
    suppress = tmp_path / "suppress.txt"
    suppress.write_text("# known\nracecheck reduction_missing_sync.py:17\n")
    result = simt_check(python, "--suppress", str(suppress), "reduction_missing_sync.py")
    assert result.returncode == 0
    assert "RACECHECK SUMMARY: 0 hazards (0 errors, 0 warnings, 2 suppressed)" in result.stderr
    assert "RACECHECK ERROR" not in result.stderr
    other_tool = tmp_path / "other.txt"
    other_tool.write_text("initcheck reduction_missing_sync.py:17\n")
    assert simt_check(python, "--suppress", str(other_tool),
                      "reduction_missing_sync.py").returncode == 1
    bad = tmp_path / "bad.txt"
    bad.write_text("nonsense\n")
    refused = simt_check(python, "--suppress", str(bad), "reduction_missing_sync.py")
    assert refused.returncode == 2 and "a suppression is [tool] file:line" in refused.stderr


@pytest.mark.parametrize("kernel, launch, exception", [
    ("a[cuda.grid(1)] = 1", "fill[1, 9](np.zeros(8))", "IndexError"),
    ("a[cuda.threadIdx.x] = cuda.shfl_sync(0xffffffff, 1, 0) if cuda.threadIdx.x < 16 else 0",
     "fill[1, 32](np.zeros(32))", "RuntimeError"),
])
def test_error_exitcode_when_the_bug_raises(python, tmp_path, kernel, launch, exception):
    """A checked bug that also makes the launch raise (out of bounds, a bad warp mask) and kills
    the script: the exit status is --error-exitcode's, after the traceback and the summary."""
    script = tmp_path / "raises.py"
    script.write_text("import numpy as np\nfrom numba import cuda\n\n@cuda.jit\ndef fill(a):\n"
                      "    %s\n\n%s\n" % (kernel, launch))
    result = simt_check(python, "--error-exitcode", "7", str(script))
    assert result.returncode == 7, result.stderr
    assert "Traceback" in result.stderr and exception + ":" in result.stderr
    assert " ERROR: " in result.stderr and "SUMMARY: 1 finding (1 error" in result.stderr
    # The script's own failure, with nothing checked found, keeps Python's status.
    script.write_text("raise ValueError('not a kernel bug')\n")
    assert simt_check(python, "--error-exitcode", "7", str(script)).returncode == 1


def test_bad_options(python):
    assert "unknown checker 'racy'" in simt_check(python, "--tool", "racy", "x.py").stderr
    assert "unknown schedule 'sideways'" in simt_check(python, "--schedule", "sideways",
                                                       "x.py").stderr
    assert simt_check(python, "--frobnicate", "x.py").returncode == 2


def test_simt_check_environment_variable(python):
    """SIMT_CHECK=race,init (here under `simt run`; SIMT_ENABLE=1 alike): the run is checked and
    the summary printed at exit; the script's exit status is its own."""
    result = python(["-m", "simt", "run", "reduction_missing_sync.py"], cwd=CORPUS,
                    env={"SIMT_CHECK": "race,init"})
    assert result.returncode == 0
    assert "RACECHECK ERROR: write-after-read hazard" in result.stderr
    assert "RACECHECK SUMMARY: 2 hazards (1 error, 1 warning)" in result.stderr
    assert "INITCHECK SUMMARY" in result.stderr and "SYNCCHECK" not in result.stderr


def test_simt_check_alone_enables_simt(python, tmp_path):
    """SIMT_CHECK=1 python3 script.py: the start-up hook (simt-enable.pth) serves numba.cuda
    from simt, checked, as SIMT_ENABLE=1 would; SIMT_ENABLE=0 still turns simt off."""
    code = ("import site, sys; site.addsitedir(sys.argv[1]); "
            "import runpy; runpy.run_path(sys.argv[2], run_name='__main__')")
    script = os.path.join(CORPUS, "uninitialised_shared.py")
    checked = python(["-c", code, STAGE, script], env={"SIMT_CHECK": "init"})
    assert "INITCHECK ERROR: uninitialised read of shared array `buf` (buf[0])" in checked.stderr
    assert "INITCHECK SUMMARY: 1 finding (1 error, 0 warnings)" in checked.stderr
    off = python(["-c", code, STAGE, script],
                 env={"SIMT_CHECK": "init", "SIMT_ENABLE": "0", "NUMBA_ENABLE_CUDASIM": "1"})
    assert "INITCHECK" not in off.stderr


def test_release_kernels_are_untouched():
    """Checking compiles a separate variant; release code has no instrumentation."""
    from simt.tools import check
    from simt import cuda

    @cuda.jit
    def scale(a):
        a[cuda.grid(1)] *= 2

    def launched(**session_options):
        """The variant a launch of scale (checked with `session_options`, or not) ran, and the
        session."""
        session = check.enable(quiet=True, **session_options) if session_options else None
        try:
            scale[1, 8](a)
        finally:
            check.disable()
        return scale.overloads[next(iter(scale.overloads))], session

    a = np.ones(8)
    release, _ = launched()
    assert "simt_rt_access" not in release.llvm_ir()
    checked, session = launched(tools=None)
    assert release.options == "np,release,O3" and checked.options == "np,check,O3"
    # No thread of `scale` waits for another: its checked block is a loop over the threads.
    assert "simt_rt_access" in checked.llvm_ir() and checked.block_strategy == "flat"
    assert (a == 4).all() and session.findings() == []
    scale[1, 8](a)  # the release variant again
    assert (a == 8).all() and session.launches == 1
    # A schedule orders the threads: each runs on a fiber, a variant of the simulator's own.
    scheduled, _ = launched(schedule="reverse")
    assert scheduled.options == "np,check,O3" and scheduled.block_strategy == "fibers"
    assert scheduled is not checked
    assert (a == 16).all()


def test_pytest_marker_and_option(python, tmp_path):
    tests = tmp_path / "test_kernels.py"
    tests.write_text(
        "import numpy as np\nimport pytest\nfrom simt import cuda\n\n"
        "@cuda.jit\ndef count(c):\n    c[0] += 1\n\n"
        "@cuda.jit\ndef fill(a):\n    a[cuda.grid(1)] = 1\n\n"
        "@pytest.mark.simt_check\ndef test_racy():\n    count[1, 64](np.zeros(1, np.int32))\n\n"
        "@pytest.mark.simt_check(tools='init')\ndef test_racy_unchecked_for_races():\n"
        "    count[1, 64](np.zeros(1, np.int32))\n\n"
        "def test_unmarked():\n    count[1, 64](np.zeros(1, np.int32))\n\n"
        "@pytest.mark.simt_check\ndef test_clean():\n    fill[1, 8](np.zeros(8))\n")
    marked = python(["-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)], cwd=tmp_path)
    assert "1 failed, 3 passed" in marked.stdout, marked.stdout
    assert "simt check found 2 errors:\nRACECHECK ERROR: read-after-write hazard" in marked.stdout
    everything = python(["-m", "pytest", "-q", "-p", "no:cacheprovider", "--simt-check",
                         str(tests)], cwd=tmp_path)
    assert "2 failed, 2 passed" in everything.stdout, everything.stdout
    assert "RACECHECK ERROR: read-after-write hazard on global array `c` (c[0])" \
        in everything.stdout


NUMBA_RACY_TESTS = """\
import numpy as np
import pytest
from numba import cuda


@cuda.jit
def count(c):
    c[0] += 1


def test_racy():
    count[1, 64](np.zeros(1, np.int32))


@pytest.mark.simt_check
def test_racy_marked():
    count[1, 64](np.zeros(1, np.int32))
"""


def test_pytest_simt_check_serves_numba_cuda(python, tmp_path):
    """`pytest --simt-check` without SIMT_ENABLE, where Numba's own simulator would take
    `from numba import cuda` (NUMBA_ENABLE_CUDASIM=1): the kernels run on simt, checked, and the
    race fails both tests. The marker alone keeps Numba's numba.cuda, so it fails its test for
    checking nothing rather than pass it unchecked."""
    tests = tmp_path / "test_numba_kernels.py"
    tests.write_text(NUMBA_RACY_TESTS)
    env = {"NUMBA_ENABLE_CUDASIM": "1"}
    checked = python(["-m", "pytest", "-q", "-p", "no:cacheprovider", "--simt-check", str(tests)],
                     cwd=tmp_path, env=env)
    assert "2 failed" in checked.stdout, checked.stdout + checked.stderr
    # each test's report once in its failure (the summary after it repeats messages in full
    # where pytest sees CI set)
    failures = checked.stdout.partition("short test summary info")[0]
    assert failures.count("simt check found 2 errors:\nRACECHECK ERROR") == 2
    marked = python(["-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)], cwd=tmp_path,
                    env=env)
    assert "1 failed, 1 passed" in marked.stdout, marked.stdout + marked.stderr
    assert "simt check checked nothing: numba.cuda is Numba's in this run" in marked.stdout


def _doc_transcripts():
    """(corpus case, the report docs/checkers.md shows for it) for each block there after
    `<!-- tests/check/NAME.expected -->`: the lines after the `$ simt check` command, up to the
    next command."""
    with open(os.path.join(REPO, "docs", "checkers.md")) as f:
        text = f.read()
    marker = "<!-- tests/check/"
    blocks = []
    for part in text.split(marker)[1:]:
        name = part[:part.index(".expected -->")]
        body = part[part.index("```text\n") + len("```text\n"):]
        body = body[:body.index("```")]
        lines = body.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("$ simt check"))
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("$ ")),
                   len(lines))
        blocks.append((name, "\n".join(lines[start + 1:end]) + "\n"))
    return blocks


@pytest.mark.parametrize("case, shown", _doc_transcripts(),
                         ids=[case for case, _ in _doc_transcripts()])
def test_checkers_doc_shows_the_corpus_reports(case, shown):
    with open(os.path.join(CORPUS, case + ".expected")) as f:
        report = f.read()
    assert shown == report[:report.rindex("exit status")]


def test_checked_threads_with_large_local_arrays_keep_their_own_stacks():
    """A checked kernel's threads that cannot wait run without fibers, on the launching thread's
    stack, unless their local arrays need more: then each has a pooled stack (a 512 KiB local
    array, launched from a thread with a 256 KiB stack)."""
    from simt.tools import check
    from simt import cuda
    from numba import float64

    @cuda.jit
    def fill_and_sum(out):
        scratch = cuda.local.array(65536, float64)
        for k in range(65536):
            scratch[k] = k
        total = 0.0
        for k in range(0, 65536, 4096):
            total += scratch[k]
        out[cuda.grid(1)] = total

    out = np.zeros(4)
    session = check.enable(quiet=True)
    try:
        on_small_thread_stack(lambda: fill_and_sum[2, 2](out))
    finally:
        check.disable()
    assert (out == sum(range(0, 65536, 4096))).all()
    assert session.launches == 1 and session.findings() == []


def test_host_writes_to_device_arrays_initialise_them():
    """setitem on a device array (an element, a slice, a mask) initialises what it wrote, and
    only that: a kernel reading the rest is reported."""
    from simt.tools import check
    from simt import cuda

    @cuda.jit
    def copy(a, out):
        out[cuda.grid(1)] = a[cuda.grid(1)]

    session = check.enable(tools=["initcheck"], quiet=True)
    try:
        written = cuda.device_array(8)
        written[0] = 1
        written[1:3] = 2
        written[np.arange(8) >= 3] = 3
        copy[1, 8](written, cuda.device_array(8))
        assert session.findings() == []
        partly = cuda.device_array(8)
        partly[0] = 1
        copy[1, 8](partly, cuda.device_array(8))
    finally:
        check.disable()
    (finding,) = session.findings()
    assert finding["subject"] == "of global array `a` (a[1]) in block (0,0,0)"
    assert finding["count"] == 7
    session = check.enable(tools=["initcheck"], quiet=True)
    try:
        strided = cuda.device_array((4, 6))
        strided[:, ::2] = 1  # every other column: the columns between stay uninitialised
        strided[::3, 1::2] = 2  # rows 0 and 3 of the other columns
        copy[1, 24](strided.reshape(24), cuda.device_array(24))
    finally:
        check.disable()
    # Rows 1 and 2 of columns 1, 3 and 5: elements 7, 9, 11, 13, 15, 17.
    (gaps,) = session.findings()
    assert gaps["subject"] == "of global array `a` (a[7]) in block (0,0,0)"
    assert gaps["count"] == 6


def test_initcheck_alone_sees_accesses_across_pages():
    """Without racecheck, checked code reports only the accesses of watched pages (those with
    uninitialised bytes): records that straddle two pages, and pages that become fully written,
    are still found exactly as when every access is reported."""
    from simt.tools import check
    from simt import cuda
    record = np.dtype([("a", np.int32), ("b", np.int32), ("c", np.int32)])

    @cuda.jit
    def fill(records, out):
        i = cuda.grid(1)
        if i < records.size:
            records[i].a = i
            records[i].b = 2 * i
            if i % 3 != 0:
                records[i].c = 3 * i

    @cuda.jit
    def gather(records, out):
        i = cuda.grid(1)
        if i < records.size:
            out[i] = records[i].a + records[i].b + records[i].c

    def run(tools):
        session = check.enable(tools=tools, quiet=True)
        try:
            records = cuda.device_array(1500, record)  # 18,000 bytes: records across pages
            out = cuda.device_array(1500, np.int64)
            fill[12, 128](records, out)
            gather[12, 128](records, out)
            return session.findings(), out.copy_to_host()
        finally:
            check.disable()

    alone, alone_out = run(["initcheck"])
    every, every_out = run(None)
    assert alone == [f for f in every if f["tool"] == "initcheck"]
    assert len(alone) == 1 and alone[0]["count"] == 500  # c of each i % 3 == 0
    i = np.arange(1500)
    np.testing.assert_array_equal(alone_out[i % 3 != 0], 6 * i[i % 3 != 0])
    np.testing.assert_array_equal(alone_out, every_out)


def test_checkers_without_racecheck_report_the_same_on_several_workers():
    """Without racecheck, blocks run on several workers at once; the report still names the
    earliest instance (lowest block, then first in the block) and lists findings in that order,
    as a launch on one worker does."""
    from simt.tools import check
    from simt import cuda

    @cuda.jit
    def spread(a, out):
        i = cuda.grid(1)
        scratch = cuda.local.array(4, np.float64)
        if cuda.blockIdx.x % 7 == 5:
            scratch[0] = 1.0
        total = a[i] + scratch[0]  # a's odd elements, and scratch in most blocks: never written
        out[i] = total

    def run(tools):
        session = check.enable(tools=tools, quiet=True)
        try:
            a = cuda.device_array(64 * 64)
            a[::2] = 1.0
            out = cuda.device_array(64 * 64)
            for _ in range(3):
                spread[64, 64](a, out)
            return [session.format(f) for f in session.findings()]
        finally:
            check.disable()

    several = run(["initcheck", "memcheck"])
    assert several == run(["initcheck", "memcheck"])
    one = run(None)  # racecheck: one worker
    assert several == [f for f in one if not f.startswith(("RACECHECK", "SYNCCHECK"))]
    # Thread 0 of block 0 reads scratch[0] first (one finding for the line's two reads, a's odd
    # elements and scratch[0] in 55 of the 64 blocks, three launches).
    assert len(several) == 1
    assert "local array `scratch` (scratch[0]) in block (0,0,0)" in several[0]
    assert "(%d more instances)" % (3 * (2048 + 55 * 64) - 1) in several[0]


def test_checked_barrier_kernels_run_by_loop_fission(monkeypatch):
    """No checker needs a barrier kernel's threads on fibers (only a schedule does): it runs by
    loop fission, its accesses reported and each barrier's release too, and its checkers find
    what they find when every thread runs on a fiber (SIMT_FISSION=0), racecheck included."""
    from simt.tools import check
    from simt import cuda

    @cuda.jit
    def shift(a, out):
        buf = cuda.shared.array(64, np.float32)
        t = cuda.threadIdx.x
        if t > 0:
            buf[t] = a[cuda.grid(1)]
        cuda.syncthreads()
        out[cuda.grid(1)] = buf[(t + 1) % 64]  # thread 63 reads buf[0], never written
        cuda.syncthreads()
        if cuda.syncthreads_count(t == 0) == 1:  # after every read of the line above
            buf[t] = buf[63 - t] + 1  # races: thread 63 - t writes what t reads
        out[cuda.grid(1)] += buf[t]

    def run(tools, schedule="in-order"):
        session = check.enable(tools=tools, schedule=schedule, quiet=True)
        try:
            out = cuda.device_array(256, np.float32)
            shift[4, 64](np.arange(256, dtype=np.float32), out)
            kernel = shift.overloads[next(iter(shift.overloads))]
            return kernel, [session.format(f) for f in session.findings()], out.copy_to_host()
        finally:
            check.disable()

    fissioned, found, out = run(None)
    assert fissioned.options == "np,check,O3" and fissioned.block_strategy == "fission"
    assert run(["initcheck"], "reverse")[0].block_strategy == "fibers"
    monkeypatch.setenv("SIMT_FISSION", "0")
    on_fibers, found_on_fibers, out_on_fibers = run(None)
    assert on_fibers.options == "np,check,O3" and on_fibers.block_strategy == "fibers"
    assert found == found_on_fibers
    assert [f.split(" hazard")[0].split(" of shared")[0] for f in found] == [
        "INITCHECK ERROR: uninitialised read", "RACECHECK ERROR: read-after-write",
        "RACECHECK ERROR: write-after-read"]
    assert "`buf` (buf[0])" in found[0] and "(3 more instances)" in found[0]
    assert "`buf` (buf[31])" in found[1] and "`buf` (buf[32])" in found[2]
    np.testing.assert_array_equal(out, out_on_fibers)


def test_compile_refuses_an_unknown_fiber_choice():
    from simt import _simt

    with pytest.raises(ValueError, match=r"unknown checked_fibers 'some' \(none or all\)"):
        _simt.SimOptions(checked_fibers="some")


def test_host_allocations_on_other_threads_take_turns_with_checked_launches():
    """Device arrays made, written and freed on other Python threads while checked launches run
    (the GIL released): the checker's host calls wait for the launch, so every launch sees a
    consistent picture and reports nothing wrong."""
    import threading

    from simt.tools import check
    from simt import cuda

    @cuda.jit
    def fill(out, value):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = value + i

    session = check.enable(quiet=True)
    failures = []

    def churn():
        try:
            for k in range(200):
                d = cuda.device_array(1 << 12)
                d[:] = k
                d.copy_to_host()
                del d
        except Exception as error:  # pragma: no cover - reported below
            failures.append(error)

    try:
        workers = [threading.Thread(target=churn) for _ in range(2)]
        for worker in workers:
            worker.start()
        out = cuda.device_array(1 << 14)
        for launch in range(20):
            fill[64, 256](out, float(launch))
        for worker in workers:
            worker.join()
    finally:
        check.disable()
    assert failures == []
    assert (out.copy_to_host() == 19.0 + np.arange(1 << 14)).all()
    assert session.launches == 20 and session.findings() == []
