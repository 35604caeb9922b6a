#!/usr/bin/env bash
# Creates a virtual environment holding one pinned numba.cuda host (with pytest, and what the
# host's test suite imports: filecheck, cffi and ml_dtypes for numba-cuda, filecheck for
# numba-cuda-mlir's numba_cuda_mlir.testing), made from
# /usr/bin/python3's venv module, in which simt's staged package is importable and SIMT_ENABLE=1
# installs simt's import hook: CI runs simt's tests and the host's own test suite in it.
#
#   scripts/host_venv.sh NAME DIR
#
# NAME is a host below (the versions simt is measured against; docs/compatibility.md); DIR the
# venv's folder, created or updated. SIMT_STAGE (default build/python under the repository) is
# the staged package the venv sees. Exit status: 0 made, 2 usage, else pip's.
set -eu

declare -A HOSTS=(
  [numba-cuda]="numba==0.68.1 numba-cuda==0.30.4 filecheck==1.0.6 cffi==2.1.1 ml_dtypes==0.6.0"
  [numba-cuda-mlir]="numba-cuda-mlir==0.6.0 filecheck==1.0.6"
)

if [ $# -ne 2 ] || [ -z "${HOSTS[$1]+set}" ]; then
  echo "usage: $0 {$(printf '%s|' "${!HOSTS[@]}" | sed 's/|$//')} DIR" >&2
  exit 2
fi
name=$1
venv=$2
root=$(cd "$(dirname "$0")/.." && pwd)
stage=${SIMT_STAGE:-$root/build/python}

/usr/bin/python3 -m venv "$venv"
# shellcheck disable=SC2086 # the pins are separate words
"$venv/bin/python" -m pip install --quiet ${HOSTS[$name]} pytest
site=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_path('purelib'))")
echo "$stage" >"$site/simt-dev.pth"
cp "$root/python/simt-enable.pth" "$site/simt-enable.pth"
echo "$name host in $venv: $("$venv/bin/python" -m pip freeze | grep -iE '^(numba|numpy)' | tr '\n' ' ')"
