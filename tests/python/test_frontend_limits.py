"""Int constants as Numba sees them after CPython's constant folding: one folded past uint64 (or
below int64) is a CompileError naming its value, the expression and its line, where Numba raises
"Int value is too large"; one past int64 that fits uint64 is a uint64; one CPython does not fold
(past its 128-bit limit) computes at run time, wrapping as Numba's int64 does. A constant array
extent past int64 is too large, not "not constant"."""
import importlib.util

import numpy as np
import pytest
from simt import CompileError


def load(tmp_path, name, body, params="out, x"):
    path = tmp_path / (name + ".py")
    path.write_text("from simt import cuda\nimport numpy as np\n\n\n@cuda.jit\n"
                    "def kernel(%s):\n%s" % (params, body))
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kernel


def compile_error(tmp_path, name, body):
    kernel = load(tmp_path, name, body)
    with pytest.raises(CompileError) as error:
        kernel[1, 1](np.zeros(1, np.int64), 0)
    return str(error.value)


@pytest.mark.parametrize("expr,value", [
    ("2**64", "18446744073709551616"),
    ("1 << 100", "1267650600228229401496703205376"),
    ("x + 3 ** 41", "36472996377170786403"),
    ("-(2 ** 64)", "-18446744073709551616"),
    ("~(2 ** 64)", "-18446744073709551617"),
])
def test_an_int_folded_past_uint64_is_a_compile_error(tmp_path, expr, value):
    message = compile_error(tmp_path, "folded", "    out[0] = %s\n" % expr)
    assert 'folded.py:7:' in message, message
    assert "int value is too large: %s, the one constant CPython folds" % value in message
    assert "(Numba's int constants are int64 or uint64)" in message


def test_an_int_literal_past_uint64_is_a_compile_error(tmp_path):
    message = compile_error(tmp_path, "literal", "    y = x\n    out[0] = 18446744073709551616\n")
    assert "literal.py:8:14: error: int value is too large: 18446744073709551616 (Numba's int " \
           "constants are int64 or uint64)" in message, message


def test_ints_within_uint64_fold_and_type_as_numba_types_them(tmp_path):
    # 2**63 and 2**64 - 1 are uint64 constants; -(2**63) an int64; 2**65 and 10**40 are past
    # CPython's 128-bit folding limit: int64 arithmetic at run time (Numba gives 0 and the
    # wrapped value too)
    kernel = load(tmp_path, "fits", "    out[0] = 2**63\n    out[1] = 2**64 - 1\n"
                  "    out[2] = -(2**63)\n    out[3] = 2**65\n    out[4] = 10**40\n"
                  "    out[5] = 123456789012345678901234567890 - 123456789012345678901234567800\n",
                  params="out")
    out = np.zeros(6, np.uint64)
    kernel[1, 1](out)
    assert out.tolist() == [2**63, 2**64 - 1, 2**63, 0, (10**40) % 2**64, 90]


@pytest.mark.parametrize("kind", ["local", "shared"])
def test_a_constant_array_extent_past_int64_is_too_large(tmp_path, kind):
    message = compile_error(tmp_path, "extent_" + kind,
                            "    a = cuda.%s.array(2**70, np.int8)\n    out[0] = a[0]\n" % kind)
    assert "extent_%s.py:7:" % kind in message, message
    assert "array extent 1180591620717411303424 is too large (extents are int64)" in message


def test_elif_tests_run_only_after_the_tests_before_fail(tmp_path):
    # An elif chain is typed link by link (frontend/typer_stmt.cpp): what an elif's test needs
    # first (the middle operand of a comparison chain, evaluated once) runs only when the tests
    # before it failed, so a[i] is never read out of bounds; `t` is typed a round late.
    kernel = load(tmp_path, "elifs",
                  "    t = 0\n"
                  "    for i in range(n):\n"
                  "        if i >= a.size:\n"
                  "            r = -1.0\n"
                  "        elif 0 <= a[i] * 2 < 10:\n"
                  "            r = a[i] * 2.0\n"
                  "        elif t > 5:\n"
                  "            r = t\n"
                  "        elif 1 == 2:\n"
                  "            r = 7.0\n"
                  "        else:\n"
                  "            r = 100.0\n"
                  "        t = a[i % a.size] * 1.5\n"
                  "        out[i] = r\n",
                  params="out, a, n")
    a = np.array([1, 20, 3, 30, -4, 2])
    out, expected = np.zeros(9), np.zeros(9)
    kernel[1, 1](out, a, 9)
    kernel.py_func(expected, a, 9)
    np.testing.assert_array_equal(out, expected)
