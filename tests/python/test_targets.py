"""SIMT_TARGET=gpu and both, `simt run --target`, and SIMT_BUNDLE for simt-gpu-run, on a machine
without a GPU: the CUDA driver is the fake of tests/unit/fake_libcuda.cpp (device memory is host
memory; a kernel named double_it doubles every float of its one array, fault_it also records an
IndexError of thread (3, 0, 0) in block (1, 0, 0), other kernels do nothing), loaded through
SIMT_LIBCUDA. So these tests check simt's side for real: compiling for the GPU, Numba's argument
layout (the fake sizes each parameter from the PTX), copies in and back, the exception record,
and the comparison."""
import os
import subprocess
import sys
import textwrap

import pytest

import simt

BUILD = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(simt.__file__))))
FAKE_DRIVER = os.path.join(BUILD, "tests", "unit", "libfake_libcuda.so")
RUNNER = os.path.join(BUILD, "gpu", "runner", "simt-gpu-run")
needs_fake = pytest.mark.skipif(not os.path.exists(FAKE_DRIVER),
                                reason="the fake CUDA driver is built with the unit tests")

SCRIPT = textwrap.dedent("""
    import numpy as np
    from numba import cuda

    @cuda.jit
    def double_it(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] *= 2

    @cuda.jit
    def fault_it(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] *= 2
        if i == 3:
            x[i + 100] = 0

    @cuda.jit
    def add_one(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = x[i] + 1

    x = np.arange(8, dtype=np.float32)
    double_it[1, 8](x)
    print("doubled", x.tolist())
    try:
        fault_it[1, 8](x)
    except IndexError as e:
        print("IndexError", str(e).splitlines()[0])
    r = np.zeros(8)
    add_one[1, 8](r, np.arange(8.0))
    print("added", r.tolist())
""")


def process_environment(**settings):
    """A test process's environment: this one's without an outer bundling run's settings
    (scripts/make_gpu_bundles.sh runs the suite with SIMT_BUNDLE set), simt's package on the
    path, and `settings`."""
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith("SIMT_BUNDLE")}
    environment["PYTHONPATH"] = os.path.dirname(os.path.dirname(simt.__file__))
    environment.update(settings)
    return environment


def run(tmp_path, env, *args):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    environment = process_environment(**env)
    command = [sys.executable, "-m", "simt", "run", *args, str(script)]
    return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=120)


def test_without_a_gpu_the_gpu_target_says_so_in_one_line(tmp_path):
    proc = run(tmp_path, {"SIMT_LIBCUDA": str(tmp_path / "nowhere.so")}, "--target", "gpu")
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("RuntimeError: simt: no GPU: ") and "nowhere.so" in last


def test_unknown_targets_are_refused(tmp_path):
    proc = run(tmp_path, {}, "--target", "tpu")
    assert proc.returncode == 2 and "--target is sim, gpu or both" in proc.stderr
    proc = run(tmp_path, {"SIMT_TARGET": "tpu"})
    assert "SIMT_TARGET=tpu: the target is sim, gpu or both" in proc.stderr


@needs_fake
def test_gpu_target_runs_through_the_driver(tmp_path):
    proc = run(tmp_path, {"SIMT_LIBCUDA": FAKE_DRIVER}, "--target", "gpu")
    lines = proc.stdout.splitlines()
    assert lines[0] == "doubled [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]", proc.stderr
    # The record read back: the thread and block ids, in the simulator's text.
    assert lines[1].startswith("IndexError tid=[3, 0, 0] ctaid=[1, 0, 0]: index ")
    assert lines[2] == "added [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]"  # the fake ran nothing


@needs_fake
def test_both_reports_the_first_differing_element(tmp_path):
    proc = run(tmp_path, {"SIMT_LIBCUDA": FAKE_DRIVER, "SIMT_TARGET": "both"})
    lines = proc.stdout.splitlines()
    # double_it and fault_it agree (the fake doubles as the kernel does, both raise IndexError).
    assert lines[0] == "doubled [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]", proc.stderr
    assert lines[1].startswith("IndexError In function 'fault_it', file ")
    assert "tid=[3, 0, 0] ctaid=[0, 0, 0]: index 103 is out of" in lines[1]
    assert proc.returncode != 0
    assert ("ParityError: simt: parity: kernel add_one: argument 'r' (#0) differs at index (0,):"
            " gpu=0.0 sim=1.0 (8 of 8 elements differ)") in proc.stderr
    warned = run(tmp_path, {"SIMT_LIBCUDA": FAKE_DRIVER, "SIMT_TARGET": "both",
                            "SIMT_PARITY": "warn"})
    assert warned.returncode == 0, warned.stderr
    assert warned.stdout.splitlines()[2] == "added [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]"
    assert "RuntimeWarning: simt: parity: kernel add_one" in warned.stderr


