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
# system-scope atomics (litmus.cuh's SCOPE_SYSTEM): the scope of our SB/LB relaxed-sys variants
F="-DTB_0_1 -DSCOPE_SYSTEM -I$UPSTREAM -rdc=true -arch=$ARCH -cudart static -O3"
b timed-sb-sys "$HERE/added/timed-runner.cu" "$HERE/added/kernels/sb.cu" &
b timed-lb-sys "$HERE/added/timed-runner.cu" "$HERE/added/kernels/lb.cu" &
wait
ls -la "$BIN"
