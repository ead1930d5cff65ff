"""Entry point of a spawned rank process: join the world, then serve round commands over a pipe.

Messages to the parent are ``(kind, rank, payload)`` tuples: ``ready`` (payload: describe dict),
``started`` (a round or task command arrived), ``launched`` (this rank's kernel finished), ``done``
(payload: RoundReply, a task's reply or None), ``error``
(payload: traceback text; the process exits right after), ``closed``.
"""

from __future__ import annotations

import os
import threading
import time
import traceback
from multiprocessing.connection import Connection
from typing import Mapping

from litmus.run.ranks.session import RoundCommand, SessionSpec, TaskCommand

CLOSE = "close"


def _watch_parent(parent: int, period_s: float = 0.5) -> None:
    """Exit this process as soon as the parent is gone (no orphan ranks, even after a SIGKILL)."""

    def loop() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(3)
            time.sleep(period_s)

    threading.Thread(target=loop, name="litmus-parent-watch", daemon=True).start()


def worker_main(spec: SessionSpec, conn: Connection, env: Mapping[str, str], parent: int) -> None:
    """Run rank ``spec.rank`` until the parent says ``close`` (or goes away)."""
    os.environ.update(env)  # before torch/triton are imported here (TRITON_INTERPRET, multicast off)
    _watch_parent(parent)
    rank = spec.rank
    try:
        from litmus.run.ranks.session import RankSession

        session = RankSession(spec)
        conn.send(("ready", rank, session.describe()))
    except BaseException:  # noqa: BLE001 - reported to the parent, which names this rank
        conn.send(("error", rank, traceback.format_exc()))
        os._exit(1)
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            os._exit(2)  # the parent closed the pipe
        if msg == CLOSE:
            break
        assert isinstance(msg, (RoundCommand, TaskCommand))
        try:
            conn.send(("started", rank, None))
            reply = session.run(msg, on_launched=lambda: conn.send(("launched", rank, None)))
            conn.send(("done", rank, reply))
        except BaseException:  # noqa: BLE001 - the world is broken after a failed collective
            try:
                conn.send(("error", rank, traceback.format_exc()))
            finally:
                os._exit(1)
    try:
        session.close()
    finally:
        conn.send(("closed", rank, None))
