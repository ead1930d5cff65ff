"""The ``cpu`` backend: generated kernels under the Triton interpreter, one worker process per role.

A *role* is the group of litmus threads that share a (rank, cta); codegen plays each role with
one program.  The interpreter runs the programs of one launch one after another, so a role that
spins on another role's flag in the same launch would only time out.  This backend therefore
gives every role its own worker process (``role_per_rank`` renumbers the test so that each role
is one rank of codegen's rank mode, one kernel per role), all roles of a variant run at the same
time, and they meet at a start barrier on a shared word before each round.

Workers are a persistent pool (``torch.multiprocessing``, ``spawn`` context), started once per
backend and reused for every variant; ``TRITON_INTERPRET=1`` is in their environment before they
import anything.  Heaps, outputs and permutations are shared CPU tensors (``share_memory_()``);
each worker builds its own pointer table (addresses differ per process).  The parent process never
imports triton.  Every wait has a timeout and checks the worker is alive: a worker that raises,
dies or hangs becomes a :class:`WorkerError` naming the worker and the variant, and the pool is
shut down (a later round starts a fresh one).
"""

from __future__ import annotations

import atexit
import importlib.metadata
import os
import platform
import signal
import sys
import threading
import time
import traceback
import weakref
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Iterator

from litmus.codegen import CodegenOptions, Features, build_layout, generate
from litmus.codegen.roles import role_order_count
from litmus.codegen.layout import Layout
from litmus.errors import LitmusError
from litmus.ir import LitmusTest
from litmus.run.backend import Round, Row
from litmus.run.buffers import HeapPlan, count_rows, heap_plan, init_strided
from litmus.run.config import INTERPRETER_INSTANCES, INTERPRETER_TIME_BUDGET, RunConfig, validate_stress
from litmus.run.stress import instance_count, round_permutations, round_seed
from litmus.run.warm import warm_round

_POLL_SLICE = 0.25  # seconds between liveness checks while waiting for a reply
DEFAULT_INSTANCES = INTERPRETER_INSTANCES  # instances per round unless told
DEFAULT_TIME_BUDGET = INTERPRETER_TIME_BUDGET  # seconds per variant unless told

NOTE = (
    "cpu backend: the generated kernels run under the Triton interpreter on this machine's CPU, "
    "not on a GPU. Each role (the litmus threads of one (rank, cta)) runs in its own worker "
    "process, so roles run concurrently and can wait on each other; the interpreter runs one op "
    "at a time over all instances of a role (vector lanes), in C++ loops separated by "
    "microseconds of Python. Ranks are not GPUs: every heap is shared CPU memory. The CPU is "
    "x86, which is TSO: the only reordering it can show is store buffering (a store followed by "
    "a load of another location), and the interpreter's microseconds between ops leave the store "
    "buffer drained, so in practice only sequentially consistent outcomes appear. Interpreter "
    "atomics ignore sem and scope. Use this backend to check tests and tooling, not hardware."
)


class WorkerError(LitmusError, RuntimeError):
    """A worker raised, died or did not answer in time; the message names the worker and the test.

    A :class:`LitmusError`, so the CLI prints it as one error line instead of a traceback.
    """


# --------------------------------------------------------------------------- worker side


@dataclass
class _Prepared:
    """What a worker holds for the variant it is set up for."""

    key: str
    kernel: Any
    table: Any
    heaps: list[Any]  # kept alive: the pointer table holds their addresses
    out: Any
    perm: Any
    n_instances: int
    loc_stride: int
    inst_stride: int
    block: int


def _worker_main(index: int, conn: Any, go: Any) -> None:  # pragma: no cover - runs in a child
    """Command loop of worker ``index`` (runs in the child process)."""
    os.environ["TRITON_INTERPRET"] = "1"  # already inherited; kept for a worker started another way
    prepared: _Prepared | None = None
    go_np = go.numpy()
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        op = msg[0]
        try:
            if op == "exit":
                conn.send(("bye", os.getpid()))
                return
            if op == "ping":
                import triton

                conn.send(("pong", os.getpid(), triton.__version__))
            elif op == "prepare":
                prepared = _prepare(*msg[1:])
                conn.send(("prepared", prepared.key))
            elif op == "run":
                _, key, token, barrier, timeout = msg
                if prepared is None or prepared.key != key:
                    raise RuntimeError(f"run of {key!r} before it was prepared on this worker")
                conn.send(("ready", token))
                if barrier:
                    _start_barrier(go_np, token, timeout)
                t0 = time.perf_counter()
                p = prepared
                p.kernel[(1,)](p.table, p.out, p.perm, p.n_instances, 1, p.loc_stride, p.inst_stride, BLOCK=p.block)
                conn.send(("done", time.perf_counter() - t0))
            elif op == "raise":  # fault injection for the tests of the parent's error path
                raise RuntimeError(str(msg[1]))
            else:
                raise RuntimeError(f"unknown command {op!r}")
        except BaseException as e:  # report everything; the parent decides what to do
            try:
                conn.send(("error", f"{type(e).__name__}: {e}", traceback.format_exc()))
            except (OSError, EOFError):
                return


