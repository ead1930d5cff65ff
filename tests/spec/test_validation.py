"""Each class of mistake in a catalog file yields a problem at the right line, saying the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from litmus.errors import LitmusError, Problem
from litmus.spec import load_file

BASE = """\
name: MP
locations:
  x: 0
  flag: {init: 0, home: 1}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - store: {loc: x, value: 1}
      - "{signal}"
  P1:
    at: {rank: 1, cta: 0}
    do:
      - atomic_load: {reg: r0, loc: flag, sem: acquire, scope: "{scope}"}
      - load: {reg: r1, loc: x}
exists: "P1:r0 == 1 /\\\\ P1:r1 == 0"
placeholders:
  signal: how P0 raises the flag
  scope: scope of the flag accesses
variants:
  - name: relacq-sys
    set:
      signal: {atomic_store: {loc: flag, value: 1, sem: release, scope: sys}}
      scope: sys
    expect: forbidden
    why: morally strong release/acquire
  - name: relacq-gpu
    set:
      signal: {atomic_store: {loc: flag, value: 1, sem: release, scope: gpu}}
      scope: gpu
    expect: allowed
    why: gpu scope does not reach the other GPU
"""


def problems(text: str, tmp_path: Path) -> list[Problem]:
    f = tmp_path / "p.yaml"
    f.write_text(text)
    with pytest.raises(LitmusError) as e:
        load_file(f)
    assert all(p.file == str(f) for p in e.value.problems)
    return e.value.problems


def line_of(text: str, marker: str) -> int:
    """The 1-based line starting with ``marker``, else the one line containing it."""
    lines = list(enumerate(text.splitlines(), 1))
    [n] = [i for i, line in lines if line.startswith(marker)] or [i for i, line in lines if marker in line]
    return n


def edit(old: str, new: str, text: str = BASE) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def test_base_is_valid(tmp_path: Path) -> None:
    f = tmp_path / "p.yaml"
    f.write_text(BASE)
    assert [t.id for t in load_file(f)[0].expand()] == ["MP[relacq-sys]", "MP[relacq-gpu]"]


# (edit old, edit new, marker for the expected line, words the message must contain)
CASES = [
    ("    at: {rank: 1, cta: 0}\n    do:", "    at: {rank: 1, cta: 0}\n   do:", "   do:", ["bad YAML syntax"]),
    ("exists: \"P1", "exists: [\"P1", "placeholders:", ["bad YAML syntax"]),  # noticed on the next line
    ("why: morally strong release/acquire", "why: release: acquire \"pairs\"", "why: release: acquire",
     ["bad YAML syntax", "text that contains ': ' must be quoted", 'write why: "release: acquire \\"pairs\\""']),
    ("placeholders:", "placeholdrs:", "placeholdrs:", ["unknown top-level key 'placeholdrs'", "did you mean 'placeholders'", "accepted:"]),
    ("- store: {loc: x", "- stor: {loc: x", "- stor:", ["unknown op 'stor'", "did you mean 'store'", "accepted: load, store"]),
    ("{loc: x, value: 1}", "{loc: x, vaule: 1}", "vaule", ["unknown field 'vaule' of op 'store'", "did you mean 'value'"]),
    ("{loc: x, value: 1}", "{loc: x, value: 1.5}", "value: 1.5", ["'threads.P0.do[0].store.value' must be an integer or a name"]),
    ("{loc: x, value: 1}", "{loc: x, value: one}", "value: one", ["register 'one' is read by store in P0 before P0 writes it"]),
    ("{loc: x, value: 1}", "{loc: x, value: [1]}", "value: [1]",
     ["value of store in P0 is a list, which only a vector access (vec:) takes", "give one value"]),
    ("{loc: x, value: 1}", "{loc: x, value: r7}", "value: r7", ["register 'r7' is read by store in P0 before P0 writes it", "regs:"]),
    ("{reg: r1, loc: x}", "{reg: r1, loc: z}", "loc: z}", ["unknown location 'z' in load of P1", "known locations: x, flag"]),
    ("{reg: r1, loc: x}", "{reg: r1, loc: flg}", "loc: flg", ["did you mean 'flag'"]),
    ("sem: acquire, scope: \"{scope}\"", "sem: release, scope: \"{scope}\"", "sem: release, scope: \"{scope}\"",
     ["atomic_load.sem' must be one of 'relaxed', 'acquire'", "got 'release'"]),
    ("sem: acquire, scope: \"{scope}\"", "sem: acquire, scope: gpuu", "scope: gpuu", ["did you mean 'gpu'", "one of 'cta', 'gpu', 'sys'"]),
    ("sem: acquire, scope: \"{scope}\"", "sem: acquire", "sem: acquire}", ["op 'atomic_load'", "missing required key 'scope'"]),
    ("- load: {reg: r1, loc: x}", "- spin: {loc: flag, until: 1, read: volatile, bound: 0}", "bound: 0", ["must be a positive integer", "bounded"]),
    ("- load: {reg: r1, loc: x}", "- spin: {loc: flag, until: 1, read: volatile, bound: .inf}", "bound: .inf", ["positive integer", "got inf"]),
    ("- load: {reg: r1, loc: x}", "- spin: {loc: flag, until: 1, read: volatile, bound: null}", "bound: null", ["positive integer", "null"]),
    ("- load: {reg: r1, loc: x}", "- spin: {loc: flag, until: 1, read: acquire}", "read: acquire}", ["read: acquire needs the spin's scope"]),
    ("- load: {reg: r1, loc: x}", "- spin: {loc: flag, until: 1, cmp: '!=', read: {kind: cas, reset: 0, sem: acquire, scope: sys}}",
     "cmp: '!='", ["a cas read exits when its compare succeeds, so it takes no cmp", "read: {kind: load"]),
    ("- load: {reg: r1, loc: x}", "- spin: {loc: flag, until: 1, mask: 3, read: {kind: cas, reset: 0, sem: acquire, scope: sys}}",
     "mask: 3", ["takes no mask"]),
    ("- load: {reg: r1, loc: x}", "- spin: {loc: flag, until: 1, cmp: '=<', read: volatile}", "cmp: '=<'",
     ["spin.cmp' must be one of '==', '!=', '<', '<=', '>', '>='", "got '=<'"]),
    ("{loc: x, value: 1}", "{loc: x, value: 'r9 + 1'}", "value: 'r9 + 1'", ["register 'r9' is read by store in P0 before P0 writes it"]),
    ("{loc: x, value: 1}", "{loc: x, value: 'r9 + + 1'}", "value: 'r9 + + 1'", ["store.value'", "register expression such as", "got 'r9 + + 1'"]),
    ("- load: {reg: r1, loc: x}", "- fence: {sem: acquire, scope: sys}", "fence:", ["fence.sem' must be one of 'acq_rel', 'sc'"]),
    ("- load: {reg: r1, loc: x}", "- fence: {scope: sys}", "fence:", ["missing required key 'sem'"]),
    ("P1:r0 == 1 /", "P1:r5 == 1 /", "exists:", ["P1 never writes register 'r5'", "registers of P1: r0, r1"]),
    ("P1:r0 == 1 /", "P3:r0 == 1 /", "exists:", ["thread P3, which does not exist"]),
    ("P1:r0 == 1 /", "y == 1 /", "exists:", ["location 'y', which is not declared"]),
    ("P1:r0 == 1 /", "P1:r0 == = 1 /", "exists:", ["bad condition"]),
    ("exists:", "forall:", "forall:", []),  # valid: forall instead of exists -> no problem (checked below)
    ("    at: {rank: 1, cta: 0}", "    at: {rank: -1, cta: 0}", "rank: -1", ["must be a non-negative integer"]),
    ("    at: {rank: 1, cta: 0}", "    at: {rank: 1, cta: -2}", "cta: -2", ["must be a non-negative integer"]),
    ("  P1:\n", "  P0:\n", "  P0:\n    at: {rank: 1", ["duplicate thread name 'P0'"]),
    ("  P1:\n", "  T1:\n", "T1:", ["must be a thread name P0, P1"]),
    ("      scope: gpu\n", "", "- name: relacq-gpu", ["variant 'relacq-gpu' leaves placeholder 'scope' unfilled"]),
    ("      scope: gpu\n", "      scope: gpu\n      scop: gpu\n", "scop: gpu", ["variant 'relacq-gpu' sets unknown placeholder 'scop'", "did you mean 'scope'"]),
    ("  scope: scope of the flag accesses\n", "", "scope: \"{scope}\"", ["placeholder '{scope}' is used but not declared"]),
    ("- name: relacq-gpu", "- name: relacq-sys", "- name: relacq-sys\n    set:\n      signal: {atomic_store: {loc: flag, value: 1, sem: release, scope: gpu}}",
     ["duplicate variant name 'relacq-sys'"]),
    ("expect: allowed", "expect: maybe", "expect: maybe", ["must be one of 'forbidden', 'allowed'"]),
    ("    why: gpu scope does not reach the other GPU\n", "", "- name: relacq-gpu", ["missing required key 'why'"]),
    ("signal: {atomic_store: {loc: flag, value: 1, sem: release, scope: gpu}}",
     "signal: {atomic_store: {loc: flag, value: 1, sem: release, scope: gpuu}}", "scope: gpuu",
     ["in variant 'relacq-gpu'", "did you mean 'gpu'"]),
    ("signal: {atomic_store: {loc: flag, value: 1, sem: release, scope: gpu}}",
     "signal: {atomic_store: {loc: flg, value: 1, sem: release, scope: gpu}}", "loc: flg",
     ["in variant 'relacq-gpu'", "unknown location 'flg'"]),
    ("      scope: sys\n", "      scope: syss\n", "scope: syss", ["in variant 'relacq-sys'", "did you mean 'sys'"]),
]


@pytest.mark.parametrize("old,new,marker,words", CASES, ids=[f"{i}:{c[1][:28]}" for i, c in enumerate(CASES)])
def test_mistake_is_reported_at_its_line(old: str, new: str, marker: str, words: list[str], tmp_path: Path) -> None:
    text = edit(old, new)
    if not words:
        f = tmp_path / "ok.yaml"
        f.write_text(text)
        assert load_file(f)[0].expand()[0].condition.kind == "forall"
        return
    [first, *_] = ps = problems(text, tmp_path)
    want = line_of(text, marker) if "\n" not in marker else text[: text.index(marker)].count("\n") + 1
    assert first.line == want, ps
    for w in words:
        assert w in first.message, first.message
    assert first.column is None or first.column >= 1


PRODUCT = """\
name: SB
locations: {x: 0, y: {init: 0, home: 1}}
threads:
  P0: {at: {rank: 0, cta: 0}, do: [{store: {loc: x, value: 1}}, "{fence}", {load: {reg: r0, loc: y}}]}
  P1: {at: {rank: 1, cta: 0}, do: [{store: {loc: y, value: 1}}, "{fence}", {load: {reg: r0, loc: x}}]}
