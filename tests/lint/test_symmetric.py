"""litmus.lint.symmetric: a launch that gives a kernel a symmetric-heap buffer makes that
parameter a peer's memory, followed through assignments, ``self.`` attributes and views."""

from __future__ import annotations

from litmus.lint.symmetric import symmetric_params

SOURCE = '''
import torch
import torch.distributed._symmetric_memory as symm_mem
from triton_dist.utils import nvshmem_create_tensors


class Ctx:
    def __init__(self, n, rank):
        self.bufs = nvshmem_create_tensors((n,), torch.float32, rank, 8)
        self.buf = self.bufs[rank]
        self.flags = torch.zeros((8,), dtype=torch.int32, device="cuda")

    def launch(self, x):
        kernel[(4,)](x, self.buf.flatten()[0:16], self.buf.numel(), self.flags)


def other(n):
    pad = symm_mem.empty(n, dtype=torch.int32, device="cuda")
    kernel[(1,)](pad, pad, n, pad.view(-1))
'''


def test_symmetric_buffers_are_found_through_attributes_views_and_allocators() -> None:
    got = symmetric_params(SOURCE, "kernel", ["src", "dst", "n", "flags"])
    # every launch counts: the one in other() gives all three pad (line 18), through a view for flags
    assert got == {"src": 18, "dst": 18, "flags": 18}


def test_a_count_or_a_plain_tensor_is_not_symmetric_memory() -> None:
    got = symmetric_params(SOURCE.split("def other")[0], "kernel", ["src", "dst", "n", "flags"])
    assert got == {"dst": 9}  # not x (a parameter), not numel(), not torch.zeros


def test_bad_source_gives_nothing() -> None:
    assert symmetric_params("def (:", "kernel", ["a"]) == {}
