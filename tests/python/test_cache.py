"""The on-disk compile cache: a rerun reuses compiled objects; anything in the cache directory that
this user's simt did not write (a link, a FIFO, a damaged, truncated or planted entry) is ignored
and recompiled; an unsafe directory turns the cache off with one warning."""
import glob
import hashlib
import hmac
import os
import random
import re
import stat

import pytest

KERNEL = """
@cuda.jit
def k{n}(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * {n} + 0.5
"""

# Runs the kernels named on the command line, in that order, and checks their results.
DRIVER = """
import os
import sys
if "TEST_UMASK" in os.environ:
    os.umask(int(os.environ["TEST_UMASK"], 8))
import numpy as np
import kernels

x = np.arange(100, dtype=np.float64)
for name in sys.argv[1].split(","):
    out = np.zeros_like(x)
    getattr(kernels, name)[4, 32](out, x)
    assert (out == x * int(name[1:]) + 0.5).all(), name
print("ok")
"""


@pytest.fixture
def kernels(tmp_path):
    """Writes `count` distinct kernels and the driver; returns the driver's path."""

    def write(count):
        text = "from simt import cuda\n" + "".join(KERNEL.format(n=n) for n in range(count))
        (tmp_path / "kernels.py").write_text(text)
        (tmp_path / "driver.py").write_text(DRIVER)
        return tmp_path / "driver.py"

    return write


class Cache:
    def __init__(self, python, driver, directory):
        self.python, self.driver, self.directory = python, driver, directory

    def run(self, order, **env):
        """Runs the driver (it checks every result); returns its compile-cache events."""
        env = {"SIMT_CACHE_DIR": str(self.directory), "SIMT_CACHE_DEBUG": "1", **env}
        run = self.python([str(self.driver), order], env=env)
        assert run.returncode == 0, run.stdout + run.stderr
        assert run.stdout.strip() == "ok", run.stdout + run.stderr
        self.stderr = run.stderr
        return {kind: re.findall(r"compile cache: %s ([0-9a-f]{32})" % kind, run.stderr)
                for kind in ("hit", "miss", "rejected", "stored")}

    def entries(self):
        return sorted(glob.glob(str(self.directory / "*.o")))

    def entry(self, key):
        return self.directory / (key + ".o")

    def sign(self, key, obj, secret=None):
        """An entry as simt writes it: the object, then HMAC-SHA256(secret, ".o" NUL key NUL object)."""
        secret = secret or (self.directory / "hmac.key").read_bytes()
        # The entry kind's suffix, the key and the object, as sim/object_cache.cpp signs them.
        signed = b".o\0" + key.encode() + b"\0" + obj
        return obj + hmac.new(secret, signed, hashlib.sha256).digest()


@pytest.fixture
def cache(python, kernels, tmp_path):
    def make(count=1, directory=None):
        return Cache(python, kernels(count), directory or tmp_path / "cache")

    return make


def test_a_rerun_loads_the_compiled_object(cache):
    c = cache()
    first = c.run("k0")
    assert len(first["miss"]) == 1 and first["stored"] == first["miss"]
    second = c.run("k0")
    assert second["hit"] == first["stored"] and not second["stored"]
    (entry,) = c.entries()
    with open(entry, "rb") as f:
        assert f.read(4) == b"\x7fELF"


def test_entries_do_not_depend_on_the_order_kernels_are_compiled_in(cache):
    c = cache(3)
    stored = c.run("k0,k1,k2")["stored"]
    assert len(stored) == 3
    for order in ("k2,k0", "k1,k2,k0", "k2,k1,k0"):
        events = c.run(order)
        assert len(events["hit"]) == len(order.split(",")), c.stderr
        assert not events["rejected"] and not events["stored"]
    assert len(c.entries()) == 3


def test_one_changed_byte_in_any_entry_is_caught(cache):
    c = cache(30)
    order = ",".join("k%d" % n for n in range(30))
    assert len(c.run(order)["stored"]) == 30
    rng = random.Random(5)
    for entry in c.entries():
        data = bytearray(open(entry, "rb").read())
        data[rng.randrange(len(data))] ^= rng.randrange(1, 256)
        open(entry, "wb").write(bytes(data))
    events = c.run(order)  # every kernel still gives the right result
    assert len(events["rejected"]) == 30 and not events["hit"]
    assert len(events["stored"]) == 30
    assert len(c.run(order)["hit"]) == 30  # the recompiles replaced the damaged entries