exists: "P0:r0 == 0 /\\\\ P1:r0 == 0"
placeholders: {fence: fence ops}
variants:
  product:
    fence:
      none: {fence: []}
      sc: {fence: {fence: {sem: sc, scope: sys}}}
  expect:
    - when: {fence: sc}
      outcome: forbidden
      why: fences
    - outcome: allowed
      why: no fences
"""


@pytest.mark.parametrize(
    "old,new,marker,words",
    [
        ("when: {fence: sc}", "when: {fenc: sc}", "fenc:", ["unknown axis 'fenc'", "did you mean 'fence'"]),
        ("when: {fence: sc}", "when: {fence: sq}", "fence: sq", ["unknown option 'sq' of axis 'fence'", "options: none, sc"]),
        ("    - outcome: allowed\n      why: no fences\n", "", "  expect:", ["no expect rule matches variant 'none'"]),
        ("      why: fences\n", "", "- when:", ["missing required key 'why'"]),
        ("outcome: forbidden", "outcome: forbiden", "forbiden", ["did you mean 'forbidden'"]),
        ("sc: {fence: {fence: {sem: sc, scope: sys}}}", "sc: {fence: {fence: {sem: sc, scope: sy}}}", "scope: sy}",
         ["in variant 'sc'", "did you mean 'sys'"]),
        ("none: {fence: []}", "none: {fence: [], fnce: 1}", "fnce:", ["variant 'none' sets unknown placeholder 'fnce'"]),
    ],
)
def test_product_mistakes(old: str, new: str, marker: str, words: list[str], tmp_path: Path) -> None:
    text = edit(old, new, PRODUCT)
    first = problems(text, tmp_path)[0]
    assert first.line == line_of(text, marker), first
    for w in words:
        assert w in first.message, first.message


def test_all_problems_of_a_file_are_reported_together(tmp_path: Path) -> None:
    text = edit("- store: {loc: x", "- stor: {loc: x", edit("scope: \"{scope}\"}", "scope: gpuu}"))
    ps = problems(text, tmp_path)
    assert [p.line for p in ps] == [line_of(text, "- stor:"), line_of(text, "gpuu")]


def test_variant_problem_shared_by_variants_is_reported_once(tmp_path: Path) -> None:
    text = edit("sem: acquire, scope: \"{scope}\"", "sem: acquire, scope: \"{scope}\", reg: r2")
    ps = problems(text, tmp_path)
    assert len(ps) == 1 and "unknown field 'reg'" in ps[0].message or "duplicate" in ps[0].message


def test_empty_file_and_non_mapping_document(tmp_path: Path) -> None:
    assert "holds no pattern" in problems("# nothing\n", tmp_path)[0].message
    p = problems("- just\n- a list\n", tmp_path)[0]
    assert p.line == 1 and "a pattern must be a mapping" in p.message


def test_no_condition_and_two_conditions(tmp_path: Path) -> None:
    no = edit('exists: "P1:r0 == 1 /\\\\ P1:r1 == 0"\n', "")
    assert "give exactly one of exists:" in problems(no, tmp_path)[0].message
    two = edit("placeholders:", 'forall: "x == 0"\nplaceholders:')
    p = problems(two, tmp_path)[0]
    assert "several conditions" in p.message and p.line == line_of(two, "forall:")


def test_pattern_without_variants_needs_expect(tmp_path: Path) -> None:
    text = "name: A\nlocations: {x: 0}\nthreads:\n  P0: {at: {rank: 0, cta: 0}, do: [{load: {reg: r0, loc: x}}]}\nexists: \"P0:r0 == 1\"\n"
    p = problems(text, tmp_path)[0]
    assert p.line == 1 and "needs expect:" in p.message


def test_shape_and_meaning_mistakes_are_reported_in_one_pass(tmp_path: Path) -> None:
    # a misspelt field (shape) and, elsewhere, an unknown location, a register read before it is
    # written and a condition register nobody writes (meaning): all four at once
    text = edit("{loc: x, value: 1}", "{loc: x, vaule: 1}")
    text = edit("{reg: r1, loc: x}", "{reg: r1, loc: z}", text)
    text = edit("P1:r0 == 1 /", "P1:r7 == 1 /", text)
    got = {(p.line, p.message.split(";")[0]) for p in problems(text, tmp_path)}
    assert (line_of(text, "vaule"), "unknown field 'vaule' of op 'store' (threads.P0.do[0])") in got
    assert (line_of(text, "loc: z"), "unknown location 'z' in load of P1") in got
    assert (line_of(text, "exists:"), "condition reads P1:r7, but P1 never writes register 'r7'") in got


def test_a_placeholder_op_silences_the_early_register_check(tmp_path: Path) -> None:
    # P0's "{signal}" may write any register, so reading r3 after it is not reported early
    text = edit("- store: {loc: x, value: 1}", "- store: {loc: x, vaule: 1}")
    text = edit("      - \"{signal}\"\n", "      - \"{signal}\"\n      - store: {loc: x, value: r3}\n", text)
    messages = [p.message for p in problems(text, tmp_path)]
    assert any("unknown field 'vaule'" in m for m in messages)
    assert not any("'r3'" in m for m in messages)


KIND = edit('      - "{signal}"\n', '      - "{kind}": {loc: flag, value: 1, sem: release, scope: "{scope}"}\n').replace(
    "  signal: how P0 raises the flag\n", "  kind: the op that raises the flag\n").replace(
    "      signal: {atomic_store: {loc: flag, value: 1, sem: release, scope: sys}}\n", "      kind: atomic_store\n").replace(
    "      signal: {atomic_store: {loc: flag, value: 1, sem: release, scope: gpu}}\n", "      kind: exch\n")


def test_an_op_kind_placeholder_picks_the_op_per_variant(tmp_path: Path) -> None:
    f = tmp_path / "k.yaml"
    f.write_text(KIND)
    sys_, gpu = load_file(f)[0].expand()
    assert type(sys_.thread("P0").instrs[1]).__name__ == "Store" and sys_.thread("P0").instrs[1].sem == "release"
    flag_op = gpu.thread("P0").instrs[1]
    assert (type(flag_op).__name__, flag_op.op, flag_op.scope) == ("Rmw", "exch", "gpu")


@pytest.mark.parametrize("value, words", [
    ("volatile_store", ["in variant 'relacq-gpu'", "unknown field 'sem' of op 'volatile_store'"]),
    ("stor", ["in variant 'relacq-gpu'", "unknown op 'stor'", "did you mean 'store'"]),
    ("{loc: x}", ["placeholder 'kind' names an op here", "must be an op name"]),
])
def test_a_bad_op_kind_is_reported_where_the_op_is(tmp_path: Path, value: str, words: list[str]) -> None:
    text = KIND.replace("      kind: exch\n", f"      kind: {value}\n")
    found = problems(text, tmp_path)
    assert any(p.line == line_of(text, '- "{kind}"') and all(w in p.message for w in words) for p in found), found
