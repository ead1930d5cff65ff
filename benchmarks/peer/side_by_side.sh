#!/usr/bin/env bash
# litmus side by side with reeselevine/cuda-litmus (the peer) on one GPU, in one device call.
#   peer: its upstream MP (release/acquire: weak forbidden), the relaxed MP, SB, LB of added/ (in
#     its style) and its own 2+2W, WRC, RWC, IRIW and ISA2 (relaxed), device scope; SB/LB also at system scope. Each screened on CONFIGS stress configs
#     (upstream params/stress_params.txt, then configs drawn as upstream tune.sh's random_config 1024 256
#     draws them, seeded), SCREEN_S seconds each; then each test's best config (weak per kernel-second)
#     for LONG_S seconds.
#   ours: benchmarks/bench_weak.py at 2^20 instances per round (litmus run's cuda default) with the
#     STRESS environments (default: the default preset), LONG_S seconds per test: the relaxed variant
#     of each test, and MP release/acquire. With OURS_TUNE=1, ours gets the peer's tuning budget
#     too: litmus tune on each test's relaxed variant, the default preset and CONFIGS-1 more
#     environments (litmus.tune: home roles, random draws, moves from the best), SCREEN_S seconds
#     each, ranked by weak per kernel-second as the peer's best is (--objective kernel); then a
#     long run at each test's best.
#   one table: weak per kernel-second, per instance and per wall-second (benchmarks/peer/sbs_table.py).
# Usage (repo root, on the GPU machine, the peer's sources in UPSTREAM, default .peer/upstream):
#   bash benchmarks/peer/side_by_side.sh OUT     (knobs: CONFIGS=20 SCREEN_S=0.5 LONG_S=4 STRESS=default
#     (one or more presets or stress files) OURS_TUNE=0
#     TESTS='mp mp-relaxed sb lb 2+2w wrc rwc iriw isa2': the peer's tests to run, each with its litmus side)
set -u
O=${1:-${OUT:-/tmp/sbs-out}}
mkdir -p "$O"
export UPSTREAM=${UPSTREAM:-$PWD/.peer/upstream}
CONFIGS=${CONFIGS:-20}
SCREEN_S=${SCREEN_S:-0.5}
LONG_S=${LONG_S:-4}
STRESS=${STRESS:-default}
P=benchmarks/peer
BIN=${BIN:-/tmp/peer-bin}
LOG=$O/sbs.log
PEER=$O/sbs-peer.txt
: >"$PEER"
CFG=/tmp/sbs-cfg
mkdir -p "$CFG"
source scripts/h200_env.sh
step "side_by_side: $CONFIGS peer configs, screen ${SCREEN_S}s, long ${LONG_S}s, ours --stress $STRESS"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv 2>&1 | tee -a "$LOG"
step "build the peer"
BIN=$BIN timeout 300 bash $P/build.sh >>"$LOG" 2>&1
TESTS=${TESTS:-mp mp-relaxed sb lb 2+2w wrc rwc iriw isa2}
for t in $TESTS; do
  for b in "timed-$t" $(case $t in sb | lb) echo "timed-$t-sys" ;; esac); do
    [ -x "$BIN/$b" ] || { echo "the peer's $b did not build: $LOG has the compiler's output" | tee -a "$LOG"; exit 1; }
  done
done

rb() { REPLY=$((RANDOM % ($2 - $1 + 1) + $1)); }  # no subshell, so RANDOM=seed is reproducible
gen_cfg() {  # gen_cfg SEED FILE: upstream tune.sh's random_config 1024 256, seeded
  RANDOM=$1
  local f=$2 twg mwg line lines
  {
    echo "testIterations=1000000"  # tune.sh: 1000; here -d SECONDS ends each run
    rb 4 1024; twg=$REPLY; echo "testingWorkgroups=$twg"
    rb "$twg" 1024; mwg=$REPLY; echo "maxWorkgroups=$mwg"
    rb 1 256; echo "workgroupSize=$((REPLY % 2 == 0 ? REPLY : REPLY + 1))"
    rb 0 100; echo "shufflePct=$REPLY"
    rb 0 100; echo "barrierPct=$REPLY"
    rb 2 10; line=$((REPLY * REPLY)); echo "stressLineSize=$line"
    rb 1 16; lines=$REPLY; echo "stressTargetLines=$lines"
    echo "scratchMemorySize=$((32 * line * lines))"
    rb 1 7; echo "memStride=$REPLY"
    rb 0 100; echo "memStressPct=$REPLY"
    rb 0 1024; echo "memStressIterations=$REPLY"
    rb 0 3; echo "memStressPattern=$REPLY"
    rb 0 100; echo "preStressPct=$REPLY"
    rb 0 128; echo "preStressIterations=$REPLY"
    rb 0 3; echo "preStressPattern=$REPLY"
    rb 0 1; echo "stressAssignmentStrategy=$REPLY"
    echo "permuteThread=419"
  } >"$f"
}
sed 's/^testIterations=.*/testIterations=1000000/' "$UPSTREAM/params/stress_params.txt" >"$CFG/c0.txt"
for ((s = 1; s < CONFIGS; s++)); do gen_cfg $((1000 + s)) "$CFG/c$s.txt"; done
for ((c = 0; c < CONFIGS; c++)); do echo "cfg c$c: $(tr '\n' ' ' <"$CFG/c$c.txt")" >>"$LOG"; done
locs() { case $1 in isa2) echo 3 ;; *) echo 2 ;; esac; }  # each test's locations (upstream's tuning-files)

