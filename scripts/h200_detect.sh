#!/usr/bin/env bash
# Issue 13 on one H200 (detection power), in device calls of under 10 minutes each.
#   smoke:   versions; the gpu-marked tests and the parallel-mode tests; a parallel-launch run of
#            spinning and non-spinning patterns (no VIOLATION, spins complete); the weak-outcome
#            benchmark, litmus side by side with the cuda-litmus-style reference kernel
#   tune:    litmus tune on relaxed MP / SB / LB -> docs/results/h200-tuned.json (+ its trial log)
#   bench:   the gpu-marked tests; bench_weak with the default, grid and tuned environments (2 s
#            each), the tuned one also at 2^20 instances per round
#   bench-big: bench_weak with the default environment at 2^24 and at 2^26 instances per round
#   widths:  the gpu-marked width tests, catalog/tearing.yaml run to a bound (-> OUT/h200-tearing.jsonl)
#            and audited against the machine's own ptxas (--target sass)
#   timing:  benchmarks/bench_variant_time.py on VARIANTS: where each variant's seconds go in a
#            catalog run (setup and compile, kernels, counting), round by round
#   tune-mutants: litmus tune --keep 3 on the mutants one GPU can show that the last catalog run
#            did not witness (MUTANTS) -> docs/results/h200-tuned-mutants.json, then the rotation
#            docs/results/h200-rotation-2.json = h200-rotation.json followed by those environments
#   catalog: the whole catalog (or the files in CATALOG) with STRESS (default: the tuned file), INSTANCES per round (2^24),
#            at most BUDGET s per variant, each stopping once its target is seen or 3/N <= BOUND
#            (default 1e-9), appended to JSONL (default docs/results/h200-detect.jsonl; --resume:
#            call again to finish)
#   audit-sass: litmus audit CATALOG --target sass with the machine's own triton/ptxas (JOBS workers)
#   rerun:   litmus run the variant ids listed in IDS_FILE (STRESS, BUDGET s each, SEED) -> JSONL
# Usage (repo root, on the GPU machine): bash scripts/h200_detect.sh 'smoke|tune|catalog ...' [OUT]
#   (several phases in one call run in order, e.g. 'tune catalog')
set -u
phases=${1:?smoke, bench, bench-big, timing, widths, tune, tune-mutants, catalog, audit-sass or rerun}
OUT=${2:-${OUT:-/tmp/litmus-out}}
mkdir -p "$OUT"
source scripts/h200_env.sh
export LITMUS_CACHE=${LITMUS_CACHE:-/tmp/litmus-cache}
LOG=$OUT/detect.log
step "versions"
versions
for what in $phases; do
case "$what" in
  smoke)
    step "tests: gpu-marked + parallel mode"
    timeout 200 python3 -m pytest -q -x -p no:cacheprovider -m gpu tests/run tests/codegen 2>&1 | tail -n 6 | tee -a "$LOG"
    timeout 200 python3 -m pytest -q -x -p no:cacheprovider -n 8 tests/codegen/test_parallel.py tests/run/test_parallel.py \
        tests/audit/test_run_kernels.py 2>&1 | tail -n 4 | tee -a "$LOG"
    step "parallel launch: litmus run (spinning and plain patterns) --stress parallel -t 0.3"
    timeout 200 python3 -m litmus run MP SB LB WRC SYMM-barrier-p1 MP-iris --backend cuda \
        --stress parallel --time-budget 0.3 --seed 1 --out "$OUT/smoke-parallel.jsonl" >"$OUT/smoke-table.txt" 2>>"$LOG"
    echo "run exit $?" | tee -a "$LOG"
    tail -n 2 "$OUT/smoke-table.txt" | tee -a "$LOG"
    step "bench_weak: litmus (default, heavy, parallel, parallel-heavy) vs the reference, 3 s each"
    timeout 240 python3 benchmarks/bench_weak.py --backend cuda --seconds 3 \
        --stress default heavy parallel parallel-heavy --json "$OUT/bench-weak.json" 2>&1 | grep -v Warning | tee -a "$LOG"
    ;;
  bench)
    step "tests: gpu-marked"
    timeout 200 python3 -m pytest -q -x -p no:cacheprovider -m gpu tests/run tests/codegen 2>&1 | tail -n 6 | tee -a "$LOG"
    step "bench_weak: default, grid, tuned (${BSECONDS:-2} s each, 2^24 instances per round), the reference"
    timeout 200 python3 benchmarks/bench_weak.py --backend cuda --seconds "${BSECONDS:-2}" \
        --stress default grid docs/results/h200-tuned.json --json "$OUT/bench-weak.json" 2>&1 | grep -v Warning | tee -a "$LOG"
    step "bench_weak: tuned at 2^20 instances per round"
    timeout 100 python3 benchmarks/bench_weak.py --backend cuda --seconds "${BSECONDS:-2}" --instances 1048576 \
        --stress docs/results/h200-tuned.json --json "$OUT/bench-weak-2e20.json" 2>&1 | grep -v Warning | tee -a "$LOG"
    ;;
  bench-big)
    step "bench_weak: default at 2^24 and 2^26 instances per round (${BSECONDS:-2} s each)"
    for n in 16777216 67108864; do
      timeout 150 python3 benchmarks/bench_weak.py --backend cuda --seconds "${BSECONDS:-2}" --instances $n \
          --stress default --json "$OUT/bench-weak-default-$n.json" 2>&1 | grep -v Warning | tee -a "$LOG"
    done
    ;;
  timing)
    VARIANTS=${VARIANTS:?the variant ids to time}
    step "bench_variant_time: $(echo $VARIANTS | wc -w) variants, stress ${STRESS:-docs/results/h200-rotation-2.json}, budget ${BUDGET:-1.5} s"
    # shellcheck disable=SC2086
    timeout "${RUN_TIMEOUT:-240}" python3 benchmarks/bench_variant_time.py $VARIANTS --backend cuda \
        --stress "${STRESS:-docs/results/h200-rotation-2.json}" --instances "${INSTANCES:-16777216}" \
        --time-budget "${BUDGET:-1.5}" --until-bound "${BOUND:-1e-9}" --seed 1 --json "$OUT/variant-time.json" 2>&1 \
        | grep -v Warning | tee -a "$LOG"
    ;;
  widths)
    step "widths: gpu-marked width tests; litmus run catalog/tearing.yaml; litmus audit --target sass of it"
    timeout 200 python3 -m pytest -q -x -p no:cacheprovider -m gpu tests/run/test_widths_cuda.py 2>&1 | tail -n 4 | tee -a "$LOG"
    timeout 200 python3 -m litmus run catalog/tearing.yaml --backend cuda --stress "${STRESS:-docs/results/h200-rotation-2.json}" \
        --instances "${INSTANCES:-16777216}" --time-budget "${BUDGET:-2}" --until-bound "${BOUND:-1e-9}" --seed 5 \
        --out "$OUT/h200-tearing.jsonl" > "$OUT/tearing-table.txt" 2>>"$LOG"
    echo "run exit $?" | tee -a "$LOG"
    tail -n 1 "$OUT/tearing-table.txt" | tee -a "$LOG"
    timeout 120 python3 -m litmus audit catalog/tearing.yaml --target sass --json > "$OUT/audit-sass-tearing.jsonl" 2>>"$LOG"
    python3 -c "import collections, json, sys; c = [json.loads(l) for l in open(sys.argv[1])]; \
print(collections.Counter(x['status'] for x in c))" "$OUT/audit-sass-tearing.jsonl" 2>&1 | tee -a "$LOG"
    ;;
  tune-mutants)
    MUTANTS=${MUTANTS:?the variant ids to tune on}
    step "litmus tune --keep 3 on $(echo $MUTANTS | wc -w) unseen mutants: ${TRIALS:-10} trials, ${TBUDGET:-0.25} s each"
    # shellcheck disable=SC2086
    timeout 400 python3 -m litmus tune $MUTANTS --backend cuda --keep 3 --instances "${INSTANCES:-16777216}" \
        --trials "${TRIALS:-10}" --time-budget "${TBUDGET:-0.25}" --seed 21 \
        --out docs/results/h200-tuned-mutants.json --log "$OUT/h200-tune-mutants-trials.jsonl" 2>>"$LOG" | tee -a "$LOG"
    python3 - <<'PY' 2>&1 | tee -a "$LOG"
