"""Interop both ways on the whole catalog: every variant exports to a ``.litmus`` text that
Dat3M's LitmusPTX.g4 accepts (checked with :mod:`ptx_grammar`, its Lark translation) and that
the reader reads back identically (up to :func:`normalize_for_roundtrip`)."""

from __future__ import annotations

from pathlib import Path

import pytest

import litmus
from litmus.errors import LitmusError
from litmus.interop import dat3m_dir, normalize_for_roundtrip, parse_litmus, write_litmus
from litmus.spec import load_paths
from ptx_grammar import GrammarError, accepts, check_text

CATALOG = Path(litmus.__file__).resolve().parent.parent / "catalog"
VARIANTS = load_paths([CATALOG]) if CATALOG.is_dir() else []


@pytest.mark.parametrize("test", VARIANTS, ids=[t.id for t in VARIANTS])
def test_catalog_variant_exports_to_grammar_text_that_reads_back_identically(test) -> None:
    if test.uses_widths():
        pytest.skip("access widths, views and vectors are not expressible in .litmus "
                    "(test_widths_are_refused_with_a_located_error)")
    text = write_litmus(test)
    check_text(text)
    back = parse_litmus(text, file="x.litmus")
    assert normalize_for_roundtrip(back) == normalize_for_roundtrip(test)
    assert write_litmus(back) == text


def test_widths_are_refused_with_a_located_error() -> None:
    wide = [t for t in VARIANTS if t.uses_widths()]
    assert wide
    for t in wide:
        with pytest.raises(LitmusError) as err:
            write_litmus(t)
        (problem,) = err.value.problems
        assert problem.file == t.source_file and problem.line is not None
        assert "not expressible in .litmus" in problem.message


def test_the_catalog_is_there() -> None:
    assert len(VARIANTS) >= 200


ROOT = dat3m_dir()


@pytest.mark.skipif(ROOT is None, reason="Dat3M PTX corpus not found: expected ../shared/dat3m-ptx")
def test_the_grammar_check_accepts_every_dat3m_file() -> None:
    files = sorted((ROOT / "litmus").rglob("*.litmus"))
    assert len(files) == 748
    for f in files:
        check_text(f.read_text())


@pytest.mark.parametrize("text, line", [
    ("PTX T\n{x=0;}\n P0@cta 0,gpu 0 ;\n st.volatile x, 1 ;\nexists (x == 1)\n", 4),  # no volatile
    ("PTX T\n{x=0;}\n P0@cta 0,gpu 0 ;\n red.relaxed.gpu.cas x, 0, 1 ;\nexists (x == 1)\n", 4),
    ("PTX T\n{x=0;}\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (true)\n", 5),
    ("PTX T\n{x=0;}\n P0@cta 0,gpu 0 ;\n ld.weak q, x ;\nexists (x == 1)\n", 4),  # registers are r<N>
    ("PTX T\n{x=0;}\n P0@cta 0,gpu 0 ;\n bar.cta.sync r1 ;\nexists (x == 1)\n", 4),
    ("PTX T\n{x=0;}\n P0@cta 0,gpu 0 ;\n fence.proxy.async ;\nexists (x == 1)\n", 4),
])
def test_the_grammar_check_rejects_what_dat3m_rejects(text: str, line: int) -> None:
    with pytest.raises(GrammarError) as exc:
        check_text(text)
    assert exc.value.line == line
    assert not accepts(text)
