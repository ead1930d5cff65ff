"""A stand-in ``cuda`` backend for plugin tests on a machine without a GPU.

:func:`fake_gpu_conftest` is the text of a throw-away project's ``conftest.py`` that registers,
for that session only, a backend called ``cuda`` which runs nothing and returns canned outcome
rows, round after round.  The plugin cannot tell it from a GPU (its device name has no
"Triton interpreter"), so the rules for compiled runs apply: declared miscompiles, the GPU run
length, the per-GPU lock.  The conftest restores the real ``cuda`` entry when its session ends,
so in-process pytester runs leave the registry as they found it.
"""

from __future__ import annotations

import json
from typing import Any

# MP-reread (catalog/mp_reread.yaml): P1 reads x, acquires flag, reads x again
MP_REREAD_SC = {"P1:r0": 1, "P1:r1": 1, "P1:r2": 1, "flag": 1, "x": 1}
MP_REREAD_MERGED = {"P1:r0": 1, "P1:r1": 0, "P1:r2": 0, "flag": 1, "x": 1}  # the merged load's stale reread
MP_REREAD_OTHER = {"P1:r0": 1, "P1:r1": 1, "P1:r2": 0, "flag": 1, "x": 1}  # forbidden, and no merge explains it
REREAD_ID = "catalog/mp_reread.yaml::MP-reread[plain-ldacq-plain]"

CONFTEST = '''
import json

import pytest

from litmus.run.backend import Round
from litmus.run import registry

ROUNDS = json.loads({rounds!r})


class FakeGpu:
    """Returns ROUNDS[k] (the last one again after the end) as round k's rows."""

    name = "cuda"

    def __init__(self, **opts):
        self.opts = opts

    def describe(self):
        return {{"backend": "cuda", "device": "Fake GPU", "arch": "sm_90", "world_size": 1,
                 "default_instances": 4096, "torch": "0", "triton": "0"}}

    def skip_reason(self, test):
        return None

    def run_round(self, test, config, round_index):
        rows = [(dict(state), status, count) for state, status, count in ROUNDS[min(round_index, len(ROUNDS) - 1)]]
        return Round(rows=rows, instances=sum(n for _, _, n in rows), seconds=0.001)

    def close(self):
        pass


_SAVED = []


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    _SAVED.append(registry._REGISTRY.get("cuda"))
    registry.register(registry.BackendEntry("cuda", FakeGpu, lambda: None, "canned rows (tests)"))


def pytest_unconfigure(config):
    saved = _SAVED.pop()
    if saved is not None:
        registry.register(saved)
'''


def fake_gpu_conftest(*rounds: list[tuple[dict[str, int], int, int]]) -> str:
    """The conftest text of a project whose ``cuda`` backend returns ``rounds[k]`` in round k:
    rows of (final state, status (0 completed, 1 timed out), count)."""
    data: list[Any] = [[[state, status, count] for state, status, count in rows] for rows in rounds]
    return CONFTEST.format(rounds=json.dumps(data))
