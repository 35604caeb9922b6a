#!/usr/bin/python3
"""Compile time against kernel size: generated kernels of N branches or statements, compiled for
the first time (SIMT_CACHE=0, no on-disk cache), each size in the same warmed-up process.

Shapes (each kernel maps x[i] to out[i]; run() checks the result against NumPy):
  elif      an if/elif chain of N branches on x[i]
  straight  N statements updating one accumulator
  locals    N statements, each assigning a new local from the previous one
  arrays    N augmented assignments to out[i] (each a bounds-checked load and store)
  compare   one comparison chain of N terms (v + 0 < v + 1 < ... < 2 * N)
Nested ifs are not a shape: CPython refuses more than 100 levels of indentation.

`/usr/bin/python3 bench/compile_scaling.py` prints the table; `--shape`, `--sizes` pick others.
tests/python/test_compile_scaling.py compiles and runs the same kernels (untimed).
"""
import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DEFAULT_SIZES = {
    "elif": (300, 600, 900),
    "straight": (1000, 3000, 10000),
    "locals": (1000, 3000, 10000),
    "arrays": (1000, 3000, 10000),
    "compare": (3000, 10000, 30000),
}

# What the issue asked for: (shape, size, seconds).
TARGETS = (("elif", 900, 0.5), ("straight", 10000, 3.0), ("arrays", 10000, 3.0))

HEADER = ("from simt import cuda\n\n\n"
          "@cuda.jit\n"
          "def kernel(x, out):\n"
          "    i = cuda.grid(1)\n"
          "    if i < x.size:\n"
          "        v = x[i]\n")


def _branch_value(k):
    return (k * 7919) % 1000


def _elif(n):
    lines = []
    for k in range(n):
        lines.append("        %s v == %d:\n" % ("if" if k == 0 else "elif", k))
        lines.append("            r = %d\n" % _branch_value(k))
    lines.append("        else:\n            r = -1\n")
    return "".join(lines)


def _arrays(n):
    lines = ["        out[i] = v\n"]
    lines += ["        out[i] += %d\n" % (k % 7) for k in range(n)]
    lines.append("        r = out[i]\n")
    return "".join(lines)


def _straight(n):
    lines = ["        r = v\n"]
    lines += ["        r = r * 3 + %d\n" % (k % 17) for k in range(n)]
    return "".join(lines)


def _locals(n):
    lines = ["        t0 = v\n"]
    lines += ["        t%d = t%d + %d\n" % (k + 1, k, k % 5) for k in range(n)]
    lines.append("        r = t%d\n" % n)
    return "".join(lines)


def _compare(n):
    return "        r = %s < %d\n" % (" < ".join("v + %d" % k for k in range(n)), 2 * n)


BODIES = {"elif": _elif, "straight": _straight, "locals": _locals, "arrays": _arrays,
          "compare": _compare}


def source(shape, n):
    """The kernel's module source."""
    return HEADER + BODIES[shape](n) + "        out[i] = r\n"


def expected(shape, n, x):
    """What the kernel computes, by NumPy."""
    if shape == "elif":
        table = np.array([_branch_value(k) for k in range(n)] + [-1], dtype=np.int64)
        return table[np.where((x >= 0) & (x < n), x, n)]
    r = x.astype(np.int64)
    if shape == "compare":
        return (r + n - 1 < 2 * n).astype(np.int64)
    if shape == "arrays":
        return r + sum(k % 7 for k in range(n))
    if shape == "straight":
        for k in range(n):
            r = r * 3 + (k % 17)
        return r
    return r + sum(k % 5 for k in range(n))


def load(shape, n, directory):
    """The @cuda.jit kernel of `shape` and size `n`, from a module written into `directory`."""
    name = "scaling_%s_%d" % (shape, n)
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as f:
        f.write(source(shape, n))
    # CPython's compiler recurses once per elif: long chains need more than its default limit.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * n + 1000))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kernel


def inputs(shape, n):
    x = np.arange(-3, n + 4, max(1, n // 97), dtype=np.int64)
    return x, np.zeros_like(x)


def run(kernel, shape, n):
    """Launches `kernel` and checks it against NumPy; raises AssertionError on a mismatch."""
    x, out = inputs(shape, n)
    kernel[(x.size + 127) // 128, 128](x, out)
    np.testing.assert_array_equal(out, expected(shape, n, x))


def measure(shape, n, directory):
    """(wall, CPU) seconds of the first compile of the kernel, which is then run and checked.
    CPU time is the steadier figure on a shared machine."""
    from simt import types
    kernel = load(shape, n, directory)
    wall, cpu = time.perf_counter(), time.process_time()
    kernel.compile((types.int64[::1], types.int64[::1]))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    run(kernel, shape, n)
    return wall, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=sorted(BODIES), action="append")
    parser.add_argument("--sizes", type=lambda s: [int(v) for v in s.split(",")])
    parser.add_argument("--json", action="store_true",
                        help="end with one JSON line of the rows (bench/run.py reads it)")
    args = parser.parse_args()
    os.environ["SIMT_CACHE"] = "0"
    if importlib.util.find_spec("simt") is None:
        sys.path.insert(0, os.path.join(ROOT, "build", "python"))
    with tempfile.TemporaryDirectory(prefix="simt-compile-scaling-") as directory:
        sys.path.insert(0, directory)
        measure("straight", 1, directory)  # starts the JIT
        print("%-9s %7s %9s %9s" % ("shape", "size", "wall", "CPU"))
        rows = []
        for shape in args.shape or DEFAULT_SIZES:
            for n in args.sizes or DEFAULT_SIZES[shape]:
                wall, cpu = measure(shape, n, directory)
                rows.append({"shape": shape, "size": n, "wall_s": wall, "cpu_s": cpu})
                target = [t for s, size, t in TARGETS if (s, size) == (shape, n)]
                note = "  (target < %.1f s)" % target[0] if target else ""
                print("%-9s %7d %8.3fs %8.3fs%s" % (shape, n, wall, cpu, note), flush=True)
        if args.json:
            print(json.dumps(rows))


if __name__ == "__main__":
    main()
