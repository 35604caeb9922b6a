"""Large generated kernels (bench/compile_scaling.py's shapes) compile and compute what NumPy
does. Untimed: bench/compile_scaling.py measures how compile time grows with size."""
import importlib.util
import os

import numpy as np
import pytest

from conftest import REPO

_spec = importlib.util.spec_from_file_location(
    "compile_scaling", os.path.join(REPO, "bench", "compile_scaling.py"))
compile_scaling = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compile_scaling)


@pytest.mark.parametrize("shape,size", [("elif", 900), ("straight", 10000), ("locals", 3000),
                                        ("arrays", 300), ("arrays", 3000),
                                        ("compare", 3000)])
def test_large_kernel_compiles_and_runs(shape, size, tmp_path):
    kernel = compile_scaling.load(shape, size, str(tmp_path))
    compile_scaling.run(kernel, shape, size)


@pytest.mark.parametrize("size", [300, 3000])
def test_faults_of_a_large_kernel_name_their_line(size, tmp_path):
    # The bounds checks of a large kernel share fault blocks: each still reports its own line.
    # 3,000 statements take the select form of bounds check (codegen/lower.cpp).
    kernel = compile_scaling.load("arrays", size, str(tmp_path))
    x, out = compile_scaling.inputs("arrays", size)
    with pytest.raises(IndexError) as error:
        kernel[1, 128](x, out[:5])
    assert 'scaling_arrays_%d.py", line 9' % size in str(error.value)
    assert "index 5 is out of bounds for axis 0 with size 5" in str(error.value)


def _load_source(path, source):
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("statements", [10, 1500])
def test_negative_indices_wrap_whatever_the_kernel_size(statements, tmp_path):
    # Small kernels wrap a negative index on a cold path, large ones in a select: both as NumPy,
    # and an index negative beyond the extent is an IndexError either way.
    lines = ["from simt import cuda\n\n\n@cuda.jit\ndef kernel(x, out):\n",
             "    i = cuda.grid(1)\n    if i < x.size:\n        j = i - x.size\n",
             "        out[j] = x[i]\n"]
    lines += ["        out[j] += %d * x[j]\n" % (k % 3) for k in range(statements)]
    module = _load_source(tmp_path / ("wrap_%d.py" % statements), "".join(lines))
    x = np.arange(1.0, 9.0)
    out = np.zeros_like(x)
    module.kernel[1, 8](x, out)
    np.testing.assert_array_equal(out, x * (1 + sum(k % 3 for k in range(statements))))
    with pytest.raises(IndexError, match=r"index -[5-8] is out of bounds for axis 0 with size 4"):
        module.kernel[1, 8](x, np.zeros(4))


def test_types_feeding_back_through_a_loop_settle_however_long_the_chain(tmp_path):
    # x0 = x1, x1 = x2, ..., x299 = 1.5 in a loop: typing takes one round per step back (more
    # than the 64 rounds the typer once allowed); x0 ends as a float64 holding 1.5, as in Python.
    n = 300
    lines = ["from simt import cuda\n\n\n@cuda.jit\ndef kernel(out):\n"]
    lines += ["    x%d = 0\n" % k for k in range(n + 1)]
    lines.append("    for k in range(%d):\n" % (n + 1))
    lines += ["        x%d = x%d\n" % (k, k + 1) for k in range(n)]
    lines.append("        x%d = 1.5\n    out[0] = x0\n" % n)
    path = tmp_path / "feedback.py"
    path.write_text("".join(lines))
    spec = importlib.util.spec_from_file_location("feedback", str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out, expected = np.zeros(1), np.zeros(1)
    module.kernel[1, 1](out)
    module.kernel.py_func(expected)
    assert expected[0] == 1.5
    np.testing.assert_array_equal(out, expected)
