#!/usr/bin/env bash
# Issue 16 on one H200: what each signalling variant costs (litmus cost), in one device call of
# about 5 minutes. Steps (STEPS, default "main fences ranks"):
#   main:   cuda backend, one warp per CTA: the symm_mem barrier patterns 0-2, the iris MP and
#           reset patterns, MP and MP-mixed (every flag variant), COST-signal (the argued-about
#           axes), the vLLM-style and XLA barriers; ping-pongs / barrier rounds between CTAs of one
#           GPU, %globaltimer per round trip; no variant starts after BUDGET s (150)  -> OUT/
#   fences: which threads fence: the fence variants of COST-signal and COST-vllm-barrier with 4
#           warps per CTA, fences run by 1 thread, by 8 (ngpus) and by all 128 (FENCE_BUDGET s,
#           15, each)                                                                -> OUT/fence-<n>/
#   ranks:  the ranks backend at world size 1 (one rank process, symm_mem heap): COST-signal
#           xcta variants, the loop kernel timed by %globaltimer (RANKS_BUDGET s, 30)    -> OUT/ranks/
# Each step writes cost.json (the JSON report) and cost.md (a Markdown table per family); the log
# is OUT/cost.log; the main step's short table (cheapest correct variant per family) is printed last.
# Usage (repo root, on the GPU machine): bash scripts/h200_cost.sh OUT
set -u
OUT=${1:?usage: bash scripts/h200_cost.sh OUT}
mkdir -p "$OUT"
source scripts/h200_env.sh
export LITMUS_CACHE=${LITMUS_CACHE:-/tmp/litmus-cache}
STEPS=${STEPS:-main fences ranks}
BUDGET=${BUDGET:-150}
FENCE_BUDGET=${FENCE_BUDGET:-15}
RANKS_BUDGET=${RANKS_BUDGET:-30}
LOG=$OUT/cost.log
start=$(date +%s)
step "versions"
versions
for what in $STEPS; do
case "$what" in
  main)
    step "main: cuda backend, symm iris mp axes vllm xla (no variant starts after ${BUDGET} s)"
    python3 benchmarks/bench_cost.py "$OUT" symm iris mp axes vllm xla --backend cuda --budget "$BUDGET" \
      >"$OUT/main.txt" 2>>"$LOG" || echo "main failed (see $LOG)" | tee -a "$LOG"
    cat "$OUT/main.txt" >>"$LOG" ;;
  fences)
    for n in 1 8 128; do
      step "fences: 4 warps per CTA, fences by threads %tid.x < $n"
      timeout $(( FENCE_BUDGET + 45 )) python3 benchmarks/bench_cost.py "$OUT/fence-$n" axes vllm --backend cuda \
        --variant '*fence*' --warps 4 --fence-threads "$n" --budget "$FENCE_BUDGET" >>"$LOG" 2>&1 \
        || echo "fence-$n failed (see $LOG)" | tee -a "$LOG"
    done ;;
  ranks)
    step "ranks: world size 1, COST-signal xcta variants"
    timeout $(( RANKS_BUDGET + 60 )) python3 benchmarks/bench_cost.py "$OUT/ranks" axes --backend ranks --world-size 1 \
      --variant '*xcta' --round-trips 1000 --repeat 5 --budget "$RANKS_BUDGET" >>"$LOG" 2>&1 \
      || echo "ranks failed (see $LOG)" | tee -a "$LOG" ;;
  *) echo "unknown step $what (use main, fences, ranks)" | tee -a "$LOG" ;;
esac
done
step "done in $(( $(date +%s) - start )) s; tables in $OUT/cost.md, $OUT/fence-*/cost.md, $OUT/ranks/cost.md"
[ -f "$OUT/main.txt" ] && sed -n "/^family/,\$p" "$OUT/main.txt"
exit 0
