"""Process environment of the ``ranks`` backend: launcher detection, child variables, free ports.

No torch import here: the spawned children must get their variables before torch or triton load.
"""

from __future__ import annotations

import os
import socket
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Mapping

# NVLink SHARP / multicast stays off everywhere: litmus uses no multimem op, and multicast
# objects need fabric support that the lent machines do not configure.
MULTICAST_OFF: dict[str, str] = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
}


@dataclass(frozen=True)
class TorchrunRank:
    """Where the current process sits when ``torchrun`` started it."""

    rank: int
    world_size: int
    local_rank: int


def torchrun_rank(environ: Mapping[str, str] | None = None) -> TorchrunRank | None:
    """This process's place under ``torchrun`` (env ``LOCAL_RANK`` / ``TORCHELASTIC_RUN_ID``), or None."""
    env = os.environ if environ is None else environ
    if "LOCAL_RANK" not in env and "TORCHELASTIC_RUN_ID" not in env:
        return None
    local = int(env.get("LOCAL_RANK", env.get("RANK", "0")))
    return TorchrunRank(
        rank=int(env.get("RANK", str(local))),
        world_size=int(env.get("WORLD_SIZE", "1")),
        local_rank=local,
    )


def child_environment(device_kind: str) -> dict[str, str]:
    """Variables every rank process needs: multicast off, and the interpreter on the CPU."""
    env = dict(MULTICAST_OFF)
    if device_kind == "cpu":
        env["TRITON_INTERPRET"] = "1"  # read by triton at import and at @triton.jit decoration
    return env


@contextmanager
def patched_environ(values: Mapping[str, str]) -> Iterator[None]:
    """Set ``values`` in ``os.environ`` for the duration (spawned children copy it at start)."""
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now (for ``tcp://127.0.0.1:<port>`` rendezvous)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])
