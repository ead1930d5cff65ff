"""LitmusResult helpers: never / witnessed / histogram / reproduce, on classified histograms."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from plugin_patterns import handshake

from litmus.classify import classify
from litmus.errors import LitmusError
from litmus.model import check
from litmus.pytest_plugin.result import LitmusResult, reproduce_command
from litmus.pytest_plugin.runner import find_tests, is_inline
from litmus.spec import filter_variants, load_text
from litmus.run.config import PRESETS, RunConfig

VOLATILE = filter_variants(load_text(handshake()), "volatile", one=True, what="handshake")[0]
PTX, SC = check(VOLATILE, "ptx"), check(VOLATILE, "sc")
CONFIG = RunConfig(iterations=2, instances=64, seed=7)


def _result(counts: dict[tuple[int, int], int], timeouts: int = 0) -> LitmusResult:
    rows = [({"P1:r0": r0, "P1:r1": r1, "data": 1, "ready": 1}, False, n) for (r0, r1), n in counts.items()]
    if timeouts:
        rows.append(({"P1:r0": 1, "P1:r1": 0, "data": 1, "ready": 1}, True, timeouts))
    verdict = classify(VOLATILE, rows, PTX, SC)
    return LitmusResult(VOLATILE, "cpu", CONFIG, verdict, PTX.target_reachable, rounds=2, seconds=0.1)


def test_never_passes_when_the_condition_was_not_seen() -> None:
    result = _result({(1, 1): 100, (0, 0): 28})
    result.never("P1:r0 == 1 /\\ P1:r1 == 0")
    assert result.witnessed("P1:r0 == 1 /\\ P1:r1 == 0") == 0
    assert result.verdict == "racy-unseen" and result.instances == 128


def test_never_fails_with_the_histogram_and_reproduce_command() -> None:
    result = _result({(1, 1): 100, (1, 0): 3, (0, 0): 25})
    with pytest.raises(AssertionError) as err:
        result.never("P1:r0 == 1 /\\ P1:r1 == 0")
    text = str(err.value)
    assert "'P1:r0 == 1 /\\\\ P1:r1 == 0' held in 3 of 128 instances on cpu (seed 7)" in text
    assert "3  weak       P1:r0=1 P1:r1=0 data=1 ready=1  <- target" in text
    assert "reproduce: litmus run PATTERN.yaml --variant volatile --backend cpu --seed 7 --iterations 2" in text
    assert result.witnessed("P1:r0 == 1 /\\ P1:r1 == 0") == 3
    assert result.verdict == "racy-witnessed" and result.target_count == 3


def test_timed_out_instances_are_not_final_states() -> None:
    result = _result({(1, 1): 1000}, timeouts=5)
    result.never("P1:r1 == 0")
    assert result.timeout_count == 5 and result.instances == 1005 and result.completed == 1000
    assert [o.timed_out for o in result.histogram] == [False, True]


def test_never_fails_as_inconclusive_when_too_few_instances_completed() -> None:
    result = _result({(1, 1): 10}, timeouts=5)
    assert result.verdict == "inconclusive"
    with pytest.raises(AssertionError, match="inconclusive: only 10 of 15 instances completed"):
        result.never("P1:r1 == 0")


def test_conditions_on_unknown_registers_or_bad_text_are_errors() -> None:
    result = _result({(1, 1): 1})
    with pytest.raises(LitmusError, match="P1:r9, which Handshake.volatile. does not observe"):
        result.never("P1:r9 == 0")
    with pytest.raises(LitmusError, match="bad condition"):
        result.witnessed("P1:r0 ==")


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.tuples(st.integers(0, 1), st.integers(0, 1)), st.integers(100, 500), min_size=1))
def test_witnessed_counts_add_up_and_agree_with_never(counts: dict[tuple[int, int], int]) -> None:
    result = _result(counts)
    seen = result.witnessed("P1:r1 == 0")
    assert seen + result.witnessed("P1:r1 != 0") == result.instances == sum(counts.values())
    if seen:
        with pytest.raises(AssertionError):
            result.never("P1:r1 == 0")
    else:
        result.never("P1:r1 == 0")
    assert sum(o.count for o in result.histogram) == result.instances


def test_histogram_text_keeps_the_top_rows() -> None:
    result = _result({(0, 0): 1, (0, 1): 2, (1, 0): 3, (1, 1): 4})
    lines = result.histogram_text(top=2).splitlines()
    assert lines[0] == "histogram (4 outcome(s), 10 instances, top 2):"
    assert "P1:r0=1 P1:r1=1" in lines[1] and "P1:r0=1 P1:r1=0" in lines[2]
    assert lines[3] == "  ... 2 more outcome(s), 3 instances"


def test_reproduce_command_names_file_variant_backend_seed_and_budget(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hs.yaml").write_text(handshake())
    test = filter_variants(find_tests("hs.yaml", (), tmp_path), "relacq-sys", one=True, what="hs.yaml")[0]
    assert reproduce_command(test, "cuda", CONFIG) == (
        "litmus run hs.yaml --variant relacq-sys --backend cuda --seed 7 --iterations 2 --instances 64")
    timed = RunConfig(iterations=None, time_budget=1.5, instances=8, seed=0, stress=PRESETS["heavy"])
    assert reproduce_command(test, "cpu", timed).endswith("--time-budget 1.5 --instances 8 --stress heavy")


def test_patterns_are_found_by_inline_text_path_or_catalog_name(tmp_path) -> None:
    assert is_inline(handshake()) and is_inline("name: X") and not is_inline("catalog/mp.yaml")
    assert [t.id for t in find_tests("MP-mixed[volatile-xgpu]", (), tmp_path)] == ["MP-mixed[volatile-xgpu]"]
    with pytest.raises(LitmusError, match="has 2 variants .*choose one with variant="):
        filter_variants(load_text(handshake()), None, one=True, what="inline")
    with pytest.raises(LitmusError, match="no variant matching 'nope'"):
        filter_variants(load_text(handshake()), "nope", one=True, what="inline")
    with pytest.raises(LitmusError, match="missing.yaml: no such file"):
        find_tests("missing.yaml", (), tmp_path)


def test_the_reproduce_line_repeats_the_stress_the_run_was_given() -> None:
    from dataclasses import replace

    from litmus.run.config import load_stresses

    rotation = load_stresses("docs/results/h200-rotation-2.json")  # environments named after the file
    config = replace(CONFIG, stress=rotation[0], rotation=rotation[1:])
    line = reproduce_command(VOLATILE, "cuda", config, "docs/results/h200-rotation-2.json")
    assert line.endswith("--stress docs/results/h200-rotation-2.json")  # the file, not its environments' name
    assert "--stress" not in reproduce_command(VOLATILE, "cuda", config, "auto")  # litmus run's default
    assert reproduce_command(VOLATILE, "cuda", CONFIG, "resident").endswith("--stress resident")
