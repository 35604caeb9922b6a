"""The house rules on size (docs/contributing.md): no production file over 1,200 lines and no
production function over 100 lines, in C++ and in Python. Production: what is not a test, a
benchmark, an example or documentation."""
import ast
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_FILE_LINES = 1200
MAX_FUNCTION_LINES = 100
NOT_PRODUCTION = ("tests/", "docs/", "examples/", "bench/")


def production_files(suffixes):
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [f for f in listed if f.endswith(suffixes) and not f.startswith(NOT_PRODUCTION)]


def lines_of(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read().split("\n")


def python_functions(path):
    """(name, lines) of every function and method."""
    tree = ast.parse("\n".join(lines_of(path)))
    return [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


# A definition at namespace level in clang-format's LLVM style: its first line starts at column
# 0 (not a type, namespace, preprocessor line or initialised table), its body ends with a `}`
# alone at column 0.
_NOT_A_FUNCTION = re.compile(r"^(namespace|extern|struct|class|enum|union|template <[^>]*> (struct"
                             r"|class)|#|\}| )")


def cpp_functions(path):
    """(first line, lines) of every function defined at namespace level."""
    found, start = [], None
    for number, line in enumerate(lines_of(path)):
        if start is None:
            if line.endswith("{") and "=" not in line and not _NOT_A_FUNCTION.match(line):
                start = number
        elif line == "}":
            found.append((lines_of(path)[start].strip(), number - start + 1))
            start = None
    return found


def test_no_production_file_is_over_the_limit():
    long_files = [(path, len(lines_of(path)))
                  for path in production_files((".py", ".cpp", ".h"))
                  if len(lines_of(path)) > MAX_FILE_LINES]
    assert long_files == []


def test_no_production_function_is_over_the_limit():
    long_functions = [(path, name, length) for path in production_files((".py",))
                      for name, length in python_functions(path) if length > MAX_FUNCTION_LINES]
    long_functions += [(path, first, length) for path in production_files((".cpp",))
                       for first, length in cpp_functions(path) if length > MAX_FUNCTION_LINES]
    assert long_functions == []


def test_the_cpp_measure_finds_functions():
    """The measure sees real definitions (a change of style would make it see none)."""
    functions = cpp_functions("codegen/lower_expr.cpp")
    assert any(first.startswith("llvm::Value *FunctionLowering::expr(") for first, _ in functions)
    assert all(length > 1 for _, length in functions)
