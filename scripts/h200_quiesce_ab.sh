#!/usr/bin/env bash
# A/B of the quiescence harness on the H200 (docs/results/h200-detect.md §10): the may-hang
# variants of IDS, BUDGET s each with the catalog's rotation, three ways:
#   proof:   this tree (proven hangs: wait word, confirm words, acquire)
#   off:     this tree with CodegenOptions.quiesce off in the run kernels (spins run to their bound)
#   OLD_NAME (default finonly): the tree in OLD_TAR (finonly: fd5f3e8, give up 64 reads after every
#            other thread finished, a timeout; nostall: 2e34ec7, proofs without the stall give-up)
# OFF=0 leaves out the off arm.
# Usage (repo root, on the GPU machine): OLD_TAR=.cache/old.tar bash scripts/h200_quiesce_ab.sh OUT
set -u
OUT=${1:?output folder}
mkdir -p "$OUT"
source scripts/h200_env.sh
export LITMUS_CACHE=${LITMUS_CACHE:-/tmp/litmus-cache}
LOG=$OUT/ab.log
IDS=${IDS:-"BUG-vllm-8558[buggy-one-set-volatile] MP-reset-race[relaxed-plain-reset] MP-reset-race[iris-cas-signal-cas-reset] BUG-vllm-8558[buggy-one-set-relacq]"}
ARGS="--backend cuda --stress docs/results/h200-rotation-2.json --instances 16777216 --time-budget ${BUDGET:-5} --seed ${SEED:-1}"
versions
step "proof: $IDS"
# shellcheck disable=SC2086
timeout 200 python3 -m litmus run $IDS $ARGS --out "$OUT/ab-proof.jsonl" > "$OUT/ab-proof.txt" 2>>"$LOG"
if [ "${OFF:-1}" != 0 ]; then
  step "off"
  # shellcheck disable=SC2086
  timeout 200 python3 -c "import dataclasses, sys, litmus.codegen.options as o
for k, v in list(o.RUN_KERNELS.items()): o.RUN_KERNELS[k] = dataclasses.replace(v, quiesce=False)
from litmus.cli import main; main(sys.argv[1:])" run $IDS $ARGS --out "$OUT/ab-off.jsonl" > "$OUT/ab-off.txt" 2>>"$LOG"
fi
OLD_NAME=${OLD_NAME:-finonly}
if [ -n "${OLD_TAR:-}" ]; then
  step "$OLD_NAME: $OLD_TAR"
  rm -rf /tmp/old && mkdir -p /tmp/old && tar -xf "$OLD_TAR" -C /tmp/old
  # shellcheck disable=SC2086
  (cd /tmp/old && PYTHONPATH=/tmp/site:/tmp/old LITMUS_CACHE=/tmp/litmus-cache-old timeout 200 python3 -m litmus run $IDS $ARGS \
      --out "$OUT/ab-$OLD_NAME.jsonl" > "$OUT/ab-$OLD_NAME.txt" 2>>"$LOG")
fi
step "table"
python3 - "$OUT" "$OLD_NAME" <<'PY' | tee "$OUT/ab-table.txt"
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
print(f"{'arm':8} {'variant':45} {'instances':>14} {'completed':>12} {'hung':>12} {'timeout':>12} {'target':>7} {'s':>6} {'bound':>8}")
for arm in ("proof", "off", sys.argv[2]):
    p = out / f"ab-{arm}.jsonl"
    if not p.exists():
        continue
    for line in p.read_text().splitlines():
        r = json.loads(line)
        c = r.get("counts", {})
        print(f"{arm:8} {r['id']:45} {r['instances']:>14,} {r['completed']:>12,} {c.get('hang', 0):>12,} "
              f"{c.get('timeout', 0):>12,} {r['target_count']:>7,} {r['seconds']:>6.2f} {r.get('bound_95') or 0:>8.1e}")
PY
