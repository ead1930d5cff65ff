"""One rank's side of the ``ranks`` backend: process group, heap, kernels, and one round.

Every world rank runs :meth:`RankSession.run_round` for every command, in the same order
(collectives inside). World rank 0 returns the round's histogram; the others return None.
Imports torch and triton lazily (the caller sets ``TRITON_INTERPRET`` first on the CPU).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Callable

from litmus.codegen.layout import Layout
from litmus.codegen.options import CodegenOptions
from litmus.ir import LitmusTest
from litmus.run.backend import Row
from litmus.run.config import RunConfig
from litmus.run.ranks.placement import Placement

if TYPE_CHECKING:
    import torch

    from litmus.run.ranks.heaps import RankHeaps

DEFAULT_GPU_BLOCK = 128
MAX_CPU_BLOCK = 1 << 16


@dataclass(frozen=True)
class SessionSpec:
    """Everything one rank process needs to join the world (picklable)."""

    rank: int
    world_size: int
    device_kind: str  # "cpu" or "cuda"
    device_index: int | None  # the GPU of this rank (cuda only)
    init_method: str | None  # "tcp://127.0.0.1:<port>"; None: env:// (torchrun)
    run_id: str
    placement: Placement
    timeout_s: float
    block: int | None = None
    interpreter_spin_bound: int = 2000
    heap_words: int = 1 << 16
    pg_timeout_s: float | None = None  # collective timeout; None: max(60, 4 * timeout_s)


@dataclass(frozen=True)
class RoundCommand:
    """Run one round of ``test`` (sent to every rank)."""

    test: LitmusTest
    config: RunConfig
    round_index: int


@dataclass(frozen=True)
class TaskCommand:
    """Run ``task.run(context)`` on every rank (collective): a hook for later stages (``litmus
    cost``) to launch kernels of their own on the session's heaps.  ``task`` is picklable and
    has ``run(RankContext) -> Any``; world rank 0's return value is the reply."""

    task: Any
    what: str


@dataclass
class RankContext:
    """What a :class:`TaskCommand` may use on one rank: the rank, world size, device and its kind,
    the heaps (``heaps.local``, ``heaps.addresses()``, ``heaps.ensure``), the process group of
    the data, and a dict kept for the session's lifetime (compiled kernels)."""

    rank: int
    world_size: int
    device: Any
    device_kind: str
    heaps: Any
    group: Any
    cache: dict[Any, Any]


@dataclass
class RoundReply:
    """World rank 0's answer to a :class:`RoundCommand`."""

    rows: list[Row]
    instances: int
    seconds: float
    extra: dict[str, Any] = field(default_factory=dict)


