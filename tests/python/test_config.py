"""simt's settings table (simt.base.config): every SIMT_* environment variable the Python package or
the C++ layers read is in it, once, with its reader and meaning; `simt config` prints them with
their values; docs/user-guide.md lists them all."""
import os
import re
import subprocess
import sys

import pytest

import simt
from simt.base import config

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Names that are macros or build settings, not environment variables.
NOT_SETTINGS = {"SIMT_ASAN_FIBERS", "SIMT_EXPORT", "SIMT_LD_IN", "SIMT_LD_OUT"}
READ = re.compile(r'(?:(?:getenv|env|environ\.get|environ|config\.value|config\.enabled|'
                  r'config\.number|_flag\(environ,)\(?\[?\s*"|config::Setting::)'
                  r'(SIMT_[A-Z0-9_]+)\b')


def read_settings():
    """The SIMT_* names the code reads from the environment, by file."""
    found = {}
    for folder in ("python/simt", "sim", "gpu", "pybind", "codegen", "analysis", "ir", "frontend",
                   "checker", "debugger"):
        for root, _, files in os.walk(os.path.join(REPO, folder)):
            for name in files:
                if not name.endswith((".py", ".cpp", ".h")) or name == "config.py":
                    continue
                with open(os.path.join(root, name)) as f:
                    for match in READ.finditer(f.read()):
                        found.setdefault(match.group(1), set()).add(name)
    return found


def test_every_setting_the_code_reads_is_in_the_table_once():
    names = [setting.name for setting in config.SETTINGS]
    assert len(names) == len(set(names))
    read = read_settings()
    assert set(read) - NOT_SETTINGS <= set(names), sorted(set(read) - set(names))
    assert set(names) <= set(read), "settings nothing reads: %s" % sorted(set(names) - set(read))


def test_values_switches_and_numbers():
    environ = {"SIMT_FISSION": "0", "SIMT_DEBUG": " 1", "SIMT_BUNDLE_MAX_MB": "2.5",
               "SIMT_PARITY_RTOL": "x"}
    assert config.value("SIMT_FISSION", environ) == "0"
    assert config.value("SIMT_TARGET", environ) == "sim"  # the default
    assert config.enabled("SIMT_DEBUG", environ) and not config.enabled("SIMT_CHECK", environ)
    assert config.number("SIMT_BUNDLE_MAX_MB", 48, environ) == 2.5
    assert config.number("SIMT_THREADS", 0, environ) == 0
    with pytest.raises(ValueError, match="SIMT_PARITY_RTOL=x is not a number"):
        config.number("SIMT_PARITY_RTOL", 1e-5, environ)


def test_simt_config_prints_each_setting_with_its_value_and_source():
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(simt.__file__)),
               SIMT_TARGET="both")
    env.pop("SIMT_FISSION", None)
    proc = subprocess.run([sys.executable, "-m", "simt", "config"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == len(config.SETTINGS)
    assert re.match(r"SIMT_TARGET +both +environment +where kernels run", lines[1])
    fission = next(line for line in lines if line.startswith("SIMT_FISSION "))
    assert re.match(r"SIMT_FISSION +1 +default +0: kernels with barriers", fission)


def test_the_user_guide_lists_every_setting():
    with open(os.path.join(REPO, "docs", "user-guide.md")) as f:
        guide = f.read()
    section = guide[guide.index("## Environment"):]
    missing = [s.name for s in config.SETTINGS if not re.search("`%s[`=]" % s.name, section)]
    assert not missing, missing