from pathlib import Path
from litmus.run.config import load_stresses
from litmus.tune import write_stress
envs = load_stresses("docs/results/h200-rotation.json") + load_stresses("docs/results/h200-tuned-mutants.json")
print("rotation:", [e.name for e in write_stress(Path("docs/results/h200-rotation-2.json"), envs)])
PY
    cp docs/results/h200-tuned-mutants.json docs/results/h200-rotation-2.json "$OUT/" 2>/dev/null
    ;;
  tune)
    step "litmus tune MP SB LB (relaxed cross-CTA/GPU variants): ${TRIALS:-16} trials, ${TBUDGET:-0.3} s each"
    timeout 480 python3 -m litmus tune 'MP[relaxed-xgpu-sys]' 'SB[relaxed-sys]' 'LB[relaxed-sys]' --backend cuda \
        --trials "${TRIALS:-16}" --time-budget "${TBUDGET:-0.3}" --seed 13 \
        --out docs/results/h200-tuned.json --log "$OUT/h200-tune-trials.jsonl" 2>>"$LOG" | tee -a "$LOG"
    cp docs/results/h200-tuned.json "$OUT/" 2>/dev/null
    ;;
  catalog)
    STRESS=${STRESS:-docs/results/h200-tuned.json}
    JSONL=${JSONL:-docs/results/h200-detect.jsonl}
    CATALOG=${CATALOG:-catalog/}
    step "catalog: litmus run $CATALOG --backend cuda --stress $STRESS --instances ${INSTANCES:-16777216} --time-budget ${BUDGET:-1.5} --until-bound ${BOUND:-1e-9} --seed 1 --resume"
    # shellcheck disable=SC2086
    timeout "${RUN_TIMEOUT:-520}" python3 -m litmus run $CATALOG --backend cuda --stress "$STRESS" --instances "${INSTANCES:-16777216}" \
        --time-budget "${BUDGET:-1.5}" --until-bound "${BOUND:-1e-9}" --seed 1 --out "$JSONL" --resume \
        >"$OUT/catalog-table.txt" 2>>"$LOG"
    echo "run exit $?" | tee -a "$LOG"
    tail -n 1 "$OUT/catalog-table.txt" | tee -a "$LOG"
    cp "$JSONL" "$OUT/"
    python3 -m litmus report "$JSONL" --mutation > "$OUT/mutation.txt" 2>&1
    head -n 4 "$OUT/mutation.txt" | tee -a "$LOG"
    ;;
  audit-sass)
    step "litmus audit ${CATALOG:-catalog/} --target sass (the H200's own triton and ptxas), with the run kernels"
    # shellcheck disable=SC2086
    timeout "${AUDIT_TIMEOUT:-200}" python3 -m litmus audit ${CATALOG:-catalog/} --target sass -j "${JOBS:-14}" --json \
        > "$OUT/audit-sass-h200.jsonl" 2>>"$LOG"
    echo "audit exit $?" | tee -a "$LOG"
    python3 -c "import collections, json, sys; c = [json.loads(l) for l in open(sys.argv[1])]; \
print(collections.Counter(x['status'] for x in c)); [print(x['id'], x['status'], [f['op'] for f in x['findings']]) \
for x in c if x['status'] in ('finding', 'declared')]" "$OUT/audit-sass-h200.jsonl" 2>&1 | tee -a "$LOG"
    ;;
  rerun)
    IDS=$(cat "${IDS_FILE:?a file of variant ids, one a line}")
    step "litmus run $(echo $IDS | wc -w) variants of $IDS_FILE with ${STRESS:-docs/results/h200-rotation-2.json}, ${BUDGET:-3} s each, seed ${SEED:-4}"
    # shellcheck disable=SC2086
    timeout "${RUN_TIMEOUT:-300}" python3 -m litmus run $IDS --backend cuda --stress "${STRESS:-docs/results/h200-rotation-2.json}" \
        --instances "${INSTANCES:-16777216}" --time-budget "${BUDGET:-3}" --until-bound "${BOUND:-1e-9}" --seed "${SEED:-4}" \
        --out "${JSONL:?the results file}" --resume > "$OUT/rerun-table.txt" 2>>"$LOG"
    echo "run exit $?" | tee -a "$LOG"
    tail -n 1 "$OUT/rerun-table.txt" | tee -a "$LOG"
    ;;
  *) echo "unknown phase $what" | tee -a "$LOG" ;;
esac
done
step "done"
