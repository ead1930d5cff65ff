"""Counting a round's outcomes in one Triton pass on the device (``OutcomeCounter``).

:func:`litmus.run.buffers.count_rows` counts with torch: bounds of every column, a mixed-radix
key built column by column, ``bincount``.  On an H200 that took twice the test kernel's own time
per round (each column of the row-major ``out`` is a strided pass over all of it, and a
``bincount`` of 1.7e7 keys into a handful of bins is contended).  Here one kernel reads every
observable of an instance once, builds the key in registers, keeps a histogram per program
(``tl.histogram``) and adds it to a global one: a round costs one pass and one host round trip.

The kernel is compiled once per number of columns and of bins (a power of two): the key space
and the row count are run-time arguments, so new value ranges do not compile it again.

The columns are the raw int32 columns of ``litmus.run.buffers.raw_columns`` (a 64-bit register
or location is two of them); each counted row is decoded into the observables afterwards.
The key's value ranges (lowest value and radix per column) are the previous round's: a value
outside them lands in an overflow bin, and then the round's bounds are read again and it is
counted once more, so a count is exact whatever the values.  Key spaces larger than
:data:`MAX_BINS` go to ``count_rows``.  The status column counts as its :mod:`litmus.status` code (0 completed, 1 timed out, 2 hung).

Imports torch and triton lazily; the kernel runs under the Triton interpreter too (tests).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from litmus.codegen.layout import HUNG_BIT, Layout
from litmus.run.backend import Row
from litmus.run.buffers import Ranges, column_ranges

if TYPE_CHECKING:
    import torch

MAX_BINS = 1 << 12
"""Largest key space (outcome tuples x status) counted by the kernel; larger ones use ``count_rows``."""

COUNT_BLOCK = 2048
"""Instances per program of the count kernel."""

_COUNT_SOURCE = '''"""litmus: one-pass outcome histogram (litmus.run.counting)."""
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["n", "space"])
def litmus_count(cols, strides, lows, radix, hist, n, space, NCOLS: tl.constexpr, STATUS: tl.constexpr,
                 NB: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    i = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    live = i < n
    key = tl.zeros([BLOCK], dtype=tl.int32)
    ok = live
    for c in tl.static_range(NCOLS):
        base = tl.load(cols + c).to(tl.pointer_type(tl.int32))
        v = tl.load(base + i * tl.load(strides + c), mask=live, other=0)
        if STATUS and c == NCOLS - 1:
            v = (v != 0).to(tl.int32) + (v == HUNG_BIT_VALUE).to(tl.int32)  # HUNG_BIT alone: hung
        d = v - tl.load(lows + c)
        r = tl.load(radix + c)
        ok = ok & (d >= 0) & (d < r)
        key = key * r + tl.where(ok, d, 0)
    # bin space: a value outside the given ranges; bin space + 1: lanes past n
    key = tl.where(ok, key, tl.where(live, space, space + 1))
    tl.atomic_add(hist + tl.arange(0, NB), tl.histogram(key, NB))
'''


def count_kernel_source() -> str:
    """Source of the ``litmus_count`` Triton kernel (a real module; load it from a file), with
    the status code of ``litmus.run.buffers.status_codes``."""
    return _COUNT_SOURCE.replace("HUNG_BIT_VALUE", str(HUNG_BIT))


def load_count_kernel(interpret: bool = False) -> Any:
    """The ``litmus_count`` kernel, imported from a file in the litmus kernel cache."""
    from litmus.codegen.loader import load_text_kernel

    return load_text_kernel("litmus_count", count_kernel_source(), "litmus_count", interpret)


def _bins(space: int) -> int:
    """Histogram bins for ``space`` keys plus the two spare bins: a power of two."""
    return 1 << (space + 1).bit_length()


class OutcomeCounter:
    """Counts rounds of one device's kernels (``count`` has ``count_rows``'s contract).

    Keeps the last round's value ranges per layout, so a steady run costs one pass per round.
    ``interpret=True`` runs the kernel under the Triton interpreter (CPU tensors).
    """

    def __init__(self, interpret: bool = False) -> None:
        self.interpret = interpret
        self._kernel: Any = None
        self._ranges: dict[tuple[str, tuple[str, ...]], Ranges] = {}
        self._args: dict[tuple[Any, ...], tuple[Any, ...]] = {}  # device copies of the small arguments
        self.recounts = 0  # rounds counted twice because a value left the previous ranges

    def count(self, out: "torch.Tensor", heaps: Sequence["torch.Tensor"], layout: Layout,
              strides: tuple[int, int]) -> list[Row]:
        """``(state, status, count)`` rows of every instance of a round (see ``count_rows``).

        Raises ``RuntimeError`` if the counts do not add up to the instances.
        """
        from litmus.run.buffers import count_rows, decoded_rows, raw_columns

        cols = raw_columns(out, heaps, layout, strides) + [out[:, layout.status_column]]
        n = out.shape[0]
        # a test and its warmed form (litmus.run.warm) share an id, not their columns
        key = (layout.test_id, layout.raw_keys)
        ranges = self._ranges.get(key)
        if ranges is None:
            ranges = self._bounds(cols)
        if ranges.space > MAX_BINS:
            self._ranges.pop(key, None)
            return count_rows([out], heaps, layout, strides)
        hist = self._histogram(cols, ranges, n)
        if hist[ranges.space]:  # some value outside the ranges: read them again, count again
            self.recounts += 1
            ranges = self._bounds(cols)
            if ranges.space > MAX_BINS:
                self._ranges.pop(key, None)
                return count_rows([out], heaps, layout, strides)
            hist = self._histogram(cols, ranges, n)
        self._ranges[key] = ranges
        total = sum(hist[: ranges.space])
        if total != n or hist[ranges.space]:
            raise RuntimeError(f"{layout.test_id}: histogram counts {total} outcomes for {n} rows")
        raw = []
        for k, c in enumerate(hist[: ranges.space]):
            if c:
                values = ranges.decode(k)
                raw.append((values[:-1], int(values[-1]), c))
        return decoded_rows(layout, raw)

    @staticmethod
    def _bounds(cols: Sequence["torch.Tensor"]) -> Ranges:
        """The columns' value ranges (one host round trip); the status column last, as its code
        0, 1 or 2."""
        ranges = column_ranges(cols[:-1])
        return Ranges(ranges.lows + (0,), ranges.radix + (3,))

    def _histogram(self, cols: Sequence["torch.Tensor"], ranges: Ranges, n: int) -> list[int]:
        """Counts per key, then the out-of-range and the spare bin (one host round trip)."""
        import torch

        if self._kernel is None:
            self._kernel = load_count_kernel(self.interpret)
        device = cols[0].device
        key = (tuple(c.data_ptr() for c in cols), tuple(c.stride(0) for c in cols), ranges, str(device))
        if key not in self._args:  # the same buffers round after round: copied to the device once
            if len(self._args) >= 16:
                self._args.clear()
            nb = _bins(ranges.space)
            self._args[key] = (torch.tensor(key[0], dtype=torch.int64, device=device),
                               torch.tensor(key[1], dtype=torch.int64, device=device),
                               torch.tensor(ranges.lows, dtype=torch.int32, device=device),
                               torch.tensor(ranges.radix, dtype=torch.int32, device=device),
                               torch.zeros(nb, dtype=torch.int32, device=device))
        addresses, strides, lows, radix, hist = self._args[key]
        nb = hist.numel()
        hist.zero_()
        grid = (max(1, -(-n // COUNT_BLOCK)),)
        self._kernel[grid](addresses, strides, lows, radix, hist, n, ranges.space, NCOLS=len(cols), STATUS=True,
                           NB=nb, BLOCK=COUNT_BLOCK)
        return hist.tolist()[: ranges.space + 1]
