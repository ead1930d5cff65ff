"""The ``ranks`` backend end to end on one GPU (world_size=1) through PyTorch symmetric memory.

Usage (repo root, on a machine with one CUDA GPU):

    python3 scripts/h200_ranks_ws1.py OUT.jsonl [--instances N] [--iterations K] [--budget S]

1. Preflight in this process: a 1-rank nccl group, ``symm_mem.empty`` + ``rendezvous``, and a
   Triton kernel that reads ``buffer_ptrs_dev`` and runs a put/wait signal round trip
   (CAS 0->1 release.sys, CAS 1->0 acquire.sys) on this rank's ``signal_pad_ptrs_dev`` slot.
2. Every catalog variant whose threads and locations all sit on rank 0 (test ranks are never
   merged onto one world rank: see docs/multi-gpu.md) runs on ``RanksBackend(world_size=1)``:
   a spawned rank process, heap from symm_mem, rank-mode kernel ``litmus_rank0``. Records are
   appended to OUT.jsonl as each variant finishes; new variants stop starting after --budget s.
3. A short table is printed last.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
for _k, _v in {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}.items():
    os.environ.setdefault(_k, _v)


def preflight() -> dict[str, Any]:
    """Symmetric memory on GPU 0 with one rank: rendezvous, buffer pointers, signal pads."""
    import torch
    import torch.distributed as dist
    import torch.distributed._symmetric_memory as symm_mem
    import triton
    import triton.language as tl

    from litmus.run.ranks.env import free_port

    @triton.jit
    def probe(buf_ptrs_dev, pad_ptrs_dev, out):
        bufs = buf_ptrs_dev.to(tl.pointer_type(tl.uint64))
        pads = pad_ptrs_dev.to(tl.pointer_type(tl.uint64))
        tl.store(out, tl.load(bufs).to(tl.int64))
        pad = tl.load(pads).to(tl.pointer_type(tl.int32))
        old = tl.atomic_cas(pad, 0, 1, sem="release", scope="sys")  # put_signal
        got = tl.atomic_cas(pad, 1, 0, sem="acquire", scope="sys")  # wait_signal
        tl.store(out + 1, old.to(tl.int64))
        tl.store(out + 2, got.to(tl.int64))

    torch.cuda.set_device(0)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{free_port()}", rank=0, world_size=1,
                            device_id=torch.device("cuda", 0))
    try:
        t = symm_mem.empty(4096, dtype=torch.int32, device="cuda:0")
        h = symm_mem.rendezvous(t, dist.group.WORLD.group_name)
        h.get_signal_pad(0, (1,), torch.int32).zero_()
        out = torch.full((3,), -1, dtype=torch.int64, device="cuda:0")
        probe[(1,)](int(h.buffer_ptrs_dev), int(h.signal_pad_ptrs_dev), out)
        torch.cuda.synchronize()
        buf0, old, got = out.tolist()
        pad_after = int(h.get_signal_pad(0, (1,), torch.int32).item())
        return {
            "buffer_ptrs": [hex(int(p)) for p in h.buffer_ptrs],
            "buffer_ptrs_dev[0] read in-kernel": hex(buf0),
            "tensor data_ptr": hex(t.data_ptr()),
            "signal_pad_size": int(h.signal_pad_size),
            "put_signal old (want 0)": old,
            "wait_signal got (want 1)": got,
            "pad after (want 0)": pad_after,
            "ok": buf0 == int(list(h.buffer_ptrs)[0]) and (old, got, pad_after) == (0, 1, 0),
        }
    finally:
        dist.destroy_process_group()


def rank0_tests(catalog: Path) -> list[Any]:
    """Catalog variants whose threads and locations all sit on rank 0."""
    from litmus.spec import load_paths

    return [t for t in load_paths([catalog]) if t.ranks == (0,)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="JSONL results file (appended)")
    ap.add_argument("--instances", type=int, default=1 << 15)
    ap.add_argument("--iterations", type=int, default=2)
    ap.add_argument("--budget", type=float, default=150.0, help="seconds after which no new variant starts")
    ap.add_argument("--catalog", type=Path, default=ROOT / "catalog")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds one round may take")
    args = ap.parse_args()
    start = time.monotonic()

    try:
        pre = preflight()
    except Exception:  # noqa: BLE001 - report and go on: the backend run is the main result
        pre = {"ok": False, "error": traceback.format_exc(limit=3)}
    print("preflight (symm_mem, 1 rank):")
    for k, v in pre.items():
        print(f"  {k}: {v}")

    from litmus.errors import LitmusError
    from litmus.run.config import RunConfig
    from litmus.session import VariantResult, run_tests
    from litmus.run.ranks import RanksBackend

    tests = rank0_tests(args.catalog)
    print(f"{len(tests)} variants with every thread and location on rank 0")
    config = RunConfig(iterations=args.iterations, instances=args.instances, seed=1)
    results: list[VariantResult] = []
    error = None
    backend = RanksBackend(world_size=1, device="cuda", timeout_s=args.timeout)
    try:
        print("backend:", {k: v for k, v in backend.describe().items() if k != "note"}, flush=True)
        for test in tests:
            if time.monotonic() - start > args.budget:
                print(f"budget of {args.budget:g} s spent: {len(tests) - len(results)} variants not started")
                break
            [res] = run_tests([test], backend, config, out=args.out)
            results.append(res)
            v = res.verdict
            print(f"  {test.id}: {v.verdict if v else res.skipped} ({res.seconds:.2f} s)", flush=True)
    except LitmusError as e:
        error = str(e)
    finally:
        backend.close()

    print()
    print(f"{'variant':<48} {'expect':<9} {'verdict':<15} {'instances':>9} {'target':>7} {'timeout':>7} {'s':>6}")
    for res in results:
        v = res.verdict
        if v is None:
            print(f"{res.test.id:<48} skipped: {res.skipped}")
            continue
        exp = res.test.expect.outcome if res.test.expect else "-"
        print(f"{res.test.id:<48} {exp:<9} {v.verdict:<15} {v.instances:>9} {v.target_count:>7} "
              f"{v.counts.get('timeout', 0):>7} {res.seconds:>6.2f}")
    n_viol = sum(1 for r in results if r.verdict and r.verdict.verdict == "VIOLATION")
    print(f"ranks ws1: {len(results)} variants, {n_viol} VIOLATION, preflight ok={pre.get('ok')}, "
          f"{time.monotonic() - start:.0f} s, results in {args.out}")
    if error:
        print("stopped by:", error)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
