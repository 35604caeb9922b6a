#!/usr/bin/env python3
"""Runs real PyPI projects' CUDA tests on simt and on numba-cuda's simulator, per host, and prints
a table (issue 25's "real projects" target). By hand only: not part of `make test` nor of CI.

    python3 tests/projects/run.py [--work DIR] [--hosts numba-cuda,numba-cuda-mlir,numba-0.56]
                                  [--projects stumpy,aquagrid,gamdpy] [--timeout 900] [--files GLOB]

For each host it makes a venv with scripts/host_venv.sh (DIR/venv-HOST; never the shared
/tmp/venv-nc or /tmp/venv-mlir; numba-0.56: /usr/bin/python3's venv with its system packages,
Debian's Numba 0.56.4), installs each project's pinned release into it, downloads the
release's sdist with pip (DIR/src) and copies its tests out of it (DIR/t-PROJECT: the installed
package is what is tested), then runs pytest once per test file, with `timeout`:

  simt     SIMT_ENABLE=1 (the import hook serves numba.cuda and numba_cuda_mlir.cuda)
  cudasim  NUMBA_ENABLE_CUDASIM=1, SIMT_ENABLE unset (the host's own simulator; not run
           under numba-cuda-mlir, which has none: there a project's numba.cuda is simt's only)

Nothing of a project's code is kept in this repository."""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# pin: the release; deps: test-only packages; copy: what of the sdist the tests need;
# files: the test files (globs, relative to the copy); args: pytest options the project's own
# test script passes; not_on: hosts the release cannot run on, and why.
PROJECTS = {
    "stumpy": dict(
        pin="stumpy==1.14.1", deps=["pandas==3.1.1"],
        not_on={"numba-0.56": "stumpy 1.14 needs Numba 0.61.2+"},
        copy=["tests", "conftest.py", "pytest.ini"],
        files=["tests/test_gpu_*.py"],
        args=["-W", "ignore::RuntimeWarning", "-W", "ignore::DeprecationWarning",
              "-W", "ignore::UserWarning"]),
    "aquagrid": dict(
        pin="aquagrid==0.3.2", deps=[],
        not_on={"numba-0.56": "aquagrid 0.3 needs Numba 0.59+"},
        copy=["tests"],
        files=["tests/test_gpu.py"],
        args=[]),
    # Its CPU test (marker gamdpy_cpu) sets NUMBA_ENABLE_CUDASIM=1 and NUMBA_DISABLE_JIT=1 itself
    # before importing gamdpy, builds a Lennard-Jones simulation and runs its kernels once.
    # Not its pytest.ini: that adds the package's doctests and deselects this test.
    "gamdpy": dict(
        pin="gamdpy==0.8.3", deps=["scipy>=1.10"],  # Debian's 1.10.1 on numba-0.56
        copy=["tests"],
        files=["tests/test_LJ_cpu.py"],
        args=["-m", "gamdpy_cpu", "-W", "ignore::DeprecationWarning",
              "-W", "ignore::pytest.PytestUnknownMarkWarning"]),
}

# What a host venv needs besides scripts/host_venv.sh's pins for a project that imports
# `numba` (stumpy's CPU code): numba-cuda-mlir's venv has no Numba.
# numba-0.56 (Debian's Numba 0.56.4 and NumPy 1.24.2) keeps Debian's NumPy.
HOST_EXTRA = {"numba-cuda": [], "numba-cuda-mlir": ["numba==0.68.1"],
              "numba-0.56": ["numpy==1.24.2"]}

SUMMARY = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")


def sh(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kw)


def make_venv(host, work):
    venv = os.path.join(work, "venv-" + host)
    python = os.path.join(venv, "bin", "python")
    if os.path.exists(python):
        return python
    if host != "numba-0.56":
        sh(["bash", os.path.join(ROOT, "scripts", "host_venv.sh"), host, venv])
        return python
    # /usr/bin/python3's Numba and pytest, with simt's .pth files as scripts/host_venv.sh writes
    sh(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv])
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    with open(os.path.join(site, "simt-dev.pth"), "w") as f:
        f.write(os.environ.get("SIMT_STAGE", os.path.join(ROOT, "build", "python")) + "\n")
    shutil.copy(os.path.join(ROOT, "python", "simt-enable.pth"), site)
    return python


