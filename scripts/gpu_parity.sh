#!/usr/bin/env bash
# GPU parity on a machine with an NVIDIA GPU and CMake but without simt's dependencies (LLVM):
# builds simt-gpu-run from gpu/runner alone and runs every bundle under a folder (each directory
# holding a manifest.txt; see gpu/runner/README.md), writing one results file.
#
#   scripts/gpu_parity.sh BUNDLES_DIR [RESULTS_FILE]
#
# RESULTS_FILE (default gpu-parity-results.txt) gets the device line and the runner's self-test
# (simt-gpu-run --selftest; nothing more runs if it fails), then for each bundle a
# `## bundle <path>` line, the runner's lines and its exit status, then a `total:` line.
# Environment: SIMT_RUNNER_BUILD (build folder, default build-gpu-runner under the repository),
# SIMT_GPU_RUN_FLAGS (more runner flags, e.g. --time), SIMT_LIBCUDA (another libcuda).
# Exit status: 0 every bundle ok, 1 a DIFF, FAULT, ERROR or HANG, 2 a bundle or build problem, 3 no GPU.
set -u

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -d "$1" ]; then
  echo "usage: $0 BUNDLES_DIR [RESULTS_FILE]" >&2
  exit 2
fi
bundles=$1
results=${2:-gpu-parity-results.txt}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SIMT_RUNNER_BUILD:-$root/build-gpu-runner}
jobs=$(nproc 2>/dev/null || echo 2)

echo "building simt-gpu-run in $build" >&2
if ! cmake -S "$root/gpu/runner" -B "$build" -DCMAKE_BUILD_TYPE=Release >"$build.log" 2>&1 ||
  ! cmake --build "$build" -j "$jobs" >>"$build.log" 2>&1; then
  cat "$build.log" >&2
  echo "simt-gpu-run did not build (log: $build.log)" >&2
  exit 2
fi
runner=$build/simt-gpu-run

: >"$results"
# The device line, and the built-in kernel: the driver layer works before any bundle runs.
"$runner" --selftest >>"$results" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  cat "$results" >&2
  exit $rc
fi

# Every folder with a manifest.txt, BUNDLES_DIR itself included, in a stable order.
mapfile -t dirs < <(find "$bundles" -name manifest.txt -type f -printf '%h\n' | LC_ALL=C sort)
if [ ${#dirs[@]} -eq 0 ]; then
  echo "no bundle (no manifest.txt) under $bundles" | tee -a "$results" >&2
  exit 2
fi

status=0
ok=0 diff=0 fault=0 error=0 hang=0 skipped=0 launches=0 failed_bundles=0
for dir in "${dirs[@]}"; do
  echo "## bundle $dir" >>"$results"
  # shellcheck disable=SC2086 # flags are words
  output=$("$runner" ${SIMT_GPU_RUN_FLAGS:-} "$dir" 2>&1)
  rc=$?
  # The device line is once at the top of the file.
  printf '%s\n' "$output" | grep -v '^# device ' >>"$results"
  echo "## exit $rc" >>"$results"
  summary=$(printf '%s\n' "$output" | grep '^summary: ' | tail -n 1)
  pattern='^summary: ([0-9]+) ok, ([0-9]+) diff, ([0-9]+) fault, ([0-9]+) error, ([0-9]+) hang, ([0-9]+) simulator-only, of ([0-9]+) launches'
  if [[ $summary =~ $pattern ]]; then
    ok=$((ok + BASH_REMATCH[1]))
    diff=$((diff + BASH_REMATCH[2]))
    fault=$((fault + BASH_REMATCH[3]))
    error=$((error + BASH_REMATCH[4]))
    hang=$((hang + BASH_REMATCH[5]))
    skipped=$((skipped + BASH_REMATCH[6]))
    launches=$((launches + BASH_REMATCH[7]))
  fi
  if [ $rc -ne 0 ]; then
    failed_bundles=$((failed_bundles + 1))
    if [ $rc -gt $status ]; then status=$rc; fi
  fi
  printf '%-60s %s\n' "$dir" "${summary:-exit $rc}" >&2
done

total="total: $ok ok, $diff diff, $fault fault, $error error, $hang hang, $skipped simulator-only, of $launches launches in ${#dirs[@]} bundles ($failed_bundles failed)"
echo "$total" >>"$results"
echo "$total" >&2
echo "results: $results" >&2
exit $status
