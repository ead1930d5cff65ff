"""Per-rank heaps every rank process can address: shared memory on the CPU, symm_mem on GPUs.

Each rank owns one int32 heap; :meth:`addresses` gives, in the calling process's address space,
the base address of every world rank's heap (the ``heap_ptrs`` kernel argument before test-rank
remapping). Growing is collective: every rank calls :meth:`ensure` with the same size.
"""

from __future__ import annotations

import mmap
import os
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import torch


class RankHeaps(Protocol):
    """One heap per world rank, addressable from this process."""

    kind: str
    local: "torch.Tensor"  # this rank's heap, int32 [capacity]

    def ensure(self, words: int) -> None:
        """Collective: make every heap hold at least ``words`` int32 words."""
        ...

    def addresses(self) -> list[int]:
        """Base address of each world rank's heap, valid in this process."""
        ...

    def describe(self) -> dict[str, Any]:
        """What the heaps are, for ``describe()``."""
        ...

    def close(self) -> None:
        """Release the memory."""
        ...


def shm_dir() -> Path:
    """Where CPU heap files live while the ranks map them (``/dev/shm`` when present)."""
    dev_shm = Path("/dev/shm")
    return dev_shm if dev_shm.is_dir() and os.access(dev_shm, os.W_OK) else Path(tempfile.gettempdir())


def shm_prefix(run_id: str) -> str:
    """File-name prefix of every heap file of one run (the launcher removes leftovers by it)."""
    return f"litmus-ranks-{run_id}-"


def remove_leftover_files(run_id: str) -> int:
    """Remove heap files of ``run_id`` that a killed rank left behind; how many were removed."""
    removed = 0
    for path in shm_dir().glob(f"{shm_prefix(run_id)}*"):
        path.unlink(missing_ok=True)
        removed += 1
    return removed


def _capacity(words: int) -> int:
    cap = 1 << 12
    while cap < words:
        cap <<= 1
    return cap


class ShmHeaps:
    """CPU heaps: one shared-memory file per rank, mapped by every rank.

    Works the same for spawned workers and ``torchrun`` processes (no common parent is needed).
    Each rank creates its file, all ranks map all files, then each owner unlinks its file at
    once, so a killed run leaves nothing behind in ``/dev/shm``.
    """

    kind = "shared-memory"

    def __init__(self, rank: int, world_size: int, run_id: str, group: Any, words: int) -> None:
        self.rank, self.world_size, self.run_id, self.group = rank, world_size, run_id, group
        self._generation = 0
        self._maps: list[mmap.mmap] = []
        self._views: list["torch.Tensor"] = []
        self.capacity = 0
        self._allocate(_capacity(words))

    def _path(self, rank: int) -> Path:
        return shm_dir() / f"{shm_prefix(self.run_id)}g{self._generation}-r{rank}"

    def _allocate(self, words: int) -> None:
        import torch
        import torch.distributed as dist

        self._release()
        self._generation += 1
        nbytes = words * 4
        own = self._path(self.rank)
        fd = os.open(own, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        try:
            os.ftruncate(fd, nbytes)
            own_map = mmap.mmap(fd, nbytes)
        finally:
            os.close(fd)
        dist.barrier(group=self.group)  # every file exists
        maps = []
        for r in range(self.world_size):
            if r == self.rank:
                maps.append(own_map)
                continue
            fd = os.open(self._path(r), os.O_RDWR)
            try:
                maps.append(mmap.mmap(fd, nbytes))
            finally:
                os.close(fd)
        dist.barrier(group=self.group)  # every rank mapped every file
        own.unlink()
        self._maps = maps
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self._views = [torch.frombuffer(m, dtype=torch.int32) for m in maps]
        self.capacity = words

    @property
    def local(self) -> "torch.Tensor":
        return self._views[self.rank]

    def ensure(self, words: int) -> None:
        if words > self.capacity:
            self._allocate(_capacity(words))

    def addresses(self) -> list[int]:
        return [v.data_ptr() for v in self._views]

    def describe(self) -> dict[str, Any]:
        return {"heaps": self.kind, "heap_words": self.capacity}

    def _release(self) -> None:
        self._views = []
        for m in self._maps:
            try:
                m.close()
            except BufferError:  # a tensor still points into it: let the GC unmap it
                pass
        self._maps = []

    def close(self) -> None:
        self._release()


class SymmHeaps:
    """GPU heaps: one PyTorch symmetric-memory allocation per rank (``symm_mem.empty`` +
    ``rendezvous``); the peers' addresses are the handle's ``buffer_ptrs`` (the host copy of
    ``buffer_ptrs_dev``), each plus this tensor's offset in its buffer."""

    kind = "symm_mem"

    def __init__(self, rank: int, world_size: int, group: Any, device: Any, words: int) -> None:
        self.rank, self.world_size, self.group, self.device = rank, world_size, group, device
        self.handle: Any = None
        self._tensor: "torch.Tensor | None" = None
        self.capacity = 0
        self._allocate(_capacity(words))

    def _allocate(self, words: int) -> None:
        import torch
        import torch.distributed._symmetric_memory as symm_mem

        group_name = self.group.group_name
        enable = getattr(symm_mem, "enable_symm_mem_for_group", None)
        if enable is not None:  # needed before torch 2.9; a deprecated no-op-ish call after
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                enable(group_name)
        self.handle, self._tensor = None, None
        tensor = symm_mem.empty(words, dtype=torch.int32, device=self.device)
        self.handle = symm_mem.rendezvous(tensor, group_name)
        self._tensor = tensor
        self.capacity = words

    @property
    def local(self) -> "torch.Tensor":
        assert self._tensor is not None
        return self._tensor

    def ensure(self, words: int) -> None:
        if words > self.capacity:
            self._allocate(_capacity(words))

    def addresses(self) -> list[int]:
        ptrs = [int(p) for p in self.handle.buffer_ptrs]
        offset = self.local.data_ptr() - ptrs[self.rank]
        return [p + offset for p in ptrs]

    def describe(self) -> dict[str, Any]:
        return {
            "heaps": self.kind,
            "heap_words": self.capacity,
            "signal_pad_bytes": int(getattr(self.handle, "signal_pad_size", 0)),
        }

    def close(self) -> None:
        self.handle, self._tensor = None, None