def round_shape(instances: int, block: int | None, device_kind: str) -> tuple[int, int]:
    """``(BLOCK, programs per role)`` for about ``instances`` instances (exactly their product).

    On the CPU the whole round is one program per role (BLOCK = largest power of two not above
    ``instances``, at most 65536), because the interpreter runs the programs of one launch one
    after another and a spin between programs of different ranks would wait for a program
    that has not started. On a GPU, BLOCK defaults to 128 lanes and the programs fill the rest.
    """
    n = max(1, int(instances))
    cap = block if block is not None else (MAX_CPU_BLOCK if device_kind == "cpu" else DEFAULT_GPU_BLOCK)
    b = 1
    while b * 2 <= min(n, cap):
        b *= 2
    return b, max(1, n // b)


def round_seed(config: RunConfig, round_index: int) -> int:
    """The permutation seed of one round: a function of ``config.seed`` and the round index."""
    return config.seed * 1_000_003 + round_index


def codegen_options(device_kind: str, block: int, spin_bound: int | None) -> CodegenOptions:
    """Rank-mode codegen options for this device (interpreter on the CPU, cuda/hip on GPUs)."""
    if device_kind == "cpu":
        backend = "interpreter"
    else:
        import torch

        backend = "hip" if getattr(torch.version, "hip", None) else "cuda"
    return CodegenOptions(backend=backend, mode="rank", block=block, spin_bound=spin_bound, quiesce=True,
                          quick_hangs=device_kind == "cpu")


class RankSession:
    """The state one rank process keeps for the backend's lifetime."""

    def __init__(self, spec: SessionSpec) -> None:
        import torch
        import torch.distributed as dist

        self.spec = spec
        self.rank = spec.rank
        if spec.device_kind == "cuda":
            assert spec.device_index is not None
            torch.cuda.set_device(spec.device_index)
            self.device: Any = torch.device("cuda", spec.device_index)
            backend = "nccl"
        else:
            self.device = torch.device("cpu")
            backend = "gloo"
        timeout = timedelta(seconds=spec.pg_timeout_s or max(60.0, 4 * spec.timeout_s))
        if not dist.is_initialized():
            kwargs: dict[str, Any] = {"backend": backend, "timeout": timeout}
            if spec.init_method is not None:
                kwargs.update(init_method=spec.init_method, rank=spec.rank, world_size=spec.world_size)
            if backend == "nccl":
                kwargs["device_id"] = self.device
            dist.init_process_group(**kwargs)
        self.group = dist.group.WORLD
        # Python objects (commands, the run id) travel over gloo even when the data uses nccl.
        self.control = self.group if backend == "gloo" else dist.new_group(backend="gloo", timeout=timeout)
        self.run_id = spec.run_id or self._shared_run_id()
        self.heaps: RankHeaps = self._make_heaps(spec.heap_words)
        self._kernels: dict[tuple[LitmusTest, CodegenOptions], tuple[Layout, Any]] = {}
        self._task_cache: dict[Any, Any] = {}  # what TaskCommands keep between calls

    def _shared_run_id(self) -> str:
        import torch.distributed as dist

        box: list[Any] = [uuid.uuid4().hex[:12] if self.rank == 0 else None]
        dist.broadcast_object_list(box, src=0, group=self.control)
        return str(box[0])

    def _make_heaps(self, words: int) -> "RankHeaps":
        from litmus.run.ranks.heaps import ShmHeaps, SymmHeaps

        if self.spec.device_kind == "cuda":
            return SymmHeaps(self.rank, self.spec.world_size, self.group, self.device, words)
        return ShmHeaps(self.rank, self.spec.world_size, self.run_id, self.group, words)

    def describe(self) -> dict[str, Any]:
        """Heap kind and size, device of this rank."""
        return {"device": str(self.device), **self.heaps.describe()}

    def _kernel(self, test: LitmusTest, options: CodegenOptions) -> tuple[Layout, Any]:
        from litmus.codegen import generate, load_kernel

        key = (test, options)
        if key not in self._kernels:
            source = generate(test, options)
            module = load_kernel(source, interpret=self.spec.device_kind == "cpu")
            self._kernels[key] = (source.layout, module)
        return self._kernels[key]

    def _reset_own_heap(self, layout: Layout, test_rank: int | None, n: int) -> None:
        from litmus.run.buffers import init_rank_heap

        heap = self.heaps.local
        if test_rank is None:
            heap[: layout.heap_words(n)].zero_()
            return
        init_rank_heap(layout, heap, test_rank, n)

    def run(self, cmd: "RoundCommand | TaskCommand", on_launched: Callable[[], None] | None = None) -> Any:
        """Run ``cmd`` (collective): a round of a litmus test, or a task of a later stage."""
        if isinstance(cmd, TaskCommand):
            return self.run_task(cmd, on_launched)
        return self.run_round(cmd, on_launched)

    def run_round(self, cmd: RoundCommand, on_launched: Callable[[], None] | None = None) -> RoundReply | None:
        """Collective: reset, barrier, launch this rank's kernel, gather to rank 0, histogram there."""
        import torch
        import torch.distributed as dist

        from litmus.run.buffers import count_rows, make_out, perm_tensor, permutations

        test, config = cmd.test, cmd.config
        kind = self.spec.device_kind
        block, progs = round_shape(config.instances, self.spec.block, kind)
        spin_bound = config.spin_bound
        if spin_bound is None and kind == "cpu":
            spin_bound = self.spec.interpreter_spin_bound
        layout, module = self._kernel(test, codegen_options(kind, block, spin_bound))
        n = layout.n_instances(progs)
        placement = self.spec.placement
        test_rank = placement.test_rank(self.rank, layout.n_ranks)

        self.heaps.ensure(layout.heap_words(n))  # collective when it grows
        self._reset_own_heap(layout, test_rank, n)
        if config.stress.shuffle:
            perms = permutations(layout, n, round_seed(config, cmd.round_index))
        else:
            perms = [(1, 0)] * len(layout.threads)
        perm = perm_tensor(perms, self.device)
        out = make_out(layout, n, self.device)
        addresses = self.heaps.addresses()
        table = torch.tensor(
            [addresses[placement.world_rank(t)] for t in range(layout.n_ranks)], dtype=torch.int64, device=self.device
        )
        loc_stride, inst_stride = layout.strides(n)
        entry = next((k for k in layout.kernels if k.rank == test_rank), None) if test_rank is not None else None
        if kind == "cuda":
            torch.cuda.synchronize(self.device)

        dist.barrier(group=self.group)  # start barrier: every heap is reset before any launch
        start = time.perf_counter()
        if entry is not None:
            getattr(module, entry.name)[entry.grid(progs)](
                table, out, perm, n, progs, loc_stride, inst_stride, BLOCK=layout.block
            )
        if kind == "cuda":
            torch.cuda.synchronize(self.device)
        kernel_seconds = time.perf_counter() - start
        if on_launched is not None:
            on_launched()
        dist.barrier(group=self.group)  # every kernel is done: remote writes have landed in the heaps

        heap = self.heaps.local[: layout.heap_words(n)].contiguous()
        if self.rank == 0:
            outs = [torch.empty_like(out) for _ in range(self.spec.world_size)]
            heaps = [torch.empty_like(heap) for _ in range(self.spec.world_size)]
            dist.gather(out, outs, dst=0, group=self.group)
            dist.gather(heap, heaps, dst=0, group=self.group)
        else:
            dist.gather(out, None, dst=0, group=self.group)
            dist.gather(heap, None, dst=0, group=self.group)
        reply = None
        if self.rank == 0:
            world = [placement.world_rank(t) for t in range(layout.n_ranks)]
            rows = count_rows([outs[w] for w in world], [heaps[w] for w in world], layout, layout.strides(n))
            reply = RoundReply(
                rows=rows,
                instances=n,
                seconds=time.perf_counter() - start,
                extra={
                    "kernel_seconds": kernel_seconds,
                    "timeouts": sum(c for _, late, c in rows if late),
                    "block": layout.block,
                    "progs_per_role": progs,
                    "world_ranks": world,
                    "spin_bound": spin_bound,
                },
            )
        dist.barrier(group=self.group)  # nobody resets its heap before rank 0 read the heaps
        return reply

    def run_task(self, cmd: TaskCommand, on_launched: Callable[[], None] | None = None) -> Any:
        """Run ``cmd.task`` on this rank (collective; see :class:`TaskCommand`)."""
        ctx = RankContext(self.rank, self.spec.world_size, self.device, self.spec.device_kind, self.heaps,
                          self.group, self._task_cache)
        reply = cmd.task.run(ctx)
        if on_launched is not None:
            on_launched()
        return reply if self.rank == 0 else None

    def close(self) -> None:
        """Free the heaps and leave the process group."""
        import torch.distributed as dist

        self.heaps.close()
        self._kernels.clear()
        if dist.is_initialized():
            dist.destroy_process_group()