def _start_barrier(go_np: Any, token: int, timeout: float) -> None:  # pragma: no cover - child
    """Spin until the parent publishes ``token`` in the shared ``go`` word (or time out)."""
    deadline = time.perf_counter() + timeout
    spins = 0
    while go_np[0] < token:
        spins += 1
        if spins & 0xFFF == 0 and time.perf_counter() > deadline:
            raise TimeoutError(f"start barrier: no go signal for round token {token} within {timeout:.0f} s")


def _prepare(key: str, test: Any, options: Any, rank: int, heaps: list[Any], out: Any, perm: Any,
             n_instances: int, loc_stride: int, inst_stride: int) -> _Prepared:  # pragma: no cover - child
    """Generate and load ``test``'s kernel for ``rank`` and build this process's pointer table."""
    from litmus.codegen import generate, load_kernel
    from litmus.run.buffers import pointer_table

    source = generate(test, options)
    module = load_kernel(source, interpret=True)
    entry = source.layout.kernel(rank)
    return _Prepared(key, getattr(module, entry.name), pointer_table(heaps), list(heaps), out, perm, n_instances,
                     loc_stride, inst_stride, source.layout.block)


# --------------------------------------------------------------------------- parent side


@dataclass
class Worker:
    """A worker process and the parent's end of its pipe."""

    index: int
    process: Any
    conn: Any

    @property
    def pid(self) -> int | None:
        """The worker's process id."""
        return self.process.pid


_LIVE_POOLS: "weakref.WeakSet[RoleProcessPool]" = weakref.WeakSet()


@contextmanager
def _main_hidden() -> Iterator[None]:
    """Hide ``__main__``'s file and spec while starting workers, so ``spawn`` does not re-run
    the caller's script in each worker (the workers need nothing from it, and a script without
    an ``if __name__ == "__main__":`` guard would otherwise start workers recursively)."""
    main = sys.modules.get("__main__")
    saved = {k: main.__dict__[k] for k in ("__file__", "__spec__") if main is not None and k in main.__dict__}
    try:
        if main is not None:
            main.__dict__.pop("__file__", None)
            main.__dict__["__spec__"] = None
        yield
    finally:
        if main is not None:
            main.__dict__.pop("__spec__", None)
            main.__dict__.update(saved)


@atexit.register
def _close_all_pools() -> None:
    for pool in list(_LIVE_POOLS):
        pool.close()


