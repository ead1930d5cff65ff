"""The one front door: files, folders, names and text -> tests; the one variant filter."""

from __future__ import annotations

from pathlib import Path

import pytest

from litmus.errors import LitmusError
from litmus.spec import filter_variants, load_tests, load_text
from litmus.spec.select import known_suffixes
from tests.patterns import SB_YAML

MP_LITMUS = """PTX MP-front-door
"message passing, relaxed"
{
x = 0;
y = 0;
}
 P0@cta 0,gpu 0                  | P1@cta 0,gpu 1                 ;
 st.relaxed.gpu x, 1             | ld.relaxed.gpu r0, y           ;
 st.relaxed.gpu y, 1             | ld.relaxed.gpu r1, x           ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
"""


def test_a_folder_of_yaml_and_litmus_files_loads_through_the_front_door(tmp_path: Path) -> None:
    (tmp_path / "sb.yaml").write_text(SB_YAML)
    (tmp_path / "mp.litmus").write_text(MP_LITMUS)
    tests = load_tests([str(tmp_path)])
    assert [t.name for t in tests] == ["MP-front-door", "SB-cli", "SB-cli"]
    assert ".litmus" in known_suffixes()


def test_unknown_suffix_and_missing_file_are_located_errors(tmp_path: Path) -> None:
    odd = tmp_path / "mp.txt"
    odd.write_text("x")
    with pytest.raises(LitmusError) as e:
        load_tests([str(odd), str(tmp_path / "gone.yaml")])
    messages = [str(p) for p in e.value.problems]
    assert any("mp.txt" in m and "unknown file type '.txt'" in m for m in messages)
    assert any("gone.yaml" in m and "no such file" in m for m in messages)


def test_load_text_names_the_given_file_and_line() -> None:
    with pytest.raises(LitmusError) as e:
        load_text(SB_YAML.replace("scope: gpu", "scope: gpuu"), "here.yaml")
    assert e.value.problems[0].file == "here.yaml" and e.value.problems[0].line is not None


def test_filter_variants_by_name_pattern_and_exactly_one() -> None:
    tests = load_text(SB_YAML)
    assert [t.variant for t in filter_variants(tests, "fence-*")] == ["fence-sc-gpu"]
    assert filter_variants(tests, None) == tests
    with pytest.raises(LitmusError, match="'SB' has no variant matching 'x'; variants: fence-sc-gpu, plain"):
        filter_variants(tests, "x", what="SB")
    with pytest.raises(LitmusError, match="has 2 variants"):
        filter_variants(tests, "*", one=True, what="SB")
