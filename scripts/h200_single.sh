#!/usr/bin/env bash
# Everything the single-H200 results need, in device calls of under 10 minutes.
#   phase 1: the catalog on the cuda backend (resumable), the audit on the machine's triton,
#            the throughput benchmark and the gpu-marked tests
#   phase 2: finish the catalog run (--resume) and the world_size=1 symmetric-memory run
# Usage (repo root, on the GPU machine): bash scripts/h200_single.sh 1|2 [OUT]
# Results land in $OUT; docs/results/ keeps the ones quoted in the docs.
set -u
phase=${1:?phase 1 or 2}
OUT=${2:-${OUT:-/tmp/litmus-out}}
mkdir -p "$OUT"
export COLUMNS=180
source scripts/h200_env.sh
LOG=$OUT/session-$phase.log
JSONL=docs/results/h200-single-gpu.jsonl
RUN_BUDGET=${RUN_BUDGET:-0.5}

step "machine"
python3 -m litmus doctor >>"$LOG" 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv >>"$LOG" 2>&1
python3 -c "import sys, torch, triton; print('python', sys.version.split()[0], 'torch', torch.__version__, 'triton', triton.__version__, 'device', torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0))" >>"$LOG" 2>&1

if [ "$phase" = 1 ]; then
  step "catalog on cuda, ${RUN_BUDGET}s per variant (resumable)"
  timeout "${RUN_TIMEOUT:-390}" python3 -m litmus run catalog/ --backend cuda --time-budget "$RUN_BUDGET" \
      --instances 4194304 --seed 1 --out "$JSONL" --resume >"$OUT/run-table-1.txt" 2>>"$LOG"
  echo "run exit $?" | tee -a "$LOG"
  cp "$JSONL" "$OUT/"
  step "audit with this machine's triton"
  timeout 110 python3 -m litmus audit catalog/ -j 16 --json >"$OUT/audit-gpu-machine.jsonl" 2>>"$LOG"
  echo "audit exit $?" | tee -a "$LOG"
  step "throughput benchmark"
  timeout 70 python3 benchmarks/bench_run.py cuda >>"$LOG" 2>&1
  step "gpu-marked tests"
  timeout 60 python3 -m pytest -q -m gpu tests/run tests/codegen -p no:cacheprovider >>"$LOG" 2>&1
else
  step "finish the catalog on cuda (--resume)"
  timeout "${RUN_TIMEOUT:-390}" python3 -m litmus run catalog/ --backend cuda --time-budget "$RUN_BUDGET" \
      --instances 4194304 --seed 1 --out "$JSONL" --resume >"$OUT/run-table-2.txt" 2>>"$LOG"
  echo "run exit $?" | tee -a "$LOG"
  cp "$JSONL" "$OUT/"
  if [ -f scripts/h200_ranks_ws1.py ] && [ -z "${SKIP_RANKS:-}" ]; then
    step "ranks backend, world_size 1, symmetric memory"
    timeout 150 python3 scripts/h200_ranks_ws1.py "$OUT/h200-ranks-ws1.jsonl" >>"$LOG" 2>&1
    echo "ranks exit $?" | tee -a "$LOG"
  fi
fi
step "done"
tail -n 60 "$OUT"/run-table-*.txt 2>/dev/null | tail -n 40
