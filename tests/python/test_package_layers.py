"""The Python package's layers (python/simt/__init__.py): no import of one simt module by another
goes round in a circle, and none reaches up a layer. Imports inside functions count, and so do
importlib.import_module("simt...") calls with a constant name: a lazy import is still an
import."""
import ast
import os

import pytest

PACKAGE = os.path.join(os.path.dirname(__file__), "..", "..", "python", "simt")

# The layers from the bottom (python/simt/__init__.py): a module imports from its own layer and
# those below. A module is in the layer of its longest prefix here.
LAYERS = (
    ("simt.errors", "simt.base"),
    ("simt.memory",),
    ("simt.stubs", "simt.types"),
    ("simt.compiler",),
    ("simt.tools",),
    ("simt.cuda", "simt.libdevice", "simt.bf16", "simt.fp8", "simt.random", "simt.vectorizers",
     "simt.cudadrv_devicearray", "simt.transpose", "simt.testing_patch"),
    ("simt.hook", "simt.cli", "simt.__main__", "simt.pytest_plugin", "simt"),
)


def _modules():
    """{module name: file} of the package's Python modules."""
    root = os.path.normpath(PACKAGE)
    modules = {}
    for folder, _, files in os.walk(root):
        for file in files:
            if file.endswith(".py"):
                path = os.path.join(folder, file)
                name = os.path.relpath(path, os.path.dirname(root))[:-3].replace(os.sep, ".")
                modules[name[:-len(".__init__")] if name.endswith(".__init__") else name] = path
    return modules


def _imported(name, path):
    """The names each import in the module `name` (at `path`) may load: for `from X import y`,
    X and X.y (a submodule where there is one)."""
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] +
                                ([node.module] if node.module else []))
            yield base
            yield from (base + "." + alias.name for alias in node.names)
        elif (isinstance(node, ast.Call) and
              getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module" and
              node.args and isinstance(node.args[0], ast.Constant)):
            yield node.args[0].value


def _graph():
    modules = _modules()
    return modules, {name: sorted({imported for imported in _imported(name, path)
                                   if imported in modules and imported != name})
                     for name, path in modules.items()}


def _cycles(graph):
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph[module]:
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    return found


def _layer(module):
    ranked = [(len(prefix), rank) for rank, prefixes in enumerate(LAYERS) for prefix in prefixes
              if module == prefix or module.startswith(prefix + ".")]
    assert ranked, "%s is in no layer of LAYERS (python/simt/__init__.py)" % module
    return max(ranked)[1]


def test_no_import_circle():
    assert _cycles(_graph()[1]) == []


def test_imports_go_down_the_layers():
    upward = ["%s imports %s" % (module, imported) for module, imports in _graph()[1].items()
              for imported in imports if _layer(imported) > _layer(module)]
    assert upward == []


def test_no_module_imports_the_package_object():
    """The package's lazy names (simt.cuda, simt.float32) are the top of the house: its modules
    import each other by their own names, never through `simt` itself."""
    importers = [module for module, imports in _graph()[1].items()
                 if "simt" in imports and module != "simt"]
    assert importers == []


def test_every_simt_import_names_a_module():
    """An import of a simt module that no longer exists (a path left behind by a move)."""
    modules = _modules()
    missing = []
    for name, path in modules.items():
        package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] +
                                    ([node.module] if node.module else []))
                targets = [base] if node.module else [base + "." + a.name for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            missing += ["%s: %s" % (name, target) for target in targets
                        if target.split(".")[0] == "simt" and target not in modules
                        and target != "simt._simt"]
    assert missing == []


@pytest.mark.parametrize("cycle", [{"a": ["b"], "b": ["a"]}, {"a": ["a"], "b": ["c"], "c": ["b"]}])
def test_a_circle_is_found(cycle):
    assert _cycles(cycle)