@needs_fake
def test_bundles_run_by_simt_gpu_run(tmp_path):
    bundle = tmp_path / "bundle"
    proc = run(tmp_path, {"SIMT_BUNDLE": str(bundle)})
    assert proc.returncode == 0, proc.stderr
    assert "simt: bundle %s: 3 launches written, 0 left out" % bundle in proc.stderr
    manifest = (bundle / "manifest.txt").read_text().splitlines()
    assert manifest[0] == "simt-bundle 1"
    assert [line.split()[1] for line in manifest if line.startswith("launch ")] == \
        ["double_it_0", "fault_it_1", "add_one_2"]
    assert "fault IndexError" in manifest
    assert any(line.startswith("array float64 1 8 8 ") for line in manifest)
    if not os.path.exists(RUNNER):
        pytest.skip("simt-gpu-run is built with the project")
    result = subprocess.run([RUNNER, str(bundle)], capture_output=True, text=True,
                            env=dict(os.environ, SIMT_LIBCUDA=FAKE_DRIVER), timeout=120)
    lines = result.stdout.splitlines()
    assert "ok double_it_0" in lines and "ok fault_it_1" in lines
    assert any(line.startswith("DIFF add_one_2 arg 0 index 0 gpu=0 sim=1") for line in lines), \
        result.stdout
    assert result.returncode == 1


def test_bundles_per_test_file_take_turns_between_processes(tmp_path):
    """SIMT_BUNDLE_PER_FILE: a bundle per test file under pytest (the processes a test starts
    inherit PYTEST_CURRENT_TEST), else per kernel file; two processes writing one bundle in turn
    continue its launch names."""
    env = {"SIMT_BUNDLE": str(tmp_path / "all"), "SIMT_BUNDLE_PER_FILE": "tests-",
           "PYTEST_CURRENT_TEST": "tests/python/test_nine.py::test_it (call)"}
    for _ in range(2):
        proc = run(tmp_path, env)
        assert proc.returncode == 0, proc.stderr
    manifest = (tmp_path / "all" / "tests-test_nine" / "manifest.txt").read_text().splitlines()
    assert [line.split()[1] for line in manifest if line.startswith("launch ")] == [
        "double_it_0", "fault_it_1", "add_one_2", "double_it_3", "fault_it_4", "add_one_5"]
    env["PYTEST_CURRENT_TEST"] = ""
    assert run(tmp_path, env).returncode == 0
    assert sorted(os.listdir(tmp_path / "all")) == ["tests-script", "tests-test_nine"]


