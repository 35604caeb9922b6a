"""numba-cuda's kernel times for the benchmark kernels on a real GPU, at the sizes of
bench/gpu_bench_bundle.py: run where numba-cuda and a GPU are (the GPU machine of
scripts/make_gpu_bundles.sh), beside `simt-gpu-run --time` on the bench bundle, whose kernels are
simt's PTX of the same source. Prints one line per kernel: the median of 20 launches, from CUDA
events around each launch, after a warm-up launch (which compiles)."""
import os
import statistics
import sys

import numpy as np

os.environ["BENCH_BACKEND"] = "numba"
os.environ.pop("NUMBA_ENABLE_CUDASIM", None)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402
from numba import cuda  # noqa: E402

VECTOR = 1 << 19
MATRIX = 256
REDUCTION = 1 << 19


def median_ms(launch, repeats=20):
    launch()
    cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = cuda.event(), cuda.event()
        start.record()
        launch()
        end.record()
        end.synchronize()
        times.append(cuda.event_elapsed_time(start, end))
    return statistics.median(times)


def main():
    rng = np.random.default_rng(1)
    x = cuda.to_device(rng.random(VECTOR, dtype=np.float32))
    y = cuda.to_device(rng.random(VECTOR, dtype=np.float32))
    r = cuda.device_array(VECTOR, np.float32)
    a = cuda.to_device(rng.random((MATRIX, MATRIX), dtype=np.float32))
    b = cuda.to_device(rng.random((MATRIX, MATRIX), dtype=np.float32))
    c = cuda.device_array((MATRIX, MATRIX), np.float32)
    values = cuda.to_device(rng.random(REDUCTION, dtype=np.float32))
    partials = cuda.device_array(REDUCTION // kernels.TPB, np.float32)
    blocks = MATRIX // kernels.TILE
    rows = [
        ("vector_add", lambda: kernels.vector_add[VECTOR // kernels.TPB, kernels.TPB](r, x, y)),
        ("matmul", lambda: kernels.matmul[(blocks, blocks), (kernels.TILE, kernels.TILE)](a, b, c)),
        ("block_sum", lambda: kernels.block_sum[REDUCTION // kernels.TPB, kernels.TPB](values,
                                                                                     partials)),
    ]
    name = cuda.get_current_device().name  # bytes under Numba 0.56, str under numba-cuda 0.30
    print("# numba-cuda on %s" % (name.decode() if isinstance(name, bytes) else name))
    for name, launch in rows:
        print("%s time=%.3fms" % (name, median_ms(launch)))


if __name__ == "__main__":
    main()
