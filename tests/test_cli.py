"""The command line: list, show, validate, model (run is covered in tests/run)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from litmus.cli import main
from tests.patterns import SB_YAML



def write(tmp_path: Path, text: str, name: str = "sb.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_list_json_has_one_line_per_variant(tmp_path: Path) -> None:
    p = write(tmp_path, SB_YAML)
    res = CliRunner().invoke(main, ["list", str(p), "--json"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.output.splitlines()]
    assert [(r["test"], r["variant"], r["expect"]) for r in rows] == [
        ("SB-cli", "plain", "allowed"),
        ("SB-cli", "fence-sc-gpu", "forbidden"),
    ]
    assert rows[0]["source"] == str(p)


def test_validate_reports_every_problem_with_line(tmp_path: Path) -> None:
    good = write(tmp_path, SB_YAML)
    bad = write(tmp_path, SB_YAML.replace("scope: gpu", "scope: gpuu"), "bad.yaml")
    res = CliRunner().invoke(main, ["validate", str(good), str(bad)])
    assert res.exit_code == 1
    assert f"{bad}:" in res.output
    assert "gpuu" in res.output and "Traceback" not in res.output
    assert CliRunner().invoke(main, ["validate", str(good)]).exit_code == 0


def test_unknown_pattern_name_is_a_clean_error() -> None:
    res = CliRunner().invoke(main, ["show", "NoSuchPatternXYZ"])
    assert res.exit_code == 2
    assert res.output.startswith("error:")
    assert "Traceback" not in res.output


def test_show_prints_variants_in_litmus_form(tmp_path: Path) -> None:
    p = write(tmp_path, SB_YAML)
    res = CliRunner().invoke(main, ["show", str(p), "--variant", "fence-sc-gpu"])
    assert res.exit_code == 0, res.output
    assert "SB-cli[fence-sc-gpu]" in res.output
    assert "fence.sc.gpu" in res.output
    assert "expect: forbidden" in res.output
    assert "[plain]" not in res.output


def test_model_text_is_herd_style(tmp_path: Path) -> None:
    p = write(tmp_path, SB_YAML)
    res = CliRunner().invoke(main, ["model", str(p), "--variant", "plain"])
    assert res.exit_code == 0, res.output
    assert "States 4" in res.output
    assert "P0:r0=0; P1:r1=0;" in res.output
    assert "\nOk\n" in res.output
    assert "is validated" in res.output


def test_model_json_fields_and_sc_reference(tmp_path: Path) -> None:
    p = write(tmp_path, SB_YAML)
    for model, reachable in (("ptx", True), ("sc", False)):
        res = CliRunner().invoke(main, ["model", str(p), "--variant", "plain", "--json", "--model", model])
        rec = json.loads(res.output.splitlines()[0])
        assert {"test", "variant", "source", "model", "condition_kind", "condition", "validated",
                "allowed_states", "possible_hang", "seconds"} <= set(rec)
        assert rec["model"] == model
        assert rec["validated"] is reachable
        assert ({"P0:r0": 0, "P1:r1": 0, "x": 1, "y": 1} in rec["allowed_states"]) is reachable


def test_model_exit_1_when_expectation_disagrees(tmp_path: Path) -> None:
    p = write(tmp_path, SB_YAML.replace("    expect: allowed\n    why: no fence",
                                        "    expect: forbidden\n    why: wrong on purpose"))
    res = CliRunner().invoke(main, ["model", str(p), "--variant", "plain"])
    assert res.exit_code == 1
    assert "DISAGREES" in res.output


def test_model_reads_ptx_litmus_files(tmp_path: Path) -> None:
    p = write(tmp_path, """PTX MP-gpu
{
x=0; y=0;
}
 P0@cta 0,gpu 0         | P1@cta 0,gpu 0         ;
 st.weak x, 1           | ld.acquire.gpu r1, y   ;
 st.release.gpu y, 1    | ld.weak r2, x          ;
~exists
(P1:r1 == 1 /\\ P1:r2 != 1)
""", "mp.litmus")
    res = CliRunner().invoke(main, ["model", str(p), "--json"])
    rec = json.loads(res.output)
    assert rec["condition_kind"] == "not_exists" and rec["validated"] is True


def test_help_teaches_with_examples() -> None:
    for cmd in ("list", "show", "validate", "model", "run", "audit", "doctor", "report"):
        res = CliRunner().invoke(main, [cmd, "--help"])
        assert res.exit_code == 0
        assert "Example" in res.output, cmd


def test_show_ptx_of_release_cas_variant_has_release_sys_atom() -> None:
    res = CliRunner().invoke(main, ["show", "MP", "--variant", "relcas-xgpu-sys", "--ptx"])
    assert res.exit_code == 0, res.output
    import re

    assert re.search(r"atom\S*\.release\.sys\S*\.cas", res.output), res.output[-2000:]
    assert re.search(r"atom\S*\.acquire\.sys\S*\.cas", res.output)


def test_report_mutation_prints_the_score_and_unseen_mutants(tmp_path: Path, sb_file: Path) -> None:
    import json as _json

    rec = {"id": "SB-cli[plain]", "test": "SB-cli", "variant": "plain", "source": str(sb_file),
           "verdict": "racy-unseen", "instances": 1000, "completed": 1000, "target_count": 0,
           "bound_95": 0.003, "rate": 0.0, "backend": "cuda", "world_size": 1}
    results = tmp_path / "r.jsonl"
    results.write_text(_json.dumps(rec) + "\n")
    res = CliRunner().invoke(main, ["report", str(results), "--mutation"])
    assert res.exit_code == 0, res.output
    assert "conformance tests: 1 (target forbidden), violations: 0" in res.output
    assert "mutants: 1 (target allowed), witnessed: 0, mutation score: 0.0 %" in res.output
    assert "SB-cli[plain]" in res.output and "not seen in 1,000 ended instances" in res.output
    gone = tmp_path / "gone.jsonl"
    gone.write_text(_json.dumps({**rec, "source": str(tmp_path / "moved.yaml")}) + "\n")
    res = CliRunner().invoke(main, ["report", str(gone), "--mutation"])
    assert res.exit_code == 2 and "moved.yaml" in res.output and "Traceback" not in res.output
