"""Text tables never cut a name; every output format; every --help default is true."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from types import SimpleNamespace

from click.testing import CliRunner
from rich.console import Console

from litmus.cli import main
from litmus.report.table import print_wide, results_table, text_table
from tests.report.conftest import write_jsonl

LONG = "VLLM-custom-allreduce-barrier-with-a-very-long-name[relaxed-signal-then-wait-across-gpus-sys]"


def test_text_table_is_as_wide_as_its_widest_cell() -> None:
    out = text_table(("variant", "n"), [[LONG, "1"], ["x", "12,345"]], right=(1,))
    assert LONG in out and out.splitlines()[3].endswith("12,345")


def _result(name: str, variant: str) -> SimpleNamespace:
    test = SimpleNamespace(name=name, variant=variant, expect=None, id=f"{name}[{variant}]")
    v = SimpleNamespace(verdict="racy-witnessed", target_count=3, rate=0.003, bound_95=None, instances=1000,
                        counts={"weak": 3, "forbidden": 0, "timeout": 0})
    return SimpleNamespace(test=test, verdict=v, skipped=None)


def test_run_table_wraps_at_80_columns_instead_of_cutting() -> None:
    buf = io.StringIO()
    Console(file=buf, width=80).print(results_table([_result("VLLM-custom-allreduce", "relaxed-signal-sys")]))
    text = buf.getvalue()
    assert "…" not in text
    body = text.split("┩")[1].splitlines()[1:]  # the rows, below the heading
    column = lambda i: "".join(line.split("│")[i].strip() for line in body if line.startswith("│"))  # noqa: E731
    assert column(1) == "VLLM-custom-allreduce" and column(2) == "relaxed-signal-sys"  # wrapped, never cut
    assert column(4) == "racy-witnessed" and column(5) == "1,000"


def test_run_table_goes_wide_when_not_a_terminal(capsys) -> None:
    print_wide(results_table([_result("VLLM-custom-allreduce", "relaxed-signal-sys")]))
    out = capsys.readouterr().out
    assert "VLLM-custom-allreduce" in out and "relaxed-signal-sys" in out and "…" not in out


def _records() -> list[dict]:
    return [{"id": LONG, "test": "VLLM", "variant": "v", "expect": "allowed", "verdict": "racy-witnessed",
             "instances": 1000, "completed": 1000, "target_count": 5, "rate": 0.005,
             "counts": {"sc": 995, "weak": 5, "forbidden": 0, "timeout": 0}}]


def test_report_text_csv_and_json(tmp_path: Path) -> None:
    results = write_jsonl(tmp_path / "r.jsonl", _records())
    res = CliRunner().invoke(main, ["report", str(results)])
    assert res.exit_code == 0 and LONG in res.output and "0.005 [" in res.output
    res = CliRunner().invoke(main, ["report", str(results), "--csv"])
    [row] = list(csv.DictReader(io.StringIO(res.output)))
    assert row["id"] == LONG and row["weak"] == "5" and float(row["low_95"]) < 0.005 < float(row["high_95"])
    res = CliRunner().invoke(main, ["report", str(results), "--json"])
    data = json.loads(res.output)
    assert data["verdicts"] == {"racy-witnessed": 1} and data["records"][0]["completed"] == 1000
    res = CliRunner().invoke(main, ["report", str(results), "--json", "--csv"])
    assert res.exit_code == 2


def test_run_help_states_the_backends_default_instances() -> None:
    from litmus.run.cpu import DEFAULT_INSTANCES

    res = CliRunner(env={"COLUMNS": "400"}).invoke(main, ["run", "--help"], terminal_width=400)
    line = " ".join(res.output.split())
    assert f"{DEFAULT_INSTANCES} on cpu" in line and "65536 on cpu" not in line
    src = (Path(__file__).resolve().parents[2] / "litmus" / "run" / "cuda.py").read_text()
    assert '"default_instances": 1 << 20' in src and f"{1 << 20} on cuda" in line
