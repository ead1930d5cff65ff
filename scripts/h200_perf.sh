#!/usr/bin/env bash
# The single-H200 deliverables of the current code, in device calls of under 10 minutes.
#   bench:   the gpu-marked tests, then benchmarks/bench_run.py cuda --repeat 3 (backend vs the
#            hand-written reference, weak MP outcomes per second per stress preset)
#   catalog: the whole catalog on the cuda backend, 0.5 s per variant, appended to
#            docs/results/h200-single-gpu.jsonl (--resume: call again until it says 208/208)
#   audit:   litmus audit with this machine's triton
# Usage (repo root, on the GPU machine): bash scripts/h200_perf.sh bench|catalog|audit [OUT]
set -u
what=${1:?bench, catalog or audit}
OUT=${2:-${OUT:-/tmp/litmus-out}}
mkdir -p "$OUT"
export COLUMNS=160
source scripts/h200_env.sh
LOG=$OUT/$what.log
JSONL=docs/results/h200-single-gpu.jsonl
step "versions"
versions
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee -a "$LOG"
case "$what" in
  bench)
    step "gpu-marked tests"
    timeout 150 python3 -m pytest -q -m gpu tests/run tests/codegen -p no:cacheprovider 2>&1 | tail -n 4 | tee -a "$LOG"
    step "throughput: python3 benchmarks/bench_run.py cuda --repeat 3"
    timeout 300 python3 benchmarks/bench_run.py cuda --repeat 3 2>&1 | grep -v Warning | tee -a "$LOG"
    ;;
  catalog)
    step "catalog: litmus run catalog/ --backend cuda --time-budget 0.5 --instances 4194304 --seed 1 --resume"
    timeout "${RUN_TIMEOUT:-500}" python3 -m litmus run catalog/ --backend cuda --time-budget 0.5 \
        --instances 4194304 --seed 1 --out "$JSONL" --resume >"$OUT/catalog-table.txt" 2>>"$LOG"
    echo "run exit $?" | tee -a "$LOG"
    tail -n 1 "$OUT/catalog-table.txt" | tee -a "$LOG"
    cp "$JSONL" "$OUT/"
    ;;
  audit)
    step "audit with this machine's triton"
    timeout 200 python3 -m litmus audit catalog/ -j 16 --json >"$OUT/audit.jsonl" 2>>"$LOG"
    echo "audit exit $?" | tee -a "$LOG"
    ;;
esac
step "done"
