"""Smoke test of the differential fuzzer (tests/python/fuzz): a few fixed seeds must generate the
same text every time and run alike on simt and on Numba's simulator."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz"))
import generate  # noqa: E402
import run  # noqa: E402
from simt.base.numpy_compat import NUMPY2  # noqa: E402

SEEDS = range(20)


def test_generator_is_deterministic_and_compiles_as_python():
    for seed in SEEDS:
        src = generate.generate(seed)
        assert src == generate.generate(seed)
        compile(src, "fz_%d.py" % seed, "exec")
    assert generate.generate(0) != generate.generate(1)


@pytest.mark.skipif(NUMPY2, reason="Numba's simulator computes with NumPy scalars, whose NumPy 2 "
                    "promotion (NEP 50) is not Numba's typing: it is no oracle there")
def test_fixed_seeds_match_numba_simulator(tmp_path):
    results = run.run_sources({"fz_%d" % s: generate.generate(s) for s in SEEDS}, str(tmp_path))
    assert sorted(results) == sorted("fz_%d" % s for s in SEEDS)
    mismatches = {stem: diffs for stem, diffs in results.items() if diffs}
    assert not mismatches


def test_comparison_reports_value_dtype_and_error_differences():
    import numpy as np
    a = {"x": np.array([1.0, 2.0])}
    assert run.compare(a, {"x": np.array([1.0, 2.0])}) == []
    assert run.compare(a, {"x": np.array([1.0, 2.5])})[0].startswith("x: 1 differ")
    assert "float32" in run.compare(a, {"x": np.array([1.0, 2.0], np.float32)})[0]
    assert run.compare({"error": np.array("ZeroDivisionError: x")},
                       {"error": np.array("ZeroDivisionError: y")}) == []
    assert run.compare({"error": np.array("IndexError: x")}, a)[0].startswith("error:")


@pytest.mark.parametrize("lines, expected", [
    (["def k():", "    if a:", "        b = 1", "    c = 2"], ["def k():", "    c = 2"]),
])
def test_minimiser_deletes_whole_statements(lines, expected):
    k, end = run.statements(lines)[0]
    assert run.delete(lines, k, end) == expected
