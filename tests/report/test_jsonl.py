"""Durable JSON Lines results: appended per variant, torn last line tolerated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from litmus.errors import LitmusError
from litmus.report.jsonl import append_record, finished_ids, read_records, read_results


def test_append_then_read_back(tmp_path: Path) -> None:
    out = tmp_path / "sub" / "r.jsonl"
    append_record(out, {"id": "MP[a]", "source": "m.yaml", "backend": "cpu"})
    append_record(out, {"id": "MP[b]", "source": "m.yaml", "backend": "cuda"})
    assert [r["id"] for r in read_records(out)] == ["MP[a]", "MP[b]"]
    assert finished_ids(out, "cpu") == {"m.yaml::MP[a]"}
    assert finished_ids(out, "cuda") == {"m.yaml::MP[b]"}


def test_torn_last_line_is_skipped(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    append_record(out, {"id": "MP[a]", "source": "m.yaml", "backend": "cpu"})
    with open(out, "a") as fh:
        fh.write('{"id": "MP[b]", "sou')  # the writer was killed mid-line
    assert [r["id"] for r in read_records(out)] == ["MP[a]"]


def test_corrupt_middle_line_names_file_and_line(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    out.write_text('{"id": 1}\nnot json\n{"id": 2}\n')
    with pytest.raises(LitmusError) as err:
        list(read_records(out))
    assert err.value.problems[0].line == 2
    assert str(out) in str(err.value)


def test_missing_file_has_no_records(tmp_path: Path) -> None:
    assert list(read_records(tmp_path / "none.jsonl")) == []


def test_report_command_summarises_a_results_file(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from litmus.cli import main

    out = tmp_path / "r.jsonl"
    base = {"source": "m.yaml", "backend": "cpu", "device": "x86", "test": "MP", "expect": "allowed",
            "counts": {"weak": 2, "forbidden": 0, "timeout": 0}, "bound_95": None, "seconds_to_first": 0.5}
    append_record(out, {**base, "id": "MP[a]", "variant": "a", "verdict": "racy-witnessed",
                        "instances": 100, "target_count": 2, "rate": 0.02})
    append_record(out, {**base, "id": "MP[b]", "variant": "b", "verdict": "correct", "expect": "forbidden",
                        "instances": 300, "target_count": 0, "rate": 0.0, "bound_95": 0.01,
                        "counts": {"weak": 0, "forbidden": 0, "timeout": 0}})
    res = CliRunner().invoke(main, ["report", str(out), "--markdown"])
    assert res.exit_code == 0, res.output
    assert "backend cpu, device x86" in res.output
    assert "correct: 1, racy-witnessed: 1" in res.output
    assert "| MP | a | allowed | racy-witnessed | 100 | 2 | 2 | 0 | 0 | 0 | 0.02 | 0.50 |" in res.output
    assert "| MP | b | forbidden | correct | 300 | 0 | 0 | 0 | 0 | 0 | < 0.01 | 0.50 |" in res.output
    res = CliRunner().invoke(main, ["report", str(out), "--verdict", "correct"])
    assert "MP[b]" in res.output and "MP[a]" not in res.output


@pytest.mark.parametrize("line, looks_like", [
    ({"id": "MP[a]", "source": "m.yaml", "target": "cuda:90", "status": "pass", "findings": []}, "litmus audit --json"),
    ({"instances": 10, "per_instance": 0.1, "rate": 5.0, "stress": {}}, "litmus tune --log"),
    ([1, 2], "one JSON object"),
    ({"id": "MP[a]"}, "litmus run --jsonl"),
])
def test_report_refuses_a_file_of_other_records_naming_its_line(tmp_path: Path, line: object, looks_like: str) -> None:
    from click.testing import CliRunner

    from litmus.cli import main

    out = tmp_path / "other.jsonl"
    out.write_text("\n" + json.dumps(line) + "\n")
    res = CliRunner().invoke(main, ["report", str(out)])
    assert res.exit_code == 2, res.output
    assert f"{out}:2: not a litmus run record" in res.output and looks_like in res.output
    assert "Traceback" not in res.output
    with pytest.raises(LitmusError):
        read_results(out)
