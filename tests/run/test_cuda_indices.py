"""Every buffer index of the cuda backend's rounds stays inside its buffer, on the CPU.

A GPU run once died with "an illegal memory access" on a three-thread pattern, and that fault
poisons the whole process.  Here the run kernels the cuda backend launches (grid and parallel
mode, with the run harness and, for ``may_hang`` patterns, the quiescence harness), the outcome
counter and the memory-stress kernel run under the Triton interpreter, built by the backend's own
shape, buffer and header functions, with every element address checked
(:mod:`tests.run.bounds`): 1 to 8 threads, every op kind and access width, threads sharing a
CTA, each in its own CTA, and spread over two ranks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.codegen.parallel_cases import run_interpreted

pytest.importorskip("triton")

DATA = Path(__file__).parent / "data"

PLACEMENTS = ("one-cta", "own-cta", "two-ranks")


def _at(t: int, placement: str) -> dict[str, int]:
    if placement == "one-cta":
        return {"rank": 0, "cta": 0}
    if placement == "own-cta":
        return {"rank": 0, "cta": t}
    return {"rank": t % 2, "cta": t // 2}


def every_op_pattern(n_threads: int, placement: str, may_hang: bool) -> str:
    """YAML of a pattern of ``n_threads`` threads in which every thread runs every op kind on
    locations of every width; the last thread waits for the others' release adds on a counter
    (``>=``); the first spins ``!=`` on its own store, and with ``may_hang`` with a CAS read on a
    value that never comes."""
    locations = {"d": {"init": 0, "home": 0}, "c": {"init": 0, "home": 1 % 2},
                 "w": {"init": 0, "home": 1, "bits": 64}, "h": {"init": 0, "home": 0, "bits": 16},
                 "b": {"init": 0, "home": 1, "bits": 8}}
    threads: dict[str, Any] = {}
    for t in range(n_threads):
        r = [f"r{t}_{k}" for k in range(8)]
        ops: list[dict[str, Any]] = [
            {"store": {"loc": "d", "value": t + 1}},
            {"volatile_store": {"loc": "b", "value": t + 1}},
            {"atomic_store": {"loc": "w", "value": (1 << 40) + t, "sem": "release", "scope": "sys"}},
            {"cas": {"loc": "h", "expected": 0, "value": t + 1, "sem": "acq_rel", "scope": "gpu", "reg": r[0]}},
            {"exch": {"loc": "d", "value": t + 2, "sem": "relaxed", "scope": "cta"}},
            {"fence": {"sem": "sc", "scope": "sys"}},
            {"bar.sync": None},
            {"load": {"reg": r[1], "loc": "w"}},
            {"volatile_load": {"reg": r[2], "loc": "b"}},
            {"atomic_load": {"reg": r[3], "loc": "d", "sem": "acquire", "scope": "gpu"}},
            {"add": {"loc": "w", "value": 1, "sem": "relaxed", "scope": "sys", "reg": r[4]}},
        ]
        last = t == n_threads - 1
        if not last:
            ops.append({"add": {"loc": "c", "value": 1, "sem": "release", "scope": "gpu"}})
        elif n_threads > 1:
            ops.append({"spin": {"loc": "c", "until": n_threads - 1, "cmp": ">=", "reg": r[5], "bound": 50,
                                 "read": {"kind": "load", "sem": "acquire", "scope": "gpu"}}})
        if t == 0:  # its own store is there: exits at once
            ops.append({"spin": {"loc": "d", "until": 0, "cmp": "!=", "bound": 50,
                                 "read": {"kind": "load", "volatile": True}}})
        if may_hang and t == 0:  # nobody writes 7
            ops.append({"spin": {"loc": "h", "until": 7, "bound": 50,
                                 "read": {"kind": "cas", "reset": 0, "sem": "acquire", "scope": "sys"}}})
        threads[f"P{t}"] = {"at": _at(t, placement), "do": ops}
    doc = {"name": f"EVERY-OP-{n_threads}", "locations": locations, "threads": threads,
           "exists": "P0:r0_1 == 0", "expect": "allowed", "may_hang": may_hang,
           "why": "a shape for the address check, not a verdict"}
    return yaml.safe_dump(doc, sort_keys=False)


def _cases() -> list[dict[str, Any]]:
    cases = []
    for n in range(1, 9):
        for launch in ("grid", "parallel"):
            placement = PLACEMENTS[(n + (launch == "parallel")) % 3]
            may_hang = (n + (launch == "grid")) % 2 == 0
            cases.append({"name": f"{n}-threads-{placement}-{launch}{'-may-hang' if may_hang else ''}",
                          "yaml": every_op_pattern(n, placement, may_hang), "instances": 16, "seed": n,
                          "block": 4, "programs": 3, "sm_count": 2, "stress": {"launch": launch}})
    full = {"mem_stress": True, "stress_programs": 2, "stress_iterations": 3, "pre_stress": 2, "kernel_barrier": True,
            "barrier_pct": 50, "stride": 3, "scratch_words": 64}
    for launch in ("grid", "parallel"):
        cases.append({"name": f"3-threads-two-ranks-{launch}-full-stress-may-hang",
                      "yaml": every_op_pattern(3, "two-ranks", True), "instances": 24, "seed": 11, "block": 4,
                      "programs": 3, "sm_count": 1, "stress": {"launch": launch, **full}})
    for name in ("counter_two_producers", "counter_lost_signal"):  # the GPU crash's shape; may hang
        for launch in ("grid", "parallel"):
            cases.append({"name": f"{name}-{launch}", "yaml": (DATA / f"{name}.yaml").read_text(),
                          "instances": 32, "seed": 5, "block": 4, "programs": 4, "sm_count": 2,
                          "stress": {"launch": launch}})
    tearing = str(Path(__file__).resolve().parents[2] / "catalog" / "tearing.yaml")
    for variant in ("fixed-acquire-each-byte", "buggy-release-bytes-acquire-flag"):  # byte views, three ranks
        for programs in (2, 8):  # few programs, many iterations per launch: one program per SM's shape
            cases.append({"name": f"TEAR-bytes-{variant}-parallel-{programs}", "path": tearing, "variant": variant,
                          "instances": 64, "seed": 3, "block": 4, "programs": programs, "sm_count": 2,
                          "stress": {"launch": "parallel", "programs_per_sm": 1}})
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def answers() -> dict[str, dict[str, Any]]:
    return run_interpreted("tests.run.bounds_runner", CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_address_of_a_round_lies_in_its_buffer(answers: dict[str, dict[str, Any]], case: dict) -> None:
    got = answers[case["name"]]
    assert "error" not in got, got.get("error")
    assert got["ok"] >= case["instances"] and got["accesses"] > 0


def test_the_check_catches_an_index_past_the_heap() -> None:
    """The check is live: a kernel whose heap is one instance short is caught at its op."""
    got = run_interpreted("tests.run.bounds_runner", [{
        "name": "short-heap", "yaml": every_op_pattern(2, "own-cta", False), "instances": 16, "seed": 1,
        "block": 4, "programs": 2, "sm_count": 2, "stress": {"launch": "grid"}, "short_heap": True}])
    assert "OutOfBounds" in got["short-heap"]["error"] and "/kernels/litmus_" in got["short-heap"]["error"]
