# Sourced by the scripts/h200_*.sh scripts: the environment every GPU-machine run needs.
# NVLink multicast stays off; packages the GPU image lacks (pydantic) are installed from the
# wheels carried in .whl/ (see the device tool's README), else the image's own are used.
export PYTHONUNBUFFERED=1 COLUMNS=${COLUMNS:-180} TRITON_DEFAULT_FP_FUSION=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
if ! python3 -c "import pydantic" 2>/dev/null && ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}  # sourced twice: keep /tmp/site from the first time
fi
# step TEXT: a timestamped heading, shown and appended to $LOG (each script sets LOG)
step() { echo "=== $(date -u +%T) $*" | tee -a "$LOG"; }
# versions: python, torch, triton and the device, shown and appended to $LOG
versions() {
  python3 -c "import sys, torch, triton; print('python', sys.version.split()[0], 'torch', torch.__version__, 'triton', triton.__version__, 'device', torch.cuda.get_device_name(0))" 2>&1 | tee -a "$LOG"
}
