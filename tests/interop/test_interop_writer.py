"""write_litmus: catalog-only IR (Spin, volatile, homes, variants) and the round-trip law."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings

from interop_strategies import litmus_tests
from litmus.errors import LitmusError
from litmus.interop import normalize_for_roundtrip, parse_litmus, write_litmus
from litmus.ir import (
    Cmp,
    Condition,
    Const,
    Label,
    LitmusTest,
    Load,
    Location,
    RegRef,
    Rmw,
    Spin,
    SpinRead,
    Store,
    Thread,
    Expectation,
)


def _mp(wait: Spin, **changes: object) -> LitmusTest:
    """Catalog-style MP: payload homed on rank 1, flag on rank 0, consumer on rank 1."""
    test = LitmusTest(
        name="MP",
        variant="volatile-sys",
        locations=(Location("x", 0, home=1), Location("flag", 0, home=0)),
        threads=(
            Thread("P0", 0, 0, (Store("x", Const(1)),
                                Store("flag", Const(1), "relaxed", "sys", volatile=True))),
            Thread("P1", 1, 1, (wait, Load("r1", "x"))),
        ),
        condition=Condition("exists", Cmp(RegRef("P1", "r1"), "==", Const(0)), "P1:r1 == 0"),
        expect=Expectation("allowed", "volatile is relaxed.sys"),
        title="Message passing",
        description="P0 writes a payload, then raises a flag.",
        tags=("mp",),
        params=(("signal", "volatile"),),
        source_file="catalog/mp.yaml",
        source_line=3,
    )
    return dataclasses.replace(test, **changes)


LOAD_SPIN = Spin("flag", 1, SpinRead("load", volatile=True, sem="relaxed", scope="sys"),
                 bound=1000, reg="r0")
CAS_SPIN = Spin("flag", 1, SpinRead("cas", sem="acquire", scope="sys", reset=0), bound=50)


def test_catalog_test_text() -> None:
    assert write_litmus(_mp(LOAD_SPIN)) == (
        "PTX MP[volatile-sys]\n"
        '"P0 writes a payload, then raises a flag."\n'
        '"homes: x@1 flag@0"\n'
        '"litmus: P0:volatile@1 P1:spin@0:1000:r0 P1:volatile@1"\n'
        "{\n"
        "x=0;\n"
        "flag=0;\n"
        "}\n"
        " P0@cta 0,gpu 0         | P1@cta 1,gpu 1          ;\n"
        " st.weak x, 1           | LC00:                   ;\n"
        " st.relaxed.sys flag, 1 | ld.relaxed.sys r0, flag ;\n"
        "                        | bne r0, 1, LC00         ;\n"
        "                        | ld.weak r1, x           ;\n"
        "exists\n"
        "(P1:r1 == 0)\n"
    )


def test_spin_reads_back_as_the_spin_with_homes_and_variant() -> None:
    back = parse_litmus(write_litmus(_mp(LOAD_SPIN)))
    assert (back.name, back.variant) == ("MP", "volatile-sys")
    assert [(loc.name, loc.home) for loc in back.locations] == [("x", 1), ("flag", 0)]
    assert back.description == "P0 writes a payload, then raises a flag."
    p0, p1 = back.threads
    assert p0.instrs[1] == Store("flag", Const(1), "relaxed", "sys", volatile=True, line=11)
    assert [dataclasses.replace(i, line=None) for i in p1.instrs] == [LOAD_SPIN, Load("r1", "x")]
    assert (p1.rank, p1.cta) == (1, 1)


def test_cas_spin_gets_a_fresh_register_and_label_and_folds_back() -> None:
    test = _mp(CAS_SPIN)
    p1 = test.threads[1]
    busy = dataclasses.replace(p1, instrs=(Label("LC00"), CAS_SPIN, Load("r00", "x"), Load("r1", "x")))
    test = dataclasses.replace(test, threads=(test.threads[0], busy))
    text = write_litmus(test)
    assert "LC01:" in text and "atom.acquire.sys.cas r01, flag, 1, 0" in text and "bne r01, 1, LC01" in text
    p1_back = parse_litmus(text).threads[1]
    assert [dataclasses.replace(i, line=None) for i in p1_back.instrs] == list(busy.instrs)


@pytest.mark.parametrize("annotation, fragment", [
    ("P1:spin@1:5:-", "a spin marks"),
    ("P1:volatile@2", "volatile marks a relaxed.sys ld or st"),
    ("P0:noreg@0", "noreg marks an atom"),
    ("P1:volatile@9", "P1 has no instruction 9"),
    ("P7:noreg@0", "P7"),
    ("P1:spin@0", "is not THREAD"),
])
def test_bad_annotations_are_located_errors(annotation: str, fragment: str) -> None:
    text = write_litmus(_mp(LOAD_SPIN)).replace("P1:spin@0:1000:r0", annotation)
    with pytest.raises(LitmusError, match=fragment) as exc:
        parse_litmus(text, file="a.litmus")
    assert (exc.value.problems[0].file, exc.value.problems[0].line) == ("a.litmus", 1)


def test_round_trip_drops_only_the_documented_fields() -> None:
    test = _mp(Load("r0", "flag", "acquire", "sys"))
    back = parse_litmus(write_litmus(test), file="x.litmus")
    assert normalize_for_roundtrip(back) == normalize_for_roundtrip(test)
    assert (back.title, back.tags, back.params, back.expect) == ("", (), (), None)
    assert back.source_file == "x.litmus"


def test_double_quotes_in_description_become_single() -> None:
    test = _mp(LOAD_SPIN, description='say "hi"', variant="")
    back = parse_litmus(write_litmus(test))
    assert back.description.startswith("say 'hi'")
    assert back.name == "MP" and back.variant == ""


@pytest.mark.parametrize(
    "change, fragment",
    [
        ({"name": "M P"}, "name"),
        ({"description": "homes: x@3"}, "homes:"),
        ({"locations": (Location("r1", 0), Location("flag", 0))}, "register 'r1'"),
    ],
)
def test_unwritable_tests_are_refused(change: dict, fragment: str) -> None:
    with pytest.raises(LitmusError) as exc:
        write_litmus(_mp(Load("r0", "flag", "acquire", "sys"), **change))
    assert fragment in str(exc.value)
    assert exc.value.problems[0].file == "catalog/mp.yaml"


def test_rmw_without_register_and_unknown_op() -> None:
    cas = Rmw("cas", None, "flag", Const(0), expected=Const(1), sem="relaxed", scope="gpu")
    test = _mp(cas)
    assert "atom.relaxed.gpu.cas r00, flag, 1, 0" in write_litmus(test)  # LitmusPTX.g4 has no red.cas
    assert "P1:noreg@0" in write_litmus(test)
    assert parse_litmus(write_litmus(test)).threads[1].instrs[0].reg is None
    with pytest.raises(LitmusError, match="'nand'"):
        write_litmus(_mp(dataclasses.replace(cas, op="nand")))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(litmus_tests())
def test_round_trip_law(test: LitmusTest) -> None:
    """Reading back what was written gives the test, up to normalisation."""
    text = write_litmus(test)
    back = parse_litmus(text, file="law.litmus")
    assert normalize_for_roundtrip(back) == normalize_for_roundtrip(test)
    assert write_litmus(back) == text
