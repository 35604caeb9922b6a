"""Shared helpers for the Python tests. Run them against the staged package:
PYTHONPATH=<build>/python /usr/bin/python3 -m pytest tests/python"""
import os
import subprocess
import sys

import tempfile

import pytest

# Tests never read or fill the user's compile cache: one fresh cache for the whole session (set
# before simt loads, and inherited by every subprocess the tests start).
os.environ["SIMT_CACHE_DIR"] = tempfile.mkdtemp(prefix="simt-test-cache-")

import simt  # noqa: E402

# The folder holding the staged simt package (and simt-enable.pth).
STAGE = os.path.dirname(os.path.dirname(os.path.abspath(simt.__file__)))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_python(args, env=None, cwd=None):
    """Runs /usr/bin/python3 (this interpreter) with the staged package importable."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = STAGE + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.pop("SIMT_ENABLE", None)
    full_env.pop("NUMBA_ENABLE_CUDASIM", None)
    full_env.update(env or {})
    return subprocess.run([sys.executable] + list(args), env=full_env, cwd=cwd,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def python():
    return run_python