def test_bundles_keep_arguments_that_alias_and_datetime_arrays(tmp_path):
    # cuda.reduce's last launch passes `partials` as two arguments: on the GPU they must be one
    # allocation, so the bundle says the second is a view of the first (gpu/runner/README.md).
    script = tmp_path / "aliases.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        from numba import cuda

        @cuda.jit
        def shift(a, b):
            i = cuda.grid(1)
            if i < a.size:
                b[i] = a[i] + 1

        @cuda.jit
        def later(t, out):
            out[0] = t[0]

        buffer = np.arange(8.0)
        shift[1, 6](buffer[:6], buffer[2:])
        device = cuda.to_device(np.arange(8.0))
        shift[1, 4](device[:4], device[4:])  # apart
        shift[1, 4](device[1:5], device[:4])
        days = np.array(["2026-11-29"], "datetime64[D]")
        later[1, 1](days, np.zeros(1, "datetime64[D]"))
    """))
    bundle = tmp_path / "bundle"
    environment = process_environment(SIMT_BUNDLE=str(bundle))
    proc = subprocess.run([sys.executable, "-m", "simt", "run", str(script)],
                          capture_output=True, text=True, env=environment, timeout=120)
    assert proc.returncode == 0, proc.stderr
    arrays = [line.split() for line in (bundle / "manifest.txt").read_text().splitlines()
              if line.startswith("array ")]
    assert "alias" not in arrays[0]
    assert arrays[1][-3:] == ["alias", "0", "16"]
    assert "alias" not in arrays[2] and "alias" not in arrays[3]
    assert "alias" not in arrays[4] and arrays[5][-3:] == ["alias", "0", "-8"]
    assert arrays[6][1] == arrays[7][1] == "datetime64[D]"


def test_bundles_mark_kernels_that_would_hang_a_gpu_simulator_only(tmp_path):
    # A deadlock, a barrier some threads skip, a warp operation naming exited lanes: on a GPU
    # they hang or are undefined, so the runner must not run them (it prints SKIP).
    script = tmp_path / "hangs.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        from numba import cuda

        @cuda.jit
        def half_warp_shuffle(out):
            if cuda.threadIdx.x < 16:  # the mask names lanes that never call it
                out[cuda.threadIdx.x] = cuda.shfl_sync(0xffffffff, cuda.threadIdx.x, 0)

        @cuda.jit
        def fine(out):
            out[cuda.threadIdx.x] = 2

        @cuda.jit
        def past_the_end(out):
            out[cuda.threadIdx.x + 1] = 3

        @cuda.jit
        def tuple_index(out):
            out[0] = (1, 2)[cuda.threadIdx.x + 5]

        for kernel in (half_warp_shuffle, fine, past_the_end, tuple_index):
            try:
                kernel[1, 32](np.zeros(32))
            except (RuntimeError, IndexError) as e:
                print("raised", type(e).__name__)
    """))
    bundle = tmp_path / "bundle"
    environment = process_environment(SIMT_BUNDLE=str(bundle))
    proc = subprocess.run([sys.executable, "-m", "simt", "run", str(script)],
                          capture_output=True, text=True, env=environment, timeout=120)
    assert "raised RuntimeError" in proc.stdout, proc.stderr
    manifest = (bundle / "manifest.txt").read_text().splitlines()
    marked = [line for line in manifest if line.startswith("simulator-only ")]
    assert len(marked) == 1 and marked[0] == ("simulator-only warp: simt: lane 16 named in the mask of shfl_sync has exited"), marked
    # An array index past the end is the record's IndexError; a tuple's is a raise site.
    assert [line for line in manifest if line.startswith("fault ")] == \
        ["fault IndexError", "fault exception"]


UNDEFINED_AND_ORDER_FREE = textwrap.dedent("""
    import numpy as np
    from numba import cuda

    @cuda.jit
    def next_positive(a, out):
        i = cuda.grid(1)
        if a[i] > 0:
            out[i] = cuda.shfl_down_sync(cuda.activemask(), a[i], 1)

    @cuda.jit
    def reversed_in_place(x, count):
        i = cuda.grid(1)
        v = x[i]
        cuda.atomic.add(count, 0, 0)
        cuda.syncthreads()
        x[x.size - 1 - i] = v

    a = np.array([1, 2, 0, 3, 4, 0, 0, 5] * 4, np.int32)
    next_positive[1, 32](a, np.zeros(32, np.int32))
    reversed_in_place[1, 8](np.arange(8, dtype=np.int32), np.zeros(1, np.int32))
    print("done")
""")


@needs_fake
def test_parity_leaves_undefined_reads_and_atomic_placement_alone(tmp_path):
    """SIMT_TARGET=both does not compare the arrays of a launch whose shuffles read lanes outside
    their masks (CUDA leaves those values undefined), and takes an atomics kernel's arrays that
    hold the same elements elsewhere as equal (the fake GPU runs nothing: its array keeps the
    elements the simulator reversed); bundles mark both launches so."""
    script = tmp_path / "script.py"
    script.write_text(UNDEFINED_AND_ORDER_FREE)
    environment = process_environment(SIMT_LIBCUDA=FAKE_DRIVER, SIMT_TARGET="both")
    proc = subprocess.run([sys.executable, "-m", "simt", "run", str(script)], capture_output=True,
                          text=True, env=environment, timeout=120)
    assert proc.returncode == 0 and proc.stdout == "done\n", proc.stderr
    del environment["SIMT_TARGET"]
    environment["SIMT_BUNDLE"] = str(tmp_path / "bundle")
    proc = subprocess.run([sys.executable, "-m", "simt", "run", str(script)], capture_output=True,
                          text=True, env=environment, timeout=120)
    assert proc.returncode == 0, proc.stderr
    manifest = (tmp_path / "bundle" / "manifest.txt").read_text().splitlines()
    assert "undefined 8 shuffle reads of lanes outside the mask (simt check reports them)" \
        in manifest
    assert manifest.count("order-free the kernel's atomics may place its values elsewhere") == 1
