"""``litmus model --cat FILE.cat``: the cat model in place of the built-in one, and a bad file
as one located error line with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from litmus.cli import main
from litmus.interop import dat3m_dir

ROOT = dat3m_dir()
CATALOG = Path(__file__).resolve().parents[2] / "catalog"


def test_help_names_the_option_with_an_example() -> None:
    res = CliRunner().invoke(main, ["model", "--help"])
    assert res.exit_code == 0
    assert "--cat FILE.cat" in res.stdout and "litmus model --cat " in res.stdout


@pytest.mark.skipif(ROOT is None, reason="Dat3M PTX corpus not found")
def test_cat_model_judges_the_catalogs_expectations() -> None:
    assert ROOT is not None
    cat = ROOT / "cat" / "ptx-v7.5.cat"
    res = CliRunner().invoke(main, ["model", "--cat", str(cat), str(CATALOG / "mp.yaml"), "--json"])
    assert res.exit_code == 0, res.output
    records = [json.loads(line) for line in res.stdout.splitlines()]
    assert records and all(r["model"] == "ptx-v7.5.cat" for r in records)
    assert all(r["agrees"] is True for r in records)
    assert all(r["may_hang_agrees"] is True for r in records)  # judged as under the built-in model
    builtin = CliRunner().invoke(main, ["model", str(CATALOG / "mp.yaml"), "--json"])
    assert [r["allowed_states"] for r in records] == [json.loads(line)["allowed_states"]
                                                      for line in builtin.stdout.splitlines()]


@pytest.mark.parametrize("text, where", [
    ("PTX\nlet a = W ; po\n", ":2:9: ';' needs a relation; W is a set"),
    ("PTX\nlet a = (po\n", ":3:1: the file ends inside a statement"),
    ("PTX\nacyclic po | nope\n", ":2:14: unknown base relation 'nope'"),
])
def test_a_bad_cat_file_is_one_located_line_and_exit_2(tmp_path: Path, text: str, where: str) -> None:
    bad = tmp_path / "bad.cat"
    bad.write_text(text)
    res = CliRunner().invoke(main, ["model", "--cat", str(bad), str(CATALOG / "mp.yaml")])
    assert res.exit_code == 2
    assert res.stdout == ""
    (line,) = res.stderr.splitlines()
    assert line.startswith(f"error: {bad}{where}"), line
    assert "Traceback" not in res.output


def test_a_missing_cat_file(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["model", "--cat", str(tmp_path / "nope.cat"), str(CATALOG / "mp.yaml")])
    assert res.exit_code == 2
    assert res.stderr.strip() == f"error: {tmp_path / 'nope.cat'}: cannot read this cat file: No such file or directory"
