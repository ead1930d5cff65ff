"""Bad or unsupported .litmus input: a LitmusError naming file, line and column, never a mis-read."""

from __future__ import annotations

import pytest

from litmus.errors import LitmusError, UnsupportedError
from litmus.interop import parse_litmus, read_litmus

GOOD = """PTX T
"d"
{
x=0;
y=0;
}
 P0@cta 0,gpu 0      | P1@cta 0,gpu 1       ;
 st.weak x, 1        | ld.acquire.sys r0, y ;
 st.release.sys y, 1 | ld.weak r1, x        ;
exists
(P1:r0 == 1 /\\ P1:r1 == 0)
"""


def _with_cell(cell: str) -> str:
    """GOOD with P0's first instruction replaced by ``cell`` (line 8, column 2)."""
    return GOOD.replace(" st.weak x, 1        |", f" {cell} |")


def _problem(exc: pytest.ExceptionInfo) -> tuple[str, int | None, int | None]:
    p = exc.value.problems[0]
    return p.file, p.line, p.column


@pytest.mark.parametrize("header, description", [
    ('"d', '"d'),  # LitmusPTX.g4 skips everything up to '{'
    ("junk", "junk"),
    ('"a"\n"b c"\n"https://x/y"', "a\nb c\nhttps://x/y"),
    ('"\nsaid "no" here\n"', '\nsaid "no" here\n'),
])
def test_any_header_text_up_to_the_brace(header: str, description: str) -> None:
    t = parse_litmus(GOOD.replace('"d"', header), file="h.litmus")
    assert t.description == description
    assert t.threads[1].instrs[0].line == 8 + header.count("\n")


def test_good_text_parses() -> None:
    t = parse_litmus(GOOD, file="g.litmus")
    assert [t.rank for t in t.threads] == [0, 1]


@pytest.mark.parametrize(
    "cell, column, fragment",
    [
        ("atom.volatile.add r0, x, 1", 2, "volatile"),
        ("frobnicate r0, x", 2, "unknown instruction 'frobnicate'"),
        ("div r0, r0, 2", 2, "division"),
        ("atom.relaxed.gpu.mul r0, x, 2", 2, "operation .mul"),
        ("atom.relaxed.gpu.sub r0, x, r1", 30, "sub by a register"),
        ("bar.cta.red 0", 2, "not supported"),
        ("ld.relaxed.gpu.nc r0, x", 2, "qualifier .nc"),
    ],
)
def test_unsupported_constructs(cell: str, column: int, fragment: str) -> None:
    with pytest.raises(UnsupportedError) as exc:
        parse_litmus(_with_cell(cell), file="u.litmus")
    assert _problem(exc) == ("u.litmus", 8, column)
    assert fragment in str(exc.value)


@pytest.mark.parametrize(
    "cell, fragment",
    [
        ("ld.acquire r0, x", "needs a scope"),
        ("st.release x, 1", "needs a scope"),
        ("ld.weak.gpu r0, x", "takes no scope"),
        ("ld.release.gpu r0, x", "does not take memory order .release"),
        ("st.acquire.gpu x, 1", "does not take memory order .acquire"),
        ("st x, 1", "needs a memory order"),
        ("fence.sc", "fence.<acq_rel|sc>"),
        ("fence.acquire.gpu", "fence.<acq_rel|sc>"),
        ("atom.relaxed.add r0, x, 1", "atom.<sem>.<scope>.<op>"),
        ("atom.sc.gpu.add r0, x, 1", "memory order .sc"),
        ("ld.weak.weird r0, x", "takes no scope"),
        ("atom.relaxed.gpu.cas r0, x, 1", "takes 4 operand(s)"),
        ("st.weak x", "takes 2 operand(s)"),
        ("ld r0, x", "x is a memory location"),
        ("st.weak x, y", "y is a memory location"),
        ("goto LC9", "no label LC9"),
    ],
)
def test_bad_instructions(cell: str, fragment: str) -> None:
    with pytest.raises(LitmusError) as exc:
        parse_litmus(_with_cell(cell), file="b.litmus")
    file, line, column = _problem(exc)
    assert (file, line) == ("b.litmus", 8)
    assert column is not None and column >= 2
    assert fragment in str(exc.value)


def test_bad_operand_column_points_at_the_operand() -> None:
    with pytest.raises(LitmusError) as exc:
        parse_litmus(_with_cell("st.weak x, 1+2"), file="b.litmus")
    assert _problem(exc) == ("b.litmus", 8, 13)


def test_alias_of_an_undeclared_location() -> None:
    text = GOOD.replace("y=0;", "y@texture aliases z;")
    with pytest.raises(LitmusError) as exc:
        parse_litmus(text, file="a.litmus")
    assert _problem(exc) == ("a.litmus", 5, 1)
    assert "z is not declared" in str(exc.value)


def test_unknown_alias_proxy() -> None:
    with pytest.raises(LitmusError) as exc:
        parse_litmus(GOOD.replace("y=0;", "y@shared aliases x;"), file="a.litmus")
    assert _problem(exc) == ("a.litmus", 5, 1)
    assert "unknown proxy 'shared'" in str(exc.value)


