"""Generated patterns: YAML that loads, expectations that are the model's (litmus.diy)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from litmus.cli import main
from litmus.diy import generate
from litmus.diy.edges import parse_edge_set
from litmus.diy.enumerate import cycles
from litmus.diy.variants import PLACES, SEMS
from litmus.errors import LitmusError
from litmus.model import check
from litmus.spec import load_paths, load_text

MP = "PodWW Rfe PodRR Fre"
POOL = [" ".join(e.name for e in c) for c in cycles(parse_edge_set("Rfe,Fre,Coe,Rfi,Fri,Coi,Pod*,Fence*"), 5)]


def _verdict(t) -> str:  # type: ignore[no-untyped-def]
    return "allowed" if check(t, "ptx").target_reachable else "forbidden"


def test_mp_relacq_sys_is_forbidden_and_relaxed_allowed() -> None:
    (g,) = generate([MP], places="xgpu", scopes="gpu,sys")
    tests = {t.variant: t for t in load_text(g.text, "MP.yaml")}
    assert g.name == "MP" and sorted(tests) == ["xgpu-relacq-gpu", "xgpu-relacq-sys", "xgpu-relaxed-gpu",
                                                "xgpu-relaxed-sys"]
    assert tests["xgpu-relacq-sys"].expect.outcome == "forbidden"
    assert tests["xgpu-relaxed-sys"].expect.outcome == "allowed"
    assert tests["xgpu-relacq-gpu"].expect.outcome == "allowed"  # gpu scope does not reach GPU 1
    assert "PodWW Rfe PodRR Fre" in tests["xgpu-relacq-sys"].expect.why


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(POOL),
       st.lists(st.sampled_from(sorted(SEMS)), min_size=1, max_size=3, unique=True),
       st.lists(st.sampled_from(["cta", "gpu", "sys"]), min_size=1, max_size=3, unique=True),
       st.lists(st.sampled_from(sorted(PLACES)), min_size=1, max_size=2, unique=True))
def test_every_generated_pattern_loads_and_declares_the_models_verdict(
        cycle: str, sems: list[str], scopes: list[str], places: list[str]) -> None:
    """Law: the YAML loads, has places x sems x scopes variants, each expectation is the ptx
    verdict, and SC forbids every target (a cycle of po and com is never sequentially consistent)."""
    (g,) = generate([cycle], sems=",".join(sems), scopes=",".join(scopes), places=",".join(places))
    tests = load_text(g.text, "gen.yaml")
    assert len(tests) == len(sems) * len(scopes) * len(places) == g.forbidden + g.allowed
    for t in tests:
        assert t.expect is not None and t.expect.outcome == _verdict(t), t.id
        assert not check(t, "sc").target_reachable, t.id


def test_rotations_and_repeats_make_one_file(tmp_path: Path) -> None:
    made = generate([MP, "Rfe PodRR Fre PodWW", "PodRR Fre PodWW Rfe"], out=tmp_path)
    assert [g.name for g in made] == ["MP"] and [p.name for p in tmp_path.iterdir()] == ["MP.yaml"]


def test_written_files_load_from_the_folder(tmp_path: Path) -> None:
    made = generate(edges="Rfe,Fre,Coe,Pod*", max_length=4, sems="relacq", scopes="sys", out=tmp_path)
    tests = load_paths([tmp_path])
    assert {g.name for g in made} == {t.name for t in tests} == {"MP", "SB", "LB", "S", "R", "2+2W"}
    assert all(t.expect.outcome == _verdict(t) for t in tests)


def test_bad_options_are_litmus_errors() -> None:
    for kwargs, words in (({"sems": "acquire"}, "unknown sem 'acquire'"),
                          ({"scopes": "grid"}, "unknown scope 'grid'"),
                          ({"places": ""}, "--places is empty")):
        with pytest.raises(LitmusError, match=words):
            generate([MP], **kwargs)
    with pytest.raises(LitmusError, match="give a CYCLE"):
        generate()
    with pytest.raises(LitmusError, match="--max-length needs --edges"):
        generate([MP], max_length=4)
    with pytest.raises(LitmusError, match="choose 2 to 8"):
        generate(edges="Rfe,Fre,Pod*", max_length=12)


def test_cli_writes_files_that_validate_and_agree_with_litmus_model(tmp_path: Path) -> None:
    out = tmp_path / "gen"
    res = CliRunner().invoke(main, ["generate", MP, "PodWR Fre PodWR Fre", "--scopes", "gpu,sys", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "2 patterns, 16 variants" in res.output
    res = CliRunner().invoke(main, ["validate", str(out)])
    assert res.exit_code == 0 and "ok: 2 patterns, 16 variants" in res.output, res.output
    res = CliRunner().invoke(main, ["model", str(out)])
    assert res.exit_code == 0 and res.output.count("agrees with the model") == 16, res.output[-2000:]


def test_cli_bad_cycle_is_one_line_no_traceback(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["generate", "PodWW Rfe PodQR Fre", "--out", str(tmp_path)])
    assert res.exit_code == 2 and res.exception is not None and isinstance(res.exception, SystemExit)
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "'PodQR'" in lines[0] and "valid edges" in lines[0]
    assert "Example" in CliRunner().invoke(main, ["generate", "--help"]).output
