"""Run-backend throughput against the hand-written reference MP, and SB under the interpreter.

    python benchmarks/bench_run.py cpu  [--instances 1048576] [--rounds 5] [--repeat 3]
    python benchmarks/bench_run.py cuda [--instances 16777216] [--rounds 20] [--repeat 3]   # needs a GPU
    python benchmarks/bench_run.py sb   [--rounds 8000] [--block 1 8]            # SB experiment
    python benchmarks/bench_run.py sb-backend --block 1 64                        # SB via the cpu backend

``cpu``/``cuda``: instances per second of MP (catalog ``MP[relacq-xgpu-sys]``) through the
backend's ``run_round`` (reset, launch every role, count outcomes), against
``benchmarks/reference_mp.py`` doing the same work with no framework; ``cuda`` also reports weak
outcomes per second of ``MP[relaxed-xgpu-sys]`` with stress ``none`` and ``heavy``.
``sb``: can the interpreter on x86 show SB's weak outcome?  Two processes, an in-kernel start
spin on a shared word, tiny blocks (see docs/performance.md).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import reference_mp  # noqa: E402


def _mp(variant: str):
    from litmus.spec import load_paths

    return next(t for t in load_paths([ROOT / "catalog" / "mp.yaml"]) if t.variant == variant)


def _rates(n: int, seconds: list[float]) -> tuple[float, float]:
    s = sorted(seconds)
    return n / s[0], n / s[len(s) // 2]


def _backend_rates(backend, test, n: int, rounds: int, stress: str) -> tuple[float, float, float]:
    """Best and median instances/s of ``run_round`` and the median kernel-only instances/s."""
    from litmus.run.config import PRESETS, RunConfig

    cfg = RunConfig(instances=n, stress=PRESETS[stress])
    backend.run_round(test, cfg, 0)  # set-up and first launch (kernel load, compile) not timed
    walls, kernels = [], []
    for k in range(1, rounds + 1):
        r = backend.run_round(test, cfg, k)
        assert sum(c for _, _, c in r.rows) == n
        walls.append(r.seconds)
        kernels.append(r.extra["kernel_seconds"])
    best, median = _rates(n, walls)
    return best, median, _rates(n, kernels)[1]


def bench_throughput(device: str, n: int, rounds: int, repeat: int = 1) -> None:
    """Print backend vs reference instances/s for MP.

    With ``repeat`` > 1 the reference and the backend take turns ``repeat`` times and the best
    round of each is compared, so a burst of load on a shared machine hits both alike.
    """
    from litmus.run.registry import make_backend

    run_ref = reference_mp.run_cpu if device == "cpu" else reference_mp.run_cuda
    test = _mp("relacq-xgpu-sys")
    ref_best = ref_median = 0.0
    ours: dict[str, tuple[float, float, float]] = {}
    with make_backend(device) as backend:
        for _ in range(repeat):
            ref = run_ref(n, rounds)
            ref_best, ref_median = max(ref_best, ref.best_rate), max(ref_median, ref.median_rate)
            for stress in ("none", "default"):
                got = _backend_rates(backend, test, n, rounds, stress)
                ours[stress] = max(ours.get(stress, got), got)
    print(f"reference MP [{device}]: best {ref_best:.3g}/s median {ref_median:.3g}/s "
          f"({n} instances/round, {rounds} rounds, best of {repeat} turns)")
    for stress, (best, median, kernel) in ours.items():
        print(f"{device} backend {test.id} stress={stress}: best {best:.3g}/s median {median:.3g}/s "
              f"(kernel only {kernel:.3g}/s); best/reference best = {best / ref_best:.0%}")


def count_weak(backend, test, cfg, rounds: int) -> tuple[int, float]:
    """Target outcomes of ``test`` seen in ``rounds`` rounds (after an untimed first one), and
    the seconds those rounds took."""
    from litmus.classify import in_target

    backend.run_round(test, cfg, 0)
    weak, seconds = 0, 0.0
    for k in range(1, rounds + 1):
        r = backend.run_round(test, cfg, k)
        seconds += r.seconds
        weak += sum(c for s, late, c in r.rows if not late and in_target(test, s))
    return weak, seconds


def bench_weak(n: int, rounds: int) -> None:
    """Weak MP outcomes per second on the GPU under the ``none``, ``default`` and ``heavy`` presets."""
    from litmus.run.config import PRESETS, RunConfig
    from litmus.run.registry import make_backend

    test = _mp("relaxed-xgpu-sys")
    with make_backend("cuda") as backend:
        for stress in ("none", "default", "heavy"):
            weak, seconds = count_weak(backend, test, RunConfig(instances=n, stress=PRESETS[stress]), rounds)
            print(f"cuda {test.id} stress={stress}: {weak} weak in {rounds * n} instances, {weak / seconds:.3g} weak/s")


# --------------------------------------------------------------------------- SB experiment

SB_SOURCE = '''
import triton
import triton.language as tl


@triton.jit
def sb_side(go, token, mine, other, out, BLOCK: tl.constexpr):
    lane = tl.arange(0, BLOCK)
    g = tl.load(go, volatile=True)
    while g < token:  # in-kernel start spin on a word shared by the two processes
        g = tl.load(go, volatile=True)
    tl.store(mine + lane, lane * 0 + 1)
    r = tl.load(other + lane)
    tl.store(out + lane, r)
'''


def _sb_worker(w: int, rounds: int, block: int, go, done, x, y, outs, tally) -> None:
    import importlib.util
    import tempfile

    path = os.path.join(tempfile.gettempdir(), "litmus_bench_sb.py")
    with open(path, "w") as f:
        f.write(SB_SOURCE)
    spec = importlib.util.spec_from_file_location("litmus_bench_sb", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mine, other = (x, y) if w == 0 else (y, x)
    go_np, done_np, x_np, y_np = go.numpy(), done.numpy(), x.numpy(), y.numpy()
    o0, o1, t = outs[0].numpy(), outs[1].numpy(), tally.numpy()
    for r in range(1, rounds + 1):
        mod.sb_side[(1,)](go, r, mine, other, outs[w], BLOCK=block)
        done_np[w] = r
        if w == 0:  # the leader counts, resets and releases the next round
            while done_np[1] < r:
                pass
            t[0] += int(((o0 == 0) & (o1 == 0)).sum())
            t[1] += int(((o0 == 1) & (o1 == 1)).sum())
            x_np[:] = 0
            y_np[:] = 0
            go_np[0] = r + 1


def bench_sb(rounds: int, blocks: list[int]) -> None:
    """Count SB's weak outcome (both loads read 0) under the interpreter, two processes."""
    import torch
    import torch.multiprocessing as mp

    ctx = mp.get_context("spawn")
    os.environ["TRITON_INTERPRET"] = "1"
    for block in blocks:
        go = torch.ones(1, dtype=torch.int64).share_memory_()
        done = torch.zeros(2, dtype=torch.int64).share_memory_()
        x, y = (torch.zeros(block, dtype=torch.int32).share_memory_() for _ in range(2))
        outs = [torch.zeros(block, dtype=torch.int32).share_memory_() for _ in range(2)]
        tally = torch.zeros(2, dtype=torch.int64).share_memory_()
        t0 = time.time()
        procs = [ctx.Process(target=_sb_worker, args=(w, rounds, block, go, done, x, y, outs, tally), daemon=True)
                 for w in range(2)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(1800)
        print(f"SB interpreter BLOCK={block}: rounds={rounds} instances={rounds * block} "
              f"weak (both 0)={int(tally[0])} both 1={int(tally[1])} wall={time.time() - t0:.0f}s")


def bench_sb_backend(seconds: float, sizes: list[int]) -> None:
    """SB's weak outcome through the cpu backend (catalog ``SB[relaxed-sys]``), ``seconds`` per size."""
    from litmus.classify import in_target
    from litmus.run.config import RunConfig
    from litmus.run.cpu import CpuBackend
    from litmus.spec import load_paths

    test = next(t for t in load_paths([ROOT / "catalog" / "sb.yaml"]) if t.variant == "relaxed-sys")
    with CpuBackend(start=True) as backend:
        for n in sizes:
            cfg = RunConfig(instances=n)
            total = weak = both = rounds = 0
            t0 = time.time()
            while time.time() - t0 < seconds:
                for s, late, c in backend.run_round(test, cfg, rounds).rows:
                    total += c
                    weak += c if (not late and in_target(test, s)) else 0
                    both += c if (s["P0:r0"] == 1 and s["P1:r0"] == 1) else 0
                rounds += 1
            print(f"SB cpu backend {n} instances/round: rounds={rounds} instances={total} weak={weak} both 1={both}")


def main(argv: list[str] | None = None) -> None:
    """Command-line entry."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["cpu", "cuda", "sb", "sb-backend"])
    ap.add_argument("--instances", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--block", type=int, nargs="*", default=[1, 8])
    ap.add_argument("--repeat", type=int, default=1,
                    help="cpu/cuda: alternate reference and backend this many times, keep the best of each")
    args = ap.parse_args(argv)
    if args.what == "cpu":
        bench_throughput("cpu", args.instances or 1 << 20, args.rounds or 5, args.repeat)
    elif args.what == "cuda":
        n = args.instances or 1 << 24
        bench_throughput("cuda", n, args.rounds or 20, args.repeat)
        bench_weak(n, args.rounds or 20)
    elif args.what == "sb":
        bench_sb(args.rounds or 8000, args.block)
    else:
        bench_sb_backend(40.0, args.block)


if __name__ == "__main__":
    main()
