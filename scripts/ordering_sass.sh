#!/usr/bin/env bash
# What ptxas makes of the ordering in the shapes of the mutants one GPU never showed
# (docs/detection.md, "The mutants still unseen"), with the ptxas that Triton ships (no GPU
# needed): each PTX kernel below is one thread's side of a shape, compiled for sm_90, and its
# memory and barrier instructions printed.
# Usage: bash scripts/ordering_sass.sh [PYTHON]   (default: python)
set -eu
PY=${1:-python}
BIN=$("$PY" -c "from litmus.toolchain import triton_bin; print(triton_bin() or '')")  # run from the repo root
[ -n "$BIN" ] || { echo "$PY: triton ships no NVIDIA tools (backends/nvidia/bin)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$BIN/ptxas" --version | tail -n 1
kernel() {  # kernel NAME BODY: one entry with pointers %rd1 (x) and %rd2 (y)
  cat <<PTX
.visible .entry $1(.param .u64 p, .param .u64 q) {
  .reg .b64 %rd<4>; .reg .b32 %r<4>;
  ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [q];
$2
  ret;
}
PTX
}
{
  printf '.version 8.0\n.target sm_90\n.address_size 64\n'
  # SB, R, RWC, 2+2W, IRIW [fenceacqrel-sys]: a store, fence.acq_rel, a load (the model lets the
  # load pass the store); fence.sc for comparison
  kernel store_fence_acqrel_load "  st.relaxed.sys.global.b32 [%rd1], 1; fence.acq_rel.sys; ld.relaxed.sys.global.b32 %r1, [%rd2]; st.global.b32 [%rd1+8], %r1;"
  kernel store_fence_sc_load "  st.relaxed.sys.global.b32 [%rd1], 1; fence.sc.sys; ld.relaxed.sys.global.b32 %r1, [%rd2]; st.global.b32 [%rd1+8], %r1;"
  kernel store_load_relaxed "  st.relaxed.sys.global.b32 [%rd1], 1; ld.relaxed.sys.global.b32 %r1, [%rd2]; st.global.b32 [%rd1+8], %r1;"
  # LB[acquire-only-sys]: an acquire load, then a relaxed store; LB relaxed for comparison
  kernel acquire_load_store "  ld.acquire.sys.global.b32 %r1, [%rd1]; st.relaxed.sys.global.b32 [%rd2], 1; st.global.b32 [%rd1+8], %r1;"
  kernel relaxed_load_store "  ld.relaxed.sys.global.b32 %r1, [%rd1]; st.relaxed.sys.global.b32 [%rd2], 1; st.global.b32 [%rd1+8], %r1;"
  # 2+2W[release-sys]: a store, then a release store
  kernel store_release_store "  st.relaxed.sys.global.b32 [%rd1], 1; st.release.sys.global.b32 [%rd2], 2;"
} >"$tmp/shapes.ptx"
"$BIN/ptxas" -arch=sm_90 -O3 "$tmp/shapes.ptx" -o "$tmp/shapes.cubin"
"$BIN/cuobjdump" -sass "$tmp/shapes.cubin" 2>/dev/null \
  | grep -E "Function :|LDG|STG|MEMBAR|FENCE|ERRBAR|CCTL|BAR" | sed -E 's@/\* 0x[0-9a-f]+ \*/@@; s@^ +/\*[0-9a-f]+\*/ +@  @; s/ +$//'
