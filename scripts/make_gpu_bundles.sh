#!/usr/bin/env bash
# The parity check's first half, on a machine with simt built (no GPU needed): runs the examples,
# the whole test suite and the benchmark kernels with SIMT_BUNDLE set, so every launch is
# written as a bundle (the PTX, the arguments, the simulator's results; gpu/runner/README.md),
# and packs them with gpu/runner and scripts/gpu_parity.sh into one archive for the GPU machine:
#
#   scripts/make_gpu_bundles.sh [OUT_DIR]        # default: gpu-bundles; OUT_DIR.tar.gz next to it
#   # on the GPU machine (CUDA driver, CMake, a C++ compiler; no LLVM, no simt):
#   tar xzf gpu-bundles.tar.gz && cd gpu-bundles && scripts/gpu_parity.sh bundles results.txt
#   python3 bench/gpu_numba_cuda.py   # numba-cuda's kernel times, where numba-cuda is installed
#
# Environment: PYTHON (default /usr/bin/python3), SIMT_PYTHONPATH (default build/python),
# SIMT_BUNDLE_CC (default 7.5), SIMT_BUNDLE_MAX_MB per bundle (default 12: the archive travels to
# a machine that takes 64 MiB).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-gpu-bundles}")  # absolute: test processes change directory
python=${PYTHON:-/usr/bin/python3}
export PYTHONPATH=${SIMT_PYTHONPATH:-$root/build/python}
export SIMT_BUNDLE_MAX_MB=${SIMT_BUNDLE_MAX_MB:-12}
rm -rf "$out"
mkdir -p "$out/bundles" "$out/scripts" "$out/bench"

status=0
for example in "$root"/examples/*.py; do
  name=$(basename "$example" .py)
  if ! SIMT_BUNDLE="$out/bundles/example-$name" "$python" -m simt run "$example" >/dev/null; then
    echo "make_gpu_bundles: $example failed" >&2
    status=1
  fi
done
# Every kernel launch of the test suite, in one run: a bundle per source file of the kernels
# (tests-test_kernels, ...), their expected faults included. Tests that look at what a launch
# prints or leaves behind may fail under bundling; the launches are what matters here.
SIMT_BUNDLE="$out/bundles" SIMT_BUNDLE_PER_FILE=tests- "$python" -m pytest -q \
  -p no:cacheprovider "$root/tests/python" >"$out/pytest.log" 2>&1 || true
SIMT_BUNDLE="$out/bundles/bench" SIMT_BUNDLE_MAX_MB=24 "$python" "$root/bench/gpu_bench_bundle.py" || status=1

# Every bundle checked as the runner reads it (files, sizes, entries), before it travels.
runner=${SIMT_GPU_RUN:-$root/build/gpu/runner/simt-gpu-run}
for manifest in "$out"/bundles/*/manifest.txt; do
  dir=$(dirname "$manifest")
  "$runner" --dry-run "$dir" | grep -v '^dry run: ' >&2
  if [ "${PIPESTATUS[0]}" -ne 0 ]; then
    echo "make_gpu_bundles: $dir fails simt-gpu-run --dry-run" >&2
    status=1
  fi
done
cp -r "$root/gpu" "$root/config" "$out/" # the runner includes config/settings.h
cp "$root/scripts/gpu_parity.sh" "$out/scripts/"
cp "$root/bench/gpu_numba_cuda.py" "$root/bench/kernels.py" "$out/bench/"
tar czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
echo "make_gpu_bundles: $(find "$out/bundles" -name manifest.txt | wc -l) bundles," \
  "$(grep -h '^launch ' "$out"/bundles/*/manifest.txt | wc -l) launches;" \
  "$out.tar.gz is $(du -h "$out.tar.gz" | cut -f1)" >&2
exit $status
