#!/usr/bin/env bash
# Issue 31 in one device call: the side by side with the peer (benchmarks/peer/side_by_side.sh,
# ours tuned per kernel-second), then the whole catalog with the rotation whose first environment
# is the default preset, for what is left of the call (--resume: a later call finishes it).
# Usage (repo root, on the GPU machine, the peer's sources in .peer/upstream):
#   bash scripts/h100_sbs_catalog.sh OUT   (knobs: TESTS, CONFIGS=30, SCREEN_S=0.3, LONG_S=2,
#     SBS_TIMEOUT=300, TOTAL_S=560: the catalog gets TOTAL_S minus what the side by side took,
#     less 25 s for its report; CAT_STRESS=benchmarks/stress/h100-rotation-7.json)
set -u
O=${1:?OUT}
mkdir -p "$O/sbs" "$O/cat"
start=$SECONDS
TESTS=${TESTS:-mp-relaxed 2+2w wrc} OURS_TUNE=1 CONFIGS=${CONFIGS:-30} SCREEN_S=${SCREEN_S:-0.3} LONG_S=${LONG_S:-2} \
  timeout "${SBS_TIMEOUT:-300}" bash benchmarks/peer/side_by_side.sh "$O/sbs" >"$O/sbs/stdout.txt" 2>&1
echo "side_by_side exit $? after $((SECONDS - start)) s"
left=$((${TOTAL_S:-560} - (SECONDS - start) - 25))
if [ "$left" -gt 60 ]; then
  STRESS=${CAT_STRESS:-benchmarks/stress/h100-rotation-7.json} JSONL=$O/cat/detect.jsonl RUN_TIMEOUT=$left \
    bash scripts/h200_detect.sh catalog "$O/cat" >"$O/cat/stdout.txt" 2>&1
  echo "catalog: $(grep -c . "$O/cat/detect.jsonl" 2>/dev/null || echo 0) variants in at most $left s"
else
  echo "catalog: skipped, $left s left"
fi
