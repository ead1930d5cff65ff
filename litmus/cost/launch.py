"""Launch the cost loop kernel once and read back its timestamps, trip counts and status."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litmus.cost.kernel import KERNEL, CostKernel, trips_slots


@dataclass(frozen=True)
class LoopRun:
    """One launch: per program, ``n_trips + 1`` timestamps (ns; trip numbers without a timer),
    the trips it completed and its spin-timeout status; ``event_ms`` from CUDA events (None on CPU)."""

    times: list[list[int]]
    trips: list[int]
    status: list[int]
    event_ms: float | None
    parties: int
    pairs: int
    block: int
    heap: list[int]  # final int32 heap words: slot s of instance i at word (s * pairs * block + i) * unit_bytes / 4

    def round_trips_ns(self, warmup: int = 0) -> list[float]:
        """Round-trip times of party 0's programs (ns), the first ``warmup`` trips of each dropped."""
        out: list[float] = []
        for prog in range(self.pairs):  # party 0 owns programs [0, pairs)
            t, done = self.times[prog], self.trips[prog]
            out += [float(t[k + 1] - t[k]) for k in range(warmup, done)]
        return out


def launch_loop(module: Any, ck: CostKernel, n_trips: int, pairs: int = 1, block: int = 1,
                device: str = "cuda", num_warps: int = 1) -> LoopRun:
    """Run ``n_trips`` round trips on ``pairs`` programs per party with ``block`` lanes each."""
    import torch

    heap = torch.zeros(ck.heap_words(pairs * block), dtype=torch.int32, device=device)
    out = LoopBuffers.make(ck, n_trips, pairs, device)
    tables = party_tables(heap.data_ptr(), list(range(ck.parties)), device)
    event_ms = None
    if device.startswith("cuda"):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        launch_parties(module, tables, ck.parties, out, n_trips, pairs, block, num_warps, device)
        end.record()
        torch.cuda.synchronize()
        event_ms = float(start.elapsed_time(end))
    else:
        launch_parties(module, tables, ck.parties, out, n_trips, pairs, block, num_warps, device)
    return out.run(ck, event_ms, pairs, block, heap.cpu().tolist())


@dataclass
class LoopBuffers:
    """The outputs of a launch of the loop kernel: one row per program of every party."""

    times: Any
    status: Any
    trips: Any

    @staticmethod
    def make(ck: CostKernel, n_trips: int, pairs: int, device: Any) -> "LoopBuffers":
        """Zeroed outputs for ``ck.parties * pairs`` programs."""
        import torch

        progs = ck.parties * pairs
        return LoopBuffers(torch.zeros((progs, n_trips + 1), dtype=torch.int64, device=device),
                           torch.zeros(progs, dtype=torch.int32, device=device),
                           torch.zeros(progs, dtype=torch.int32, device=device))

    def run(self, ck: CostKernel, event_ms: float | None, pairs: int, block: int, heap: list[int]) -> LoopRun:
        """The :class:`LoopRun` these buffers hold."""
        return LoopRun(self.times.cpu().tolist(), self.trips.cpu().tolist(), self.status.cpu().tolist(), event_ms,
                       ck.parties, pairs, block, heap)


def party_tables(heap_address: int, parties: list[int], device: Any) -> tuple[Any, Any]:
    """The kernel's ``heap_ptr`` and ``roles`` arguments: the heap's address and the parties to
    play (built before a timed launch, so their copies to the device are not timed)."""
    import torch

    return (torch.tensor([heap_address], dtype=torch.int64, device=device),
            torch.tensor(parties or [0], dtype=torch.int32, device=device))


def launch_parties(module: Any, tables: tuple[Any, Any], n_parties: int, out: LoopBuffers, n_trips: int,
                   pairs: int, block: int, num_warps: int, device: Any) -> None:
    """Launch the programs of the first ``n_parties`` parties of ``tables`` (``pairs`` each); their
    rows of ``out`` are filled, the others' are left as they are."""
    if not n_parties:
        return
    kernel = getattr(module, KERNEL)
    extra = {"num_warps": num_warps} if str(device).startswith("cuda") else {}
    kernel[(n_parties * pairs,)](*tables, out.times, out.status, out.trips, n_trips, pairs, BLOCK=block,
                                 TRIPS=trips_slots(n_trips), **extra)


@dataclass(frozen=True)
class RanksLoopLaunch:
    """One launch of the loop kernel ``kernel`` through the ``ranks`` backend (a task of its
    ``run_task`` hook): party ``k`` is played by world rank ``party_ranks[k]``; the flags live in
    world rank 0's heap (symmetric memory on GPUs, shared memory on the CPU)."""

    kernel: CostKernel  # not looped back
    party_ranks: tuple[int, ...]
    n_trips: int
    pairs: int
    block: int
    num_warps: int = 1

    def run(self, ctx: Any) -> LoopRun | None:
        """On every rank (collective): zero the flags, launch this rank's parties, sum every rank's
        rows; world rank 0 gets the :class:`LoopRun` (``event_ms``: the slowest rank's CUDA-event
        time of its launch; None on the CPU)."""
        import torch
        import torch.distributed as dist

        from litmus.cost.compile import load_cost_kernel

        ck = self.kernel
        key = ("cost-loop", ck.text)
        if key not in ctx.cache:
            ctx.cache[key] = load_cost_kernel(ck, interpret=ctx.device_kind == "cpu")
        module = ctx.cache[key]
        words = ck.heap_words(self.pairs * self.block)
        ctx.heaps.ensure(words)  # collective when it grows
        if ctx.rank == 0:
            ctx.heaps.local[:words].zero_()
        out = LoopBuffers.make(ck, self.n_trips, self.pairs, ctx.device)
        mine = [k for k, r in enumerate(self.party_ranks) if r == ctx.rank]
        gpu = ctx.device_kind == "cuda"
        if gpu:
            torch.cuda.synchronize(ctx.device)
        dist.barrier(group=ctx.group)  # the flags are zero before any rank launches
        elapsed = torch.zeros(1, dtype=torch.float64, device=ctx.device)
        args = (module, party_tables(ctx.heaps.addresses()[0], mine, ctx.device), len(mine), out, self.n_trips,
                self.pairs, self.block, self.num_warps, ctx.device)
        if gpu:
            begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            begin.record()
            launch_parties(*args)
            end.record()
            torch.cuda.synchronize(ctx.device)
            elapsed += begin.elapsed_time(end)
        else:
            launch_parties(*args)
        for t in (out.times, out.status, out.trips):  # each rank filled only its parties' rows
            dist.all_reduce(t, group=ctx.group)
        dist.all_reduce(elapsed, op=dist.ReduceOp.MAX, group=ctx.group)
        heap = ctx.heaps.local[:words].cpu().tolist() if ctx.rank == 0 else []
        dist.barrier(group=ctx.group)  # nobody zeroes the flags before rank 0 read them
        if ctx.rank != 0:
            return None
        return out.run(ck, float(elapsed.item()) if gpu else None, self.pairs, self.block, heap)