@pytest.mark.parametrize("cell, fragment", [
    ("fence.proxy.bulk", "fence.proxy.<"),
    ("sust x, 1", "needs a memory order"),
    ("bar.cta.sync 1, 1, 2, 3", "quorum"),
])
def test_bad_proxy_and_barrier_cells(cell: str, fragment: str) -> None:
    with pytest.raises(LitmusError) as exc:
        parse_litmus(_with_cell(cell), file="p.litmus")
    assert _problem(exc)[:2] == ("p.litmus", 8)
    assert fragment in str(exc.value)


def test_pointer_init_unsupported() -> None:
    with pytest.raises(UnsupportedError) as exc:
        parse_litmus(GOOD.replace("y=0;", "P0:r5=&x;"), file="a.litmus")
    assert _problem(exc)[1] == 5


@pytest.mark.parametrize(
    "condition, line, column, fragment",
    [
        ("exists\n(P1:r0 == 1 /\\ )", 11, 16, "bad condition"),
        ("exists\n(P1:r0 == 1", 11, 12, "missing ')'"),
        ("exists\n(P1:r0 1)", 11, 8, "expected a comparison"),
        ("exists\n", 10, 1, "has no body"),
        ("exists (P1:r0 ==# 1)", 10, 17, "unexpected character"),
    ],
)
def test_bad_condition(condition: str, line: int, column: int, fragment: str) -> None:
    text = GOOD.split("exists")[0] + condition
    with pytest.raises(LitmusError) as exc:
        parse_litmus(text, file="c.litmus")
    assert _problem(exc) == ("c.litmus", line, column)
    assert fragment in str(exc.value)


def test_missing_condition() -> None:
    with pytest.raises(LitmusError) as exc:
        parse_litmus(GOOD.split("exists")[0], file="c.litmus")
    assert "missing final condition" in str(exc.value)


@pytest.mark.parametrize(
    "text, line, column, fragment",
    [
        (GOOD.replace("PTX T", "X86 T"), 1, 1, "starts with 'PTX NAME'"),
        (GOOD.replace("PTX T\n", "\n\n"), 3, 1, "starts with 'PTX NAME'"),
        (GOOD.replace("{\nx=0;", "\nx=0;"), 2, 1, "expected the init block"),
        (GOOD.replace("}\n", ""), 3, 1, "no closing '}'"),
        (GOOD.replace("x=0;", "x=zero;"), 4, 1, "must be an integer"),
        (GOOD.replace("x=0;", "x=0; x=1;"), 4, 6, "initialised twice"),
        (GOOD.replace("x=0;", "x 0;"), 4, 1, "bad init entry"),
        (GOOD.replace("P1@cta 0,gpu 1", "P1@cta 0"), 7, 24, "bad thread header"),
        (GOOD.replace("P1@cta 0,gpu 1", "P0@cta 0,gpu 1"), 7, 24, "declared twice"),
        (GOOD.replace("ld.weak r1, x        ;", "ld.weak r1, x"), 9, 2, "ends with ';'"),
        (GOOD.replace("| ld.weak r1, x        ;", ";"), 9, 2, "1 cell(s) but there are 2"),
    ],
)
def test_malformed_structure(text: str, line: int, column: int, fragment: str) -> None:
    with pytest.raises(LitmusError) as exc:
        parse_litmus(text, file="m.litmus")
    assert _problem(exc) == ("m.litmus", line, column)
    assert fragment in str(exc.value)


def test_register_init_of_unknown_thread() -> None:
    with pytest.raises(LitmusError, match="registers of P7"):
        parse_litmus(GOOD.replace("y=0;", "y=0; P7:r0=1;"), file="m.litmus")


def test_locations_section_is_read_and_filter_is_unsupported() -> None:
    text = GOOD.replace("exists\n", "locations [x; P1:r0;]\nexists\n")
    assert parse_litmus(text, file="s.litmus").condition.kind == "exists"
    with pytest.raises(UnsupportedError) as exc:
        parse_litmus(GOOD.replace("exists\n", "filter (x == 1)\nexists\n"), file="s.litmus")
    assert _problem(exc) == ("s.litmus", 10, 1)


@pytest.mark.parametrize("cond", ["(P1 : r0 == 1)", "(1:r0 == 1)", "(P1: r0 == 1) ;",
                                  "([y] == 0 \\/ P1:r0 == 0x1)"])
def test_condition_spellings_of_litmus_assertions(cond: str) -> None:
    t = parse_litmus(GOOD.replace("(P1:r0 == 1 /\\ P1:r1 == 0)", cond), file="c.litmus")
    from litmus.condition import terms
    from litmus.ir import Const, RegRef

    found = terms(t.condition.prop)
    assert RegRef("P1", "r0") in found and Const(1) in found


def test_not_exists_spelling() -> None:
    t = parse_litmus(GOOD.replace("exists\n", "not exists\n"), file="n.litmus")
    assert t.condition.kind == "not_exists"


def test_unreadable_file(tmp_path) -> None:
    with pytest.raises(LitmusError, match="cannot read"):
        read_litmus(tmp_path / "missing.litmus")
