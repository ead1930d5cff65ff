#!/usr/bin/env bash
# Throughput and a whole-catalog sanity run of the current code on one H200, in one device call.
#   1. benchmarks/bench_run.py cuda --repeat 3 (backend vs hand-written reference, weak MP/s)
#   2. the whole catalog on cuda, 2 rounds per variant (new kernels compile and agree with the model)
#   3. the audit with this machine's triton, and the gpu-marked tests
# Usage (repo root, on the GPU machine): bash scripts/h200_perf.sh [OUT]
set -u
OUT=${1:-${OUT:-/tmp/litmus-out}}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 COLUMNS=160 TRITON_DEFAULT_FP_FUSION=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
if ! python3 -c "import pydantic" 2>/dev/null && ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
LOG=$OUT/perf.log
step() { echo "=== $(date -u +%T) $*" | tee -a "$LOG"; }
step "versions"
python3 -c "import sys, torch, triton; print('python', sys.version.split()[0], 'torch', torch.__version__, 'triton', triton.__version__, 'device', torch.cuda.get_device_name(0))" 2>&1 | tee -a "$LOG"
step "throughput: python3 benchmarks/bench_run.py cuda --repeat 3"
timeout 200 python3 benchmarks/bench_run.py cuda --repeat 3 2>&1 | grep -v Warning | tee -a "$LOG"
step "catalog sanity: litmus run catalog/ --backend cuda --iterations 2 --instances 1048576 --seed 2"
timeout 240 python3 -m litmus run catalog/ --backend cuda --iterations 2 --instances 1048576 --seed 2 \
    --out "$OUT/catalog-sanity.jsonl" >"$OUT/catalog-sanity.txt" 2>>"$LOG"
echo "run exit $?" | tee -a "$LOG"
tail -n 1 "$OUT/catalog-sanity.txt" | tee -a "$LOG"
step "audit with this machine's triton"
timeout 120 python3 -m litmus audit catalog/ -j 16 --json >"$OUT/audit.jsonl" 2>>"$LOG"
echo "audit exit $?" | tee -a "$LOG"
step "gpu-marked tests"
timeout 90 python3 -m pytest -q -m gpu tests/run tests/codegen -p no:cacheprovider 2>&1 | tail -n 3 | tee -a "$LOG"
step "done"
