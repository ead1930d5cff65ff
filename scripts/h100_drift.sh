#!/usr/bin/env bash
# Issue 31 on one GPU, in one device call: do the peer's 3- and 4-thread tests need an instance's
# threads to start together? The parallel launch plays its iterations inside one launch, so
# programs drift apart as it goes; the peer launches once per iteration.
#   iters:  bench_weak on MP SB LB 2+2W WRC RWC IRIW with the default preset's settings at
#           INSTANCES_LIST instances per round (1: one iteration of the resident programs per
#           launch), and with PPS_LIST programs per SM at one iteration -> OUT/iters-*.json
#   tuned:  the tuned environment of IRIW kept by side_by_side.sh's OURS_TUNE run
#           (docs/results/h100-sbs-tuned/ours-tuned-IRIW.json) under `litmus run` and under bench_weak,
#           which disagreed there (7,632 target outcomes in 3.1e8 instances against 0 in 3.9e9)
#   stale:  benchmarks/experiments/mp_stale_line.yaml (a plain load of the payload before a relaxed
#           spin: does a stale L1 line show the target?) with docs/results/h100-rotation-4.json
#   OUT/drift.tar.gz holds every file; the table of weak outcomes comes last.
# Usage (repo root, on the GPU machine): bash scripts/h100_drift.sh OUT  (PHASES="iters tuned stale", SECONDS_PER=1)
set -u
OUT=${1:?OUT}
mkdir -p "$OUT/d"
source scripts/h200_env.sh
LOG=$OUT/d/drift.log
S=${SECONDS_PER:-1}
TESTS=${TESTS:-MP SB LB 2+2W WRC RWC IRIW}
versions
for what in ${PHASES:-iters tuned stale}; do
case "$what" in
  iters)
    for n in ${INSTANCES_LIST:-1 262144 1048576}; do
      step "bench_weak default, $n instances per round"
      # shellcheck disable=SC2086
      timeout 200 python3 benchmarks/bench_weak.py --backend cuda --seconds "$S" --instances "$n" --tests $TESTS \
        --stress default --json "$OUT/d/iters-$n.json" 2>&1 | grep -v Warning | tail -n 9 | tee -a "$LOG"
    done
    for p in ${PPS_LIST:-2 4}; do
      python3 - "$OUT/d/pps-$p.json" "$p" <<'PY'
import json, sys
from dataclasses import replace
from litmus.run.config import PRESETS
doc = replace(PRESETS["default"], programs_per_sm=int(sys.argv[2])).as_dict()
doc.pop("name")  # a stress file names its environments after itself
open(sys.argv[1], "w").write(json.dumps(doc, indent=2) + "\n")
PY
      step "bench_weak default at $p programs per SM, one iteration per launch"
      # shellcheck disable=SC2086
      timeout 200 python3 benchmarks/bench_weak.py --backend cuda --seconds "$S" --instances 1 --tests $TESTS \
        --stress "$OUT/d/pps-$p.json" --json "$OUT/d/iters-pps$p.json" 2>&1 | grep -v Warning | tail -n 9 | tee -a "$LOG"
    done
    ;;
  tuned)
    f=docs/results/h100-sbs-tuned/ours-tuned-IRIW.json
    step "IRIW's tuned environment: litmus run, then bench_weak"
    timeout 120 python3 -m litmus run catalog/iriw.yaml --variant relaxed-sys --backend cuda --stress "$f" \
      --instances 1048576 -t 2 --seed 40 --out "$OUT/d/tuned-iriw-run.jsonl" 2>&1 | tail -n 6 | tee -a "$LOG"
    timeout 120 python3 benchmarks/bench_weak.py --backend cuda --seconds 2 --instances 1048576 --tests IRIW \
      --stress "$f" --json "$OUT/d/tuned-iriw-bench.json" 2>&1 | grep -v Warning | tail -n 3 | tee -a "$LOG"
    ;;
  stale)
    step "MP-stale-line: a plain load of the payload before a relaxed spin"
    timeout 150 python3 -m litmus run benchmarks/experiments/mp_stale_line.yaml --backend cuda \
      --stress docs/results/h100-rotation-4.json -t 4 --seed 1 --out "$OUT/d/stale.jsonl" 2>&1 | tail -n 12 | tee -a "$LOG"
    ;;
esac
done
step "table"
python3 - "$OUT/d" <<'PY' | tee -a "$LOG"
import json, sys
from pathlib import Path
print(f"{'file':<22} {'test':<6} {'inst/round':>10} {'weak':>10} {'kernel_s':>8} {'weak/kernel-s':>13} {'weak/inst':>9}")
for f in sorted(Path(sys.argv[1]).glob("*.json")):
    try:
        rows = json.loads(f.read_text())["rows"]
    except (ValueError, KeyError):
        continue
    for r in rows:
        d = r.get("detail", r)
        ks = d.get("kernel_seconds") or 0.0
        print(f"{f.stem:<22} {r['test']:<6} {d.get('instances_per_round', 0):>10} {r['weak']:>10} {ks:>8.3f} "
              f"{(r['weak'] / ks if ks else 0):>13.3g} {(r['weak'] / r['instances'] if r['instances'] else 0):>9.2g}")
PY
tar -czf "$OUT/drift.tar.gz" -C "$OUT" d
