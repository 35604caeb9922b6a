"""A kernel runs the text Python imported: @cuda.jit captures the source when it is applied, so
editing the module's file afterwards (a live notebook) changes nothing until the module is
reloaded; a function jitted only after its file changed compiles from the text Python read, or
is refused with a clear error: never compiled from text that does not match its code."""
import glob
import importlib
import inspect
import itertools
import linecache
import os
import sys

import numpy as np
import pytest

from simt import cuda
from simt.base import source
from simt.errors import CompileError

MODULE = '''\
import numpy as np
from simt import cuda
from simt.vectorizers import vectorize

SCALE = 3


@cuda.jit(device=True)
def bump(x):
    return x + 100


twice = cuda.jit(device=True)(lambda x: 2 * x)
total = cuda.reduce(lambda a, b: a + b + 1)


@vectorize(["float64(float64)"])
def shifted(x):
    return x + 100


@cuda.jit
def kernel(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = twice(bump(i)) * SCALE


@cuda.jit
def lookup(out, table):
    i = cuda.grid(1)
    out[i] = table[i + 100]


def make():
    @cuda.jit
    def made(out):
        out[0] = 1
    return made


def make_sum():
    @cuda.jit
    def summed(out, x):
        out[0] = x + SCALE * 2
    return summed
'''

# The same lines, other values: after this edit the file's code differs from the imported code.
EDITED = (MODULE.replace("x + 100", "x + 500").replace("2 * x", "7 * x")
          .replace("a + b + 1", "a * b").replace("SCALE\n", "SCALE * 0 - 1\n")
          .replace("out[0] = 1", "out[0] = 2").replace("table[i + 100]", "table[i - 100]"))

_names = (("edited_module_%d" % n) for n in itertools.count())


@pytest.fixture
def module(tmp_path, monkeypatch):
    """A fresh module imported from a file in tmp_path, and a function to rewrite the file."""
    name = next(_names)
    path = tmp_path / ("%s.py" % name)
    path.write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    imported = importlib.import_module(name)
    yield imported, path
    sys.modules.pop(name, None)


def expected_kernel_output():
    return (2 * (np.arange(8) + 100)) * 3


def test_kernels_and_device_functions_run_the_imported_text_after_an_edit(module):
    imported, path = module
    path.write_text(EDITED)
    out = np.zeros(8)
    imported.kernel[1, 8](out)
    np.testing.assert_array_equal(out, expected_kernel_output())


def test_a_file_edited_with_lines_added_above_still_runs_the_imported_text(module):
    imported, path = module
    path.write_text("# a new first line\n\n\n" + EDITED)
    out = np.zeros(8)
    imported.kernel[1, 8](out)
    np.testing.assert_array_equal(out, expected_kernel_output())


def test_reductions_with_lambdas_run_the_imported_text(module):
    imported, path = module
    path.write_text(EDITED)
    data = np.arange(10, dtype=np.int64)
    # (a + b + 1): nine folds of the ten elements and one with init; the edit's (a * b) gives 0
    assert imported.total(data) == data.sum() + 10


def test_cuda_vectorize_runs_the_imported_text(module):
    imported, path = module
    path.write_text(EDITED)
    np.testing.assert_array_equal(imported.shifted(np.arange(4.0)), np.arange(4.0) + 100)


def test_after_a_reload_kernels_run_the_new_text(module):
    imported, path = module
    path.write_text(EDITED)
    importlib.reload(imported)
    out = np.zeros(8)
    imported.kernel[1, 8](out)
    np.testing.assert_array_equal(out, np.full(8, -1))  # twice(bump(i)) * SCALE * 0 - 1


def test_a_function_jitted_after_its_file_changed_runs_the_text_python_read(module):
    imported, path = module
    path.write_text(EDITED)
    made = imported.make()  # @cuda.jit applied now: linecache still has the imported text
    out = np.zeros(1)
    made[1, 1](out)
    assert out[0] == 1


