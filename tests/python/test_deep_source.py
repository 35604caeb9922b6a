"""Deep and long kernel source never crashes the compiler: chains CPython compiles (a 9,000-term
comparison, 20,000-term and/or, a 10,000-term sum, a 1,001-branch elif) compile and run correctly,
as does a 1,500-deep chain of device functions; nesting past simt's limit (a 4,000-deep chain of
device functions) is a CompileError naming the limit. The modules load on the main thread (CPython
compiles long chains only under a raised recursion limit); every kernel then compiles on a Python
thread with a 256 KiB stack (simt compiles on a stack of its own), all in one subprocess, so a
crash is an exit status, never the test process."""
import json
import textwrap

import pytest

PROBES = textwrap.dedent('''
    import importlib.util, json, os, sys, threading
    import numpy as np
    import simt.hook; simt.hook.install()
    from numba import cuda

    sys.setrecursionlimit(100000)

    def load(name, source):
        path = os.path.join(sys.argv[1], name + ".py")
        with open(path, "w") as f:
            f.write("from numba import cuda\\nimport numpy as np\\n" + source)
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

    def device_chain(name, depth):
        source = "@cuda.jit(device=True)\\ndef %s0(x):\\n    return x + 1\\n" % name
        for i in range(1, depth):
            source += ("@cuda.jit(device=True)\\ndef %s%d(x):\\n    return %s%d(x) + 1\\n"
                       % (name, i, name, i - 1))
        return source + "@cuda.jit\\ndef k(out, x):\\n    out[0] = %s%d(x)\\n" % (name, depth - 1)

    def elif_chain(branches):
        source = "@cuda.jit\\ndef k(out, x):\\n    if x == 0:\\n        out[0] = 7\\n"
        for i in range(1, branches):
            source += "    elif x == %d:\\n        out[0] = %d\\n" % (i, i * 3)
        return source + "    else:\\n        out[0] = -1\\n"

    # loaded here, on the main thread: CPython's compiler recurses once per operator and elif
    modules = {
        # x < y > x < y > ... : true exactly when x < y, each middle operand read once
        "cmp": load("cmp", "@cuda.jit\\ndef k(out, x, y):\\n    out[0] = " +
                    chain("x < y", ">", 4500) + "\\n"),
        "andor": load("andor", "@cuda.jit\\ndef k(out, x, y):\\n    out[0] = " +
                      chain("x", "and", 20000) + " and y\\n    out[1] = " +
                      chain("x", "or", 20000) + " or y\\n"),
        "sum": load("sum", "@cuda.jit\\ndef k(out, x):\\n    out[0] = " + chain("x", "+", 10000) +
                    "\\n    out[1] = (" + chain("x", "-", 9999) + ") * 3\\n"),
        "elif": load("elif", elif_chain(1001)),
        "calls": load("calls", device_chain("f", 1500)),
        "calls_deep": load("calls_deep", device_chain("g", 4000)),
    }

    def probes():
        results = {}
        m = modules
        results["cmp"] = [launch(m["cmp"].k, 1, 2), launch(m["cmp"].k, 2, 1)]
        results["andor"] = [launch(m["andor"].k, 3, 5), launch(m["andor"].k, 0, 5)]
        results["sum"] = launch(m["sum"].k, 2)
        results["elif"] = [launch(m["elif"].k, x)[0] for x in (0, 1, 999, 1000, 1001, -5)]
        results["calls"] = launch(m["calls"].k, 2)
        results["calls_deep"] = launch(m["calls_deep"].k, 0)
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


def test_long_sum_compiles_and_runs(results):
    # 10,000 x's; x - x - ... (9,999 terms) is x - 9,998 x
    assert results["sum"] == [20000, (2 - 9998 * 2) * 3]


def test_long_elif_chain_compiles_and_runs(results):
    assert results["elif"] == [7, 3, 2997, 3000, -1, -1]


def test_long_device_function_chain_compiles_and_runs(results):
    assert results["calls"] == [1502, 0]


def test_nesting_past_the_limit_is_a_compile_error(results):
    message = results["calls_deep"]
    assert message.startswith("CompileError: "), message
    assert "too deeply nested (more than 6000 levels" in message, message
    assert "calls_deep.py:" in message and "^" in message, message
