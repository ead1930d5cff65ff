"""Host-side buffers of the kernels' calling convention, for every backend: heaps (plain and
strided), pointer table, permutations, ``out``, and the outcome counts read back from them.

Every buffer is int32.  With access widths a heap slot is a unit of ``layout.unit_bytes`` bytes
(the strides count units); a round is counted over its *raw* int32 columns (registers, a 64-bit
register as two columns, then every memory word) and each counted row is decoded into the
observables' values (``Layout.decode``), so the counts stay exact and the key spaces small.

Imports torch (lazily, at call time).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from litmus.codegen.layout import HUNG_BIT, Layout
from litmus.codegen.roles import SLOT_ROTATION
from litmus.codegen.widths import fill_value
from litmus.run.backend import Row

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


def reset_heaps(layout: Layout, heaps: Mapping[int, "torch.Tensor"], n_instances: int,
                strides: tuple[int, int]) -> None:
    """Zero the heaps of ``heaps`` (rank -> heap) and write the initial value of every location
    homed on one of those ranks, its units ``strides`` = ``(loc_stride, inst_stride)`` apart."""
    for h in heaps.values():
        h.zero_()
    for loc in layout.physical_locations():
        if loc.init and loc.home in heaps:
            unit_column(heaps[loc.home], layout, loc.slot, n_instances, strides).fill_(fill_value(loc, layout.unit_bytes))


def init_heaps(layout: Layout, heaps: Sequence["torch.Tensor"], n_instances: int) -> None:
    """Reset every heap: locations to their initial values, everything else (scratch) to 0."""
    reset_heaps(layout, dict(enumerate(heaps)), n_instances, layout.strides(n_instances))


def unit_column(heap: "torch.Tensor", layout: Layout, slot: int, n_instances: int,
                strides: tuple[int, int]) -> "torch.Tensor":
    """The unit of ``slot`` of every instance of ``heap`` (an int32 heap): one ``[n_instances]``
    view, int32 for 4-byte units and int64 for 8-byte ones (no copy)."""
    import torch

    loc_stride, inst_stride = strides
    if layout.unit_bytes == 4:
        return heap.as_strided((n_instances,), (inst_stride,), heap.storage_offset() + slot * loc_stride)
    if heap.storage_offset() % 2:
        raise ValueError(f"{layout.test_id}: a heap of 8-byte units must start 8-byte aligned")
    wide = heap.view(torch.int64)
    return wide.as_strided((n_instances,), (inst_stride,), heap.storage_offset() // 2 + slot * loc_stride)


def init_rank_heap(layout: Layout, heap: "torch.Tensor", rank: int, n_instances: int) -> None:
    """Reset one rank's heap (laid out with the layout's own strides): zeros, then the initial
    values of the locations homed on ``rank``."""
    reset_heaps(layout, {rank: heap[: layout.heap_words(n_instances)]}, n_instances, layout.strides(n_instances))


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


def slot_lane(row: tuple[int, int], slot: int, lane: int, block: int) -> int:
    """The lane of its block whose instance the ``slot``-th thread of a shared-CTA role (perm row
    ``row``) plays at lane ``lane``: the lane itself for slot 0, else a permutation that moves
    it to another hardware thread. Mirrors :func:`litmus.codegen.roles.slot_lane_line`."""
    if slot == 0:
        return lane
    k, c = row
    return (lane * ((k % block) | 1) + c % block + SLOT_ROTATION * slot) % block


def grid_instance(row: tuple[int, int], block_index: int, lane: int, it: int, per_iter: int, block: int) -> int:
    """The instance lane ``lane`` of the ``block_index``-th program of a role plays in iteration
    ``it`` of a grid- or rank-mode kernel, for the role's ``perm`` row ``(k, c)`` and ``per_iter``
    (``progs_per_role * BLOCK``) instances per iteration:
    ``it * per_iter + (j * k + c * (it + 1)) % per_iter`` with ``j = block_index * block + lane``
    (each iteration shifts by ``c`` more, so partners change).  Mirrors the kernel exactly."""
    k, c = row
    return it * per_iter + ((block_index * block + lane) * k + c * (it + 1)) % per_iter


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


def location_columns(heaps: Sequence["torch.Tensor"], layout: Layout, n_instances: int,
                     strides: tuple[int, int] | None = None) -> list["torch.Tensor"]:
    """Each memory word of every instance (``layout.memory_words``: one per location, two for a
    64-bit one): one int32 ``[n_instances]`` view per word (no copy).

    ``strides`` is ``(loc_stride, inst_stride)`` (default: the layout's own, for heaps made by
    :func:`make_heaps`; the backends pass their :class:`HeapPlan`'s).
    """
    loc_stride, inst_stride = strides if strides is not None else layout.strides(n_instances)
    uw = layout.unit_words
    cols = []
    for w in layout.memory_words:
        heap = heaps[w.home]
        cols.append(heap.as_strided((n_instances,), (inst_stride * uw,),
                                    heap.storage_offset() + w.slot * loc_stride * uw + w.word))
    return cols


def raw_columns(out: "torch.Tensor", heaps: Sequence["torch.Tensor"], layout: Layout,
                strides: tuple[int, int] | None = None) -> list["torch.Tensor"]:
    """The int32 columns a round is counted by (``layout.raw_keys``): the register columns of
    ``out``, then every memory word; ``layout.decode`` turns a row of them into the observables."""
    n = out.shape[0]
    return [out[:, i] for i in range(layout.n_cols - 1)] + location_columns(heaps, layout, n, strides)


def outcome_columns(out: "torch.Tensor", heaps: Sequence["torch.Tensor"], layout: Layout,
                    strides: tuple[int, int] | None = None) -> list["torch.Tensor"]:
    """One ``[n_instances]`` tensor per observable: registers from ``out``, then final memory
    (views of the buffers without access widths; decoded int64 tensors with them, where an
    unsigned 64-bit value of ``2**63`` or more wraps to a negative int64)."""
    raw = raw_columns(out, heaps, layout, strides)
    if layout.plain:
        return raw
    import torch

    cols = []
    for f in layout.fields:
        v = torch.zeros_like(raw[0], dtype=torch.int64) if raw else None
        for k, c in enumerate(f.cols):
            v = v | ((raw[c].to(torch.int64) & 0xFFFFFFFF) << (32 * k))
        if f.shift:
            v = v >> f.shift
        if f.bits < 64:
            v = v & ((1 << f.bits) - 1)
        if f.signed and f.bits == 32:
            v = torch.where(v >= 1 << 31, v - (1 << 32), v)
        cols.append(v)
    return cols


def outcome_matrix(out: "torch.Tensor", heaps: Sequence["torch.Tensor"], layout: Layout) -> "torch.Tensor":
    """int64 ``[n_instances, len(layout.observables)]``: registers from ``out``, then final memory."""
    import torch

    cols = [c.to(device=out.device, dtype=torch.int64) for c in outcome_columns(out, heaps, layout)]
    n = out.shape[0]
    return torch.stack(cols, dim=1) if cols else torch.zeros((n, 0), dtype=torch.int64, device=out.device)


def timed_out(out: "torch.Tensor", layout: Layout) -> "torch.Tensor":
    """bool ``[n_instances]``: the instance did not complete (a spin ran out of reads, or it
    provably hung)."""
    return out[:, layout.status_column] != 0


def status_codes(word: "torch.Tensor") -> "torch.Tensor":
    """int32 :mod:`litmus.status` codes of status words (the ``out`` status column): 0 none set
    (completed), 2 only :data:`HUNG_BIT` (hung), 1 any spin's timeout bit (timed out)."""
    import torch

    return (word != 0).to(torch.int32) + (word == HUNG_BIT).to(torch.int32)


@dataclass(frozen=True)
class Ranges:
    """Lowest value and radix of each of several integer columns: the mixed-radix key of a row
    is ``sum((v_i - low_i) * prod(radix_{i+1:}))``, first column most significant."""

    lows: tuple[int, ...]
    radix: tuple[int, ...]

    @property
    def space(self) -> int:
        """Number of distinct keys."""
        return math.prod(self.radix)

    def decode(self, key: int) -> tuple[int, ...]:
        """The column values of ``key``."""
        digits = []
        for r in reversed(self.radix):
            key, d = divmod(key, r)
            digits.append(d)
        return tuple(low + d for low, d in zip(self.lows, reversed(digits)))


def column_ranges(cols: Sequence["torch.Tensor"]) -> Ranges:
    """The value ranges of ``cols`` (equal-length integer tensors on one device), in one host
    round trip."""
    import torch

    if not cols:
        return Ranges((), ())
    bounds = torch.stack([torch.stack(c.aminmax()).to(torch.int64) for c in cols]).tolist()
    return Ranges(tuple(lo for lo, _ in bounds), tuple(hi - lo + 1 for lo, hi in bounds))


BINCOUNT_LIMIT = 1 << 22
"""Largest mixed-radix key space :func:`count_columns` counts with one ``bincount``."""


def count_columns(cols: Sequence["torch.Tensor"]) -> dict[tuple[int, ...], int]:
    """How many times each distinct row of the columns ``cols`` (equal-length integer tensors on
    one device) occurs: ``{(v0, v1, ...): count}``.

    Runs on the columns' device with one host round trip for the bounds and one for the counts:
    each column is offset by its minimum, rows are encoded as one mixed-radix key and counted
    with ``bincount`` (``unique`` when the key space is large, whole-row ``unique`` when it does
    not fit in 62 bits).  Raises ``RuntimeError`` if the counts do not add up to the rows.
    """
    import torch

    if not cols:
        return {}
    n = cols[0].shape[0]
    if n == 0:
        return {}
    ranges = column_ranges(cols)
    lows, radix, space = ranges.lows, ranges.radix, ranges.space
    if space == 1:
        return {tuple(lows): n}
    if space < 2**62:
        key_dtype = torch.int32 if space <= BINCOUNT_LIMIT else torch.int64
        key, offset = None, 0
        for c, low, r in zip(cols, lows, radix):
            offset = offset * r + low
            if key is None:
                key = c.to(key_dtype, copy=True)
            else:
                key.mul_(r).add_(c)
        assert key is not None
        if offset:
            key.sub_(offset)
        if space <= BINCOUNT_LIMIT:
            counts = torch.bincount(key, minlength=space)
            hit = counts.nonzero().squeeze(1)
            pairs = zip(hit.tolist(), counts[hit].tolist())
        else:
            uniq, cnt = torch.unique(key, return_counts=True)
            pairs = zip(uniq.tolist(), cnt.tolist())
        result = {ranges.decode(k): c for k, c in pairs}
    else:  # too many distinct values for one int64 key: count whole rows
        rows, cnt = torch.unique(torch.stack([c.to(torch.int64) for c in cols], dim=1), dim=0, return_counts=True)
        result = {tuple(r): c for r, c in zip(rows.tolist(), cnt.tolist())}
    total = sum(result.values())
    if total != n:
        raise RuntimeError(f"histogram counts {total} outcomes for {n} rows")
    return result


def histogram(out: "torch.Tensor", heaps: Sequence["torch.Tensor"], layout: Layout,
              mask: "torch.Tensor | None" = None) -> dict[tuple[int, ...], int]:
    """Count outcome tuples (over ``layout.observables``) of every instance (or those in ``mask``).

    Counting runs on ``out``'s device (:func:`count_columns`).  Raises ``RuntimeError`` if the
    counts do not add up to the number of instances counted.
    """
    cols = [c.to(out.device) for c in raw_columns(out, heaps, layout)]
    if mask is not None:
        m = mask.to(out.device)
        cols = [c[m] for c in cols]
    if not cols:  # nothing observable: every instance has the empty outcome
        n = out.shape[0] if mask is None else int(mask.sum())
        return {(): n} if n else {}
    try:
        counts = count_columns(cols)
    except RuntimeError as e:
        raise RuntimeError(f"{layout.test_id}: {e}") from None
    if layout.plain:
        return counts
    decoded: dict[tuple[int, ...], int] = {}
    for raw, c in counts.items():
        key = layout.decode(raw)
        decoded[key] = decoded.get(key, 0) + c
    return decoded


# --------------------------------------------------------------------------- strided heaps


@dataclass(frozen=True)
class HeapPlan:
    """Where instance ``i`` of slot ``s`` lives: word ``s*loc_stride + i*inst_stride``.

    Needs a ``loc_major`` layout; ``stride`` spreads consecutive instances ``stride`` words apart.
    """

    n_instances: int
    n_slots: int
    stride: int
    unit_words: int = 1  # int32 words of one unit (Layout.unit_words): the strides count units

    @property
    def loc_stride(self) -> int:
        """Units between consecutive slots of one instance."""
        return self.n_instances * self.stride

    @property
    def inst_stride(self) -> int:
        """Units between consecutive instances of one slot."""
        return self.stride

    @property
    def words(self) -> int:
        """int32 words of each heap."""
        return self.n_slots * self.n_instances * self.stride * self.unit_words


def heap_plan(layout: Layout, n_instances: int, stride: int) -> HeapPlan:
    """The heap plan for ``layout`` (which must use ``loc_major`` addressing)."""
    if layout.addressing != "loc_major":
        raise ValueError(f"{layout.test_id}: strided heaps need loc_major addressing, not {layout.addressing}")
    return HeapPlan(n_instances, layout.n_slots, max(1, int(stride)), layout.unit_words)


def init_strided(layout: Layout, heaps: Sequence["torch.Tensor"], plan: HeapPlan) -> None:
    """Zero every heap and write each location's initial value into its home heap."""
    reset_heaps(layout, dict(enumerate(heaps)), plan.n_instances, (plan.loc_stride, plan.inst_stride))


# --------------------------------------------------------------------------- counting a round


def count_rows(outs: Sequence["torch.Tensor"], heaps: Sequence["torch.Tensor"], layout: Layout,
               strides: tuple[int, int]) -> list[Row]:
    """``(state, status, count)`` rows of every instance of a round (status: :mod:`litmus.status`).

    ``outs``: the ``out`` tensors of the round's roles (each writes only its own columns and
    status bits; they are or-ed together), ``heaps``: the test's heaps in rank order, read with
    ``strides`` = ``(loc_stride, inst_stride)``.  The timeout flag is one more column of the
    same count (:func:`status_codes`), so a round costs one ``bincount`` (see :func:`count_columns`).
    Raises ``RuntimeError`` if the counts do not add up to the instances.
    """
    out = outs[0] if len(outs) == 1 else merge_rank_outputs(outs)
    cols = [c.to(out.device) for c in raw_columns(out, heaps, layout, strides)]
    cols.append(status_codes(out[:, layout.status_column]))
    try:
        counts = count_columns(cols)
    except RuntimeError as e:
        raise RuntimeError(f"{layout.test_id}: {e}") from None
    return decoded_rows(layout, ((values[:-1], int(values[-1]), count) for values, count in counts.items()))


def decoded_rows(layout: Layout, raw: "Iterable[tuple[tuple[int, ...], int, int]]") -> list[Row]:
    """``(state, status, count)`` rows from counts of raw rows (``layout.raw_keys`` values):
    each raw row decoded into the observables' values, equal states merged."""
    keys = layout.observables
    if layout.plain:
        return [(dict(zip(keys, values)), late, count) for values, late, count in raw]
    merged: dict[tuple[tuple[int, ...], int], int] = {}
    for values, late, count in raw:
        k = (layout.decode(values), late)
        merged[k] = merged.get(k, 0) + count
    return [(dict(zip(keys, values)), late, count) for (values, late), count in merged.items()]
