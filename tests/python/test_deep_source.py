"""Deep and long kernel source never crashes the compiler: chains CPython compiles (a 9,000-term
comparison, 20,000-term and/or) compile and run correctly; nesting past simt's limit (a long
left-associative sum, a 2,000-deep chain of device functions) is a CompileError naming the limit.
Every probe runs in one subprocess, on a Python thread with a 256 KiB stack (simt compiles on a
stack of its own), so a crash is an exit status, never the test process."""
import json
import textwrap

import pytest

PROBES = textwrap.dedent('''
    import importlib.util, json, os, sys, threading
    import numpy as np
    import simt.hook; simt.hook.install()
    from numba import cuda

    def load(name, source):
        path = os.path.join(sys.argv[1], name + ".py")
        with open(path, "w") as f:
            f.write("from numba import cuda\\n" + source)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    def launch(kernel, *args):
        out = np.zeros(2, np.int64)
        try:
            kernel[1, 1](out, *args)
            return out.tolist()
        except Exception as e:
            return "%s: %s" % (type(e).__name__, e)

    def chain(operand, op, terms):
        return (" %s " % op).join([operand] * terms)

    def probes():
        results = {}
        # x < y > x < y > ... : true exactly when x < y, each middle operand read once
        m = load("cmp", "@cuda.jit\\ndef k(out, x, y):\\n    out[0] = " +
                 chain("x < y", ">", 4500) + "\\n")
        results["cmp"] = [launch(m.k, 1, 2), launch(m.k, 2, 1)]
        m = load("andor", "@cuda.jit\\ndef k(out, x, y):\\n    out[0] = " + chain("x", "and", 20000) +
                 " and y\\n    out[1] = " + chain("x", "or", 20000) + " or y\\n")
        results["andor"] = [launch(m.k, 3, 5), launch(m.k, 0, 5)]
        m = load("sum_ok", "@cuda.jit\\ndef k(out, x):\\n    out[0] = " + chain("x", "+", 900) + "\\n")
        results["sum_ok"] = launch(m.k, 2)
        m = load("sum_deep", "@cuda.jit\\ndef k(out, x):\\n    out[0] = " + chain("x", "+", 1500) + "\\n")
        results["sum_deep"] = launch(m.k, 2)
        devices = "@cuda.jit(device=True)\\ndef f0(x):\\n    return x + 1\\n"
        for i in range(1, 2000):
            devices += "@cuda.jit(device=True)\\ndef f%d(x):\\n    return f%d(x) + 1\\n" % (i, i - 1)
        m = load("calls", devices + "@cuda.jit\\ndef k(out, x):\\n    out[0] = f1999(x)\\n"
                 "@cuda.jit\\ndef k100(out, x):\\n    out[0] = f99(x)\\n")
        results["calls_deep"] = launch(m.k, 0)
        results["calls_100"] = launch(m.k100, 0)
        print(json.dumps(results))

    threading.stack_size(256 << 10)
    t = threading.Thread(target=probes)
    t.start()
    t.join()
''')


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    from conftest import run_python
    folder = tmp_path_factory.mktemp("deep")
    script = folder / "probes.py"
    script.write_text(PROBES)
    proc = run_python([str(script), str(folder)])
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_long_comparison_chain_compiles_and_runs(results):
    assert results["cmp"] == [[1, 0], [0, 0]]


def test_long_and_or_chains_compile_and_run(results):
    # Python: `3 and ... and 5` is 5, `3 or ...` is 3; `0 and ...` is 0, `0 or ... or 5` is 5
    assert results["andor"] == [[5, 3], [0, 5]]


def test_long_sum_within_the_limit_compiles(results):
    assert results["sum_ok"] == [1800, 0]


def test_nesting_past_the_limit_is_a_compile_error(results):
    for key in ("sum_deep", "calls_deep"):
        message = results[key]
        assert message.startswith("CompileError: "), message
        assert "too deeply nested (more than 1000 levels" in message, message
        assert ".py:" in message and "^" in message, message


def test_device_function_chain_within_the_limit_runs(results):
    assert results["calls_100"] == [100, 0]