def fetch_tests(name, spec, python, work):
    dest = os.path.join(work, "t-" + name)
    if os.path.isdir(dest):
        return dest
    src = os.path.join(work, "src")
    os.makedirs(src, exist_ok=True)
    pkg, version = spec["pin"].split("==")
    # The project's sdist only: its build backend (hatchling...) may come as wheels
    sh([python, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", pkg,
        spec["pin"], "-d", src])
    archive = glob.glob(os.path.join(src, f"{pkg}-{version}.tar.gz"))[0]
    with tarfile.open(archive) as tar:
        tar.extractall(src)
    top = os.path.join(src, f"{pkg}-{version}")
    os.makedirs(dest)
    for item in spec["copy"]:
        (shutil.copytree if os.path.isdir(os.path.join(top, item)) else shutil.copy)(
            os.path.join(top, item), os.path.join(dest, item))
    return dest


def run_file(python, folder, path, args, mode, timeout):
    env = dict(os.environ)
    for var in ("SIMT_ENABLE", "NUMBA_ENABLE_CUDASIM", "SIMT_CHECK"):
        env.pop(var, None)
    env["SIMT_ENABLE" if mode == "simt" else "NUMBA_ENABLE_CUDASIM"] = "1"
    start = time.time()
    proc = subprocess.run(["timeout", str(timeout), python, "-m", "pytest", "-q", "-p",
                           "no:cacheprovider", *args, path], cwd=folder, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    took = time.time() - start
    counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    tail = proc.stdout.strip().splitlines()[-1:] or [""]
    for n, word in SUMMARY.findall(tail[0]):
        key = "error" if word.startswith("error") else word
        if key in counts:
            counts[key] += int(n)
    if proc.returncode == 124:
        counts["error"] += 1
        tail = ["timed out"]
    elif proc.returncode not in (0, 1, 5) and not any(counts.values()):
        counts["error"] += 1
    return counts, took, proc.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default="/tmp/simt-projects")
    ap.add_argument("--hosts", default="numba-cuda,numba-cuda-mlir,numba-0.56")
    ap.add_argument("--projects", default=",".join(PROJECTS))
    ap.add_argument("--modes", default="simt,cudasim")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--files", help="only test files matching this glob")
    opts = ap.parse_args()
    os.makedirs(opts.work, exist_ok=True)
    logs = os.path.join(opts.work, "logs")
    os.makedirs(logs, exist_ok=True)
    rows = []
    for host in opts.hosts.split(","):
        python = make_venv(host, opts.work)
        for name in opts.projects.split(","):
            spec = PROJECTS[name]
            if host in spec.get("not_on", {}):
                print(f"{host:16} {name:8} not run: {spec['not_on'][host]}", flush=True)
                continue
            sh([python, "-m", "pip", "install", "--quiet", spec["pin"], *spec["deps"],
                *HOST_EXTRA[host]])
            folder = fetch_tests(name, spec, python, opts.work)
            files = sorted(f for g in spec["files"] for f in glob.glob(os.path.join(folder, g)))
            if opts.files:
                files = [f for f in files if glob.fnmatch.fnmatch(os.path.basename(f),
                                                                   opts.files)]
            for mode in opts.modes.split(","):
                if mode == "cudasim" and host == "numba-cuda-mlir":
                    continue  # no simulator of its own; projects importing numba.cuda need one
                total = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
                seconds = 0.0
                for path in files:
                    counts, took, out = run_file(python, folder, os.path.relpath(path, folder),
                                                 spec["args"], mode, opts.timeout)
                    seconds += took
                    for k in total:
                        total[k] += counts[k]
                    log = os.path.join(logs, f"{host}.{name}.{mode}.{os.path.basename(path)}.log")
                    with open(log, "w") as f:
                        f.write(out)
                    print(f"{host:16} {name:8} {mode:8} {os.path.basename(path):32} "
                          f"{counts['passed']:4} passed {counts['failed']:3} failed "
                          f"{counts['error']:2} errors {counts['skipped']:3} skipped "
                          f"{took:7.1f} s", flush=True)
                rows.append((host, name, mode, len(files), total, seconds))
    print()
    print("| host | project | run | files | passed | failed | errors | skipped | time (s) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for host, name, label, nfiles, t, seconds in rows:
        print(f"| {host} | {name} | {label} | {nfiles} | {t['passed']} | {t['failed']} | "
              f"{t['error']} | {t['skipped']} | {seconds:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
