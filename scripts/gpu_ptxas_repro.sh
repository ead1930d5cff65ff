#!/usr/bin/env bash
# Issue 32 on one GPU: docs/compiler-bugs/repro.py's four PTX reproducers on hardware.
#   the race-free forms at -O3 (ptxas drops the load) and at -O0 (the control: the load kept),
#   CTAS x RUNS instances each (default 2^20 x 100 = 1.05e8); the racy forms at -O3 (CTAS x 10);
#   the race-free load merge through the driver's JIT (--jit), and with ptxas 12.4 (kept) when
#   PTXAS124 names one (the device tool carries it in .ptxas124/).
# Usage (repo root, on the GPU machine): bash scripts/gpu_ptxas_repro.sh [OUT]; the log is OUT/ptxas-repro.txt
set -u
OUT=${1:-${OUT:-/tmp/litmus-out}}
mkdir -p "$OUT"
source scripts/h200_env.sh
LOG=$OUT/ptxas-repro.txt
CTAS=${CTAS:-1048576}
RUNS=${RUNS:-100}
PTXAS124=${PTXAS124:-.ptxas124/ptxas}
step "versions"
versions
repro() {  # repro FILE ARGS...: one reproducer, its whole output in the log
  step "python docs/compiler-bugs/repro.py $* --ctas $CTAS"
  timeout 300 python3 docs/compiler-bugs/repro.py "$@" --ctas "$CTAS" 2>&1 | tee -a "$LOG"
  echo "exit ${PIPESTATUS[0]}" | tee -a "$LOG"
}
for f in load-merge-racefree store-forward-racefree; do
  repro $f.ptx -O 3 --runs "$RUNS"
  repro $f.ptx -O 0 --runs "$RUNS"
done
for f in load-merge-racy store-forward-racy; do
  repro $f.ptx -O 3 --runs 10
done
repro load-merge-racefree.ptx --jit --runs 10
if [ -x "$PTXAS124" ]; then
  repro load-merge-racefree.ptx -O 3 --ptxas "$PTXAS124" --runs "$RUNS"
fi
step "summary"
grep -E "^=== |^SASS|^observed|^expected|^ptxas|^Cuda compilation|release" "$LOG" | grep -v "^=== .*versions" > "$OUT/ptxas-repro-summary.txt"
cat "$OUT/ptxas-repro-summary.txt"
