"""The ``ranks`` backend: one process per rank (GPU), heaps in symmetric memory.

Two ways to get the processes:

- **spawned** (default): the backend starts ``world_size`` worker processes itself
  (torch.multiprocessing, spawn context) on first use and keeps them until :meth:`close`; the
  calling process drives and watches them.
- **torchrun**: when ``LOCAL_RANK`` / ``TORCHELASTIC_RUN_ID`` are set, the current process is
  one rank. Rank 0 returns from the constructor and drives (it runs the driver and writes the
  results); every other rank serves rank 0's commands inside the constructor and then exits
  the process with status 0 (``SystemExit``).

Per round, every rank resets its own heap, meets the others at a host barrier
(``dist.barrier``), launches the rank-mode kernel of the test rank it plays, and sends its
``out`` part and its heap to rank 0 (``dist.gather``), which merges them and counts outcomes.
See docs/multi-gpu.md.
"""

from __future__ import annotations

import importlib.metadata
import os
import uuid
from typing import Any, Sequence

from litmus.errors import LitmusError
from litmus.ir import LitmusTest, Rmw, Spin, Store
from litmus.run.backend import Round
from litmus.run.config import INTERPRETER_INSTANCES, INTERPRETER_TIME_BUDGET, RunConfig
from litmus.run.ranks.env import MULTICAST_OFF, TorchrunRank, child_environment, free_port, torchrun_rank
from litmus.run.ranks.placement import Placement
from litmus.run.ranks.pool import RankFailure, RankProcessPool
from litmus.run.ranks.session import RoundCommand, SessionSpec, TaskCommand
from litmus.run.warm import warm_round

__all__ = ["RankFailure", "RanksBackend"]

CPU_NOTE = (
    "CPU: every rank is a process running the Triton interpreter over shared-memory heaps, so "
    "threads on different ranks really run at the same time. Threads on the same rank but in "
    "different CTAs are programs of one launch, which the interpreter runs one after another: a "
    "spin of one waiting for the other times out. The host CPU is x86/ARM, not a GPU: outcomes "
    "say nothing about GPU hardware."
)
GPU_NOTE = (
    "GPU: one process per GPU, heaps in PyTorch symmetric memory (NVLink peer mappings), "
    "multicast off. The start barrier is host-side (dist.barrier), so launches on different "
    "GPUs start up to a few microseconds apart. gpu-scope atomics between GPUs are not "
    "morally strong: the model, not the backend, accounts for that."
)


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _resolve_device(device: str) -> str:
    if device not in ("auto", "cpu", "cuda"):
        raise LitmusError(f"ranks backend: device={device!r}; use auto, cpu or cuda")
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise LitmusError("ranks backend: device='cuda' but torch sees no CUDA device; use device='cpu'")
    return device


def _default_world_size(kind: str, ranks: Sequence[int] | None) -> int:
    if kind == "cuda":
        import torch

        return torch.cuda.device_count()
    return max(2, max(ranks, default=-1) + 1 if ranks is not None else 2)


def waits_within_a_rank(test: LitmusTest) -> str | None:
    """Why ranks on the CPU cannot run ``test`` to an end, or None: a spin waits for a write by
    another CTA of its own rank.  A rank runs its CTAs as the programs of one launch, and the
    Triton interpreter runs those one after another, so such a spin only ever times out (the
    cpu backend gives every CTA its own process)."""
    writers: dict[str, set[tuple[int, int]]] = {}
    for t in test.threads:
        for i in t.instrs:
            if isinstance(i, (Store, Rmw)) or (isinstance(i, Spin) and i.read.kind == "cas" and i.read.reset is not None):
                writers.setdefault(i.loc, set()).add((t.rank, t.cta))
    for t in test.threads:
        for i in t.instrs:
            if isinstance(i, Spin):
                others = {cta for rank, cta in writers.get(i.loc, set()) if rank == t.rank and cta != t.cta}
                if others:
                    return (f"{t.name}'s spin on {i.loc} waits for CTA {min(others)} of its own rank {t.rank}; ranks on "
                            "the CPU run a rank's CTAs one after another (the Triton interpreter), so it could only "
                            "time out: run it with --backend cpu, which gives every CTA its own process")
    return None


