#!/usr/bin/env bash
# Issue 31 on one GPU, in one device call: does the order in which a parallel-launch program plays
# a test's roles decide how many weak outcomes it shows?
#   bars:   the same-CTA barrier patterns (a CTA's threads take turns at two orders: roles.role_orders)
#           with docs/results/h100-rotation-4.json -> OUT/bars.jsonl
#   orders: bench_weak --role-orders all on 2+2W, WRC, RWC, IRIW (every role order, a row each)
#   rotate: bench_weak with the default preset's settings in one role order and with role_rotation
#           (benchmarks/stress/default-one-order.json, default-rotated.json; the preset itself rotates since this measurement)
#   lanes:  bench_weak with the default preset's settings against the same with shuffle off (every role of an
#           instance at the same lane of other programs, as cuda-litmus' stripe_workgroup places them:
#           benchmarks/stress/default-same-lane.json); then --role-orders all on 2+2W, WRC, RWC, IRIW in one
#           order with and without the lane shuffle (LANE_S s a row, default 0.5)
#   picks:  bench_weak with the default preset's settings against the same lane (shuffle off) with every
#           program playing one rotation of the roles per iteration (order_pick iteration) or one
#           throughout (0-3), and the shuffled lanes with order_pick iteration (benchmarks/stress/*pick*.json);
#           then LB[release-only-sys] (does a release's MEMBAR keep an earlier load ahead of the store?)
#   maps:   bench_weak with the default preset's settings against the same lane with role 2 or 3 at home
#           (role_map 2, 3: it plays an instance in the instance's own program, the others striped away)
#           and with a seeded home role per round (role_map rotate), same lane and shuffled
#           (benchmarks/stress/*map*.json), MAP_S s a row (default 0.5)
#   catalog: the whole catalog (scripts/h200_detect.sh catalog) with docs/results/h100-rotation-3.json,
#           or, when the rotate phase saw more weak outcomes per kernel-second with the rotation on
#           at least 4 of its 7 tests, with the same rotation whose resident parallel environments
#           (1 and 4) rotate the roles (-> OUT/h100-rotation-4.json); OUT/cat/ gets the JSONL and the mutation score
# Usage (repo root, on the GPU machine): bash scripts/h100_roles.sh OUT   (PHASES="bars orders rotate", SECONDS_PER=1,
#   CAT_STRESS=FILE picks the catalog phase's stress file instead of the rotate phase's choice)
set -u
OUT=${1:?OUT}
mkdir -p "$OUT"
source scripts/h200_env.sh
LOG=$OUT/roles.log
S=${SECONDS_PER:-1}
versions
for what in ${PHASES:-bars orders rotate}; do
case "$what" in
  bars)
    bars="SYMM-barrier-p1 SYMM-barrier-p2 COST-barrier-threads MP-block-consumer BUG-aiter-2890 BUG-cutlass-3117"
    step "bars: $bars"
    CATALOG=$bars \
      STRESS=docs/results/h100-rotation-4.json JSONL=$OUT/bars.jsonl RUN_TIMEOUT=${BARS_TIMEOUT:-120} \
      timeout $((${BARS_TIMEOUT:-120} + 60)) bash scripts/h200_detect.sh catalog "$OUT/bars" >"$OUT/bars.log" 2>&1
    grep -E "witnessed|VIOLATION|unseen|error" "$OUT/bars.log" | tail -n 30 | tee -a "$LOG"
    ;;
  orders)
    step "bench_weak --role-orders all, ${S}s a row"
    timeout 240 python3 benchmarks/bench_weak.py --backend cuda --seconds "$S" --instances 1048576 \
      --tests 2+2W WRC RWC IRIW --role-orders all --json "$OUT/orders.json" 2>&1 | grep -v Warning | tee -a "$LOG"
    ;;
  rotate)
    step "bench_weak default-one-order vs default-rotated, ${S}s a row"
    timeout 150 python3 benchmarks/bench_weak.py --backend cuda --seconds "$S" --instances 1048576 \
      --tests MP SB LB 2+2W WRC RWC IRIW --stress benchmarks/stress/default-one-order.json benchmarks/stress/default-rotated.json \
      --json "$OUT/rotate.json" 2>&1 | grep -v Warning | tee -a "$LOG"
    ;;
  lanes)
    step "bench_weak default-rotated vs default-same-lane, ${S}s a row"
    timeout 200 python3 benchmarks/bench_weak.py --backend cuda --seconds "$S" --instances 1048576 \
      --tests MP SB LB 2+2W WRC RWC IRIW --stress benchmarks/stress/default-rotated.json benchmarks/stress/default-same-lane.json \
      --json "$OUT/lanes.json" 2>&1 | grep -v Warning | tail -n 25 | tee -a "$LOG"
    step "bench_weak --role-orders all, one order, shuffled lanes and the same lane, ${LANE_S:-0.5}s a row"
    timeout 330 python3 benchmarks/bench_weak.py --backend cuda --seconds "${LANE_S:-0.5}" --instances 1048576 \
      --tests 2+2W WRC RWC IRIW --role-orders all \
      --stress benchmarks/stress/default-one-order.json benchmarks/stress/default-same-lane-one-order.json \
      --json "$OUT/lane-orders.json" 2>&1 | grep -v Warning | tail -n 80 | tee -a "$LOG"
    ;;
  picks)
    step "bench_weak: default-rotated, same-lane-pick-{iteration,0..3}, shuffled-pick-iteration, ${S}s a row"
    timeout 330 python3 benchmarks/bench_weak.py --backend cuda --seconds "$S" --instances 1048576 \
      --tests MP SB LB 2+2W WRC RWC IRIW --stress benchmarks/stress/default-rotated.json \
      benchmarks/stress/same-lane-pick-{iteration,0,1,2,3}.json benchmarks/stress/shuffled-pick-iteration.json \
      --json "$OUT/picks.json" 2>&1 | grep -v Warning | tail -n 60 | tee -a "$LOG"
    step "bench_weak: LB[release-only-sys] and LB[relaxed-sys], default, ${S}s a row"
    timeout 100 python3 benchmarks/bench_weak.py --backend cuda --seconds "$S" --instances 1048576 --tests LB \
      --variant LB=release-only-sys --stress default --json "$OUT/lb-release-only.json" 2>&1 | grep -v Warning | tail -n 4 | tee -a "$LOG"
    ;;
  maps)
    step "bench_weak: default-rotated, same-lane-map-{rotate,2,3}, shuffled-map-rotate, ${MAP_S:-0.5}s a row"
    timeout ${MAPS_TIMEOUT:-150} python3 benchmarks/bench_weak.py --backend cuda --seconds "${MAP_S:-0.5}" --instances 1048576 \
      --tests MP SB LB 2+2W WRC RWC IRIW --stress benchmarks/stress/default-rotated.json \
      benchmarks/stress/same-lane-map-{rotate,2,3}.json benchmarks/stress/shuffled-map-rotate.json \
      --json "$OUT/maps.json" 2>&1 | grep -v Warning | tail -n 60 | tee -a "$LOG"
    ;;
  catalog)
    stress=${CAT_STRESS:-$(python3 - "$OUT" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
base = "docs/results/h100-rotation-3.json"
try:
    rows = json.loads((out / "rotate.json").read_text())["rows"]
except (OSError, ValueError, KeyError):
    rows = []
rate = {(r["test"], r["side"]): r["weak"] / r["kernel_seconds"] if r.get("kernel_seconds") else 0.0 for r in rows}
tests = sorted({t for t, _ in rate})
wins = sum(rate.get((t, "litmus/default-rotated"), 0.0) > rate.get((t, "litmus/default-one-order"), 0.0) for t in tests)
print(f"rotation wins on {wins} of {len(tests)} tests", file=sys.stderr)
if len(tests) < 7 or wins < 4:
    print(base)
else:
    doc = json.loads(Path(base).read_text())
    for k in (0, 3):  # the two resident parallel environments (programs_per_sm 1 and 0)
        doc["environments"][k]["role_rotation"] = True
    (out / "h100-rotation-4.json").write_text(json.dumps(doc, indent=2) + "\n")
    print(out / "h100-rotation-4.json")
PY
)}
    step "catalog with $stress"
    STRESS=$stress JSONL=$OUT/detect.jsonl RUN_TIMEOUT=${CAT_TIMEOUT:-430} bash scripts/h200_detect.sh catalog "$OUT/cat" \
      >"$OUT/catalog.log" 2>&1
    tail -n 6 "$OUT/cat/detect.log" | tee -a "$LOG"
    ;;
esac
done
