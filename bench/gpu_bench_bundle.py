"""The benchmark kernels (bench/kernels.py) at GPU-sized problems, launched once each on simt with
SIMT_BUNDLE set (scripts/make_gpu_bundles.sh): simt-gpu-run --time then gives their kernel times
on the GPU, beside numba-cuda's from bench/gpu_numba_cuda.py (docs/gpu.md)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402  (simt's cuda, BENCH_BACKEND unset)

# Sizes: as large as the bundle's transfer allows (inputs and expected outputs travel).
VECTOR = 1 << 19
MATRIX = 256
REDUCTION = 1 << 19


def main():
    rng = np.random.default_rng(1)
    x, y = rng.random(VECTOR, dtype=np.float32), rng.random(VECTOR, dtype=np.float32)
    r = np.zeros_like(x)
    kernels.vector_add[VECTOR // kernels.TPB, kernels.TPB](r, x, y)
    a = rng.random((MATRIX, MATRIX), dtype=np.float32)
    b = rng.random((MATRIX, MATRIX), dtype=np.float32)
    c = np.zeros_like(a)
    blocks = MATRIX // kernels.TILE
    kernels.matmul[(blocks, blocks), (kernels.TILE, kernels.TILE)](a, b, c)
    values = rng.random(REDUCTION, dtype=np.float32)
    partials = np.zeros(REDUCTION // kernels.TPB, dtype=np.float32)
    kernels.block_sum[REDUCTION // kernels.TPB, kernels.TPB](values, partials)


if __name__ == "__main__":
    main()
