"""The C++ layers' settings table (config/settings.def) against Python's
(python/simt/base/config.py), which `simt config` prints: every setting C++ reads is in both, and
Python's names a C++ reader."""
import os
import re

from simt.base import config

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def cpp_settings():
    with open(os.path.join(ROOT, "config", "settings.def")) as f:
        return re.findall(r"^SIMT_SETTING\((\w+),", f.read(), re.MULTILINE)


def test_the_cpp_table_is_read():
    assert "SIMT_THREADS" in cpp_settings()


def test_every_cpp_setting_is_in_pythons_table_with_a_cpp_reader():
    python = {setting.name: setting for setting in config.SETTINGS}
    for name in cpp_settings():
        assert name in python, name
        assert ".cpp" in python[name].reader, name


def test_every_setting_python_says_cpp_reads_is_in_the_cpp_table():
    cpp = set(cpp_settings())
    for setting in config.SETTINGS:
        if ".cpp" in setting.reader:
            assert setting.name in cpp, setting.name
