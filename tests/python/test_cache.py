"""The on-disk compile cache: a rerun reuses compiled objects, and a bad entry is recompiled."""
import glob
import os

SCRIPT = """
import time
import numpy as np
from simt import cuda

@cuda.jit
def scale(out, x, f):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * f

x = np.arange(100, dtype=np.float64)
out = np.zeros_like(x)
start = time.perf_counter()
scale[4, 32](out, x, 2.5)
print("first-call-ms %.3f" % ((time.perf_counter() - start) * 1e3))
assert (out == x * 2.5).all()
print("ok")
"""


def run_twice(python, tmp_path, env):
    script = tmp_path / "scale.py"
    script.write_text(SCRIPT)
    runs = [python([str(script)], env=env) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stdout + run.stderr
        assert run.stdout.strip().endswith("ok")
    return runs


def test_a_rerun_loads_the_compiled_object(python, tmp_path):
    cache = tmp_path / "cache"
    run_twice(python, tmp_path, {"SIMT_CACHE_DIR": str(cache)})
    objects = glob.glob(str(cache / "*.o"))
    assert len(objects) == 1  # the second run found it instead of writing another
    assert os.path.getsize(objects[0]) > 0


def test_a_damaged_entry_is_recompiled(python, tmp_path):
    cache = tmp_path / "cache"
    run_twice(python, tmp_path, {"SIMT_CACHE_DIR": str(cache)})
    (entry,) = glob.glob(str(cache / "*.o"))
    with open(entry, "wb") as f:
        f.write(b"not an object file")
    run_twice(python, tmp_path, {"SIMT_CACHE_DIR": str(cache)})  # still correct results
    (entry,) = glob.glob(str(cache / "*.o"))
    with open(entry, "rb") as f:
        assert f.read(4) == b"\x7fELF"  # rewritten by the recompile


def test_the_cache_can_be_turned_off(python, tmp_path):
    cache = tmp_path / "cache"
    run_twice(python, tmp_path, {"SIMT_CACHE_DIR": str(cache), "SIMT_CACHE": "0"})
    assert not cache.exists()
