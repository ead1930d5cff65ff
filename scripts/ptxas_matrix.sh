#!/usr/bin/env bash
# The ptxas version x target matrix of docs/compiler-bugs/ptxas-matrix.md (no GPU needed): every
# ptxas found x -O0..-O3 x sm_70..sm_120 x the four reproducers of docs/compiler-bugs/, each cell
# read from the SASS: is the plain load after ld.acquire still there?
#
# Usage: bash scripts/ptxas_matrix.sh [--fetch] [ARGS of scripts/ptxas_matrix.py]
#   --fetch        first download the nvidia-cuda-nvcc wheels of $WHEELS with pip (--no-deps) into
#                  $PTXAS_CACHE (default /tmp/ptxas-matrix) and unpack their ptxas (and nvdisasm)
#   PTXAS="a b"    use only these ptxas binaries
#   PYTHONS="python /tmp/venv-t36/bin/python"  the pythons whose triton's bundled ptxas count
#                  (default: python)
# The wheels and binaries stay under $PTXAS_CACHE, never in the repository.
set -eu
cd "$(dirname "$0")/.."
CACHE=${PTXAS_CACHE:-/tmp/ptxas-matrix}
WHEELS=${WHEELS:-"nvidia-cuda-nvcc-cu11==11.8.89 nvidia-cuda-nvcc-cu12==12.0.140 nvidia-cuda-nvcc-cu12==12.2.140
nvidia-cuda-nvcc-cu12==12.4.131 nvidia-cuda-nvcc-cu12==12.5.82 nvidia-cuda-nvcc-cu12==12.6.85
nvidia-cuda-nvcc-cu12==12.8.93 nvidia-cuda-nvcc-cu12==12.9.86 nvidia-cuda-nvcc==13.0.88
nvidia-cuda-nvcc==13.2.86 nvidia-cuda-nvcc==13.5.37 nvidia-cuda-nvdisasm==13.5.37"}
PY=${PY:-python}

if [ "${1:-}" = "--fetch" ]; then
    shift
    mkdir -p "$CACHE/wheels"
    for spec in $WHEELS; do
        dir="$CACHE/$spec"
        [ -d "$dir" ] && continue
        "$PY" -m pip download --no-deps --quiet --dest "$CACHE/wheels" "$spec"
        wheel=$(ls "$CACHE"/wheels/"$(echo "${spec%%==*}" | tr - _)"-"${spec##*==}"-*.whl)
        mkdir -p "$dir"
        # a wheel is a zip: take its bin/ptxas and bin/nvdisasm only
        unzip -q -o -j "$wheel" '*/bin/ptxas' '*/bin/nvdisasm' -d "$dir" 2>/dev/null || true
        ls "$dir" | grep -q . || { echo "no ptxas or nvdisasm in $wheel" >&2; exit 1; }
    done
fi
exec "$PY" scripts/ptxas_matrix.py --cache "$CACHE" "$@"
