"""The ranks backend under ``torchrun`` on the CPU: each process is one rank, rank 0 drives.

The test starts this very file under ``python -m torch.distributed.run --nproc-per-node 2``;
run as a script, it builds the backend (followers serve inside the constructor and exit) and
rank 0 runs two variants into the JSONL file named on the command line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IDS = ["MP[relacq-xgpu-sys]", "SYMM-barrier[acqrel-sys]"]


def _as_rank(out: Path) -> None:
    from litmus.run.config import RunConfig
    from litmus.session import run_tests
    from litmus.run.ranks import RanksBackend
    from litmus.spec import load_paths

    tests = [t for t in load_paths(["catalog/mp.yaml", "catalog/symm_mem_barrier.yaml"]) if t.id in IDS]
    backend = RanksBackend(device="cpu", interpreter_spin_bound=20000)  # ranks != 0 never return
    assert os.environ["RANK"] == "0"
    try:
        results = run_tests(tests, backend, RunConfig(iterations=2, instances=64), out=out)
    finally:
        backend.close()
    print(json.dumps({r.test.id: r.verdict.verdict if r.verdict else r.skipped for r in results}))


def test_torchrun_two_ranks_rank0_writes_the_results(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    env = dict(os.environ, TRITON_INTERPRET="1", LITMUS_CACHE=str(tmp_path / "cache"),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("LOCAL_RANK", None)
    proc = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
         str(Path(__file__)), str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    verdicts = json.loads([l for l in proc.stdout.splitlines() if l.startswith("{")][-1])
    assert verdicts == {"MP[relacq-xgpu-sys]": "correct", "SYMM-barrier[acqrel-sys]": "correct"}
    records = [json.loads(l) for l in out.read_text().splitlines()]
    assert [r["id"] for r in records] == IDS  # written once, by rank 0 only
    assert all(r["launcher"] == "torchrun" and r["world_size"] == 2 for r in records)
    assert all(sum(b["count"] for b in r["histogram"]) == r["instances"] == 128 for r in records)


if __name__ == "__main__":
    _as_rank(Path(sys.argv[1]))
