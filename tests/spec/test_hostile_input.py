"""Hostile input (issue 19): every limit, located; meaning checks; encodings; no deep recursion."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from litmus.condition import ConditionSyntaxError, parse_prop
from litmus.errors import LitmusError
from litmus.interop.reader import read_litmus
from litmus.spec import load_file

BASE = """\
name: T
locations: {x: 0, y: 0}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - store: {loc: x, value: 1}
      - store: {loc: y, value: 1}
  P1:
    at: {rank: 0, cta: 1}
    do:
      - load: {reg: r0, loc: y}
      - load: {reg: r1, loc: x}
exists: "P1:r0 == 1 /\\\\ P1:r1 == 0"
expect: allowed
why: w
"""


def _error(tmp_path: Path, text: str | bytes, name: str = "t.yaml") -> str:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(LitmusError) as e:
        (read_litmus if name.endswith(".litmus") else load_file)(path)
    for p in e.value.problems:
        assert p.file == str(path), p
    return str(e.value)


def test_base_loads(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(BASE)
    assert load_file(tmp_path / "t.yaml")


def test_alias_bomb_is_stopped_at_its_line(tmp_path: Path) -> None:
    defs = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    defs += [f"a{k}: &a{k} [{', '.join([f'*a{k - 1}'] * 10)}]" for k in range(1, 9)]
    msg = _error(tmp_path, "\n".join(defs) + "\n" + BASE)
    assert "LITMUS_MAX_YAML_NODES" in msg and "t.yaml:5:" in msg


def test_recursive_alias(tmp_path: Path) -> None:
    assert "recursive" in _error(tmp_path, BASE + "x-junk: &r [1, *r]\n")


@pytest.mark.parametrize("junk", ["[" * 5000 + "]" * 5000, "{a: " * 100 + "1" + "}" * 100])
def test_deep_nesting(tmp_path: Path, junk: str) -> None:
    msg = _error(tmp_path, BASE + "x-junk: " + junk + "\n")
    assert "t.yaml:17:" in msg


def test_block_nesting_names_the_limit(tmp_path: Path) -> None:
    deep = "x-junk:\n" + "".join(" " * (i + 1) + f"k{i}:\n" for i in range(200)) + " " * 201 + "v\n"
    msg = _error(tmp_path, BASE + deep)
    assert "LITMUS_MAX_YAML_DEPTH" in msg


def test_limits_can_be_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deep = "x-junk: " + "[" * 80 + "]" * 80 + "\n"
    assert "LITMUS_MAX_YAML_DEPTH" in _error(tmp_path, BASE + deep)
    monkeypatch.setenv("LITMUS_MAX_YAML_DEPTH", "200")
    assert "unknown top-level key 'x-junk'" in _error(tmp_path, BASE + deep)


def test_file_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITMUS_MAX_FILE_BYTES", "100")
    msg = _error(tmp_path, BASE)
    assert "LITMUS_MAX_FILE_BYTES" in msg


def test_variant_product_limit(tmp_path: Path) -> None:
    axes = "".join(f"    a{i}:\n" + "".join(f"      o{j}: {{}}\n" for j in range(45)) for i in range(4))
    text = BASE.replace("expect: allowed\nwhy: w\n", "variants:\n  product:\n" + axes
                        + "  expect:\n    - outcome: allowed\n      why: w\n")
    msg = _error(tmp_path, text)
    assert "4100625 variants" in msg and "LITMUS_MAX_VARIANTS" in msg and "t.yaml:16:" in msg


def test_empty_variants(tmp_path: Path) -> None:
    text = BASE.replace("expect: allowed\nwhy: w\n", "variants: []\n")
    assert "t.yaml:15:" in _error(tmp_path, text) and "empty" in _error(tmp_path, text)
    text = BASE.replace("expect: allowed\nwhy: w\n",
                        "variants:\n  product: {a: {}}\n  expect: [{outcome: allowed, why: w}]\n")
    assert "no options" in _error(tmp_path, text)


def test_placeholder_bombs(tmp_path: Path) -> None:
    levels = 12
    decl = ", ".join(f"p{i}: s" for i in range(levels + 1))
    sets = ", ".join(f'p{i}: ["{{p{i + 1}}}", "{{p{i + 1}}}", "{{p{i + 1}}}", "{{p{i + 1}}}"]' for i in range(levels))
    text = BASE.replace("      - store: {loc: y, value: 1}\n", '      - "{p0}"\n').replace(
        "expect: allowed\nwhy: w\n",
        f"placeholders: {{{decl}}}\nvariants:\n  - name: v\n    set: {{{sets}, p{levels}: {{fence: {{sem: sc, scope: sys}}}}}}\n"
        "    expect: allowed\n    why: w\n")
    msg = _error(tmp_path, text)
    assert "LITMUS_MAX_EXPANDED_VALUES" in msg or "LITMUS_MAX_OPS" in msg
    sets = ", ".join(f'p{i}: "{{p{i + 1}}}{{p{i + 1}}}{{p{i + 1}}}{{p{i + 1}}}"' for i in range(levels))
    text = BASE.replace("loc: x, value: 1}", 'loc: "{p0}", value: 1}', 1).replace(
        "expect: allowed\nwhy: w\n",
        f"placeholders: {{{decl}}}\nvariants:\n  - name: v\n    set: {{{sets}, p{levels}: x}}\n    expect: allowed\n    why: w\n")
    assert "LITMUS_MAX_EXPANDED_TEXT" in _error(tmp_path, text)


def test_two_key_op(tmp_path: Path) -> None:
    text = BASE.replace("- store: {loc: x, value: 1}", "- {store: {loc: x, value: 1}, fence: {sem: sc, scope: sys}}")
    assert "exactly one key" in _error(tmp_path, text)


@pytest.mark.parametrize("tag", ["!!binary aGVsbG8=", "!!timestamp 2001-12-14", "!!set {a, b}", "!local 1",
                                 "!!python/object:os.system x"])
def test_unsafe_tags(tmp_path: Path, tag: str) -> None:
    msg = _error(tmp_path, BASE.replace("why: w", f"why: {tag}"))
    assert "t.yaml:16:" in msg and "tag" in msg


def test_plain_date_is_text(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(BASE.replace("why: w", "why: 2001-12-14"))
    assert load_file(tmp_path / "t.yaml")[0].expand()[0].expect.why == "2001-12-14"


def test_mismatched_tag(tmp_path: Path) -> None:
    assert "remove the tag" in _error(tmp_path, BASE.replace("locations: {", "locations: !!seq {"))


@pytest.mark.parametrize("cond, what", [("P3:r0 == 1", "thread P3"), ("P1:r9 == 1", "r9"), ("zz == 1", "'zz'")])
def test_condition_references(tmp_path: Path, cond: str, what: str) -> None:
    assert what in _error(tmp_path, BASE.replace("P1:r0 == 1 /\\\\ P1:r1 == 0", cond))


@pytest.mark.parametrize("data, offset", [
    ("name: T\n".encode() + b"\xff\xfe rest\n", 8),
    (BASE.encode("utf-16"), 0),
    (gzip.compress(BASE.encode()), 1),
    (b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)), None),
    (b"name: T\n\x00\x01", 8),
])
@pytest.mark.parametrize("suffix", [".yaml", ".litmus"])
def test_not_utf8(tmp_path: Path, data: bytes, offset: int | None, suffix: str) -> None:
    kind = "YAML" if suffix == ".yaml" else ".litmus"
    msg = _error(tmp_path, data, "t" + suffix)
    assert f"not UTF-8 {kind} text" in msg and "byte offset" in msg
    if offset is not None:
        assert f"byte offset {offset} " in msg


def test_huge_integer_is_located(tmp_path: Path) -> None:
    msg = _error(tmp_path, BASE.replace("value: 1}", "value: " + "9" * 5000 + "}", 1))
    assert "t.yaml:7:" in msg


LITMUS = """\
PTX MP
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | ld.weak r0, y ;
 st.weak y, 1   | ld.weak r1, x ;
