"""numba-cuda-mlir (NVIDIA's successor of numba-cuda, without a simulator) as a host of simt:
`from numba_cuda_mlir import cuda` gives simt's module under SIMT_ENABLE=1, and under
NUMBA_ENABLE_CUDASIM=1 too, where Numba keeps its own simulator. The hook's logic runs against a
small stand-in package with numba-cuda-mlir's layout; the last tests need the real one."""
import importlib.util
import os
import textwrap

import pytest

from conftest import STAGE

START_UP = "import site; site.addsitedir(%r)\n" % STAGE  # runs simt-enable.pth as pip's would

# The stand-in: numba_cuda_mlir/cuda is a package, as numba-cuda-mlir 0.6's.
FAKE_PACKAGE = {
    "numba_cuda_mlir/__init__.py": "__all__ = ['cuda']\n",
    "numba_cuda_mlir/cuda/__init__.py": "IS_NUMBA_CUDA_MLIR = True\n",
    "numba_cuda_mlir/cuda/libdevice.py": "IS_NUMBA_CUDA_MLIR = True\n",
    "numba_cuda_mlir/numba_cuda/__init__.py": "",
    "numba_cuda_mlir/numba_cuda/_internal/__init__.py": "",
    "numba_cuda_mlir/numba_cuda/misc/__init__.py": "",
    "numba_cuda_mlir/numba_cuda/misc/special.py": "def literal_unroll(container):\n"
                                                  "    return container\n",
    # its type objects: a fork of Numba's, named and printed as Numba's
    "numba_cuda_mlir/types.py": textwrap.dedent("""
        class Float:
            def __init__(self, name):
                self.name = self.key = name

            def __str__(self):
                return self.name

        float32 = Float("float32")
        """),
}

SERVED = """
import sys
from numba_cuda_mlir import cuda
import numba_cuda_mlir.cuda
from simt import cuda as simt_cuda
assert cuda is simt_cuda and numba_cuda_mlir.cuda is simt_cuda, cuda
assert not hasattr(cuda, "IS_NUMBA_CUDA_MLIR")
"""

NOT_SERVED = """
from numba_cuda_mlir import cuda
assert cuda.IS_NUMBA_CUDA_MLIR and "simt.cuda" not in __import__("sys").modules
"""


@pytest.fixture
def fake_host(tmp_path):
    """PYTHONPATH for a process in which numba_cuda_mlir is the stand-in."""
    for name, text in FAKE_PACKAGE.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return {"PYTHONPATH": str(tmp_path) + os.pathsep + STAGE}


def _run(python, code, env):
    proc = python(["-c", START_UP + textwrap.dedent(code)], env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_simt_enable_serves_numba_cuda_mlir_cuda(python, fake_host):
    _run(python, SERVED, dict(fake_host, SIMT_ENABLE="1"))


def test_numba_enable_cudasim_serves_it_as_it_has_no_simulator(python, fake_host):
    _run(python, SERVED, dict(fake_host, NUMBA_ENABLE_CUDASIM="1"))


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="Numba is not installed")
def test_numba_enable_cudasim_leaves_numba_cuda_to_numbas_simulator(python, fake_host):
    _run(python, SERVED + """
from numba import cuda as numba_cuda
assert numba_cuda is not simt_cuda and numba_cuda.jit.__module__.startswith("numba.cuda.simulator")
""", dict(fake_host, NUMBA_ENABLE_CUDASIM="1"))


def test_simt_enable_0_wins_over_numba_enable_cudasim(python, fake_host):
    _run(python, NOT_SERVED, dict(fake_host, NUMBA_ENABLE_CUDASIM="1", SIMT_ENABLE="0"))
    _run(python, NOT_SERVED, fake_host)


@pytest.mark.skipif(importlib.util.find_spec("numba_cuda_mlir") is not None,
                    reason="numba-cuda-mlir is installed")
def test_numba_enable_cudasim_without_such_a_host_installs_no_hook(python):
    _run(python, """
import simt.hook
assert not simt.hook.installed()
""", {"NUMBA_ENABLE_CUDASIM": "1"})


def test_which_hosts_the_environment_serves(python, fake_host):
    _run(python, """
from simt.base import hosts
served = hosts.served_by_environment
assert served({}) == () and served({"SIMT_ENABLE": "0", "SIMT_CHECK": "race"}) == ()
assert served({"SIMT_ENABLE": "1"}) == ("numba.cuda", "numba_cuda_mlir.cuda")
assert served({"SIMT_CHECK": "race"}) == served({"SIMT_ENABLE": "1"})
assert served({"NUMBA_ENABLE_CUDASIM": "1"}) == ("numba_cuda_mlir.cuda",)
assert served({"NUMBA_ENABLE_CUDASIM": "0"}) == ()
assert [h.cuda_module for h in hosts.HOSTS if not h.has_simulator] == ["numba_cuda_mlir.cuda"]
""", fake_host)


