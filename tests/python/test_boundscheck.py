"""SIMT_BOUNDSCHECK: an index out of bounds raises IndexError (the default, as Numba's simulator),
or, with `warn`, is reported once per site and the kernel goes on as on a GPU: reads give a
poisoned value (every byte 0xFF), writes are lost."""
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from simt import cuda
from simt.errors import OutOfBoundsWarning

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture
def warn_mode(monkeypatch):
    monkeypatch.setenv("SIMT_BOUNDSCHECK", "warn")


@cuda.jit
def right_difference(a, out):
    # The halo read of numba-examples' laplace2d: one past the row at the last column.
    j, i = cuda.grid(2)
    if j < a.shape[0] and i < a.shape[1]:
        out[j, i] = a[j, i + 1] - a[j, i]


@cuda.jit
def shifted_store(out):
    j, i = cuda.grid(2)
    out[j, i + 1] = 1  # the last column writes where the next row's first element is


@cuda.jit
def int_read(a, out):
    i = cuda.grid(1)
    out[i] = a[i + 2]


@cuda.jit
def negative_reads(a, out):
    i = cuda.grid(1)
    out[i] = a[-1 - i]  # -1..-n wrap as Python's; below -n is out of bounds


@cuda.jit
def shared_overrun(out):
    tile = cuda.shared.array(4, np.float32)
    i = cuda.threadIdx.x
    tile[i] = i
    cuda.syncthreads()
    out[i] = tile[i + 1]


def test_the_default_raises_index_error():
    a = np.arange(12.0).reshape(3, 4)
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 1 with size 4"):
        right_difference[(1, 1), (4, 4)](a, np.zeros_like(a))


def test_warn_reads_poison_once_per_site_and_goes_on(warn_mode):
    a = np.arange(12.0).reshape(3, 4)
    out = np.zeros_like(a)
    with pytest.warns(OutOfBoundsWarning) as caught:
        right_difference[(1, 1), (4, 4)](a, out)
    assert np.array_equal(out[:, :3], np.ones((3, 3)))
    assert np.isnan(out[:, 3]).all()
    (warning,) = caught
    text = str(warning.message)
    # the first thread at the site, the access as compute-sanitizer names it, and the line
    assert "tid=[0, 3, 0] ctaid=[0, 0, 0]" in text
    assert "__global__ read of size 8 bytes: index 4 is out of bounds for axis 1 with size 4" in text
    assert "out[j, i] = a[j, i + 1] - a[j, i]" in text
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a site already reported is not reported again
        right_difference[(1, 1), (4, 4)](a, out)


def test_warn_drops_writes(warn_mode):
    out = np.zeros((3, 4))
    with pytest.warns(OutOfBoundsWarning, match="__global__ write of size 8 bytes: index 4"):
        shifted_store[(1, 1), (3, 4)](out)
    # unchecked, row j's last write would land on row j + 1's first element
    assert out[:, 0].tolist() == [0, 0, 0]
    assert (out[:, 1:] == 1).all()


def test_warn_poisons_integers_and_wraps_negative_indices_as_python(warn_mode):
    a = np.arange(4, dtype=np.int32)
    out = np.zeros(4, np.int32)
    with pytest.warns(OutOfBoundsWarning, match="__global__ read of size 4 bytes: index 4"):
        int_read[1, 4](a, out)
    assert out.tolist() == [2, 3, -1, -1]
    out = np.zeros(6, np.int32)
    with pytest.warns(OutOfBoundsWarning, match="index -5 is out of bounds for axis 0 with size 4"):
        negative_reads[1, 6](a, out)
    assert out.tolist() == [3, 2, 1, 0, -1, -1]


def test_warn_names_shared_memory(warn_mode):
    out = np.zeros(4, np.float32)
    with pytest.warns(OutOfBoundsWarning, match="__shared__ read of size 4 bytes"):
        shared_overrun[1, 4](out)
    assert out[:3].tolist() == [1, 2, 3] and np.isnan(out[3])


def test_warnings_as_errors_stop_the_program(warn_mode):
    a = np.arange(4, dtype=np.int32)

    @cuda.jit
    def fresh(a, out):
        i = cuda.grid(1)
        out[i] = a[i + 1]

    with warnings.catch_warnings():
        warnings.simplefilter("error", OutOfBoundsWarning)
        with pytest.raises(OutOfBoundsWarning):
            fresh[1, 4](a, np.zeros(4, np.int32))


def test_the_mode_is_part_of_the_cache_key(monkeypatch):
    a = np.arange(4, dtype=np.int32)

    @cuda.jit
    def overrun(a, out):
        i = cuda.grid(1)
        out[i] = a[i + 1]

    monkeypatch.setenv("SIMT_BOUNDSCHECK", "warn")
    with pytest.warns(OutOfBoundsWarning):
        overrun[1, 4](a, np.zeros(4, np.int32))
    monkeypatch.setenv("SIMT_BOUNDSCHECK", "raise")
    with pytest.raises(IndexError):
        overrun[1, 4](a, np.zeros(4, np.int32))
    monkeypatch.setenv("SIMT_BOUNDSCHECK", "sometimes")
    with pytest.raises(ValueError, match="SIMT_BOUNDSCHECK=sometimes: expected raise or warn"):
        overrun[1, 4](a, np.zeros(4, np.int32))


def test_memcheck_reports_each_site_as_compute_sanitizer_does(tmp_path):
    script = tmp_path / "halo.py"
    script.write_text(textwrap.dedent("""\
        import numpy as np
        from simt import cuda

        @cuda.jit
        def right_difference(a, out):
            j, i = cuda.grid(2)
            if j < a.shape[0] and i < a.shape[1]:
                out[j, i] = a[j, i + 1] - a[j, i]

        a = np.arange(12.0).reshape(3, 4)
        out = np.zeros_like(a)
        right_difference[(1, 1), (4, 4)](a, out)
        print("went on:", np.isnan(out[:, 3]).all())
        """))
    env = dict(os.environ, SIMT_BOUNDSCHECK="warn")
    proc = subprocess.run([sys.executable, "-m", "simt", "check", "--tool", "memcheck",
                           "--error-exitcode", "3", str(script)], env=env, capture_output=True,
                          text=True, timeout=300)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 3, output
    assert "went on: True" in output
    assert ("MEMCHECK ERROR: Invalid __global__ read of size 8 bytes in block (0,0,0): index 4 is"
            " out of bounds for axis 1 with size 4") in output
    assert "access by thread (0,3,0) at %s:8" % script in output
