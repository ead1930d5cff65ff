"""Reference host driver: run a generated kernel in one process and count its outcomes.

For the tests (interp_runner.py, harness_runner.py) and as an example for the run package: grid
mode, every role in one launch, heaps on one device (CPU tensors under the Triton interpreter).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from litmus.codegen.generate import generate
from litmus.codegen.loader import load_kernel
from litmus.codegen.options import CodegenOptions
from litmus.ir import LitmusTest
from litmus.run.buffers import histogram, make_heaps, make_out, perm_tensor, permutations, pointer_table, timed_out

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class DriverResult:
    """Outcome counts of one launch, over ``keys``; ``timeouts`` instances had a spin run out."""

    keys: tuple[str, ...]
    histogram: dict[tuple[int, ...], int]
    n_instances: int
    timeouts: int


def run_once(test: LitmusTest, options: CodegenOptions, progs_per_role: int = 2, device: object = "cpu",
             interpret: bool = True, perms: Sequence[tuple[int, int]] | None = None, seed: int = 0,
             control: "torch.Tensor | None" = None) -> DriverResult:
    """Generate, load and launch ``test`` once; histogram its outcomes.

    Grid mode: one launch.  Rank mode: each rank's kernel launched in turn, rank order, in this
    one process on one device (real rank mode runs them concurrently, one process per rank).
    With ``options.harness`` the kernels read ``control`` (default: all zeros, harness off;
    see :mod:`litmus.codegen.harness`).
    """
    source = generate(test, options)
    layout = source.layout
    module = load_kernel(source, interpret=interpret)
    n = layout.n_instances(progs_per_role)
    heaps = make_heaps(layout, n, [device] * layout.n_ranks)
    out = make_out(layout, n, device)
    perm = perm_tensor(perms if perms is not None else permutations(layout, n, seed), device)
    loc_stride, inst_stride = layout.strides(n)
    buffers = list(heaps)
    if options.harness:
        import torch

        from litmus.codegen.harness import HEADER_WORDS

        buffers.append(control if control is not None else torch.zeros(HEADER_WORDS + 64, dtype=torch.int32, device=device))
    table = pointer_table(buffers, device)
    for entry in layout.kernels:
        getattr(module, entry.name)[entry.grid(progs_per_role)](
            table, out, perm, n, progs_per_role, loc_stride, inst_stride, BLOCK=layout.block
        )
    return DriverResult(layout.observables, histogram(out, heaps, layout), n, int(timed_out(out, layout).sum()))
