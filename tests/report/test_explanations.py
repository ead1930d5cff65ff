"""The report page's explanations: the outcome each violation or witnessed race saw, explained."""

from __future__ import annotations

import pytest

import litmus.explain.graph
import litmus.report.explanations as explanations
from litmus.errors import LitmusError
from litmus.report.explanations import explain_records, explanations_html, observed_state
from litmus.spec import filter_variants, load_tests

STALE = {"P1:r0": 1, "P1:r1": 0, "x": 1, "flag": 1}


def _record(variant: str, verdict: str) -> dict:
    return {"id": f"MP[{variant}]", "verdict": verdict, "histogram": [
        {"state": {"P1:r0": 1, "P1:r1": 1, "x": 1, "flag": 1}, "count": 900, "label": "sc", "target": False},
        {"state": STALE, "count": 7, "label": "forbidden" if verdict == "VIOLATION" else "weak", "target": True},
    ]}


@pytest.fixture(scope="module")
def tests() -> dict:
    return {t.id: t for t in filter_variants(load_tests(["MP"]), "*xcta-sys")}


def test_the_outcome_is_the_most_frequent_forbidden_or_target_one() -> None:
    assert observed_state(_record("relacq-xcta-sys", "VIOLATION")) == STALE
    assert observed_state(_record("relaxed-xcta-sys", "racy-witnessed")) == STALE
    assert observed_state({"verdict": "VIOLATION", "histogram": []}) is None


def test_a_violation_names_the_cycle_it_broke_and_a_race_its_execution(tests) -> None:
    records = [_record("relacq-xcta-sys", "VIOLATION"), _record("relaxed-xcta-sys", "racy-witnessed"),
               {**_record("relaxed-xcta-sys", "correct"), "id": "MP[relaxed-xcta-sys]"}]
    explained, left = explain_records(records, tests)
    assert [x.test_id for x in explained] == ["MP[relacq-xcta-sys]", "MP[relaxed-xcta-sys]"] and left == []
    violation, race = explained
    assert ": forbidden" in violation.text and "-sync-> R.acq.sys flag=1 (P1)" in violation.text
    assert ": allowed" in race.text and "reads the initial value" in race.text


def test_without_dot_the_page_has_the_text_and_says_why_no_picture(tests, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_dot(x: object) -> str:
        raise LitmusError("--svg: graphviz's dot program is not installed")

    monkeypatch.setattr(litmus.explain.graph, "svg_text", no_dot)
    monkeypatch.setattr(litmus.explain, "svg_text", no_dot)
    explained, left = explain_records([_record("relacq-xcta-sys", "VIOLATION")], tests)
    page = explanations_html(explained, left)
    assert explained[0].svg is None and "<svg" not in page
    assert "No pictures: graphviz's dot program is not installed here" in page and "Causality" in page


def test_past_the_limit_the_rest_are_named(tests, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(explanations, "MAX_EXPLAINED", 1)
    explained, left = explain_records([_record("relacq-xcta-sys", "VIOLATION"),
                                       _record("relaxed-xcta-sys", "racy-witnessed")], tests)
    assert len(explained) == 1 and left == ["MP[relaxed-xcta-sys]"]
    assert "Not explained here (1, past 1): MP[relaxed-xcta-sys]" in explanations_html(explained, left)
