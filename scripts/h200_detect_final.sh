#!/usr/bin/env bash
# Issue 13, last H200 call of the session (one call, under 6 minutes): the parallel-mode tests on
# triton 3.6, bench_weak with the new default (parallel), the old default (grid) and the tuned
# file beside the reference, the reset/reuse patterns under the default (grid fallback), and
# litmus audit of the whole catalog with the run kernels on triton 3.6.
# Usage (repo root, on the GPU machine): bash scripts/h200_detect_final.sh OUT
set -u
OUT=${1:-${OUT:-/tmp/litmus-out}}
mkdir -p "$OUT"
source scripts/h200_env.sh
export LITMUS_CACHE=${LITMUS_CACHE:-/tmp/litmus-cache}
LOG=$OUT/final.log
step "parallel-mode tests on this triton"
timeout 90 python3 -m pytest -q -p no:cacheprovider -n 8 tests/codegen/test_parallel.py tests/run/test_parallel.py \
    tests/codegen/test_spin_hazards.py 2>&1 | tail -n 2 | tee -a "$LOG"
step "bench_weak --seconds 3 --stress default grid docs/results/h200-tuned.json"
timeout 120 python3 benchmarks/bench_weak.py --backend cuda --seconds 3 --stress default grid docs/results/h200-tuned.json \
    --json "$OUT/bench-weak-2.json" 2>&1 | grep -v Warning | tail -n 13 | tee -a "$LOG"
step "reset/reuse patterns under the default preset"
timeout 60 python3 -m litmus run MP-iris-reset MP-iris-reset-war MP-reset-race --backend cuda --time-budget 0.5 \
    --until-bound 1e-9 --seed 1 --out "$OUT/reset-default.jsonl" 2>>"$LOG" | tail -n 1 | tee -a "$LOG"
step "litmus audit catalog/ with the run kernels (this triton)"
timeout 150 python3 -m litmus audit catalog/ -j 16 --json >"$OUT/audit-triton36-runkernels.jsonl" 2>>"$LOG"
echo "audit exit $?" | tee -a "$LOG"
python3 - "$OUT/audit-triton36-runkernels.jsonl" <<'PY' | tee -a "$LOG"
import collections, json, sys
cells = [json.loads(line) for line in open(sys.argv[1])]
print(len(cells), "cells", dict(collections.Counter(c["status"] for c in cells)))
for c in cells:
    if c["status"] == "differs":
        print("DIFFERS", c["id"], c["target"], [d for k in c["run_kernels"] for d in k["differences"]][:2])
PY
step "done"
