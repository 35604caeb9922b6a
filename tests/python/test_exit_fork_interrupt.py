"""Issue 24: the process's edges around compiles and launches. Interpreter exit while daemon
threads are inside a launch or a compile, fork() while another thread compiles, and Ctrl-C during
a compile. Each probe runs in a subprocess and asserts on its exit status and output."""
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from conftest import STAGE

# A kernel of `n` statements, in a file of its own (kernels need their source), compiled on demand.
KERNEL_FACTORY = """
import importlib.util, os, tempfile
folder = tempfile.mkdtemp()

def kernel_of(n, salt):
    body = "".join("    out[%d] = a[%d] * %d.0 + math.sin(a[%d])\\n"
                   % (i % 64, i % 64, i + salt, (i * 7) % 64) for i in range(n))
    path = os.path.join(folder, "k%d_%d.py" % (n, salt))
    with open(path, "w") as f:
        f.write("import math\\nfrom simt import cuda\\n@cuda.jit\\ndef k(out, a):\\n" + body)
    spec = importlib.util.spec_from_file_location("k%d_%d" % (n, salt), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.k
"""


def run_probe(python, source, env=None):
    return python(["-c", KERNEL_FACTORY + textwrap.dedent(source)], env=env)


def assert_clean_exit(result):
    assert result.returncode == 0, result.stderr
    assert "Exception in thread" not in result.stderr
    assert "terminate called" not in result.stderr and "FATAL" not in result.stderr


@pytest.mark.parametrize("tier", ["quick", "full"])
def test_exit_while_a_daemon_thread_runs_a_launch(python, tier):
    probe = """
        import threading, time
        import numpy as np
        from simt import cuda

        @cuda.jit
        def forever(out, n):
            k = 0
            while n > 0:
                k = (k * 3 + 1) % 1000003
            out[cuda.grid(1)] = k

        out = np.zeros(64 * 32)
        forever[64, 32](out, 0)
        started = threading.Event()
        def run():
            started.set()
            forever[64, 32](out, 1)
        threading.Thread(target=run, daemon=True).start()
        started.wait()
        time.sleep(0.2)
        print("main exits")
    """
    for _ in range(4):  # static destructors unmapped running code in 8 runs of 8
        result = run_probe(python, probe, {"SIMT_OPT_TIER": tier})
        assert_clean_exit(result)
        assert "main exits" in result.stdout


def test_exit_while_a_daemon_thread_compiles(python):
    probe = """
        import threading, time
        started = threading.Event()
        def compile_forever():
            kernel = kernel_of(3000, 0)
            started.set()
            import numpy as np
            kernel[1, 1](np.zeros(64), np.ones(64))
        threading.Thread(target=compile_forever, daemon=True).start()
        started.wait()
        time.sleep(0.3)
        print("main exits")
    """
    for _ in range(3):
        result = run_probe(python, probe, {"SIMT_OPT_TIER": "full", "SIMT_CACHE": "0"})
        assert_clean_exit(result)
        assert "main exits" in result.stdout


def test_exit_waits_for_a_compile_calling_into_python(python):
    # The daemon thread's compile is inside Python (resolving a module attribute, which sleeps)
    # when the main thread exits. Python would end that thread when it wants the GIL back by
    # unwinding it through the compiler's frames, whose destructors then release Python objects
    # without the GIL while the main thread collects garbage (a crash at exit, now and then).
    # Exit waits for the compile instead: the attribute's lookup finishes after "main exits".
    probe = """
        import os, sys, tempfile, threading, time
        import numpy as np
        folder = tempfile.mkdtemp()
        with open(os.path.join(folder, "slow_module.py"), "w") as f:
            f.write("import time\\n"
                    "def __getattr__(name):\\n"
                    "    if name != 'SCALE':\\n"
                    "        raise AttributeError(name)\\n"
                    "    time.sleep(1.0)\\n"
                    "    print('resolved', flush=True)\\n"
                    "    return 3.0\\n")
        with open(os.path.join(folder, "slow_kernel.py"), "w") as f:
            f.write("from simt import cuda\\nimport slow_module\\n"
                    "@cuda.jit\\ndef k(out):\\n    out[0] = slow_module.SCALE\\n")
        sys.path.insert(0, folder)
        import slow_kernel
        threading.Thread(target=lambda: slow_kernel.k[1, 1](np.zeros(1)), daemon=True).start()
        time.sleep(0.3)
        print("main exits", flush=True)
    """
    result = run_probe(python, probe, {"SIMT_CACHE": "0"})
    assert_clean_exit(result)
    assert result.stdout.startswith("main exits\nresolved\n"), result.stdout


