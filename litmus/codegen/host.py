"""Torch-side helpers for the calling convention: heaps, pointer table, permutations, histograms.

Imports torch (lazily, at call time); used by the reference driver and the run package.
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Sequence

from litmus.codegen.layout import Layout

if TYPE_CHECKING:
    import torch


def make_heaps(layout: Layout, n_instances: int, devices: Sequence[object] | None = None) -> list["torch.Tensor"]:
    """One int32 heap per rank (``devices[r]`` or CPU), filled with the locations' initial values."""
    import torch

    heaps = []
    for r in range(layout.n_ranks):
        dev = devices[r] if devices is not None else "cpu"
        heaps.append(torch.zeros(layout.heap_words(n_instances), dtype=torch.int32, device=dev))
    init_heaps(layout, heaps, n_instances)
    return heaps


def init_heaps(layout: Layout, heaps: Sequence["torch.Tensor"], n_instances: int) -> None:
    """Reset every heap: locations to their initial values, everything else (scratch) to 0."""
    for h in heaps:
        h.zero_()
    for loc in layout.locations:
        if loc.init:
            heaps[loc.home][_slot_index(layout, loc.slot, n_instances, heaps[loc.home].device)] = loc.init


def _slot_index(layout: Layout, slot: int, n_instances: int, device: object) -> "torch.Tensor":
    import torch

    loc_stride, inst_stride = layout.strides(n_instances)
    return slot * loc_stride + torch.arange(n_instances, device=device, dtype=torch.int64) * inst_stride


def pointer_table(heaps: Sequence["torch.Tensor"], device: object | None = None) -> "torch.Tensor":
    """The ``heap_ptrs`` argument: int64 addresses of each rank's heap (``buffer_ptrs_dev``-like)."""
    import torch

    dev = device if device is not None else heaps[0].device
    return torch.tensor([h.data_ptr() for h in heaps], dtype=torch.int64, device=dev)


def permutations(layout: Layout, n_instances: int, seed: int = 0) -> list[tuple[int, int]]:
    """``(k_t, c_t)`` per thread with ``gcd(k_t, N) == 1``: thread t of instance ``(j*k_t+c_t) % N``
    runs at slot j.  Thread 0 gets the identity; the others a seeded random co-prime stride."""
    rng = random.Random(seed)
    perms = [(1, 0)]
    for _ in layout.threads[1:]:
        if n_instances <= 2:
            perms.append((1, rng.randrange(n_instances)))
            continue
        while True:
            k = rng.randrange(1, n_instances)
            if math.gcd(k, n_instances) == 1:
                break
        perms.append((k, rng.randrange(n_instances)))
    return perms[: len(layout.threads)]


def perm_tensor(perms: Sequence[tuple[int, int]], device: object = "cpu") -> "torch.Tensor":
    """The ``perm`` argument: int64 ``[n_threads, 2]``."""
    import torch

    return torch.tensor([list(p) for p in perms], dtype=torch.int64, device=device).reshape(-1, 2)


def make_out(layout: Layout, n_instances: int, device: object = "cpu") -> "torch.Tensor":
    """The ``out`` argument: int32 ``[n_instances, n_cols]`` zeros."""
    import torch

    return torch.zeros((n_instances, layout.n_cols), dtype=torch.int32, device=device)


def merge_rank_outputs(outs: Sequence["torch.Tensor"]) -> "torch.Tensor":
    """One ``out`` from the per-rank ``out`` tensors of rank mode (each rank writes only its own
    threads' columns and status bits, the rest stay 0, so a bitwise or merges them)."""
    merged = outs[0].clone()
    for o in outs[1:]:
        merged |= o.to(merged.device)
    return merged


def outcome_matrix(out: "torch.Tensor", heaps: Sequence["torch.Tensor"], layout: Layout) -> "torch.Tensor":
    """int64 ``[n_instances, len(layout.observables)]``: registers from ``out``, then final memory."""
    import torch

    n = out.shape[0]
    cols = [out[:, i].to(torch.int64) for i in range(layout.n_cols - 1)]
    for loc in layout.locations:
        heap = heaps[loc.home]
        cols.append(heap[_slot_index(layout, loc.slot, n, heap.device)].to(device=out.device, dtype=torch.int64))
    return torch.stack(cols, dim=1) if cols else torch.zeros((n, 0), dtype=torch.int64, device=out.device)


def timed_out(out: "torch.Tensor", layout: Layout) -> "torch.Tensor":
    """bool ``[n_instances]``: some spin of the instance ran out of reads."""
    return out[:, layout.status_column] != 0


def histogram(out: "torch.Tensor", heaps: Sequence["torch.Tensor"], layout: Layout,
              mask: "torch.Tensor | None" = None) -> dict[tuple[int, ...], int]:
    """Count outcome tuples (over ``layout.observables``) of every instance (or those in ``mask``).

    Counting runs on ``out``'s device: each row is encoded to one int64 key (mixed radix over each
    column's distinct values) and counted with ``torch.unique``.  Raises ``RuntimeError`` if the
    counts do not add up to the number of instances counted.
    """
    import torch

    m = outcome_matrix(out, heaps, layout)
    if mask is not None:
        m = m[mask.to(m.device)]
    n = m.shape[0]
    if n == 0:
        return {}
    values, inverses, radix = [], [], []
    for j in range(m.shape[1]):
        v, inv = torch.unique(m[:, j], return_inverse=True)
        values.append(v.cpu().tolist())
        inverses.append(inv)
        radix.append(len(v))
    if math.prod(radix) < 2**62:
        key = torch.zeros(n, dtype=torch.int64, device=m.device)
        for inv, r in zip(inverses, radix):
            key = key * r + inv
        keys, counts = torch.unique(key, return_counts=True)
        result: dict[tuple[int, ...], int] = {}
        for k, c in zip(keys.cpu().tolist(), counts.cpu().tolist()):
            digits = []
            for r in reversed(radix):
                k, d = divmod(k, r)
                digits.append(d)
            result[tuple(values[j][d] for j, d in enumerate(reversed(digits)))] = c
    else:  # too many distinct values for one int64 key: count whole rows
        rows, counts = torch.unique(m, dim=0, return_counts=True)
        result = {tuple(r): c for r, c in zip(rows.cpu().tolist(), counts.cpu().tolist())}
    total = sum(result.values())
    if total != n:
        raise RuntimeError(f"{layout.test_id}: histogram counts {total} outcomes for {n} instances")
    return result


def outcome_keys(layout: Layout) -> tuple[str, ...]:
    """The keys of each outcome tuple of :func:`histogram`, in order."""
    return layout.observables
