#!/usr/bin/env bash
# Reproduce docs/compiler-bugs.md finding 1 with the ptxas that Triton ships (no GPU needed):
# compile docs/compiler-bugs/ptxas-acquire-merge.ptx for sm_90 and print its memory instructions.
# Correct code has two LDG.E of [pd] (one before, one after LDG.E.STRONG.SYS + CCTL.IVALL);
# ptxas 12.8 and 12.9 emit one and store its value for both reads.
# Usage: bash scripts/ptxas_acquire_merge.sh [PYTHON]   (default: python)
set -eu
PY=${1:-python}
BIN=$("$PY" -c "from litmus.toolchain import triton_bin; print(triton_bin() or '')")  # run from the repo root
[ -n "$BIN" ] || { echo "$PY: triton ships no NVIDIA tools (backends/nvidia/bin)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$BIN/ptxas" --version | tail -n 1
"$BIN/ptxas" -arch=sm_90 -O3 docs/compiler-bugs/ptxas-acquire-merge.ptx -o "$tmp/repro.cubin"
"$BIN/nvdisasm" -c "$tmp/repro.cubin" | grep -E "LDG|STG|CCTL|MEMBAR"
loads=$("$BIN/nvdisasm" -c "$tmp/repro.cubin" | grep -cE "LDG\.E [^S]|LDG\.E R" || true)
echo "plain loads of d in the SASS: $loads (the PTX has 2)"
