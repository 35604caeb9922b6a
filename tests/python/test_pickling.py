"""Pickling @cuda.jit dispatchers and CUDA (g)ufuncs (simt.compiler.pickling), as Numba's pickle:
the Python function by value with its source text, so an unpickled kernel compiles again wherever
it is loaded, also where its file is not."""
import pickle
import textwrap

import numpy as np

from conftest import run_python
from simt import cuda
from simt.vectorizers import guvectorize, vectorize


def test_a_kernel_and_its_device_function_pickle_by_value():
    @cuda.jit(device=True)
    def inner(a):
        return a * 3 + 1

    @cuda.jit
    def kernel(arr):
        i = cuda.grid(1)
        if i < arr.size:
            arr[i] = inner(arr[i])

    arr = np.arange(10)
    again = pickle.loads(pickle.dumps(kernel))
    assert again is not kernel and again.py_func.__name__ == "kernel"
    again[1, 16](arr)
    assert arr.tolist() == [3 * v + 1 for v in range(10)]
    twice = pickle.loads(pickle.dumps(again))  # an unpickled one pickles again
    twice[1, 16](arr)
    assert arr.tolist() == [3 * (3 * v + 1) + 1 for v in range(10)]


def test_explicit_signatures_and_a_launch_configuration_survive():
    @cuda.jit("void(float32[:], float32)")
    def scale(x, factor):
        i = cuda.grid(1)
        if i < x.size:
            x[i] *= factor

    configured = pickle.loads(pickle.dumps(scale[5, 8]))
    assert configured.griddim == (5, 1, 1) and configured.blockdim == (8, 1, 1)
    assert [str(s) for s in configured.dispatcher.signatures] == [
        str(s) for s in scale.signatures]
    x = np.ones(40, np.float32)
    configured(x, 2.5)
    assert np.all(x == 2.5)


def test_ufuncs_and_gufuncs_pickle():
    @vectorize(["int64(int64)", "float64(float64)"], target="cuda")
    def twice(x):
        return x * 2

    @guvectorize(["void(float64[:], float64[:])"], "(n)->()", target="cuda")
    def total(row, out):
        s = 0.0
        for v in row:
            s += v
        out[0] = s

    ints, floats = np.arange(10), np.linspace(0, 1, 7)
    rows = np.arange(12.0).reshape(3, 4)
    for _ in range(2):  # and their unpickled copies pickle again
        twice, total = pickle.loads(pickle.dumps((twice, total)))
        assert twice(ints).tolist() == (ints * 2).tolist()
        np.testing.assert_array_equal(twice(floats), floats * 2)
        np.testing.assert_array_equal(total(rows), rows.sum(axis=1))


def test_an_unpickled_kernel_needs_no_source_file(tmp_path):
    # Pickled by one process from a module file, which is then deleted; another process, which
    # never saw the file, loads and launches the kernel.
    module = tmp_path / "gone.py"
    module.write_text(textwrap.dedent("""\
        from simt import cuda

        def make():
            @cuda.jit
            def fill(out, value):
                i = cuda.grid(1)
                if i < out.size:
                    out[i] = value + i
            return fill
        """))
    pickled = tmp_path / "fill.pickle"
    maker = run_python(["-c", "import pickle, sys; sys.path.insert(0, %r); import gone; "
                        "open(%r, 'wb').write(pickle.dumps(gone.make()))"
                        % (str(tmp_path), str(pickled))])
    assert maker.returncode == 0, maker.stderr
    module.unlink()
    user = run_python(["-c", "import pickle, numpy as np; fill = pickle.loads(open(%r, 'rb')"
                       ".read()); out = np.zeros(5); fill[1, 8](out, 10.0); print(out.tolist())"
                       % str(pickled)])
    assert user.returncode == 0, user.stderr
    assert user.stdout.strip() == "[10.0, 11.0, 12.0, 13.0, 14.0]"


def test_without_numba_a_module_level_kernel_pickles_by_reference(tmp_path):
    (tmp_path / "kernels.py").write_text(textwrap.dedent("""\
        from simt import cuda

        @cuda.jit
        def add_one(out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] += 1
        """))
    script = textwrap.dedent("""\
        import pickle, sys
        sys.modules["numba"] = None  # no Numba (and so no cloudpickle) in this process
        sys.path.insert(0, %r)
        import numpy as np
        import kernels
        from simt import cuda
        again = pickle.loads(pickle.dumps(kernels.add_one))
        out = np.zeros(3)
        again[1, 4](out)
        print(again is kernels.add_one, out.tolist())

        def local():
            @cuda.jit
            def k(out):
                out[0] = 1
            return k
        try:
            pickle.dumps(local())
        except pickle.PicklingError as error:
            print(error)
        """ % str(tmp_path))
    proc = run_python(["-c", script])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "True [1.0, 1.0, 1.0]"
    assert lines[1].startswith("simt: <simt.cuda.Dispatcher local.<locals>.k> is not a module's "
                               "global, so it pickles by value, which needs Numba's cloudpickle")
