"""The spawned rank processes of the ``ranks`` backend, watched from the driving process.

One process per world rank (torch.multiprocessing spawn context), started once and kept for
the backend's lifetime. A rank that raises, dies, or does not answer in time stops every rank
and raises :class:`RankFailure` naming the rank and the variant.
"""

from __future__ import annotations

import atexit
import os
import signal
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any, Mapping, Sequence

from litmus.errors import LitmusError
from litmus.run.ranks.env import patched_environ
from litmus.run.ranks.heaps import remove_leftover_files
from litmus.run.ranks.session import RoundCommand, RoundReply, SessionSpec

GRACE_S = 1.0  # after the first failure, how long to wait for the other ranks' reports


class RankFailure(LitmusError):
    """A rank process failed: raised, died, or hung. The message names the rank and the variant."""


@dataclass
class _Event:
    rank: int
    kind: str  # "error", "died", "timeout"
    text: str


@dataclass
class _Collect:
    pending: set[int]
    started: set[int] = field(default_factory=set)
    launched: set[int] = field(default_factory=set)
    replies: dict[int, Any] = field(default_factory=dict)
    failures: list[_Event] = field(default_factory=list)


def _exit_words(code: int | None) -> str:
    if code is None:
        return "is still running"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with status {code}"


def _last_line(text: str) -> str:
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1].strip() if lines else text.strip()


