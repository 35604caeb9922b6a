"""The cache of @cuda.jit(link=[...]) libraries (python/simt/compiler/linking.py) trusts what the
compile cache trusts (sim/object_cache.h): only signed entries of this user's, in private
folders. Each probe runs the program in a fresh process against a cache the test tampered with,
and checks that the right code ran and that nothing planted was loaded."""
import os
import stat
import subprocess
import textwrap

import pytest

from simt.compiler.linking import CUDA_SOURCES  # noqa: F401  (the module imports cleanly)

PROGRAM = """
import sys
import numpy as np
from simt import cuda

mul_add = cuda.declare_device("mul_add", "float32(float32, float32, float32)")

@cuda.jit(link=[sys.argv[1]])
def kernel(r, x):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = mul_add(x[i], 2, 1)

x = np.arange(4, dtype=np.float32)
r = np.zeros_like(x)
kernel[1, 4](r, x)
print("result", r.tolist())
"""

SOURCE = """\
#include "scale.h"
extern "C" __device__ int mul_add(float *result, float a, float b, float c) {
  *result = a * b * SCALE + c;
  return 0;
}
"""

# What another local user could plant: a library whose constructor runs code and whose mul_add
# gives 1337.
PLANTED = """\
#include <stdio.h>
__attribute__((constructor)) static void planted(void) {
  FILE *f = fopen("%s", "w");
  if (f) fclose(f);
}
int mul_add(float *result, float a, float b, float c) { *result = 1337; return 0; }
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "scale.h").write_text("#define SCALE 1\n")
    (tmp_path / "functions.cu").write_text(SOURCE)
    (tmp_path / "program.py").write_text(PROGRAM)
    return tmp_path


def run(python, project, env=None):
    result = python([str(project / "program.py"), str(project / "functions.cu")],
                    env={"SIMT_CACHE_DIR": str(project / "cache"), **(env or {})})
    assert result.returncode == 0, result.stderr
    return result


def expected(scale):
    return "result %s" % [x * 2.0 * scale + 1 for x in range(4)]


def only_entry(project):
    folder = project / "cache" / "link"
    entries = [name for name in os.listdir(folder) if name.endswith(".so")]
    assert len(entries) == 1, entries
    return folder / entries[0]


def planted_library(project):
    marker = project / "planted-code-ran"
    source = project / "planted.c"
    source.write_text(PLANTED % marker)
    library = project / "planted.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", str(source), "-o", str(library)], check=True)
    return library, marker


def test_a_planted_library_in_the_cache_is_never_loaded(python, project):
    assert expected(1) in run(python, project).stdout
    entry = only_entry(project)
    library, marker = planted_library(project)
    entry.write_bytes(library.read_bytes())
    result = run(python, project, {"SIMT_CACHE_DEBUG": "1"})
    assert expected(1) in result.stdout
    assert not marker.exists(), "the planted library's constructor ran"
    assert "checksum mismatch" in result.stderr
    # The entry was compiled anew and signed: the next run uses it.
    assert entry.read_bytes() != library.read_bytes()
    assert "hit" in run(python, project, {"SIMT_CACHE_DEBUG": "1"}).stderr


@pytest.mark.parametrize("kind", ["garbage", "fifo", "symlink", "directory"])
def test_what_is_not_a_signed_regular_file_is_recompiled(python, project, kind):
    run(python, project)
    entry = only_entry(project)
    library, marker = planted_library(project)
    entry.unlink()
    if kind == "garbage":
        entry.write_bytes(b"\x7fELF" + os.urandom(4096))
    elif kind == "fifo":
        os.mkfifo(entry)  # opening it for reading must not wait for a writer
    elif kind == "symlink":
        entry.symlink_to(library)
    else:
        entry.mkdir()
    result = run(python, project, {"SIMT_CACHE_DEBUG": "1"})
    assert expected(1) in result.stdout
    assert not marker.exists()
    assert "rejected" in result.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_an_entry_owned_by_another_user_is_refused(python, project):
    run(python, project)
    entry = only_entry(project)
    os.chown(entry, 65534, -1)
    result = run(python, project, {"SIMT_CACHE_DEBUG": "1"})
    assert expected(1) in result.stdout
    assert "owned by another user" in result.stderr


def test_editing_an_included_header_compiles_the_library_anew(python, project):
    assert expected(1) in run(python, project).stdout
    (project / "scale.h").write_text("#define SCALE 3\n")
    assert expected(3) in run(python, project).stdout
    assert len([n for n in os.listdir(project / "cache" / "link") if n.endswith(".so")]) == 2


def test_cache_folders_are_private_whatever_the_umask(python, project):
    probe = textwrap.dedent("""
        import os, runpy, sys
        os.umask(0o002)
        sys.argv = sys.argv[1:]
        runpy.run_path(sys.argv[0], run_name="__main__")
    """)
    (project / "umask.py").write_text(probe)
    result = python([str(project / "umask.py"), str(project / "program.py"),
                     str(project / "functions.cu")],
                    env={"SIMT_CACHE_DIR": str(project / "cache" / "deeper")})
    assert result.returncode == 0, result.stderr
    assert expected(1) in result.stdout
    assert "warning" not in result.stderr  # the compile cache stays on
    for folder in (project / "cache", project / "cache" / "deeper",
                   project / "cache" / "deeper" / "link"):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700, folder
    entry = [n for n in os.listdir(project / "cache" / "deeper" / "link") if n.endswith(".so")]
    assert stat.S_IMODE(os.stat(project / "cache" / "deeper" / "link" / entry[0]).st_mode) == 0o600


def test_a_shared_cache_folder_is_not_used_for_libraries(python, project):
    (project / "cache" / "link").mkdir(parents=True)
    os.chmod(project / "cache", 0o700)
    os.chmod(project / "cache" / "link", 0o777)
    result = run(python, project)
    assert expected(1) in result.stdout
    assert "not using the cache of link= libraries" in result.stderr
    assert "writable by other users" in result.stderr
    assert not [n for n in os.listdir(project / "cache" / "link") if n.endswith(".so")]