class RoleProcessPool:
    """Interpreter worker processes, one per role (the threads of one (rank, cta)), started with
    ``spawn`` and ``TRITON_INTERPRET=1``, grown on demand."""

    def __init__(self, start_timeout: float = 180.0) -> None:
        import torch
        import torch.multiprocessing as mp

        self.start_timeout = start_timeout
        self._ctx = mp.get_context("spawn")
        self.go = torch.zeros(1, dtype=torch.int64).share_memory_()
        self.workers: list[Worker] = []
        self.triton_version: str | None = None
        _LIVE_POOLS.add(self)

    def __len__(self) -> int:
        return len(self.workers)

    def pids(self) -> list[int | None]:
        """Process ids of the workers, in worker order."""
        return [w.pid for w in self.workers]

    def ensure(self, n: int) -> None:
        """Start workers until there are at least ``n``; wait until each answers."""
        new: list[Worker] = []
        old = os.environ.get("TRITON_INTERPRET")
        os.environ["TRITON_INTERPRET"] = "1"  # inherited by the children before they import anything
        # Workers start with SIGINT ignored (SIG_IGN survives spawn's exec, and Python then
        # leaves it ignored): a Ctrl-C at the terminal reaches the whole process group, and only
        # the parent acts on it (it closes the pool).  The parent blocks SIGINT meanwhile, so a
        # Ctrl-C that comes while workers start is kept pending and delivered when it unblocks.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN) if threading.current_thread() is threading.main_thread() else None
        try:
            with _main_hidden():
                while len(self.workers) < n:
                    parent, child = self._ctx.Pipe(duplex=True)
                    index = len(self.workers)
                    proc = self._ctx.Process(target=_worker_main, args=(index, child, self.go),
                                             name=f"litmus-cpu-worker-{index}", daemon=True)
                    proc.start()
                    child.close()
                    w = Worker(index, proc, parent)
                    self.workers.append(w)
                    new.append(w)
        finally:
            if old is None:
                os.environ.pop("TRITON_INTERPRET", None)
            else:
                os.environ["TRITON_INTERPRET"] = old
            if handler is not None:
                signal.signal(signal.SIGINT, handler)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for w in new:
            w.conn.send(("ping",))
        for w in new:
            reply = self.receive(w, self.start_timeout, "starting (importing torch and triton)", "pong")
            self.triton_version = reply[2]

    def send(self, worker: Worker, message: tuple[Any, ...], doing: str) -> None:
        """Send a command; a broken pipe becomes :class:`WorkerError`."""
        try:
            worker.conn.send(message)
        except (OSError, EOFError, BrokenPipeError) as e:
            # A closed pipe almost always means the worker is gone; say so when it is.
            worker.process.join(1.0)
            if not worker.process.is_alive():
                raise self._died(worker, doing) from None
            raise WorkerError(self._who(worker, doing) + f": cannot send a command ({e})") from None

    def receive(self, worker: Worker, timeout: float, doing: str, expect: str) -> tuple[Any, ...]:
        """The worker's next reply, which must be ``expect``; errors, death and timeouts raise."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                ready = worker.conn.poll(_POLL_SLICE)
            except (OSError, EOFError):
                ready = False
                if not worker.process.is_alive():
                    raise self._died(worker, doing) from None
            if ready:
                try:
                    reply = worker.conn.recv()
                except (EOFError, OSError):
                    worker.process.join(1.0)
                    raise self._died(worker, doing) from None
                if reply[0] == "error":
                    raise WorkerError(self._who(worker, doing) + f": {reply[1]}\n--- worker traceback ---\n"
                                      + reply[2].rstrip())
                if reply[0] != expect:
                    raise WorkerError(self._who(worker, doing) + f": unexpected reply {reply[0]!r} "
                                      f"(expected {expect!r})")
                return reply
            if not worker.process.is_alive():
                raise self._died(worker, doing)
            if time.monotonic() > deadline:
                raise WorkerError(self._who(worker, doing) + f": no answer within {timeout:.0f} s")

    def _died(self, worker: Worker, doing: str) -> WorkerError:
        """The error for a worker whose process has exited."""
        return WorkerError(self._who(worker, doing) + f": the process died (exit code {worker.process.exitcode})")

    @staticmethod
    def _who(worker: Worker, doing: str) -> str:
        return f"cpu worker {worker.index} (pid {worker.pid}) {doing}"

    def close(self, grace: float = 2.0) -> None:
        """Ask every worker to exit, then terminate (and finally kill) those still running."""
        workers, self.workers = self.workers, []
        for w in workers:
            try:
                if w.process.is_alive():
                    w.conn.send(("exit",))
            except (OSError, EOFError, BrokenPipeError):
                pass
        deadline = time.monotonic() + grace
        for w in workers:
            w.process.join(max(0.0, deadline - time.monotonic()))
        for w in workers:
            if w.process.is_alive():
                w.process.terminate()
                w.process.join(1.0)
            if w.process.is_alive():
                w.process.kill()
                w.process.join(1.0)
            try:
                w.conn.close()
            except OSError:
                pass


# --------------------------------------------------------------------------- the backend


def role_per_rank(test: LitmusTest) -> LitmusTest:
    """``test`` renumbered so that each role (threads sharing a (rank, cta)) is a rank of its own.

    Roles are numbered in order of first appearance (codegen's role order); a location moves to
    the first role of its home rank, or to a fresh rank after the roles when no thread runs on
    its home.  Thread names, locations and the condition are unchanged, so outcome keys are too.
    On the CPU every rank's heap is the same kind of shared memory, so nothing else changes.
    """
    roles: dict[tuple[int, int], int] = {}
    for t in test.threads:
        roles.setdefault((t.rank, t.cta), len(roles))
    first_role: dict[int, int] = {}
    for (rank, _cta), g in roles.items():
        first_role.setdefault(rank, g)
    extra: dict[int, int] = {}

    def home(rank: int) -> int:
        if rank in first_role:
            return first_role[rank]
        return extra.setdefault(rank, len(roles) + len(extra))

    threads = tuple(replace(t, rank=roles[(t.rank, t.cta)], cta=0) for t in test.threads)
    locations = tuple(replace(loc, home=home(loc.home)) for loc in test.locations)
    return replace(test, threads=threads, locations=locations)


def role_count(test: LitmusTest) -> int:
    """Distinct (rank, cta) pairs of ``test``'s threads: the worker processes it needs."""
    return len({(t.rank, t.cta) for t in test.threads})


# Features assumed when the parent generates source only to find unsupported constructs (the
# workers generate with the features of their own triton).
_CHECK_FEATURES = Features(atomic_load=True, atomic_store=True, inline_asm=False)


@dataclass
class _Setup:
    """The parent's side of the variant the workers are set up for."""

    key: tuple[Any, ...]
    name: str  # key sent to the workers
    test: LitmusTest  # the original test
    layout: Layout  # of role_per_rank(test)
    plan: HeapPlan
    heaps: list[Any]
    outs: list[Any]
    perm: Any
    workers: list[Worker]


class CpuBackend:
    """Runs variants under the Triton interpreter with one worker process per role.

    Options: ``workers`` processes started up front (more are started when a variant has more
    roles, up to ``max_workers``); ``spin_bound`` caps every spin when ``RunConfig.spin_bound``
    is not set (the IR default of a million reads is hours under the interpreter);
    ``start_timeout`` for a worker to start (import torch and triton); ``round_timeout`` for
    any other wait (set-up, start barrier, one launch).
    """

    name = "cpu"
    default_time_budget = DEFAULT_TIME_BUDGET

    def __init__(self, workers: int = 2, max_workers: int = 16, spin_bound: int = 256,
                 start_timeout: float = 180.0, round_timeout: float = 300.0, start: bool = False) -> None:
        if workers < 1 or max_workers < workers:
            raise LitmusError(f"cpu backend: workers={workers}, max_workers={max_workers}; "
                              "use 1 <= workers <= max_workers")
        if spin_bound < 1:
            raise LitmusError(f"cpu backend: spin_bound={spin_bound}; use a positive number of reads")
        self.workers = workers
        self.max_workers = max_workers
        self.spin_bound = spin_bound
        self.start_timeout = start_timeout
        self.round_timeout = round_timeout
        self._pool: RoleProcessPool | None = None
        self._setup: _Setup | None = None
        self._token = 0
        self._skip_cache: dict[LitmusTest, str | None] = {}
        if start:
            self.start()

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start the worker pool now (otherwise it starts at the first round)."""
        self._ensure_workers(self.workers)

    def _ensure_workers(self, n: int) -> RoleProcessPool:
        if self._pool is None:
            self._pool = RoleProcessPool(self.start_timeout)
        try:
            self._pool.ensure(max(n, self.workers))
        except WorkerError:
            self.close()
            raise
        return self._pool

    def worker_pids(self) -> list[int | None]:
        """Process ids of the running workers (empty before the pool starts)."""
        return self._pool.pids() if self._pool is not None else []

    def recover(self) -> None:
        """After a variant failed: stop the worker processes (a worker may be dead, hung or
        holding the failed variant's state); fresh ones start with the next round."""
        self.close()

    def close(self) -> None:
        """Stop every worker process and free the shared buffers."""
        if self._pool is not None:
            self._pool.close()
        self._pool = None
        self._setup = None

    def __enter__(self) -> "CpuBackend":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ Backend protocol

    def describe(self) -> dict[str, Any]:
        """Backend, device, world size, versions and the plain-words note."""
        import torch

        try:
            triton_version = importlib.metadata.version("triton")
        except importlib.metadata.PackageNotFoundError:
            triton_version = None
        return {
            "backend": self.name,
            "device": f"{platform.machine() or 'unknown'} CPU, {os.cpu_count()} cores (Triton interpreter)",
            "world_size": len(self._pool) if self._pool is not None else self.workers,
            "placement": "one worker process per (rank, cta) role",
            "default_instances": DEFAULT_INSTANCES,
            "torch": torch.__version__,
            "triton": triton_version,
            "note": NOTE,
        }

    def skip_reason(self, test: LitmusTest) -> str | None:
        """Why ``test`` cannot run here: too many roles, or a construct codegen cannot emit."""
        if test in self._skip_cache:
            return self._skip_cache[test]
        reason: str | None = None
        roles = role_count(test)
        if roles > self.max_workers:
            reason = f"{roles} (rank, cta) roles need {roles} worker processes; this cpu backend allows {self.max_workers}"
        else:
            try:
                generate(role_per_rank(test), self._options(1, self.spin_bound, _CHECK_FEATURES))
            except LitmusError as e:
                reason = f"no Triton form: {e}"
        self._skip_cache[test] = reason
        return reason

    def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        """Run ``config.instances`` (rounded up to a power of two) instances of ``test`` once."""
        warm = warm_round(self.run_round, test, config, round_index)
        if warm is not None:
            return warm
        start = time.perf_counter()
        try:
            setup = self._prepare(test, config)
            kernel_seconds, perms = self._launch(setup, config, round_index)
            rows = self._count(setup)
        except WorkerError as e:
            self.close()
            raise WorkerError(f"{test.id} ({test.source_file or 'built in code'}), round {round_index}: {e}") from None
        return Round(rows=rows, instances=setup.plan.n_instances, seconds=time.perf_counter() - start,
                     extra={"kernel_seconds": kernel_seconds, "seed": round_seed(config, round_index),
                            "perms": perms, "workers": len(setup.workers)})

    # ------------------------------------------------------------------ internals

    def _options(self, block: int, spin_bound: int, features: Features | None = None) -> CodegenOptions:
        return CodegenOptions(backend="interpreter", mode="rank", block=block, addressing="loc_major",
                              spin_bound=spin_bound, features=features, quiesce=True, quick_hangs=True)

    def _prepare(self, test: LitmusTest, config: RunConfig) -> _Setup:
        """Set the workers up for ``test`` (kernels loaded, shared buffers handed out), once per variant."""
        import torch

        validate_stress(config.stress)
        n = instance_count(config.instances)
        spin_bound = config.spin_bound if config.spin_bound is not None else self.spin_bound
        key = (test, n, config.stress.stride, spin_bound)
        if self._setup is not None and self._setup.key == key:
            return self._setup
        self._setup = None
        roles = role_count(test)
        if roles > self.max_workers:
            raise LitmusError(f"{test.id}: {roles} roles; the cpu backend allows {self.max_workers} worker processes")
        pool = self._ensure_workers(roles)
        derived = role_per_rank(test)
        options = self._options(n, spin_bound)
        # one program plays every instance (a spin on another program's flag would hang the
        # interpreter); a kernel that takes turns at op orders, one per iteration, gets enough
        # iterations (a power of two, as BLOCK is) to play each
        turns = role_order_count(derived, options)
        if turns > 1:
            options = self._options(max(n >> (turns - 1).bit_length(), 1), spin_bound)
        layout = build_layout(derived, options)
        plan = heap_plan(layout, n, config.stress.stride)
        heaps = [torch.zeros(plan.words, dtype=torch.int32).share_memory_() for _ in range(layout.n_ranks)]
        outs = [torch.zeros((n, layout.n_cols), dtype=torch.int32).share_memory_() for _ in range(roles)]
        perm = torch.zeros((len(layout.threads), 2), dtype=torch.int64).share_memory_()
        self._token += 1
        name = f"setup-{self._token}"
        workers = pool.workers[:roles]
        for g, w in enumerate(workers):
            pool.send(w, ("prepare", name, derived, options, g, heaps, outs[g], perm, n,
                          plan.loc_stride, plan.inst_stride), f"setting up {test.id}")
        for w in workers:
            pool.receive(w, self.round_timeout, f"setting up {test.id} (generating and loading its kernel)", "prepared")
        self._setup = _Setup(key, name, test, layout, plan, heaps, outs, perm, workers)
        return self._setup

    def _launch(self, setup: _Setup, config: RunConfig, round_index: int) -> tuple[float, list[tuple[int, int]]]:
        """Reset the buffers, release every role at once, wait for all; the slowest launch's seconds."""
        import torch

        assert self._pool is not None
        pool, layout, n = self._pool, setup.layout, setup.plan.n_instances
        init_strided(layout, setup.heaps, setup.plan)
        for o in setup.outs:
            o.zero_()
        perms = round_permutations(layout, n, config, round_index)
        setup.perm.copy_(torch.tensor(perms, dtype=torch.int64).reshape(-1, 2))
        self._token += 1
        token = self._token
        barrier = bool(config.stress.barrier)
        what = f"running {setup.test.id}"
        for w in setup.workers:
            pool.send(w, ("run", setup.name, token, barrier, self.round_timeout), what)
        for w in setup.workers:
            pool.receive(w, self.round_timeout, what + " (waiting at the start barrier)", "ready")
        pool.go[0] = token
        seconds = 0.0
        for w in setup.workers:
            seconds = max(seconds, float(pool.receive(w, self.round_timeout, what, "done")[1]))
        return seconds, perms

    def _count(self, setup: _Setup) -> list[Row]:
        """Histogram rows of the last round: (state, timed out, count)."""
        plan = setup.plan
        return count_rows(setup.outs, setup.heaps, setup.layout, (plan.loc_stride, plan.inst_stride))
