#!/usr/bin/env bash
# Issue 41 on one GPU: the whole catalog through the pytest plugin, as docs/ci.md's nightly job
# runs it, with a fresh kernel cache (cold) and again with the cache it left (warm).
#   OUT/plugin-{cold,warm}-junit.xml, OUT/plugin-{cold,warm}.jsonl, OUT/plugin-{cold,warm}.txt
# Usage (repo root, on the GPU machine): bash scripts/gpu_plugin_ci.sh [OUT]
#   (RUNS="cold warm"; STRESS: a --litmus-stress, default the plugin's own)
set -u
OUT=${1:-${OUT:-/tmp/litmus-out}}
mkdir -p "$OUT"
source scripts/h200_env.sh
LOG=$OUT/plugin-ci.log
CACHE=${CACHE:-/tmp/litmus-ci-cache}
step "versions"
versions
rm -rf "$CACHE"
# an installed litmus registers the plugin through its entry point; a checkout on PYTHONPATH needs -p
PLUGIN=(-p litmus.pytest_plugin)
python3 -c "import importlib.metadata as m, sys; sys.exit(any(e.name == 'litmus' for e in m.entry_points(group='pytest11')))" || PLUGIN=()
STRESS_FLAG=(${STRESS:+--litmus-stress "$STRESS"})
for run in ${RUNS:-cold warm}; do
  step "plugin, $run cache: pytest --litmus catalog/ --litmus-backend cuda ${STRESS_FLAG[*]}"
  t0=$(date +%s.%N)
  timeout "${RUN_TIMEOUT:-280}" python3 -m pytest "${PLUGIN[@]}" -p no:cacheprovider -q \
      --litmus catalog/ --litmus-backend cuda "${STRESS_FLAG[@]}" --litmus-cache "$CACHE" \
      --litmus-jsonl "$OUT/plugin-$run.jsonl" --junitxml "$OUT/plugin-$run-junit.xml" \
      >"$OUT/plugin-$run.txt" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  tail -n 40 "$OUT/plugin-$run.txt" | tee -a "$LOG"
  echo "plugin $run: exit $rc, wall $(python3 -c "print(round($t1 - $t0, 1))") s" | tee -a "$LOG"
done
