"""Outcome rows of one round, counted where the buffers live (CPU or GPU), for every backend."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from litmus.codegen.host import count_columns, merge_rank_outputs, outcome_columns
from litmus.codegen.layout import Layout
from litmus.run.backend import Row

if TYPE_CHECKING:
    import torch


def count_rows(outs: Sequence["torch.Tensor"], heaps: Sequence["torch.Tensor"], layout: Layout,
               strides: tuple[int, int]) -> list[Row]:
    """``(state, timed out, count)`` rows of every instance of a round.

    ``outs``: the ``out`` tensors of the round's roles (each writes only its own columns and
    status bits; they are or-ed together), ``heaps``: the test's heaps in rank order, read with
    ``strides`` = ``(loc_stride, inst_stride)``.  The timeout flag is one more column of the
    same count, so a round costs one ``bincount`` (see ``codegen.host.count_columns``).
    Raises ``RuntimeError`` if the counts do not add up to the instances.
    """
    import torch

    out = outs[0] if len(outs) == 1 else merge_rank_outputs(outs)
    cols = [c.to(out.device) for c in outcome_columns(out, heaps, layout, strides)]
    cols.append((out[:, layout.status_column] != 0).to(torch.int32))
    try:
        counts = count_columns(cols)
    except RuntimeError as e:
        raise RuntimeError(f"{layout.test_id}: {e}") from None
    keys = layout.observables
    return [(dict(zip(keys, values[:-1])), bool(values[-1]), count) for values, count in counts.items()]