exists (P1:r0 == 1 /\\ COND)
"""


@pytest.mark.parametrize("cond, what", [("P2:r1 == 0", "thread P2"), ("P1:r7 == 0", "r7"), ("zz == 1", "location zz")])
def test_litmus_condition_references(tmp_path: Path, cond: str, what: str) -> None:
    msg = _error(tmp_path, LITMUS.replace("COND", cond), "t.litmus")
    assert what in msg and "t.litmus:6:" in msg


def test_litmus_valid_condition(tmp_path: Path) -> None:
    (tmp_path / "t.litmus").write_text(LITMUS.replace("COND", "P1:r1 == 0 /\\ x == 1"))
    assert read_litmus(tmp_path / "t.litmus").name == "MP"


def test_litmus_deep_condition(tmp_path: Path) -> None:
    cond = "(" * 3000 + "x == 1" + ")" * 3000
    assert "LITMUS_MAX_CONDITION_DEPTH" in _error(tmp_path, LITMUS.replace("COND", cond), "t.litmus")


@pytest.mark.parametrize("text", ["(" * 100_000 + "x == 1" + ")" * 100_000, "~" * 100_000 + "x == 1",
                                  "~(" * 50_000 + "x == 1" + ")" * 50_000])
def test_condition_parser_does_not_recurse_without_bound(text: str) -> None:
    with pytest.raises(ConditionSyntaxError) as e:
        parse_prop(text)
    assert "LITMUS_MAX_CONDITION_DEPTH" in str(e.value)


def test_condition_depth_within_limit_and_long_flat_condition() -> None:
    assert parse_prop("(" * 60 + "x == 1" + ")" * 60)
    assert len(parse_prop(" /\\ ".join(["x == 1"] * 50_000)).parts) == 50_000  # type: ignore[attr-defined]


def test_condition_depth_limit_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITMUS_MAX_CONDITION_DEPTH", "200")
    assert parse_prop("(" * 150 + "x == 1" + ")" * 150)


@pytest.mark.parametrize("big", [str(2**64), str(-(2**63) - 1), "9" * 300])
def test_integers_beyond_64_bits(tmp_path: Path, big: str) -> None:
    msg = _error(tmp_path, BASE.replace("value: 1}", f"value: {big}}}", 1))
    assert "t.yaml:7:" in msg and "64 bits" in msg


def test_integers_within_64_bits(tmp_path: Path) -> None:
    for top in (2**63 - 1, 2**64 - 1):  # signed, and unsigned for a 64-bit location
        (tmp_path / "t.yaml").write_text(BASE.replace("value: 1}", f"value: {top}}}", 1))
        assert load_file(tmp_path / "t.yaml")
