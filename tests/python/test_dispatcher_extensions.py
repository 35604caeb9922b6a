"""Numba's dispatcher API that Numba's own test suite uses: argument handler extensions
(`extensions=` / `.extensions`), the transfer hints' copy semantics, bind() and overloads looked
up by Numba's type objects."""
import numpy as np
import pytest

from conftest import run_python
from simt import cuda


def set_to_three(arr):
    arr[0] = 3


class _Recorder:
    """An extension that records what it is given and passes the value on (or replaces it)."""

    def __init__(self, log, replace=None):
        self.log = log
        self.replace = replace

    def prepare_args(self, ty, val, stream, retr):
        self.log.append((self, str(ty), stream))
        retr.append(lambda: self.log.append("after launch"))
        return ty, (self.replace(val) if self.replace else val)


def test_in_copies_the_array_and_out_inout_write_back():
    kernel = cuda.jit(set_to_three)
    for hint, written in ((cuda.In, 0), (cuda.Out, 3), (cuda.InOut, 3)):
        host = np.zeros(1, dtype=np.int64)
        kernel[1, 1](hint(host))
        assert host[0] == written, hint
    device = cuda.to_device(np.zeros(1, dtype=np.int64))
    kernel[1, 1](cuda.In(device))  # a device array is passed as it is
    assert device.copy_to_host()[0] == 3


def test_extensions_run_last_first_and_their_writebacks_after_the_launch():
    log = []
    first = _Recorder(log)
    second = _Recorder(log, replace=cuda.In)
    kernel = cuda.jit(extensions=[first])(set_to_three)
    kernel.extensions.append(second)
    assert kernel.extensions == [first, second]
    host = np.zeros(1, dtype=np.int64)
    stream = cuda.stream()
    kernel[1, 1, stream](host)
    assert host[0] == 0  # the second extension made it cuda.In
    assert log == [(second, "array(int64, 1d, C)", stream), (first, "array(int64, 1d, C)", stream),
                   "after launch", "after launch"]


def test_extensions_may_return_numbas_argument_hints(tmp_path):
    script = tmp_path / "script.py"
    script.write_text("""
import simt.hook; simt.hook.install()
import numpy as np
import pytest
from numba import cuda
from numba.cuda.args import wrap_arg

class DefaultIn:
    def prepare_args(self, ty, val, **kwargs):
        return ty, wrap_arg(val, default=cuda.In)

def set_to_three(arr):
    arr[0] = 3

kernel = cuda.jit(set_to_three)
kernel.extensions.append(DefaultIn())
for arg, written in ((np.zeros(1), 0), (cuda.InOut(np.zeros(1)), 3)):
    kernel[1, 1](arg)
    host = arg.value if isinstance(arg, cuda.InOut) else arg
    assert host[0] == written, (arg, host)
print("ok")
""")
    proc = run_python([str(script)])
    assert proc.returncode == 0, proc.stderr
    assert "ok" in proc.stdout


def test_bind_is_accepted():
    kernel = cuda.jit(set_to_three)
    assert kernel.bind() is None


def test_overloads_are_found_by_numbas_type_objects():
    numba = pytest.importorskip("numba")
    kernel = cuda.jit("void(int64[::1])")(set_to_three)
    numba_key = (numba.int64[::1],)
    assert numba_key in kernel.overloads
    assert kernel.overloads[numba_key] is kernel.overloads.get(numba_key) is not None
    assert (numba.float32[::1],) not in kernel.overloads
    assert kernel.overloads.get((numba.float32[::1],)) is None
