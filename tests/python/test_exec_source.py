"""simt.base.exec_source: exec() and compile() of strings keep behaving as the builtins do, and keep
the text of the functions they define, so kernels generated from templates compile."""
from __future__ import annotations

import builtins

import numpy as np

from simt import cuda
from simt.base import exec_source


def test_the_builtins_are_wrapped_once_simt_cuda_is_imported():
    assert builtins.exec is exec_source._exec and builtins.compile is exec_source._compile


def test_exec_uses_the_callers_namespaces_and_future_flags():
    local = 5
    exec("result = local + 1")  # locals() of this frame, as the builtin's
    namespace = {}
    # This module's `from __future__ import annotations` is inherited: annotations stay text.
    exec("def f(x: undefined_name) -> int:\n    return x\n", namespace)
    assert namespace["f"].__annotations__ == {"x": "undefined_name", "return": "int"}
    code = compile("y: undefined_name = 1", "<string>", "exec", dont_inherit=True)
    try:
        exec(code, {})
        raise AssertionError("the annotation was evaluated lazily without the future flag")
    except NameError:
        pass
    assert local == 5


def test_text_is_kept_for_strings_not_for_files(tmp_path):
    namespace = {}
    exec(compile("def g(a):\n    a[0] = 3\n", "<generated>", "exec"), namespace)
    assert exec_source.lines_for(namespace["g"].__code__) == ["def g(a):\n", "    a[0] = 3\n"]
    path = tmp_path / "real.py"
    path.write_text("def h(a):\n    a[0] = 4\n")
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    assert exec_source.lines_for(namespace["h"].__code__) is None  # read from the file instead
    a = np.zeros(1)
    cuda.jit(namespace["g"])[1, 1](a)
    cuda.jit(namespace["h"])[1, 1](a[:])
    assert a[0] == 4


def test_template_generated_kernels_run():
    template = "def scale_{n}(r, x):\n    i = cuda.grid(1)\n    if i < r.size:\n" \
               "        r[i] = x[i] * {n}\n"
    x = np.arange(16.0)
    for n in (2, 3):
        namespace = {"cuda": cuda}
        exec(template.format(n=n), namespace)
        r = np.zeros_like(x)
        cuda.jit(namespace["scale_%d" % n])[1, 16](r, x)
        np.testing.assert_array_equal(r, x * n)