prun() {  # prun PHASE TEST BINARY CFG SEED SECONDS: one peer run; its RESULT line goes to $PEER, tagged
  local phase=$1 t=$2 b=$3 c=$4 seed=$5 d=$6 out res
  out=$(timeout "$(awk -v d="$d" 'BEGIN { printf "%d", d + 30 }')" "$BIN/$b" -s "$CFG/$c.txt" \
      -t "$UPSTREAM/params/$(locs "${t%-sys}")-loc.txt" -r "$seed" -d "$d" -N "$t" 2>&1)
  res=$(echo "$out" | grep '^RESULT' | tail -n 1)
  if [ -n "$res" ]; then
    echo "$res phase=$phase cfg=$c bin=$b" | tee -a "$PEER" >>"$LOG"
  else
    echo "  $phase $t $c: FAILED: $(echo "$out" | tail -n 2 | tr '\n' ' ')" | tee -a "$LOG"
  fi
}
best() {  # best TEST: the screened config with the most weak per kernel-second, then per instance
  awk -v t="$1" '$1 == "RESULT" && $0 ~ " phase=screen " {
      for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      if (v["test"] != t) next
      r = (v["kernel_s"] > 0) ? v["weak"] / v["kernel_s"] : 0
      q = (v["instances"] > 0) ? v["weak"] / v["instances"] : 0
      if (r > br || (r == br && q > bq)) { br = r; bq = q; bc = v["cfg"] } }
    END { print (bc == "" ? "c0" : bc) }' "$PEER"
}
step "peer screening: $TESTS x $CONFIGS configs, ${SCREEN_S}s each"
for t in $TESTS; do
  for ((c = 0; c < CONFIGS; c++)); do prun screen "$t" "timed-$t" "c$c" $((100 + c)) "$SCREEN_S"; done
  echo "  $t: best $(best "$t")" | tee -a "$LOG"
done
step "peer long runs at each test's best config, ${LONG_S}s"
for t in $TESTS; do prun long "$t" "timed-$t" "$(best "$t")" 7 "$LONG_S"; done
has() { case " $TESTS " in *" $1 "*) return 0 ;; esac; return 1; }
if has sb; then prun long sb-sys timed-sb-sys "$(best sb)" 7 "$LONG_S"; fi
if has lb; then prun long lb-sys timed-lb-sys "$(best lb)" 7 "$LONG_S"; fi

OURS=""  # bench_weak's name of each peer test's relaxed shape
for t in $TESTS; do
  case $t in mp-relaxed) OURS="$OURS MP" ;; sb) OURS="$OURS SB" ;; lb) OURS="$OURS LB" ;; 2+2w) OURS="$OURS 2+2W" ;;
    wrc) OURS="$OURS WRC" ;; rwc) OURS="$OURS RWC" ;; iriw) OURS="$OURS IRIW" ;; isa2) OURS="$OURS ISA2" ;; esac
done
step "ours: bench_weak --tests$OURS --instances 1048576 --stress $STRESS --seconds $LONG_S"
# shellcheck disable=SC2086
[ -n "$OURS" ] && timeout 300 python3 benchmarks/bench_weak.py --backend cuda --seconds "$LONG_S" --instances 1048576 \
    --tests $OURS --stress $STRESS --json "$O/sbs-ours-A.json" 2>&1 | grep -v Warning | tee -a "$LOG"
# shellcheck disable=SC2086
has mp && timeout 100 python3 benchmarks/bench_weak.py --backend cuda --seconds "$LONG_S" --instances 1048576 --tests MP \
    --variant MP=relacq-xcta-gpu --stress $STRESS --json "$O/sbs-ours-C.json" 2>&1 | grep -v Warning | tee -a "$LOG"
TUNED=()
if [ "${OURS_TUNE:-0}" = 1 ]; then
  for t in $OURS; do
    v=$(python3 -c "import sys; sys.path.insert(0, 'benchmarks'); from bench_weak import VARIANTS; f, v = VARIANTS['$t']; print(f'catalog/{f}', v)")
    step "ours tuned: litmus tune ${v% *} --variant ${v#* } --trials $((CONFIGS - 1)) -t $SCREEN_S, then ${LONG_S}s at the best"
    f="$O/ours-tuned-${t/+/p}.json"
    timeout $((CONFIGS * 4 + 120)) python3 -m litmus tune "${v% *}" --variant "${v#* }" --backend cuda --trials $((CONFIGS - 1)) -t "$SCREEN_S" \
        --instances 1048576 --seed 31 --objective kernel --no-save-for-device --out "$f" --log "$O/ours-tune-${t/+/p}.jsonl" 2>>"$LOG" | tail -n 4 | tee -a "$LOG"
    [ -f "$f" ] && timeout 100 python3 benchmarks/bench_weak.py --backend cuda --seconds "$LONG_S" --instances 1048576 \
        --tests "$t" --stress "$f" --json "$O/sbs-ours-T-${t/+/p}.json" 2>&1 | grep -v Warning | tee -a "$LOG"
    TUNED+=("$O/sbs-ours-T-${t/+/p}.json")
  done
fi
step "table"
python3 $P/sbs_table.py "$PEER" "$O/sbs-ours-A.json" "$O/sbs-ours-C.json" "${TUNED[@]}" >"$O/sbs-table.txt" 2>&1
cat "$O/sbs-table.txt" | tee -a "$LOG"