class RanksBackend:
    """Runs each test rank in its own process (GPU), on ``world_size`` ranks.

    ``ranks``: world rank of each test rank (test rank i runs on ``ranks[i]``); identity when
    None. ``device``: ``auto`` (cuda when available), ``cpu`` (gloo + Triton interpreter) or
    ``cuda`` (nccl + symmetric memory). ``timeout_s``: a round that takes longer stops the run.
    ``block``: instances per program (default: 128 on GPUs, the whole round on the CPU).
    ``interpreter_spin_bound``: spin bound on the CPU unless the RunConfig sets one.
    """

    name = "ranks"

    def __init__(
        self,
        world_size: int | None = None,
        ranks: Sequence[int] | None = None,
        device: str = "auto",
        timeout_s: float = 30.0,
        block: int | None = None,
        interpreter_spin_bound: int = 256,
        start_timeout_s: float = 180.0,
    ) -> None:
        self.kind = _resolve_device(device)
        self.timeout_s = float(timeout_s)
        self.block = block
        self.interpreter_spin_bound = interpreter_spin_bound
        self.start_timeout_s = start_timeout_s
        self._launch: TorchrunRank | None = torchrun_rank()
        if self._launch is not None:
            if world_size is not None and world_size != self._launch.world_size:
                raise LitmusError(
                    f"ranks backend: world_size={world_size} but torchrun started "
                    f"{self._launch.world_size} processes; drop world_size or match --nproc-per-node"
                )
            world_size = self._launch.world_size
        elif world_size is None:
            world_size = _default_world_size(self.kind, ranks)
        if self.kind == "cuda" and self._launch is None:
            import torch

            if world_size > torch.cuda.device_count():
                raise LitmusError(
                    f"ranks backend: world_size={world_size} but only {torch.cuda.device_count()} "
                    "CUDA device(s) are visible; one rank per GPU"
                )
        self.placement = Placement.build(world_size, ranks)
        self.world_size = world_size
        self._pool: RankProcessPool | None = None
        self._session: Any = None  # RankSession of this process under torchrun
        self._failure: str | None = None
        if self._launch is not None:
            self._join_torchrun(self._launch)

    # ------------------------------------------------------------------ protocol

    @property
    def default_time_budget(self) -> float | None:
        """On the CPU, the cpu backend's budget per variant (interpreted spins cost a hundred times a
        straight line); on GPUs none (rounds are cheap: the iterations decide)."""
        return INTERPRETER_TIME_BUDGET if self.kind == "cpu" else None

    def describe(self) -> dict[str, Any]:
        """Backend, device, world size and placement, torch/triton versions, and a note."""
        if self.kind == "cuda":
            import torch

            device = torch.cuda.get_device_name(0)
        else:
            device = "cpu (Triton interpreter)"
        return {
            "backend": self.name,
            "device": device,
            "world_size": self.world_size,
            "ranks": list(self.placement.world_ranks) if self.placement.world_ranks is not None else None,
            "launcher": "torchrun" if self._launch is not None else "spawn",
            "start_barrier": "host",
            "heaps": "symm_mem" if self.kind == "cuda" else "shared-memory",
            **({"default_instances": INTERPRETER_INSTANCES} if self.kind == "cpu" else {}),
            "torch": _version("torch"),
            "triton": _version("triton"),
            "note": CPU_NOTE if self.kind == "cpu" else GPU_NOTE,
        }

    def skip_reason(self, test: LitmusTest) -> str | None:
        """``needs N ranks, world has M`` when the test does not fit the world, ``no Triton form:
        ...`` when codegen refuses one of its constructs (located), else None."""
        reason = self.placement.skip_reason(test)
        if reason is None and self.kind == "cpu":
            reason = waits_within_a_rank(test)
        if reason is not None:
            return reason
        cache: dict[LitmusTest, str | None] = self.__dict__.setdefault("_codegen_skips", {})
        if test not in cache:
            from litmus.codegen import generate
            from litmus.run.ranks.session import codegen_options

            try:
                generate(test, codegen_options(self.kind, 1, None))
                cache[test] = None
            except LitmusError as e:
                cache[test] = f"no Triton form: {e}"
        return cache[test]

    def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        """One launch on every rank; outcomes of ``config.instances`` (rounded) instances."""
        warm = warm_round(self.run_round, test, config, round_index)
        if warm is not None:
            return warm
        if self._failure is not None:
            raise RankFailure(f"ranks backend: stopped after an earlier failure: {self._failure}")
        reason = self.skip_reason(test)
        if reason is not None:
            raise LitmusError(f"ranks backend cannot run {test.id}: {reason}")
        cmd = RoundCommand(test, config, round_index)
        try:
            if self._launch is not None:
                reply = self._torchrun_round(cmd)
            else:
                reply = self._ensure_pool().round(cmd)
        except RankFailure as e:
            self._failure = str(e).splitlines()[0]
            self._pool = None
            raise
        assert reply is not None
        return Round(rows=reply.rows, instances=reply.instances, seconds=reply.seconds, extra=reply.extra)

    def run_task(self, task: Any, what: str) -> Any:
        """Run ``task.run(context)`` on every rank (:class:`TaskCommand`: how a later stage launches
        kernels of its own on the heaps); world rank 0's reply.  ``what`` names it in errors."""
        if self._failure is not None:
            raise RankFailure(f"ranks backend: stopped after an earlier failure: {self._failure}")
        cmd = TaskCommand(task, what)
        try:
            if self._launch is not None:
                reply = self._torchrun_command(cmd, what)
            else:
                reply = self._ensure_pool().command(cmd, what)
        except RankFailure as e:
            self._failure = str(e).splitlines()[0]
            self._pool = None
            raise
        assert reply is not None
        return reply

    def recover(self) -> None:
        """After a variant failed: spawned ranks restart with the next round (a fresh process
        group); ranks launched by torchrun cannot, so the run is lost
        (:class:`litmus.session.BackendLost`, raised by the session from this error)."""
        if self._launch is not None or self._session is not None:
            if self._failure is not None:
                raise RankFailure(f"ranks launched by torchrun cannot restart after: {self._failure}")
            return
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.close()
        self._failure = None

    def close(self) -> None:
        """Stop every rank process (spawned) or release the followers (torchrun)."""
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.close()
        if self._session is not None:
            import torch.distributed as dist

            session, self._session = self._session, None
            try:
                dist.broadcast_object_list([None], src=0, group=session.control)
            finally:
                session.close()

    def __enter__(self) -> "RanksBackend":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ spawned

    @property
    def worker_pids(self) -> list[int]:
        """Process ids of the spawned ranks (empty before the first round and under torchrun)."""
        return self._pool.pids if self._pool is not None else []

    def start(self) -> None:
        """Start the rank processes now instead of at the first round."""
        if self._launch is None:
            self._ensure_pool()

    def _spec(self, rank: int, init_method: str | None, run_id: str, device_index: int | None,
              pg_timeout_s: float | None = None) -> SessionSpec:
        return SessionSpec(
            rank=rank,
            world_size=self.world_size,
            device_kind=self.kind,
            device_index=device_index,
            init_method=init_method,
            run_id=run_id,
            placement=self.placement,
            timeout_s=self.timeout_s,
            block=self.block,
            interpreter_spin_bound=self.interpreter_spin_bound,
            pg_timeout_s=pg_timeout_s,
        )

    def _ensure_pool(self) -> RankProcessPool:
        if self._pool is None:
            run_id = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
            init = f"tcp://127.0.0.1:{free_port()}"
            specs = [
                self._spec(r, init, run_id, r if self.kind == "cuda" else None) for r in range(self.world_size)
            ]
            try:
                self._pool = RankProcessPool(specs, child_environment(self.kind), self.start_timeout_s, run_id)
            except RankFailure as e:
                self._failure = str(e).splitlines()[0]
                raise
        return self._pool

    # ------------------------------------------------------------------ torchrun

    def _join_torchrun(self, launch: TorchrunRank) -> None:
        from litmus.run.ranks.session import RankSession

        os.environ.update(child_environment(self.kind))
        os.environ.update(MULTICAST_OFF)
        spec = self._spec(launch.rank, None, "", launch.local_rank if self.kind == "cuda" else None,
                          pg_timeout_s=self.timeout_s)
        self._session = RankSession(spec)
        if launch.rank != 0:
            self._follow()

    def _follow(self) -> None:
        """Serve rank 0's commands until it closes the backend, then leave the process."""
        import torch.distributed as dist

        session = self._session
        while True:
            box: list[Any] = [None]
            dist.broadcast_object_list(box, src=0, group=session.control)
            if box[0] is None:
                break
            session.run(box[0])
        self._session = None
        session.close()
        raise SystemExit(0)

    def _torchrun_round(self, cmd: RoundCommand) -> Any:
        return self._torchrun_command(cmd, f"{cmd.test.id} round {cmd.round_index}")

    def _torchrun_command(self, cmd: "RoundCommand | TaskCommand", what: str) -> Any:
        import torch.distributed as dist

        session = self._session
        try:
            dist.broadcast_object_list([cmd], src=0, group=session.control)
            return session.run(cmd)
        except Exception as e:  # noqa: BLE001 - a collective failed: some other rank is gone or stuck
            raise RankFailure(
                f"ranks backend (torchrun): a collective failed on rank 0 while {what}: "
                f"{str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__}; another rank "
                "raised, died or hung (see its output above); torchrun stops the other ranks"
            ) from None