def test_submodules_are_simts(python, fake_host):
    _run(python, SERVED + """
import numba_cuda_mlir.cuda.libdevice as libdevice
from numba_cuda_mlir.cuda import libdevice as libdevice_from
import simt.libdevice, simt.memory.driver, simt.types
assert libdevice is libdevice_from is simt.libdevice
import numba_cuda_mlir.cuda.cudadrv.driver as driver
from numba_cuda_mlir.cuda.cudadrv import devicearray
assert driver is simt.memory.driver and devicearray.DeviceNDArray is cuda.DeviceNDArray
from numba_cuda_mlir.cuda.types import float32
from numba_cuda_mlir.cuda import types
assert types is simt.types and float32 is simt.types.float32
from numba_cuda_mlir.cuda.shared import array
from numba_cuda_mlir.cuda.fp16 import hadd
from numba_cuda_mlir.cuda.vector_types import float32x4
import numba_cuda_mlir.cuda.local
assert array is cuda.shared.array and hadd is cuda.fp16.hadd and float32x4 is cuda.float32x4
assert numba_cuda_mlir.cuda.local is cuda.local
import simt.fp8
from numba_cuda_mlir.numba_cuda._internal.cuda_fp8 import fp8_e4m3
import numba_cuda_mlir.numba_cuda.fp8 as fp8
assert fp8 is simt.fp8 and fp8_e4m3 is simt.fp8.fp8_e4m3
""", dict(fake_host, SIMT_ENABLE="1"))


def test_submodules_simt_has_none_for_are_a_clear_import_error(python, fake_host):
    _run(python, SERVED + """
try:
    import numba_cuda_mlir.cuda.tensor_map
except ModuleNotFoundError as e:
    assert e.name == "numba_cuda_mlir.cuda.tensor_map", e.name
    assert "not available on the simulator" in str(e) and "cuda.random" in str(e), e
else:
    raise AssertionError("imported")
try:
    from numba_cuda_mlir.cuda import tensor_map
except ImportError as e:
    assert "tensor_map" in str(e), e
else:
    raise AssertionError("imported")
""", dict(fake_host, SIMT_ENABLE="1"))


def test_numba_cuda_mlir_names_of_the_cuda_package(python, fake_host):
    _run(python, SERVED + """
import simt.types
assert cuda.float32 is simt.types.float32 and cuda.void is simt.types.void
assert cuda.HAS_NUMBA is False and cuda.is_float16_supported()
assert cuda.local_array is cuda.local.array and cuda.shared_array is cuda.shared.array
for name in ("compile_cubin", "compile_mlir"):
    try:
        getattr(cuda, name)(lambda: None, "void()")
    except NotImplementedError as e:
        assert "NVIDIA's toolchain" in str(e) and name in str(e), e
    else:
        raise AssertionError(name)
""", dict(fake_host, SIMT_ENABLE="1"))


def test_install_after_numba_cuda_mlir_cuda_was_imported(python, fake_host):
    _run(python, """
import numba_cuda_mlir.cuda
assert numba_cuda_mlir.cuda.IS_NUMBA_CUDA_MLIR
import simt.hook
simt.hook.install()
""" + SERVED, fake_host)


def test_a_kernel_written_for_numba_cuda_mlir_runs(python, fake_host):
    out = _run(python, SERVED + """
import numpy as np
from numba_cuda_mlir.cuda import float32, local_array

@cuda.jit
def scale(a, out):
    i = cuda.grid(1)
    scratch = local_array(1, float32)
    if i < out.shape[0]:
        scratch[0] = cuda.ldcg(a, i) * float32(2)
        out[i] = scratch[0]

a = np.arange(100, dtype=np.float32)
out = np.zeros_like(a)
scale[4, 32](a, out)
assert (out == 2 * a).all(), out
print("ran")
""", dict(fake_host, NUMBA_ENABLE_CUDASIM="1"))
    assert "ran" in out


