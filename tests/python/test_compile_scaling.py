"""Large generated kernels (bench/compile_scaling.py's shapes) compile and compute what NumPy
does. Untimed: bench/compile_scaling.py measures how compile time grows with size."""
import importlib.util
import os

import pytest

from conftest import REPO

_spec = importlib.util.spec_from_file_location(
    "compile_scaling", os.path.join(REPO, "bench", "compile_scaling.py"))
compile_scaling = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compile_scaling)


@pytest.mark.parametrize("shape,size", [("elif", 900), ("straight", 10000), ("locals", 3000),
                                        ("arrays", 300)])
def test_large_kernel_compiles_and_runs(shape, size, tmp_path):
    kernel = compile_scaling.load(shape, size, str(tmp_path))
    compile_scaling.run(kernel, shape, size)


def test_faults_of_a_large_kernel_name_their_line(tmp_path):
    # The bounds checks of a large kernel share one fault block: each still reports its own line.
    kernel = compile_scaling.load("arrays", 300, str(tmp_path))
    x, out = compile_scaling.inputs("arrays", 300)
    with pytest.raises(IndexError) as error:
        kernel[1, 128](x, out[:5])
    assert 'scaling_arrays_300.py", line 9' in str(error.value)
    assert "index 5 is out of bounds for axis 0 with size 5" in str(error.value)