@pytest.mark.parametrize("keep", [0, 100, "half", "all but one"])
def test_a_truncated_entry_is_recompiled(cache, keep):
    c = cache()
    (key,) = c.run("k0")["stored"]
    data = c.entry(key).read_bytes()
    keep = {"half": len(data) // 2, "all but one": len(data) - 1}.get(keep, keep)
    c.entry(key).write_bytes(data[:keep])
    events = c.run("k0")
    assert events["rejected"] == [key] and events["stored"] == [key]


def test_a_damaged_entry_is_recompiled(cache):
    c = cache()
    (key,) = c.run("k0")["stored"]
    c.entry(key).write_bytes(b"not an object file" * 10)
    assert c.run("k0")["rejected"] == [key]
    assert c.run("k0")["hit"] == [key]


@pytest.mark.parametrize("planted", ["fifo", "/dev/zero", "/dev/urandom", "link to a valid copy",
                                     "directory"])
def test_an_entry_that_is_not_a_regular_file_is_ignored(cache, tmp_path, planted):
    c = cache()
    (key,) = c.run("k0")["stored"]
    entry = c.entry(key)
    valid = tmp_path / "valid-copy.o"
    os.rename(entry, valid)
    if planted == "fifo":
        os.mkfifo(entry)
    elif planted == "directory":
        os.mkdir(entry)
    else:
        os.symlink(valid if planted.startswith("link") else planted, entry)
    events = c.run("k0")  # no hang, no crash, the right result
    assert events["rejected"] == [key] and not events["hit"]
    if planted != "directory":  # the recompile's entry replaced what was planted
        assert stat.S_ISREG(os.lstat(entry).st_mode)
        assert c.run("k0")["hit"] == [key]


def test_an_object_signed_with_another_key_is_refused(cache):
    c = cache()
    (key,) = c.run("k0")["stored"]
    obj = c.entry(key).read_bytes()[:-32]
    c.entry(key).write_bytes(c.sign(key, obj, secret=os.urandom(32)))
    events = c.run("k0")
    assert events["rejected"] == [key] and events["stored"] == [key]
    assert "checksum mismatch" in c.stderr


def test_a_failed_link_leaves_the_kernel_recompilable(cache):
    c = cache(3)
    key0, key1, key2 = c.run("k0,k1,k2")["stored"]
    # k1's entry now holds k0's object, correctly signed: it links, but has no k1 in it.
    c.entry(key1).write_bytes(c.sign(key1, c.entry(key0).read_bytes()[:-32]))
    events = c.run("k1,k0,k1,k2")  # k1 recompiled in the same process, then k0 and k2 load
    assert events["rejected"] == [key1] and events["stored"] == [key1]
    assert events["hit"] == [key1, key0, key2]  # k1's entry verified, then failed to link
    assert len(c.run("k1")["hit"]) == 1


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o720])
def test_a_directory_others_can_write_is_refused(cache, tmp_path, mode):
    directory = tmp_path / "shared"
    directory.mkdir()
    os.chmod(directory, mode)
    c = cache(2, directory)
    events = c.run("k0,k1")
    assert c.stderr.count("warning: not using the compile cache") == 1, c.stderr
    assert "writable by other users" in c.stderr
    assert not any(events.values()) and os.listdir(directory) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give files away")
def test_a_directory_or_entry_of_another_user_is_refused(cache, tmp_path):
    c = cache()
    (key,) = c.run("k0")["stored"]
    os.chown(c.entry(key), 65534, 65534)
    assert c.run("k0")["rejected"] == [key]
    os.chown(c.directory, 65534, 65534)
    assert not any(c.run("k0").values())
    assert "owned by another user" in c.stderr


@pytest.mark.parametrize("secret", ["short", "readable"])
def test_a_bad_secret_turns_the_cache_off(cache, secret):
    c = cache()
    c.run("k0")
    secret_file = c.directory / "hmac.key"
    if secret == "short":
        secret_file.write_bytes(b"0" * 16)
    else:
        os.chmod(secret_file, 0o644)
    assert not any(c.run("k0").values())
    assert "warning: not using the compile cache" in c.stderr


def test_new_directories_and_entries_are_private_whatever_the_umask(cache, tmp_path):
    c = cache(2, tmp_path / "a" / "b" / "cache")
    c.run("k0,k1", TEST_UMASK="002")
    for directory in ("a", "a/b", "a/b/cache"):
        assert stat.S_IMODE(os.stat(tmp_path / directory).st_mode) == 0o700
    names = sorted(os.listdir(c.directory))
    assert len(names) == 3 and names[-1] == "hmac.key"  # no temporaries left behind
    for name in names:
        assert stat.S_IMODE(os.stat(c.directory / name).st_mode) == 0o600


def test_the_cache_can_be_turned_off(cache):
    c = cache()
    assert not any(c.run("k0", SIMT_CACHE="0").values())
    assert not c.directory.exists()


FAULTING = """
import numpy as np
from simt import cuda


@cuda.jit
def reads_past_the_end(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i + 3]


try:
    reads_past_the_end[1, 8](np.zeros(8), np.arange(8.0))
except IndexError as error:
    print(error)
"""


def test_a_kernel_from_the_cache_reports_faults_where_they_are(python, tmp_path):
    """A kernel found in the cache is not lowered again: its fault locations come from its
    object, and name the same file, line and thread."""
    script = tmp_path / "faulting.py"
    script.write_text(FAULTING)
    env = {"SIMT_CACHE_DIR": str(tmp_path / "cache"), "SIMT_CACHE_DEBUG": "1"}
    first, second = (python([str(script)], env=env) for _ in range(2))
    assert "compile cache: stored" in first.stderr and "compile cache: hit" in second.stderr
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    assert "faulting.py\", line 10, in reads_past_the_end" in first.stdout
    assert "tid=[5, 0, 0] ctaid=[0, 0, 0]" in first.stdout and "out[i] = x[i + 3]" in first.stdout
    assert second.stdout == first.stdout
