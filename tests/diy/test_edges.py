"""The edge vocabulary and its parsers (litmus.diy.edges)."""

from __future__ import annotations

import pytest

from litmus.diy.edges import ALIASES, EDGES, parse_cycle, parse_edge_set
from litmus.errors import LitmusError


def test_mp_cycle_parses_into_its_four_edges() -> None:
    es = parse_cycle("PodWW Rfe PodRR Fre")
    assert [(e.name, e.src, e.dst, e.external, e.same_loc) for e in es] == [
        ("PodWW", "W", "W", False, False), ("Rfe", "W", "R", True, True),
        ("PodRR", "R", "R", False, False), ("Fre", "R", "W", True, True)]


def test_diy_aliases_name_canonical_edges() -> None:
    assert [e.name for e in parse_cycle("FencedWR Wse, Wsi")] == ["FenceScdWR", "Coe", "Coi"]
    assert EDGES["FenceAcqReldRW"].fence == "acq_rel" and EDGES["FenceScdWW"].fence == "sc"
    assert set(ALIASES.values()) <= set(EDGES)


def test_a_bad_edge_is_one_line_naming_it_and_the_vocabulary() -> None:
    with pytest.raises(LitmusError) as err:
        parse_cycle("PodWW Rfe PodXR Fre")
    msg = str(err.value)
    assert "\n" not in msg and "'PodXR'" in msg
    for word in ("Rfe", "Fre", "Coe", "PodXY", "FencedXY", "FenceAcqReldXY"):
        assert word in msg


def test_a_wrong_case_edge_gets_a_hint() -> None:
    with pytest.raises(LitmusError, match="did you mean 'Rfe'"):
        parse_cycle("PodWW rfe PodRR Fre")


def test_edge_sets_take_names_and_shell_patterns_once_each() -> None:
    names = [e.name for e in parse_edge_set("Rfe,Pod*,PodWW,Fenced*")]
    assert names[:5] == ["Rfe", "PodWW", "PodWR", "PodRW", "PodRR"]
    assert names[5:] == ["FenceScdWW", "FenceScdWR", "FenceScdRW", "FenceScdRR"]
    with pytest.raises(LitmusError, match="matches no edge"):
        parse_edge_set("Qod*")
