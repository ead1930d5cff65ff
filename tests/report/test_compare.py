"""Two runs compared: the verdict order, rate moves, the exit status."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from litmus.cli import main
from litmus.report.compare import compare_records, compare_rows
from litmus.report.rates import VERDICT_ORDER, rate_interval, verdict_rank, wilson
from tests.report.conftest import write_jsonl


def rec(i: str, verdict: str, k: int = 0, n: int = 10_000) -> dict:
    return {"id": i, "test": i.split("[")[0], "variant": i, "verdict": verdict, "instances": n, "completed": n,
            "target_count": k, "rate": k / n, "bound_95": None if k else 3 / n}


def test_verdict_order_puts_violation_worst() -> None:
    assert VERDICT_ORDER[0] == "VIOLATION" and VERDICT_ORDER[-1] == "correct"
    assert verdict_rank("VIOLATION") < verdict_rank("inconclusive") < verdict_rank("racy-unseen") \
        < verdict_rank("racy-witnessed") < verdict_rank("correct")


def test_wilson_interval_and_rule_of_three() -> None:
    low, high = wilson(50, 100)
    assert 0.40 < low < 0.41 and 0.59 < high < 0.60
    assert rate_interval(rec("A[x]", "racy-unseen", 0, 1000)) == (0.0, 0.0, 0.003)
    assert wilson(7, 5) == wilson(5, 5)  # a malformed record gives an interval, not a math error


def test_hang_witnesses_are_trials_of_the_rate() -> None:
    # 2 completed instances, 10 timed out with the target's memory: 10 of 12 trials showed it
    r = {**rec("A[h]", "racy-witnessed", 10, 12), "completed": 2, "hang_witnesses": 10}
    rate, low, high = rate_interval(r)
    assert rate == 10 / 12 and low < rate < high <= 1.0
    unseen = {**r, "hang_witnesses": 0, "target_count": 0, "completed": 100, "instances": 110}
    assert rate_interval(unseen) == (0.0, 0.0, 3 / 100)  # the rule of three counts completed only


def test_changes_are_classified() -> None:
    a = [rec("A[ok]", "correct"), rec("A[v]", "correct"), rec("A[w]", "racy-witnessed", 100),
         rec("A[r]", "racy-witnessed", 100), rec("A[s]", "racy-witnessed", 100), rec("A[gone]", "correct")]
    b = [rec("A[ok]", "correct"), rec("A[v]", "VIOLATION", 1), rec("A[w]", "racy-unseen"),
         rec("A[r]", "racy-witnessed", 1000), rec("A[s]", "racy-witnessed", 105), rec("A[new]", "VIOLATION", 2),
         rec("A[new2]", "correct")]
    kinds = {c.id: c.kind for c in compare_records(a, b)}
    assert kinds == {"A[ok]": "same", "A[v]": "worse", "A[w]": "worse", "A[r]": "rate", "A[s]": "same",
                     "A[gone]": "only-a", "A[new]": "worse", "A[new2]": "only-b"}
    rows = compare_rows(compare_records(a, b))
    assert [r[0] for r in rows][:3] == ["WORSE", "WORSE", "WORSE (new)"] and "A[ok]" not in {r[1] for r in rows}
    assert rows[3][0] == "rate up" and rows[3][-1] == "x10"


def test_cli_compare_exit_status_text_json_and_html(tmp_path: Path) -> None:
    a = write_jsonl(tmp_path / "a.jsonl", [rec("MP[x]", "racy-unseen"), rec("MP[y]", "correct")])
    b = write_jsonl(tmp_path / "b.jsonl", [rec("MP[x]", "racy-witnessed", 5), rec("MP[y]", "correct")])
    res = CliRunner().invoke(main, ["report", str(a), str(b), "--compare"])
    assert res.exit_code == 0, res.output
    assert "better: 1, same: 1" in res.output and "racy-unseen" in res.output and "racy-witnessed" in res.output
    res = CliRunner().invoke(main, ["report", str(b), str(a), "--compare", "--html", str(tmp_path / "c.html")])
    assert res.exit_code == 1 and "WORSE" in res.output
    page = (tmp_path / "c.html").read_text()
    assert 'class="ch-worse"' in page and "A: " in page and "MP[x]" in page
    res = CliRunner().invoke(main, ["report", str(b), str(a), "--compare", "--json", "--all"])
    import json

    out = json.loads(res.output)
    assert out["worse"] is True and {c["change"] for c in out["changes"]} == {"worse", "same"}
    res = CliRunner().invoke(main, ["report", str(a), "--compare"])
    assert res.exit_code == 2 and "two results files" in res.output


def test_real_runs_compared(at_root) -> None:
    """The committed H200 run against the one before it: two witnesses lost, one gained."""
    res = CliRunner().invoke(main, ["report", "docs/results/h200-single-gpu-e16a260.jsonl",
                                    "docs/results/h200-single-gpu.jsonl", "--compare"])
    assert res.exit_code == 1
    assert "worse: 2, better: 1" in res.output and "MP-bar[xcta]" in res.output
