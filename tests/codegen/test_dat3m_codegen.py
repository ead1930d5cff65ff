"""Codegen on Dat3M's whole PTX corpus: Triton source or a located "no Triton form" error,
never a crash (proxies, aliases, quorum barriers and control flow have no Triton form)."""

from __future__ import annotations

import pytest

from litmus.codegen import generate
from litmus.errors import UnsupportedError
from litmus.interop import dat3m_dir, read_litmus

ROOT = dat3m_dir()


@pytest.mark.skipif(ROOT is None, reason="Dat3M PTX corpus not found: expected ../shared/dat3m-ptx")
def test_every_corpus_file_generates_or_is_refused_with_a_location():
    files = sorted((ROOT / "litmus").rglob("*.litmus"))
    generated = refused = 0
    for f in files:
        t = read_litmus(f)
        try:
            generate(t)
            generated += 1
        except UnsupportedError as e:
            refused += 1
            assert e.problems[0].file == str(f), str(e)
    assert generated + refused == len(files) == 748
    assert generated > 0 and refused > 0


def test_proxy_constructs_say_no_triton_form():
    from litmus.interop import parse_litmus

    text = """PTX P
{
x=0;
y @ texture aliases x;
}
 P0@cta 0,gpu 0 ;
 st.weak x, 1 ;
 fence.proxy.texture ;
 tld.weak r0, y ;
exists (P0:r0 == 0)
"""
    with pytest.raises(UnsupportedError, match="no Triton form") as exc:
        generate(parse_litmus(text, file="p.litmus"))
    assert (exc.value.problems[0].file, exc.value.problems[0].line) == ("p.litmus", 4)
    no_alias = text.replace("y @ texture aliases x;\n", "").replace(", y ;", ", x ;")
    with pytest.raises(UnsupportedError, match=r"no Triton form: fence.proxy.texture") as exc:
        generate(parse_litmus(no_alias, file="p.litmus"))
    assert exc.value.problems[0].line == 7
