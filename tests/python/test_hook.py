"""The import hook, `python3 -m simt run`, the `simt` command and the start-up .pth file."""
import os
import shutil
import textwrap

from conftest import REPO, STAGE, run_python

CHECK_SUBSTITUTION = """
import numba
from numba import cuda
import numba.cuda
import simt
from simt import cuda as simt_cuda
assert cuda is simt_cuda, cuda
assert numba.cuda is simt_cuda
from numba.cuda import jit, grid
assert jit is simt_cuda.jit and grid is simt_cuda.grid
assert numba.cuda.is_available() and numba.cuda.is_simt
assert str(numba.float32) == "float32" and type(numba.float32).__module__.startswith("numba")
print("substituted")
"""


def _script(tmp_path, text, name="script.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_hook_install_substitutes_numba_cuda():
    proc = run_python(["-c", "import simt.hook; simt.hook.install()\n" + CHECK_SUBSTITUTION])
    assert proc.returncode == 0, proc.stderr
    assert "substituted" in proc.stdout


def test_hook_install_after_numba_cuda_was_imported():
    proc = run_python(["-c", "import numba.cuda; import simt.hook; simt.hook.install()\n" +
                       CHECK_SUBSTITUTION], env={"NUMBA_ENABLE_CUDASIM": "1"})
    assert proc.returncode == 0, proc.stderr


def test_without_the_hook_numba_cuda_is_numbas():
    proc = run_python(["-c", "import simt; from numba import cuda; "
                       "assert not getattr(cuda, 'is_simt', False)"],
                      env={"NUMBA_ENABLE_CUDASIM": "1"})
    assert proc.returncode == 0, proc.stderr


def test_simt_enable_through_the_pth_file():
    assert os.path.exists(os.path.join(STAGE, "simt-enable.pth"))
    code = "import site; site.addsitedir(%r)\n" % STAGE + CHECK_SUBSTITUTION
    proc = run_python(["-c", code], env={"SIMT_ENABLE": "1"})
    assert proc.returncode == 0, proc.stderr
    proc = run_python(["-c", "import site, sys; site.addsitedir(%r); "
                       "assert 'simt.cuda' not in sys.modules; "
                       "from numba import cuda; assert not hasattr(cuda, 'is_simt')" % STAGE],
                      env={"SIMT_ENABLE": "0", "NUMBA_ENABLE_CUDASIM": "1"})
    assert proc.returncode == 0, proc.stderr


def test_pth_hook_imports_nothing_heavy_at_start_up():
    code = ("import site, sys; site.addsitedir(%r); "
            "assert 'numpy' not in sys.modules and 'numba' not in sys.modules, "
            "sorted(m for m in sys.modules if m.startswith(('numpy', 'numba', 'simt')))" % STAGE)
    proc = run_python(["-c", code], env={"SIMT_ENABLE": "1"})
    assert proc.returncode == 0, proc.stderr


def test_python_m_simt_run_runs_the_script_as_main(tmp_path):
    script = _script(tmp_path, """
        import sys
        if __name__ == "__main__":
    """ + textwrap.indent(CHECK_SUBSTITUTION, "            ") + """
            print("argv", sys.argv)
            sys.exit(3)
        """)
    proc = run_python(["-m", "simt", "run", script, "a", "--b"])
    assert proc.returncode == 3, proc.stderr
    assert "substituted" in proc.stdout
    assert "argv [%r, 'a', '--b']" % script in proc.stdout


def test_the_script_directory_is_importable(tmp_path):
    _script(tmp_path, "VALUE = 41\n", name="helper_module.py")
    script = _script(tmp_path, "import helper_module\nprint(helper_module.VALUE + 1)\n")
    proc = run_python(["-m", "simt", "run", script])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "42"


def test_simt_command(tmp_path):
    source = os.path.join(REPO, "python", "simt-cli")
    assert os.access(source, os.X_OK)
    with open(source) as f:
        assert f.readline().strip() == "#!/usr/bin/python3"
    # Run it from a folder of its own, as installed: beside the source package it would import
    # that (unbuilt) package instead of the staged one.
    cli = str(tmp_path / "simt")
    shutil.copy(source, cli)
    proc = run_python([cli, "--version"])
    assert proc.returncode == 0 and proc.stdout.startswith("simt 0.")
    for command in ("run", "debug"):
        proc = run_python([cli, command, "x.py"])
        assert proc.returncode == 2
        assert "simt: cannot open x.py" in proc.stderr
    script = _script(tmp_path, CHECK_SUBSTITUTION)
    proc = run_python([cli, "run", script])
    assert proc.returncode == 0, proc.stderr
    assert "substituted" in proc.stdout
    proc = run_python([cli, "frobnicate"])
    assert proc.returncode == 2


def test_numba_cuda_random_imports_under_the_hook():
    code = ("import simt.hook; simt.hook.install()\n"
            "from numba.cuda.random import create_xoroshiro128p_states, "
            "xoroshiro128p_uniform_float32\n"
            "import numba.cuda.random as r\n"
            "states = create_xoroshiro128p_states(8, seed=1)\n"
            "from numba import cuda\n"
            "assert isinstance(states, cuda.DeviceNDArray) and states.shape == (8,)\n"
            "assert len(set(states.copy_to_host()['s0'])) == 8\n")
    proc = run_python(["-c", code])
    assert proc.returncode == 0, proc.stderr


def test_simt_cuda_works_without_numba(tmp_path):
    script = _script(tmp_path, """
        import sys
        sys.modules["numba"] = None  # as if Numba were not installed
        import numpy as np
        import simt
        from simt import cuda

        @cuda.jit(simt.void(simt.float32[::1], simt.float32))
        def fill(a, v):
            i = cuda.grid(1)
            if i < a.size:
                a[i] = v

        a = np.zeros(5, np.float32)
        fill[1, 8](a, 2.5)
        assert a.tolist() == [2.5] * 5, a
        print("ok")
        """)
    proc = run_python([script])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_kernels_exec_d_before_numba_cuda_is_imported_keep_their_source(tmp_path):
    # exec(open(script).read()) of a script that imports numba.cuda itself: the hook wraps exec
    # at start-up, so the kernel's text is kept though simt.cuda was not imported yet.
    script = _script(tmp_path, """
        import simt.hook
        simt.hook.install()
        import numpy as np
        source = "from numba import cuda\\n@cuda.jit\\ndef k(a):\\n    a[0] = 1\\n"
        exec(source)
        a = np.zeros(1)
        k[1, 1](a)
        print(a[0])
        """)
    proc = run_python([script])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "1.0"
