#!/usr/bin/env bash
# Issue 31 on one GPU (and issue 39's costs), in one device call of under 10 minutes:
#   tune:     litmus tune on relaxed MP / SB / LB -> OUT/tuned.json and its trials; the result is
#             also kept as this GPU model's settings, which `litmus run` without --stress uses
#   bench:    bench_weak at 2^20 instances per round (litmus run's cuda default): the default preset,
#             auto (what litmus run uses without --stress: the settings just tuned), the H200-tuned file
#   run:      litmus run MP relaxed-xcta-gpu without --stress: the header says which stress it got
#   ablation: benchmarks/ablation.py from the H200-tuned base, each factor alone
#   sweep:    benchmarks/ablation.py's rows of programs per launch from the resident preset
#   plugin:   the whole catalog through the pytest plugin (scripts/gpu_plugin_ci.sh, cold) with STRESS if set
#   cost:     litmus cost of the bug families whose merged fix is still wrong (BUG-cub-591, BUG-mscclpp-497)
# Usage (repo root, on the GPU machine): bash scripts/gpu_detection.sh [OUT]   (PHASES="tune bench run ablation cost")
set -u
OUT=${1:-${OUT:-/tmp/litmus-out}}
mkdir -p "$OUT"
source scripts/h200_env.sh
export LITMUS_CACHE=${LITMUS_CACHE:-/tmp/litmus-cache}
LOG=$OUT/detection.log
step "versions"
versions
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv 2>&1 | tee -a "$LOG"
for what in ${PHASES:-tune bench run ablation cost}; do
case "$what" in
  tune)
    step "litmus tune MP SB LB --variant 'relaxed-*' --trials ${TRIALS:-12} -t ${TBUDGET:-0.3}"
    timeout 200 python3 -m litmus tune MP SB LB --variant 'relaxed-*' --backend cuda --trials "${TRIALS:-12}" \
        -t "${TBUDGET:-0.3}" --out "$OUT/tuned.json" --log "$OUT/tune-trials.jsonl" 2>&1 | grep -v Warning | tail -n 16 | tee -a "$LOG"
    ;;
  bench)
    step "bench_weak at 2^20 per round: default, auto, h200-tuned (${BSECONDS:-1.5} s each)"
    timeout 200 python3 benchmarks/bench_weak.py --backend cuda --seconds "${BSECONDS:-1.5}" --instances 1048576 \
        --stress default auto docs/results/h200-tuned.json --json "$OUT/bench-weak.json" 2>&1 | grep -v Warning | tee -a "$LOG"
    ;;
  run)
    step "litmus run MP --variant relaxed-xcta-gpu, no --stress"
    timeout 100 python3 -m litmus run MP --variant relaxed-xcta-gpu --backend cuda --time-budget 2 \
        --out "$OUT/run-auto.jsonl" 2>&1 | grep -v Warning | tail -n 12 | tee -a "$LOG"
    ;;
  ablation)
    step "ablation from docs/results/h200-tuned.json (${ASECONDS:-1} s per row and test)"
    timeout 300 python3 benchmarks/ablation.py --base docs/results/h200-tuned.json --seconds "${ASECONDS:-1}" \
        --json "$OUT/ablation.json" 2>&1 | grep -v Warning | tee -a "$LOG"
    ;;
  sweep)
    step "occupancy sweep from the default preset (${ASECONDS:-1} s per row and test)"
    timeout 300 python3 benchmarks/ablation.py --base docs/results/h200-tuned.json --seconds "${ASECONDS:-1}" \
        --only resident resident+occupancy-64 resident+occupancy-128 resident+occupancy-256 resident+1-per-sm \
        resident+2-per-sm resident+1-per-sm+kernel-barrier resident+1-per-sm+shuffle-off \
        --json "$OUT/sweep.json" 2>&1 | grep -v Warning | tee -a "$LOG"
    ;;
  plugin)
    step "plugin: scripts/gpu_plugin_ci.sh, one run with an empty cache, stress ${STRESS:-plugin default}"
    RUNS=cold bash scripts/gpu_plugin_ci.sh "$OUT"
    ;;
  cost)
    step "litmus cost BUG-cub-591 BUG-mscclpp-497"
    timeout 150 python3 -m litmus cost BUG-cub-591 BUG-mscclpp-497 --json >"$OUT/cost-bugs.json" 2>>"$LOG"
    echo "cost exit $?" | tee -a "$LOG"
    ;;
esac
done