def test_a_function_jitted_after_its_file_changed_and_was_reread_is_refused(module):
    imported, path = module
    path.write_text(EDITED)
    linecache.checkcache()  # as printing a traceback does: linecache now has the new text
    made = imported.make()
    with pytest.raises(CompileError, match=r"the source of make.<locals>.made in .*\.py no"
                                           r" longer matches the code Python runs"):
        made[1, 1](np.zeros(1))


@pytest.mark.parametrize("old, new", [
    ("x + SCALE * 2", "x - SCALE * 2"),  # an operator
    ("x + SCALE * 2", "x + SCALE * 3"),  # a literal
    ("x + SCALE * 2", "x + SCALX * 2"),  # a name
    ("def make_sum():", "def make_other():\n    pass\n\n\ndef make_sum():"),  # lines moved
])
def test_any_edit_of_a_function_jitted_after_it_is_detected(module, old, new):
    imported, path = module
    path.write_text(MODULE.replace(old, new))
    linecache.checkcache()
    with pytest.raises(CompileError, match="no longer matches the code Python runs"):
        imported.make_sum()[1, 1](np.zeros(1), 1.0)
    path.write_text(MODULE)  # as imported: it compiles
    linecache.checkcache()
    out = np.zeros(1)
    imported.make_sum()[1, 1](out, 1.0)
    assert out[0] == 7


def test_a_function_jitted_before_the_edit_compiles_from_the_captured_text(module):
    imported, path = module
    made = imported.make()
    path.write_text(EDITED)
    out = np.zeros(1)
    made[1, 1](out)
    assert out[0] == 1


def test_faults_quote_the_captured_line(module):
    imported, path = module
    path.write_text(EDITED)
    with pytest.raises(IndexError) as info:
        imported.lookup[1, 4](np.zeros(4), np.zeros(4))
    assert str(info.value).splitlines()[2].strip() == "out[i] = table[i + 100]"


def test_closures_and_lambdas_in_this_file_match_their_code():
    offset = 7
    add = cuda.jit(device=True)(lambda x: x + offset)

    @cuda.jit
    def closure_kernel(out):
        out[0] = add(offset) + np.float64(1)

    out = np.zeros(1)
    closure_kernel[1, 1](out)
    assert out[0] == 15


def _code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, type(code)):
            yield from _code_objects(const)


def _python_files():
    """The simt package, these tests and the examples: many shapes of functions and bytecode."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return sorted(glob.glob(os.path.join(root, "python", "simt", "*.py")) +
                  glob.glob(os.path.join(root, "tests", "python", "**", "*.py"), recursive=True) +
                  glob.glob(os.path.join(root, "examples", "**", "*.py"), recursive=True))


def test_the_bytecode_check_reads_instructions_as_dis_does():
    checked = 0
    for path in _python_files():
        with open(path) as f:
            top = compile(f.read(), path, "exec")
        for code in _code_objects(top):
            fast = [(tuple(p), kind, value) for p, kind, value in source._instructions(code)]
            reference = [(tuple(p), kind, value)
                         for p, kind, value in source._dis_instructions(code)]
            assert repr(fast) == repr(reference), (path, code.co_name)
            checked += 1
    assert checked > 1000


def test_a_definition_ends_where_inspect_says():
    """The def block found from the code's positions is the one inspect.getblock tokenizes."""
    checked = 0
    for path in _python_files():
        with open(path) as f:
            top = compile(f.read(), path, "exec")
        lines = linecache.getlines(path)
        for code in _code_objects(top):
            if code.co_name.startswith("<") or not code.co_flags & inspect.CO_NEWLOCALS:
                continue  # modules, classes, lambdas, comprehensions
            start = code.co_firstlineno - 1
            while start > 0 and not source._DEFINITION.match(lines[start]):
                start -= 1
            end = source._block_end(lines, start, source._last_line(code))
            if end is None:
                continue
            found, expected = lines[start:end], inspect.getblock(lines[start:])
            # inspect keeps the comments and blank lines before a dedent; the frontend skips them
            while found and (not found[-1].strip() or found[-1].lstrip().startswith("#")):
                found.pop()
            assert found == expected[:len(found)] and \
                all(not line.strip() or line.lstrip().startswith("#")
                    for line in expected[len(found):]), (path, code.co_name)
            checked += 1
    assert checked > 500
