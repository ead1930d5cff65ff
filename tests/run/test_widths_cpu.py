"""Access widths on the interpreter backends: 8/16/32/64-bit locations, views and vector accesses
run end to end (codegen, heaps of 8-byte units, raw int32 columns decoded into the model's values)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from litmus.model import check
from litmus.run.config import RunConfig
from litmus.session import run_tests
from litmus.spec import load_paths

ROOT = Path(__file__).resolve().parents[2]
ROUNDTRIP = Path(__file__).parent / "data" / "widths_roundtrip.yaml"


def _state(row_state: dict) -> tuple:
    return tuple(sorted(row_state.items()))


def test_every_width_round_trips_the_one_state_the_model_allows(cpu_backend) -> None:
    [test] = load_paths([ROUNDTRIP])
    [allowed] = check(test, "ptx").allowed_states
    rows = cpu_backend.run_round(test, RunConfig(instances=64, seed=1), 0).rows
    assert [(_state(s), late) for s, late, _ in rows] == [(allowed, False)]
    [(state, _, count)] = rows
    assert count == 64
    assert state["P0:r0"] == 0x123456789ABCDEF0  # a 64-bit register above 2**32
    assert state["P0:r1"] == 0xFEDCBA9876543210  # and above 2**63 (an unsigned 64-bit value)
    assert state["out64"] == 0x123456789ABCDEF1  # computed from it, stored by one 64-bit store
    assert state["swap"] == 0xFFFFFFFFFFFFFFFF
    assert state["P0:r2"] == 0x9ABCDEF0  # a 32-bit view is unsigned
    assert (state["P0:r3"], state["P0:r4"], state["P0:r5"]) == (0x12, 0, 0x7F)
    assert state["word"] == 0xCAFE56789ABCDEF0 and state["h3"] == 0xCAFE and state["b7"] == 0xCA
    assert (state["half"], state["byte"], state["x"], state["P0:r6"]) == (0xBEEF, 0x80, -5, -5)


def test_tearing_catalog_runs_on_the_cpu_without_violation(cpu_backend, tmp_path: Path) -> None:
    tests = load_paths([ROOT / "catalog" / "tearing.yaml"])
    names = {t.name for t in tests}
    assert names == {"TEAR", "TEAR-bytes"}
    out = tmp_path / "tear.jsonl"
    results = run_tests(tests, cpu_backend, RunConfig(iterations=1, instances=128, seed=5), out=out)
    assert [r.skipped for r in results] == [None] * len(tests)
    records = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert set(records) == {t.id for t in tests}
    for rec in records.values():
        assert rec["verdict"] != "VIOLATION", rec["id"]
        assert rec["counts"]["forbidden"] == 0 and rec["counts"]["timeout"] == 0, rec["id"]
    whole = records["TEAR[relaxed-sys]"]["histogram"]
    assert {h["state"]["word"] for h in whole} == {0x100000001}
    assert {h["state"]["P2:r1"] for h in whole} <= {0, 0x100000001}  # never torn on the interpreter
    flag = records["TEAR-bytes[buggy-volatile-bytes]"]["histogram"]
    assert {h["state"]["P2:r0"] for h in flag} == {0xFFFFFFFFFFFFFFFF}


@pytest.mark.parametrize("variant", ["halves-flag-fixed", "vector-reader"])
def test_tearing_on_the_ranks_backend_cpu(variant: str, tmp_path: Path) -> None:
    from litmus.run.ranks import RanksBackend

    [test] = [t for t in load_paths([ROOT / "catalog" / "tearing.yaml"]) if t.id == f"TEAR[{variant}]"]
    with RanksBackend(world_size=3, device="cpu", interpreter_spin_bound=20000) as backend:
        assert backend.skip_reason(test) is None
        [res] = run_tests([test], backend, RunConfig(iterations=1, instances=64, seed=2), out=tmp_path / "r.jsonl")
    [rec] = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert res.skipped is None and rec["verdict"] != "VIOLATION"
    assert rec["counts"]["forbidden"] == 0 and sum(rec["counts"].values()) == 64
    assert {h["state"]["word"] for h in rec["histogram"]} == {0x100000001}
