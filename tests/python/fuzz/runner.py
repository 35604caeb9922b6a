"""Runs generated fuzz modules with whatever `numba.cuda` this process has (simt under `simt run`,
Numba's simulator under NUMBA_ENABLE_CUDASIM=1) and saves every output.

usage: runner.py OUT.npz MODULE.py...   (results keyed "<module stem>/<output name>"; a failing
module gets "<stem>/error" = "ExceptionType: message")
"""
import importlib.util
import os
import sys
import warnings

import numpy as np


def run_module(path):
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run()


def main(out, paths):
    warnings.simplefilter("ignore")
    results = {}
    for path in paths:
        stem = os.path.splitext(os.path.basename(path))[0]
        try:
            for key, arr in run_module(path).items():
                results["%s/%s" % (stem, key)] = np.asarray(arr)
        except Exception as e:  # recorded: one failing module must not hide the others
            results["%s/error" % stem] = np.array("%s: %s" % (type(e).__name__, e))
    np.savez(out, **results)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
