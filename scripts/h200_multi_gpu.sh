#!/usr/bin/env bash
# The multi-GPU run of issue 8, ready for a machine with several H200s (one device call).
#   bash scripts/h200_multi_gpu.sh WORLD_SIZE [OUT]
# 1. litmus doctor (GPUs, peer-access matrix, symm_mem), 2. the whole catalog on the ranks
# backend (one process per GPU, symmetric-memory heaps), 3. a longer budget for the volatile
# and relaxed MP variants across GPUs. With WORLD_SIZE=1 it is a dry run: variants needing more
# ranks are skipped with the reason.
set -u
N=${1:?world size}
OUT=${2:-${OUT:-/tmp/litmus-out}}
mkdir -p "$OUT"
export COLUMNS=180
source scripts/h200_env.sh
JSONL=${JSONL:-docs/results/h200-multi-gpu.jsonl}
LONG=${LONG:-docs/results/h200-multi-gpu-long.jsonl}
step() { echo "=== $(date -u +%T) $*" | tee -a "$OUT/multi-gpu.log"; }

step "doctor"
python3 -m litmus doctor --rendezvous | tee "$OUT/doctor.txt"
step "catalog on ranks, world size $N, ${BUDGET:-0.5}s per variant"
timeout "${RUN_TIMEOUT:-420}" python3 -m litmus run catalog/ --backend ranks --world-size "$N" \
    --time-budget "${BUDGET:-0.5}" --seed 1 --out "$JSONL" --resume >"$OUT/multi-gpu-table.txt" 2>>"$OUT/multi-gpu.log"
echo "run exit $?" | tee -a "$OUT/multi-gpu.log"
step "volatile and relaxed MP across GPUs, ${LONG_BUDGET:-10}s per variant"
for v in 'volatile-xgpu' 'relaxed-xgpu-*'; do
  timeout "${LONG_TIMEOUT:-150}" python3 -m litmus run MP MP-mixed --variant "$v" --backend ranks --world-size "$N" \
      --time-budget "${LONG_BUDGET:-10}" --seed 2 --out "$LONG" --resume >>"$OUT/multi-gpu-long-table.txt" 2>>"$OUT/multi-gpu.log"
  echo "long run ($v) exit $?" | tee -a "$OUT/multi-gpu.log"
done
cp "$JSONL" "$LONG" "$OUT/" 2>/dev/null
step "done"
tail -n 12 "$OUT/multi-gpu-table.txt"
