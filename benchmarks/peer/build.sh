#!/usr/bin/env bash
# Build the peer's runners (reeselevine/cuda-litmus) for this GPU's arch, cudart static.
# Upstream style (tune.sh): nvcc -D$tb -D$scope -I. -rdc=true -arch sm_80 runner.cu kernels/$test.cu
# Here: the arch read from the device, the upstream sources unchanged in $UPSTREAM, the timed runner
# and the relaxed MP/SB/LB kernels of added/ (ours, in the peer's style). Output: $BIN (default /tmp/peer-bin).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
UPSTREAM=${UPSTREAM:?set UPSTREAM to the peer sources: git clone https://github.com/reeselevine/cuda-litmus, commit 4b6c4a0}
BIN=${BIN:-/tmp/peer-bin}
NVCC=${NVCC:-$(command -v nvcc || ls /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc 2>/dev/null | head -n 1)}
CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
ARCH=sm_${CAP:?no GPU found by nvidia-smi}
mkdir -p "$BIN"
b() { out=$1; shift; echo "$NVCC $F $* -o $BIN/$out"; "$NVCC" $F "$@" -o "$BIN/$out" || echo "BUILD FAILED: $out"; }
F="-DTB_0_1 -DSCOPE_DEVICE -I$UPSTREAM -rdc=true -arch=$ARCH -cudart static -O3"
b timed-mp "$HERE/added/timed-runner.cu" "$UPSTREAM/kernels/mp.cu" &
b timed-mp-relaxed "$HERE/added/timed-runner.cu" "$HERE/added/kernels/mp-relaxed.cu" &
b timed-sb "$HERE/added/timed-runner.cu" "$HERE/added/kernels/sb.cu" &
b timed-lb "$HERE/added/timed-runner.cu" "$HERE/added/kernels/lb.cu" &
wait
# the peer's own tests of the shapes litmus's catalog has, relaxed, device scope, every thread in
# its own CTA (upstream tuning-files: 2+2w TB_0_1, wrc/rwc/isa2 TB_0_1_2, iriw TB_0_1_2_3)
F="-DSCOPE_DEVICE -DRELAXED -I$UPSTREAM -rdc=true -arch=$ARCH -cudart static -O3"
b timed-2+2w -DTB_0_1 "$HERE/added/timed-runner.cu" "$UPSTREAM/kernels/2+2w.cu" &
b timed-wrc -DTB_0_1_2 "$HERE/added/timed-runner.cu" "$UPSTREAM/kernels/wrc.cu" &
b timed-rwc -DTB_0_1_2 "$HERE/added/timed-runner.cu" "$UPSTREAM/kernels/rwc.cu" &
b timed-iriw -DTB_0_1_2_3 "$HERE/added/timed-runner.cu" "$UPSTREAM/kernels/iriw.cu" &
b timed-isa2 -DTB_0_1_2 "$HERE/added/timed-runner.cu" "$UPSTREAM/kernels/isa2.cu" &
wait
# system-scope atomics (litmus.cuh's SCOPE_SYSTEM): the scope of our SB/LB relaxed-sys variants
F="-DTB_0_1 -DSCOPE_SYSTEM -I$UPSTREAM -rdc=true -arch=$ARCH -cudart static -O3"
b timed-sb-sys "$HERE/added/timed-runner.cu" "$HERE/added/kernels/sb.cu" &
b timed-lb-sys "$HERE/added/timed-runner.cu" "$HERE/added/kernels/lb.cu" &
wait
ls -la "$BIN"
