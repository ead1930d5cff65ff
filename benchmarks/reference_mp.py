"""Hand-written MP (message passing) Triton kernels with no framework: the speed reference.

Instances are vector lanes: lane i of the writer stores ``x[i] = 1`` then ``flag[i] = 1``; lane i
of the reader loads ``flag[i]`` then ``x[i]`` and writes both to ``out``.  Outcomes are counted
with one ``bincount`` of ``2*r0 + r1``.

- CPU: two processes under the Triton interpreter (writer, reader), shared CPU tensors, a start
  barrier on a shared word; ``run_cpu(n, rounds)``.
- CUDA: one grid, programs ``[0, P)`` write and ``[P, 2P)`` read; ``run_cuda(n, rounds)``.

Run directly: ``python benchmarks/reference_mp.py --instances 1048576 --rounds 5``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from dataclasses import dataclass

SOURCE = '''
import triton
import triton.language as tl


@triton.jit
def mp_writer(x, flag, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x + i, i * 0 + 1)
    tl.store(flag + i, i * 0 + 1)


@triton.jit
def mp_reader(x, flag, out, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    r0 = tl.load(flag + i, volatile=True)
    r1 = tl.load(x + i)
    tl.store(out + i, 2 * r0 + r1)


@triton.jit
def mp_grid(x, flag, out, P, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid < P:
        i = pid * BLOCK + tl.arange(0, BLOCK)
        tl.store(x + i, i * 0 + 1)
        tl.store(flag + i, i * 0 + 1)
    else:
        i = (pid - P) * BLOCK + tl.arange(0, BLOCK)
        r0 = tl.load(flag + i, volatile=True)
        r1 = tl.load(x + i)
        tl.store(out + i, 2 * r0 + r1)
'''


@dataclass(frozen=True)
class RefResult:
    """Rounds of ``n`` instances and the seconds each took (launch to counted outcomes)."""

    n: int
    seconds: list[float]
    counts: dict[str, int]

    @property
    def best_rate(self) -> float:
        """Instances per second of the fastest round."""
        return self.n / min(self.seconds)

    @property
    def median_rate(self) -> float:
        """Instances per second of the median round."""
        s = sorted(self.seconds)
        return self.n / s[len(s) // 2]


def _module(interpret: bool):
    path = os.path.join(tempfile.gettempdir(), "litmus_reference_mp.py")
    with open(path, "w") as f:
        f.write(SOURCE)
    os.environ["TRITON_INTERPRET"] = "1" if interpret else "0"
    spec = importlib.util.spec_from_file_location("litmus_reference_mp", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _cpu_role(role: int, n: int, rounds: int, x, flag, out, go, done) -> None:
    mod = _module(interpret=True)
    go_np, done_np = go.numpy(), done.numpy()
    for r in range(1, rounds + 1):
        while go_np[0] < r:  # start barrier
            pass
        if role == 0:
            mod.mp_writer[(1,)](x, flag, BLOCK=n)
        else:
            mod.mp_reader[(1,)](x, flag, out, BLOCK=n)
        done_np[role] = r


def run_cpu(n: int, rounds: int) -> RefResult:
    """MP under the interpreter in two processes; one round = reset, both launches, count."""
    import numpy as np
    import torch
    import torch.multiprocessing as mp

    ctx = mp.get_context("spawn")
    x, flag, out = (torch.zeros(n, dtype=torch.int32).share_memory_() for _ in range(3))
    go = torch.zeros(1, dtype=torch.int64).share_memory_()
    done = torch.zeros(2, dtype=torch.int64).share_memory_()
    os.environ["TRITON_INTERPRET"] = "1"
    procs = [ctx.Process(target=_cpu_role, args=(g, n, rounds, x, flag, out, go, done), daemon=True) for g in range(2)]
    for p in procs:
        p.start()
    go_np, done_np = go.numpy(), done.numpy()
    seconds, counts = [], np.zeros(4, dtype=np.int64)
    try:
        for r in range(1, rounds + 1):
            deadline = time.monotonic() + 600
            t0 = time.perf_counter()
            x.zero_(), flag.zero_(), out.zero_()
            go_np[0] = r
            while done_np.min() < r:
                time.sleep(0.0005)
                if time.monotonic() > deadline or not all(p.is_alive() or p.exitcode == 0 for p in procs):
                    raise RuntimeError("reference worker died or hung")
            counts += np.bincount(out.numpy(), minlength=4)[:4]
            seconds.append(time.perf_counter() - t0)
    finally:
        for p in procs:
            p.join(5)
            if p.is_alive():
                p.terminate()
    names = ["r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"]
    return RefResult(n, seconds, dict(zip(names, counts.tolist())))


def run_cuda(n: int, rounds: int, block: int = 256) -> RefResult:
    """MP on one GPU in one grid (writers then readers); one round = reset, launch, count."""
    import torch

    mod = _module(interpret=False)
    dev = torch.device("cuda")
    x, flag, out = (torch.zeros(n, dtype=torch.int32, device=dev) for _ in range(3))
    p = n // block
    seconds, counts = [], torch.zeros(4, dtype=torch.int64, device=dev)
    for _ in range(rounds + 1):  # the first round compiles
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        x.zero_(), flag.zero_()
        mod.mp_grid[(2 * p,)](x, flag, out, p, BLOCK=block)
        c = torch.bincount(out, minlength=4)[:4]
        torch.cuda.synchronize()
        seconds.append(time.perf_counter() - t0)
        counts += c
    names = ["r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"]
    return RefResult(n, seconds[1:], dict(zip(names, counts.tolist())))


def main(argv: list[str] | None = None) -> None:
    """Print the reference MP's instances per second."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=1 << 20)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    args = ap.parse_args(argv)
    res = (run_cpu if args.device == "cpu" else run_cuda)(args.instances, args.rounds)
    print(f"reference MP ({args.device}): {res.n} instances/round, best {res.best_rate:.3g}/s, "
          f"median {res.median_rate:.3g}/s, outcomes {res.counts}")


if __name__ == "__main__":
    sys.exit(main())
