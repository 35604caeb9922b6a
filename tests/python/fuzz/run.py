"""Differential fuzzer driver: runs generated kernels (generate.py) on simt and on Numba's simulator,
each in its own process, compares every output and writes minimised reproducers of mismatches.

usage: run.py [--seeds A:B] [--batch N] [--out DIR] [--no-minimise]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)
from generate import generate  # noqa: E402

RUNNER = os.path.join(HERE, "runner.py")
TIMEOUT = 300


def run_side(side, paths, out):
    env = dict(os.environ)
    if side == "sim":
        env.update(NUMBA_ENABLE_CUDASIM="1", SIMT_ENABLE="0")
        argv = [sys.executable, RUNNER]
    else:
        # simt runs kernels with barriers by loop fission, and as fibers with SIMT_FISSION=0:
        # both must give the simulator's results.
        env.update(NUMBA_ENABLE_CUDASIM="0", SIMT_FISSION="0" if side == "simt-fibers" else "1")
        argv = [sys.executable, "-m", "simt", "run", RUNNER]
    try:
        proc = subprocess.run(argv + [out] + paths, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode != 0:
        return {"<process>": "exit %d: %s" % (proc.returncode, proc.stderr[-2000:])}
    return dict(np.load(out))


def split(results, stem):
    prefix = stem + "/"
    return {k[len(prefix):]: v for k, v in results.items() if k.startswith(prefix)}


def compare(sim, simt):
    """Differences between the simulator's and simt's outputs of one module, as text lines."""
    if "error" in sim or "error" in simt:
        e1, e2 = str(sim.get("error", "")), str(simt.get("error", ""))
        if e1.split(":")[0] != e2.split(":")[0]:
            return ["error: simulator %r, simt %r" % (e1[:300], e2[:600])]
        return []
    diffs = []
    for key in sorted(sim):
        a, b = sim[key], simt.get(key)
        if b is None:
            diffs.append("%s missing" % key)
        elif a.dtype != b.dtype or a.shape != b.shape:
            diffs.append("%s: %s%s vs %s%s" % (key, a.dtype, a.shape, b.dtype, b.shape))
        else:
            if a.dtype == np.float32:
                bad = ~np.isclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)
            elif a.dtype == np.float64:
                bad = ~np.isclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)
            else:
                bad = a != b
            if bad.any():
                idx = tuple(np.argwhere(bad)[0])
                diffs.append("%s: %d differ, first at %s: simulator %r, simt %r" % (
                    key, bad.sum(), idx, a[idx], b[idx]))
    return diffs


def run_sources(sources, workdir):
    """{stem: source} -> {stem: diffs} (None when a side hung)."""
    paths = []
    for stem, src in sources.items():
        path = os.path.join(workdir, stem + ".py")
        with open(path, "w") as f:
            f.write(src)
        paths.append(path)
    sim = run_side("sim", paths, os.path.join(workdir, "sim.npz"))
    simt = run_side("simt", paths, os.path.join(workdir, "simt.npz"))
    fibers = run_side("simt-fibers", paths, os.path.join(workdir, "simt-fibers.npz"))
    sides = (sim, simt, fibers)
    if any(side is None or "<process>" in side for side in sides):
        if len(sources) == 1:
            stem = next(iter(sources))
            what = "hang" if any(side is None for side in sides) else "".join(
                str(side.get("<process>", "")) for side in sides)
            states = ["hung" if side is None else "ok" for side in sides]
            return {stem: ["process failure: simulator %s, simt %s, simt (fibers) %s: %s" % (
                *states, what[:2000])]}
        out = {}
        for stem, src in sources.items():  # isolate the culprit
            out.update(run_sources({stem: src}, workdir))
        return out
    return {stem: compare(split(sim, stem), split(simt, stem)) +
            ["fibers: " + d for d in compare(split(sim, stem), split(fibers, stem))]
            for stem in sources}


def statements(lines):
    """Indices of deletable statement lines inside function bodies, with their extent."""
    out = []
    for k, line in enumerate(lines):
        ind = len(line) - len(line.lstrip())
        if ind < 4 or not line.strip() or line.lstrip().startswith(("@", "def ")):
            continue
        end = k + 1
        while end < len(lines) and (len(lines[end]) - len(lines[end].lstrip()) > ind or
                                    lines[end].lstrip().startswith(("elif", "else"))
                                    and len(lines[end]) - len(lines[end].lstrip()) == ind and
                                    line.lstrip().startswith(("if", "elif"))):
            end += 1
        out.append((k, end))
    return out


def delete(lines, k, end):
    new = lines[:k] + lines[end:]
    ind = len(lines[k]) - len(lines[k].lstrip())
    prev = new[k - 1] if k > 0 else ""
    nxt = new[k] if k < len(new) else ""
    if prev.rstrip().endswith(":") and (len(nxt) - len(nxt.lstrip()) < ind or not nxt.strip()):
        new.insert(k, " " * ind + "pass")
    return new


def reproduces(diffs):
    """A candidate still shows the mismatch (not merely a new simulator error)."""
    return bool(diffs) and not any(d.startswith("error: simulator ") and
                                   not d.startswith("error: simulator ''") for d in diffs)


def minimise(source, workdir, log):
    """Greedy statement deletion; deletions that each keep the mismatch are tried all at once."""
    lines = source.splitlines()
    while True:
        spans = [(k, end) for k, end in statements(lines) if lines[k].strip() != "pass"]
        cands = {"m%d" % n: delete(lines, k, end) for n, (k, end) in enumerate(spans)}
        if not cands:
            break
        results = run_sources({s: "\n".join(c) + "\n" for s, c in cands.items()}, workdir)
        still = [int(s[1:]) for s, d in results.items() if reproduces(d)]
        if not still:
            break
        best = cands["m%d" % min(still, key=lambda n: len(cands["m%d" % n]))]
        if len(still) > 1:
            combined, last = list(lines), None
            for n in sorted(still, key=lambda n: -spans[n][0]):  # bottom-up keeps indices valid
                k, end = spans[n]
                if last is not None and end > last:
                    continue
                combined, last = delete(combined, k, end), k
            res = run_sources({"mall": "\n".join(combined) + "\n"}, workdir)
            if reproduces(res["mall"]):
                best = combined
        lines = best
        log("  minimised to %d lines" % len(lines))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0:100")
    ap.add_argument("--batch", type=int, default=40)
    ap.add_argument("--out", default=os.path.join(os.getcwd(), "fuzz_out"))
    ap.add_argument("--no-minimise", action="store_true")
    args = ap.parse_args()
    lo, hi = (int(x) for x in args.seeds.split(":"))
    os.makedirs(args.out, exist_ok=True)
    failures = 0
    with tempfile.TemporaryDirectory() as workdir:
        for start in range(lo, hi, args.batch):
            seeds = range(start, min(hi, start + args.batch))
            results = run_sources({"fz_%d" % s: generate(s) for s in seeds}, workdir)
            for stem, diffs in sorted(results.items()):
                if not diffs:
                    continue
                failures += 1
                seed = int(stem[3:])
                print("seed %d: %s" % (seed, "; ".join(diffs)), flush=True)
                src = generate(seed)
                if not args.no_minimise:
                    src = minimise(src, workdir, print)
                path = os.path.join(args.out, "repro_%d.py" % seed)
                with open(path, "w") as f:
                    f.write("# %s\n%s" % ("\n# ".join(x.replace("\n", " ") for x in diffs), src))
                print("  reproducer: %s" % path, flush=True)
            print("seeds %d:%d done, %d mismatching so far" % (lo, seeds[-1] + 1, failures),
                  flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