def test_numba_cuda_mlirs_type_objects_and_literal_unroll_in_kernels(python, fake_host):
    out = _run(python, SERVED + """
import numpy as np
from numba_cuda_mlir import types

@cuda.jit
def halve(x):
    scratch = cuda.local.array(1, types.float32)
    scratch[0] = types.float32(x[0]) / 2
    x[0] = scratch[0]

x = np.array([3.0])
halve[1, 1](x)
assert x[0] == 1.5, x

from numba_cuda_mlir.cuda import literal_unroll

@cuda.jit
def total(out):
    for value in literal_unroll((1, 2.5, 3)):
        out[0] += value

out = np.zeros(1)
total[1, 1](out)
assert out[0] == 6.5, out
print("ran")
""", dict(fake_host, SIMT_ENABLE="1"))
    assert "ran" in out


@pytest.mark.skipif(importlib.util.find_spec("numba_cuda") is not None,
                    reason="numba-cuda installed: simt.cuda also lends its package's names")
def test_random_is_simts_without_numba(python, fake_host):
    out = _run(python, SERVED + """
import numpy as np
import simt.random
from numba_cuda_mlir.cuda.random import (create_xoroshiro128p_states,
                                         xoroshiro128p_uniform_float32)
assert cuda.random is simt.random and "numba" not in sys.modules

@cuda.jit
def draw(states, out):
    i = cuda.grid(1)
    out[i] = xoroshiro128p_uniform_float32(states, i)

states = create_xoroshiro128p_states(64, seed=1, subsequence_start=2)
out = np.zeros(64, np.float32)
draw[2, 32](states, out)
assert 0.4 < out.mean() < 0.6 and len(set(out)) == 64, out
print("ran")
""", dict(fake_host, NUMBA_ENABLE_CUDASIM="1"))
    assert "ran" in out


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="Numba is not installed")
def test_random_gives_numbas_numbers(python, tmp_path):
    # Numba's CPU-initialised states and its device functions, against simt.random's
    _run(python, """
import numpy as np
import simt.hook
simt.hook.install()
from numba import cuda
import numba.cuda.random as numbas
import simt.random as simts
for n, seed, start in ((1, 0, 0), (100, 42, 3)):
    assert (numbas.create_xoroshiro128p_states(n, seed, start).copy_to_host() ==
            simts.create_xoroshiro128p_states(n, seed, start).copy_to_host()).all()

def draws(module):
    @cuda.jit
    def draw(states, out):
        i = cuda.grid(1)
        out[0, i] = module.xoroshiro128p_uniform_float32(states, i)
        out[1, i] = module.xoroshiro128p_uniform_float64(states, i)
        out[2, i] = module.xoroshiro128p_normal_float32(states, i)
        out[3, i] = module.xoroshiro128p_normal_float64(states, i)
    out = np.zeros((4, 64))
    draw[2, 32](simts.create_xoroshiro128p_states(64, seed=9), out)
    return out

assert (draws(numbas) == draws(simts)).all()
""", {})


def test_a_launch_with_numba_cuda_mlirs_cluster_value(python, fake_host):
    _run(python, SERVED + """
import numpy as np

@cuda.jit
def one(a):
    a[cuda.grid(1)] = 1

a = np.zeros(8)
one[2, 4, 0, 0, (1, 1, 1)](a)
one.configure(2, 4, cluster=None)(a)
assert (a == 1).all()
try:
    one[2, 4, 0, 0, 2](a)
except NotImplementedError as e:
    assert "thread block clusters (cluster=2)" in str(e), e
else:
    raise AssertionError("launched")
""", dict(fake_host, SIMT_ENABLE="1"))


# The real numba-cuda-mlir (it needs no Numba and, for these, no GPU).
needs_numba_cuda_mlir = pytest.mark.skipif(importlib.util.find_spec("numba_cuda_mlir") is None,
                                           reason="numba-cuda-mlir is not installed")

VECTOR_ADD = """
import sys
import numpy as np
from numba_cuda_mlir import cuda
from simt import cuda as simt_cuda
assert cuda is simt_cuda

@cuda.jit
def vector_add(a, b, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] + b[i]

n = 1000
a = np.ones(n, dtype=np.float32)
out = np.zeros(n, dtype=np.float32)
vector_add[(n + 255) // 256, 256](a, a, out)
assert (out == 2).all()
assert "numba" not in sys.modules
print("ran")
"""


@needs_numba_cuda_mlir
@pytest.mark.parametrize("variable", ["SIMT_ENABLE", "NUMBA_ENABLE_CUDASIM"])
def test_the_real_numba_cuda_mlir_quick_start_runs_on_simt(python, variable):
    assert "ran" in _run(python, VECTOR_ADD, {variable: "1"})