def test_fork_while_another_thread_compiles(python):
    probe = """
        import os, signal, threading, time
        import numpy as np

        stop = False
        def compile_many():
            salt = 0
            while not stop:
                kernel_of(40, salt)[1, 1](np.zeros(64), np.ones(64))
                salt += 1
        threading.Thread(target=compile_many, daemon=True).start()
        hung = 0
        for n in range(60):
            time.sleep(0.005)
            # Loaded before the fork: a child importing while the other thread imports could
            # wait for importlib's locks, which are Python's, not simt's.
            kernel = kernel_of(40, 100000 + n)
            pid = os.fork()
            if pid == 0:  # a child compiles and launches: no lock of the parent's compile held
                kernel[1, 1](np.zeros(64), np.ones(64))
                os._exit(0)
            deadline = time.time() + 60
            while not os.waitpid(pid, os.WNOHANG)[0]:
                if time.time() > deadline:
                    hung += 1
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    break
                time.sleep(0.002)
        stop = True
        print("children hung:", hung)
    """
    result = run_probe(python, probe, {"SIMT_CACHE": "0"})
    assert result.returncode == 0, result.stderr
    assert "children hung: 0" in result.stdout


@pytest.mark.parametrize("phase", ["frontend", "llvm"])
def test_ctrl_c_stops_a_compile(phase):
    # The child measures an uninterrupted compile, then compiles an equal kernel and has the
    # parent interrupt it early: in the frontend's typing, or in LLVM's optimisation. (compile_ptx
    # polls between its passes too, but for kernels this large NVPTX's code generation, which
    # cannot be interrupted, takes most of its time.)
    probe = KERNEL_FACTORY + textwrap.dedent("""
        import sys, time
        import numpy as np
        out, a = np.zeros(64), np.ones(64)
        def compile(kernel):
            kernel[1, 1](out, a)
        start = time.time()
        compile(kernel_of(2500, 0))
        whole = time.time() - start
        kernel = kernel_of(2500, 1)
        print("compiling", whole, flush=True)
        start = time.time()
        try:
            compile(kernel)
            print("not interrupted")
        except KeyboardInterrupt:
            print("interrupted after", time.time() - start, "of", whole, flush=True)
        kernel_of(3, 2)[1, 1](out, a)  # the process goes on compiling
        print("compiles again", out[0])
    """)
    env = dict(os.environ, PYTHONPATH=STAGE, SIMT_OPT_TIER="full", SIMT_CACHE="0")
    child = subprocess.Popen([sys.executable, "-c", probe], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    line = child.stdout.readline()
    assert line.startswith("compiling"), line + child.stderr.read()
    whole = float(line.split()[1])
    # Typing takes a small part of the whole, LLVM's optimisation the next part, and its code
    # generation, which cannot be interrupted, the second half or so.
    import time
    time.sleep(0.02 if phase == "frontend" else whole * 0.25)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=300)
    assert child.returncode == 0, err
    assert "interrupted after" in out, out + err
    interrupted_after = float(out.split("interrupted after")[1].split()[0])
    assert interrupted_after < whole * 0.9, out  # it stopped, it did not finish first
    assert "compiles again" in out