class RankProcessPool:
    """``len(specs)`` spawned rank processes and their command pipes."""

    def __init__(self, specs: Sequence[SessionSpec], env: Mapping[str, str], start_timeout_s: float, run_id: str) -> None:
        import torch.multiprocessing as tmp

        from litmus.run.ranks.worker import worker_main

        self.run_id = run_id
        self.timeout_s = specs[0].timeout_s
        self.closed = False
        ctx = tmp.get_context("spawn")
        self.procs: list[Any] = []
        self.conns: list[Connection] = []
        atexit.register(self.kill)
        with patched_environ(env):  # the children start with these variables already set
            for spec in specs:
                parent_end, child_end = ctx.Pipe()
                proc = ctx.Process(
                    target=worker_main,
                    args=(spec, child_end, dict(env), os.getpid()),
                    name=f"litmus-rank{spec.rank}",
                    daemon=True,
                )
                proc.start()
                child_end.close()
                self.procs.append(proc)
                self.conns.append(parent_end)
        got = self._collect(set(range(len(specs))), start_timeout_s, "starting", "ready")
        self.info: dict[int, Any] = got.replies

    @property
    def pids(self) -> list[int]:
        """The process id of each rank."""
        return [int(p.pid) for p in self.procs]

    def round(self, cmd: RoundCommand) -> RoundReply:
        """Run one round on every rank; world rank 0's reply."""
        what = f"{cmd.test.id} round {cmd.round_index}"
        if cmd.test.source_file:
            what += f" ({cmd.test.source_file})"
        reply = self.command(cmd, what)
        assert isinstance(reply, RoundReply)
        return reply

    def command(self, cmd: Any, what: str) -> Any:
        """Send ``cmd`` (a round or task command) to every rank; world rank 0's reply.  ``what``
        names it in the error when a rank fails or is late."""
        for r, conn in enumerate(self.conns):
            try:
                conn.send(cmd)
            except (BrokenPipeError, OSError):
                pass  # a dead rank: its sentinel reports it below
        got = self._collect(set(range(len(self.conns))), self.timeout_s, what, "done")
        return got.replies[0]

    def _collect(self, ranks: set[int], timeout_s: float, what: str, want: str) -> _Collect:
        state = _Collect(pending=set(ranks))
        deadline = time.monotonic() + timeout_s
        fail_deadline: float | None = None
        sentinels = {p.sentinel: r for r, p in enumerate(self.procs)}
        ended: set[int] = set()
        while state.pending:
            now = time.monotonic()
            limit = deadline if fail_deadline is None else min(deadline, fail_deadline)
            if now >= limit:
                break
            conns = {self.conns[r]: r for r in state.pending - ended}
            ready = wait(list(conns) + list(sentinels), timeout=limit - now)
            for obj in ready:
                if obj in conns and not self._receive(conns[obj], state, want):
                    ended.add(conns[obj])  # pipe closed: wait for the process sentinel only
            for obj in ready:
                if obj in sentinels:
                    r = sentinels.pop(obj)
                    self._drain(r, state, want)
                    if r in state.pending:  # gone without a reply or an error report
                        self.procs[r].join(0.5)
                        state.failures.append(_Event(r, "died", _exit_words(self.procs[r].exitcode)))
                        state.pending.discard(r)
            if state.failures and fail_deadline is None:
                fail_deadline = time.monotonic() + GRACE_S
        if state.failures:
            self._fail(state, what)
        if state.pending:
            self._fail_text(self._late_text(state, timeout_s, what, want))
        return state

    @staticmethod
    def _late_text(state: _Collect, timeout_s: float, what: str, want: str) -> str:
        """Name the ranks stuck at the earliest stage: they hold the others up."""
        if want != "done":
            stuck, stage = state.pending, "start"
        elif state.pending - state.started:
            stuck, stage = state.pending - state.started, "take up the round"
        elif state.pending - state.launched:
            stuck, stage = state.pending - state.launched, "finish its kernel (a spin past its bound or a hung launch)"
        else:
            stuck, stage = state.pending, "finish gathering the results"
        names = ", ".join(str(r) for r in sorted(stuck))
        return (
            f"rank {names} did not {stage} within {timeout_s:g} s while {what}; the process may be stopped "
            "or hung (raise timeout_s if rounds are legitimately this slow)"
        )

    def _receive(self, r: int, state: _Collect, want: str) -> bool:
        """Read one message of rank ``r``; False at the end of its pipe (the sentinel tells why)."""
        try:
            kind, rank, payload = self.conns[r].recv()
        except (EOFError, OSError):
            return False
        if kind == "started":
            state.started.add(rank)
        elif kind == "launched":
            state.launched.add(rank)
        elif kind == "error":
            state.failures.append(_Event(rank, "error", str(payload)))
            state.pending.discard(rank)
        elif kind == want:
            state.replies[rank] = payload
            state.pending.discard(rank)
        return True

    def _drain(self, r: int, state: _Collect, want: str) -> None:
        conn = self.conns[r]
        try:
            while conn.poll(0) and self._receive(r, state, want):
                pass
        except (EOFError, OSError):
            pass

    def _fail(self, state: _Collect, what: str) -> None:
        # A rank that died without a word is the cause; ranks that then saw a broken collective
        # only report its consequence.
        silent = [e for e in state.failures if e.kind == "died"]
        first = silent[0] if silent else state.failures[0]
        if first.kind == "died":
            head = f"rank {first.rank} {first.text} while {what}"
        else:
            head = f"rank {first.rank} raised while {what}: {_last_line(first.text)}"
        others = [e for e in state.failures if e is not first]
        detail = "".join(
            f"\n  rank {e.rank}: {e.text if e.kind == 'died' else _last_line(e.text)}" for e in others
        )
        tb = f"\n--- traceback of rank {first.rank} ---\n{first.text.rstrip()}" if first.kind == "error" else ""
        self._fail_text(head + detail + tb)

    def _fail_text(self, text: str) -> None:
        self.kill()
        raise RankFailure(
            f"ranks backend: {text}\nEvery rank process was stopped; variants finished before this one "
            "are in the results file (rerun with --resume to continue after them)."
        )

    def close(self, timeout_s: float = 10.0) -> None:
        """Ask every rank to leave the world, then make sure none is left running."""
        if self.closed:
            return
        for conn in self.conns:
            try:
                conn.send("close")
            except (BrokenPipeError, OSError):
                pass
        deadline = time.monotonic() + timeout_s
        for p in self.procs:
            p.join(max(0.0, deadline - time.monotonic()))
        self.kill()

    def kill(self) -> None:
        """Stop every rank process now (terminate, then kill), join them, remove heap files."""
        if self.closed:
            return
        self.closed = True
        for p in self.procs:
            if p.is_alive():
                p.terminate()
        deadline = time.monotonic() + 3.0
        for p in self.procs:
            p.join(max(0.0, deadline - time.monotonic()))
        for p in self.procs:
            if p.is_alive():
                p.kill()
                p.join(5.0)
        for conn in self.conns:
            conn.close()
        remove_leftover_files(self.run_id)
        try:
            atexit.unregister(self.kill)
        except Exception:  # noqa: BLE001 - interpreter shutting down
            pass
