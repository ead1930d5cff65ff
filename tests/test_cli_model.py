"""``litmus model`` and ``litmus validate``: batches that report file by file, ``--model sc`` as a
reference that judges nothing, and ``may_hang`` checked like an expectation."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from litmus.cli import main
from tests.patterns import MP_YAML, SB_YAML

GOOD_LITMUS = """PTX MP-gpu
"first line"
"https://example.org/second line"
{
x=0; y=0;
}
 P0@cta 0,gpu 0         | P1@cta 0,gpu 0         ;
 st.weak x, 1           | ld.acquire.gpu r1, y   ;
 st.release.gpu y, 1    | ld.weak r2, x          ;
~exists
(P1: r1 == 1 /\\ P1:r2 != 1)
"""

# MP_YAML's spin reads a flag nobody stores when the producer is gone: it may hang
HANGS_YAML = MP_YAML.replace("      - store: {loc: x, value: 1}\n      - cas: {loc: flag, expected: 0, value: 1, "
                             "sem: release, scope: sys}\n", "      - store: {loc: x, value: 1}\n")


def write(folder: Path, name: str, text: str) -> Path:
    p = folder / name
    p.write_text(text)
    return p


def test_a_batch_reports_each_file_on_its_own(tmp_path: Path) -> None:
    write(tmp_path, "a_good.litmus", GOOD_LITMUS)
    bad = write(tmp_path, "b_bad.litmus", GOOD_LITMUS.replace("st.weak x, 1  ", "st.weak x, 1+2"))
    write(tmp_path, "c_good.yaml", SB_YAML)
    res = CliRunner().invoke(main, ["model", str(tmp_path), "--json"])
    assert res.exit_code == 1
    ids = [json.loads(line)["id"] for line in res.stdout.splitlines() if line.startswith("{")]
    assert ids == ["MP-gpu", "SB-cli[plain]", "SB-cli[fence-sc-gpu]"]
    assert f"error: {bad}:8:13:" in res.stderr
    assert "1 input(s) failed" in res.stderr


def test_model_sc_reports_states_and_judges_nothing(tmp_path: Path) -> None:
    p = write(tmp_path, "sb.yaml", SB_YAML)  # 'plain' expects allowed: SC forbids it
    res = CliRunner().invoke(main, ["model", str(p), "--model", "sc"])
    assert res.exit_code == 0, res.output
    assert "States 3" in res.stdout and "Expectation" not in res.stdout
    rec = json.loads(CliRunner().invoke(main, ["model", str(p), "--model", "sc", "--json"]).stdout.splitlines()[0])
    assert rec["agrees"] is None and rec["may_hang_agrees"] is None


def test_undeclared_hang_fails_model_and_validate_with_file_and_line(tmp_path: Path) -> None:
    p = write(tmp_path, "hang.yaml", HANGS_YAML)
    for cmd in (["model", str(p)], ["validate", str(p)]):
        res = CliRunner().invoke(main, cmd)
        assert res.exit_code == 1, (cmd, res.output)
        assert f"{p}:1: MP-audit: the ptx" in res.stderr  # ptx75 for model (the default), ptx for validate
        assert "model finds an execution in which a spin never exits" in res.stderr
    declared = write(tmp_path, "declared.yaml", HANGS_YAML.replace("expect: forbidden\n",
                                                                   "expect: forbidden\nmay_hang: true\n"))
    assert CliRunner().invoke(main, ["model", str(declared)]).exit_code == 0
    assert CliRunner().invoke(main, ["validate", str(declared)]).exit_code == 0


def test_declared_hang_the_model_does_not_find_fails(tmp_path: Path) -> None:
    p = write(tmp_path, "mp.yaml", MP_YAML.replace("expect: forbidden\n", "expect: forbidden\nmay_hang: true\n"))
    res = CliRunner().invoke(main, ["validate", str(p)])
    assert res.exit_code == 1
    assert "declares 'may_hang: true', but under the ptx model every spin exits" in res.stderr
