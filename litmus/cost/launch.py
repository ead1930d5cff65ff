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
    heap: list[int]  # final heap words: slot s of instance i at s * pairs * block + i

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

    n_inst = pairs * block
    progs = ck.parties * pairs
    heap = torch.zeros(ck.slots * n_inst, dtype=torch.int32, device=device)
    times = torch.zeros((progs, n_trips + 1), dtype=torch.int64, device=device)
    status = torch.zeros(progs, dtype=torch.int32, device=device)
    trips = torch.zeros(progs, dtype=torch.int32, device=device)
    kernel = getattr(module, KERNEL)
    event_ms = None
    if device.startswith("cuda"):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        kernel[(progs,)](heap, times, status, trips, n_trips, pairs, BLOCK=block, TRIPS=trips_slots(n_trips),
                         num_warps=num_warps)
        end.record()
        torch.cuda.synchronize()
        event_ms = float(start.elapsed_time(end))
    else:
        kernel[(progs,)](heap, times, status, trips, n_trips, pairs, BLOCK=block, TRIPS=trips_slots(n_trips))
    return LoopRun(times.cpu().tolist(), trips.cpu().tolist(), status.cpu().tolist(), event_ms, ck.parties,
                   pairs, block, heap.cpu().tolist())
