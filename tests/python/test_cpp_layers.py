"""The C++ layers (docs/architecture.md): a folder includes headers of its own and of the layers
below it only, as its files' #include lines say."""
import os
import re

import pytest

REPO = os.path.join(os.path.dirname(__file__), "..", "..")

# The layers from the bottom; folders on one line do not include each other.
LAYERS = (
    ("config",),
    ("ir",),
    ("analysis",),
    ("frontend", "codegen"),
    ("sim", "gpu"),
    ("debugger", "checker"),
    ("pybind",),
)
LEVEL = {folder: level for level, folders in enumerate(LAYERS) for folder in folders}
INCLUDE = re.compile(r'^#include "([a-z_]+)/', re.MULTILINE)


def _included_folders(folder):
    """{folder included: the first file of `folder` including it}."""
    found = {}
    for root, _, files in os.walk(os.path.join(REPO, folder)):
        for name in sorted(files):
            if name.endswith((".cpp", ".h", ".def")):
                with open(os.path.join(root, name)) as f:
                    for included in INCLUDE.findall(f.read()):
                        found.setdefault(included, os.path.relpath(os.path.join(root, name), REPO))
    return found


@pytest.mark.parametrize("folder", sorted(LEVEL))
def test_a_layer_includes_only_its_own_and_lower_layers(folder):
    for included, where in _included_folders(folder).items():
        if included in LEVEL and included != folder:
            assert LEVEL[included] < LEVEL[folder], "%s includes %s/, a layer not below %s/" % (
                where, included, folder)


def test_every_layer_folder_is_listed():
    listed = {name for name in os.listdir(REPO) if os.path.isfile(
        os.path.join(REPO, name, "CMakeLists.txt")) and name not in ("tests",)}
    assert listed == set(LEVEL)