@needs_numba_cuda_mlir
def test_the_real_numba_cuda_mlirs_types_in_signatures(python):
    _run(python, SERVED + """
import numpy as np
from numba_cuda_mlir import types

@cuda.jit(types.void(types.float32[::1], types.int32))
def fill(x, n):
    i = cuda.grid(1)
    if i < n:
        x[i] = types.float32(i) * 2

x = np.zeros(8, np.float32)
fill[1, 8](x, 8)
assert (x == 2 * np.arange(8)).all(), x
""", {"SIMT_ENABLE": "1"})


@needs_numba_cuda_mlir
def test_the_real_numba_cuda_mlir_keeps_its_own_modules(python):
    _run(python, SERVED + """
import numba_cuda_mlir
assert numba_cuda_mlir.carray is not None  # the package itself stays numba-cuda-mlir's
import numba_cuda_mlir.numba_cuda.cudadrv.driver as its_driver
import simt.memory.driver
assert its_driver is not simt.memory.driver
""", {"SIMT_ENABLE": "1"})


@needs_numba_cuda_mlir
def test_the_real_numba_cuda_mlirs_device_queries_see_the_simulated_device(python):
    # Its test helpers (cc_X_or_above, skip_unless_cc_60) and tools ask its cudadrv.devices,
    # which would reach NVIDIA's driver and, without a GPU, skip every CC-gated test.
    _run(python, SERVED + """
import simt.memory.device
from numba_cuda_mlir.numba_cuda.cudadrv import devices
import numba_cuda_mlir.numba_cuda.cudadrv.devices as devices_by_name
assert devices is devices_by_name is simt.memory.device
from numba_cuda_mlir.numba_cuda import testing
from numba_cuda_mlir import tools
cc = tuple(simt.memory.device.get_current_device().compute_capability)
assert testing._get_device_compute_capability() == cc and testing.cc_X_or_above(*cc)
assert tools.get_gpu_compute_capability(tuple) == cc
""", {"NUMBA_ENABLE_CUDASIM": "1"})

def test_kernels_spell_types_and_arrays_as_numba_cuda_mlir_does(python, fake_host):
    # cuda.float32(x), cuda.shared_array, cuda.local_array: numba-cuda-mlir's package names.
    out = _run(python, SERVED + """
import numpy as np

@cuda.jit
def kernel(x, out):
    i = cuda.grid(1)
    tile = cuda.shared_array(32, cuda.float32)
    scratch = cuda.local_array(2, dtype=cuda.int32)
    tile[cuda.threadIdx.x] = cuda.float32(x[i]) * 2
    scratch[0] = cuda.int32(3)
    cuda.syncthreads()
    out[i] = tile[31 - cuda.threadIdx.x] + scratch[0]

x = np.arange(32.0)
out = np.zeros(32)
kernel[1, 32](x, out)
assert (out == (31 - x) * 2 + 3).all(), out
print("ran")
""", dict(fake_host, SIMT_ENABLE="1"))
    assert "ran" in out


def test_annotations_are_signatures_under_numba_cuda_mlir(python, fake_host):
    out = _run(python, SERVED + """
import numpy as np

@cuda.jit
def copy(a: cuda.float32[:], b: cuda.float32[:]):
    i = cuda.grid(1)
    if i < a.size:
        b[i] = a[i]

assert [str(t) for t in copy.signatures[0]] == ["array(float32, 1d, A)"] * 2, copy.signatures
a = np.arange(4, dtype=np.float32)
b = np.zeros_like(a)
copy[1, 4](a, b)
assert (a == b).all()
try:
    copy[1, 4](a.astype(np.float64), b)
except TypeError as e:
    assert "No matching definition" in str(e)
else:
    raise AssertionError("float64 taken by a float32[:] annotation")
try:
    @cuda.jit("void(float32[:], float32[:])")
    def both(a: cuda.float32[:], b: cuda.float32[:]):
        pass
except TypeError as e:
    assert "Conflicting signature sources" in str(e)
else:
    raise AssertionError("a signature and annotations both taken")

@cuda.jit(annotations_as_signatures=False)
def loose(a: cuda.float32[:], b: cuda.float32[:]):
    b[0] = a[0]

@cuda.jit
def partly(a: cuda.float32[:], b):
    b[0] = a[0]

loose[1, 1](a.astype(np.float64), b.astype(np.float64))
partly[1, 1](a, b.astype(np.float64))
assert len(loose.signatures) == 1 and len(partly.signatures) == 1
print("ran")
""", dict(fake_host, SIMT_ENABLE="1"))
    assert "ran" in out
