#!/usr/bin/env bash
# The execution fuzz on one GPU (issue "Every pattern a user writes runs"), in one device call:
#   1. the three-thread counter patterns (tests/run/data/counter_two_producers.yaml, and
#      counter_lost_signal.yaml, which may hang and so carries the quiescence harness) under
#      compute-sanitizer memcheck in both launch modes (--stress default: parallel; --stress
#      grid), then REPEAT plain runs of each (the crash was intermittent);
#   2. every pattern of FUZZ_DIR (made by benchmarks/fuzz_patterns.py or litmus generate) through
#      the cuda backend, one round of INSTANCES each, appended to OUT/fuzz.jsonl (--resume: call
#      again to finish);
#   3. the summary (scripts/fuzz_summary.py).
# Usage (repo root, on the GPU machine): FUZZ_DIR=fuzz_gpu/random bash scripts/h200_fuzz.sh OUT
set -u
OUT=${1:-${OUT:-/tmp/litmus-out}}
FUZZ_DIR=${FUZZ_DIR:-fuzz_gpu}
INSTANCES=${INSTANCES:-65536}
REPEAT=${REPEAT:-10}
RUN_TIMEOUT=${RUN_TIMEOUT:-420}
LOG=$OUT/fuzz.log
mkdir -p "$OUT"
source scripts/h200_env.sh
export LITMUS_CACHE=${LITMUS_CACHE:-/tmp/litmus-cache}
versions
COUNTER=tests/run/data/counter_two_producers.yaml
HANGING=tests/run/data/counter_lost_signal.yaml
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
for pattern in "$COUNTER" "$HANGING"; do
  for stress in default grid; do
    if [ -n "$SAN" ] && [ "${SANITIZE:-1}" = 1 ]; then
      step "compute-sanitizer memcheck: $pattern --stress $stress"
      timeout "${SAN_TIMEOUT:-240}" "$SAN" --tool memcheck --error-exitcode 99 python3 -m litmus run "$pattern" \
        --backend cuda --stress "$stress" --iterations 1 --instances 4096 --compile-workers 0 \
        --out "$OUT/sanitizer.jsonl" >> "$OUT/sanitizer-run.log" 2>&1
      echo "sanitizer exit $? ($(grep -c 'Invalid\|illegal' "$OUT/sanitizer-run.log") invalid-access lines)" | tee -a "$LOG"
    fi
    step "$REPEAT runs of $pattern --stress $stress"
    for k in $(seq 1 "$REPEAT"); do
      python3 -m litmus run "$pattern" --backend cuda --stress "$stress" --iterations 2 --instances 1048576 \
        --seed "$k" --compile-workers 0 --out "$OUT/counter.jsonl" >/dev/null 2>>"$LOG" \
        || echo "counter run $k: exit $?" | tee -a "$LOG"
    done
  done
done
[ -s "$OUT/counter.jsonl" ] && python3 scripts/fuzz_summary.py "$OUT/counter.jsonl" | tee -a "$LOG"
step "fuzz: $FUZZ_DIR, $INSTANCES instances per pattern"
timeout "$RUN_TIMEOUT" python3 -m litmus run "$FUZZ_DIR" --backend cuda --iterations 1 --instances "$INSTANCES" \
  --out "$OUT/fuzz.jsonl" --resume > "$OUT/fuzz-run.log" 2>&1
echo "fuzz run exit $?" | tee -a "$LOG"
tail -5 "$OUT/fuzz-run.log" | tee -a "$LOG"
python3 scripts/fuzz_summary.py "$OUT/fuzz.jsonl" --patterns "$FUZZ_DIR" | tee -a "$LOG"
