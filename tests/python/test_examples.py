"""Every example (the kernels of the seed talks) runs unmodified on simt and checks its results."""
import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.py")))


@pytest.mark.parametrize("path", EXAMPLES, ids=[os.path.basename(p) for p in EXAMPLES])
def test_example_runs_on_simt(path):
    proc = subprocess.run([sys.executable, "-m", "simt", "run", path], capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, NUMBA_ENABLE_CUDASIM="0"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip(), "the example printed nothing"
