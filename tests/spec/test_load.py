"""Loading valid catalog files into exact IR."""

from __future__ import annotations

from pathlib import Path

import pytest

from litmus import ir
from litmus.errors import LitmusError
from litmus.spec import default_catalog_dir, find_pattern, load_file, load_paths

DATA = Path(__file__).parent / "data"


def test_every_op_maps_to_its_ir_instruction() -> None:
    [pattern] = load_file(DATA / "all_ops.yaml")
    [t] = pattern.expand()
    assert (t.name, t.variant, t.id) == ("ALLOPS", "", "ALLOPS")
    assert t.title == "Every op once" and t.description == "One of each op, for the loader tests."
    assert t.origin == "tests" and t.tags == ("unit", "ops") and t.params == ()
    assert t.source_file == str(DATA / "all_ops.yaml") and t.source_line == 1
    assert t.expect == ir.Expectation("allowed", "a unit test", True)
    assert t.locations == (ir.Location("x", 0, 0, 7), ir.Location("flag", 5, 1, 8))
    p0, p1 = t.threads
    assert (p0.name, p0.rank, p0.cta, p0.reg_init, p0.line) == ("P0", 0, 0, (("r9", 7),), 10)
    assert (p1.name, p1.rank, p1.cta, p1.line) == ("P1", 1, 3, 31)
    assert p0.instrs == (
        ir.Load("r0", "x", "weak", "sys", False, 14),
        ir.Store("x", ir.Reg("r0"), "weak", "sys", False, 15),
        ir.Load("r1", "flag", "relaxed", "sys", True, 16),
        ir.Store("flag", ir.Const(2), "relaxed", "sys", True, 17),
        ir.Load("r2", "x", "acquire", "gpu", False, 18),
        ir.Store("x", ir.Reg("r9"), "release", "cta", False, 19),
        ir.Rmw("cas", "r3", "flag", ir.Const(1), ir.Const(0), "acq_rel", "sys", 20),
        ir.Rmw("exch", None, "flag", ir.Const(3), None, "relaxed", "sys", 21),
        ir.Rmw("add", "r4", "x", ir.Const(1), None, "release", "gpu", 22),
        ir.Fence("sc", "sys", 23),
        ir.Barrier(ir.Const(2), None, False, 24),
        ir.Barrier(ir.Const(0), None, False, 25),
        ir.Spin("flag", 1, ir.SpinRead("load", "relaxed", "sys", True), 1000, "r5", 26),
        ir.Spin("flag", 1, ir.SpinRead("load", "acquire", "gpu", False), 50, None, 27),
        ir.Spin("flag", 1, ir.SpinRead("cas", "acquire", "sys", False, 0), 1000, None, 28),
        ir.Spin("flag", 1, ir.SpinRead("load", "relaxed", "sys", True), 1000, None, 29),
        ir.Spin("flag", 1, ir.SpinRead("load", "relaxed", "cta", False), 1000, None, 30),
    )
    assert p1.instrs == (ir.Load("r0", "flag", line=34),)
    assert t.condition.kind == "forall"
    assert t.condition.text == "P0:r0 == 0 /\\ (x >= 0 \\/ P1:r0 != 2)"
    assert t.condition.prop == ir.And(
        (
            ir.Cmp(ir.RegRef("P0", "r0"), "==", ir.Const(0)),
            ir.Or((ir.Cmp(ir.LocRef("x"), ">=", ir.Const(0)), ir.Cmp(ir.RegRef("P1", "r0"), "!=", ir.Const(2)))),
        )
    )


def test_product_variants_expand_in_axis_order_with_first_matching_rule() -> None:
    [pattern] = load_file(DATA / "product.yaml")
    tests = pattern.expand()
    assert pattern.variants == ["none-gpu", "none-sys", "one-gpu", "one-sys", "two-gpu", "two-sys"]
    outcome = {t.variant: (t.expect.outcome, t.expect.why) for t in tests}
    assert outcome["one-sys"] == ("forbidden", "sc fences at sys scope restore SC")
    assert outcome["two-sys"] == ("forbidden", "sc fences at sys scope restore SC")  # rule 1 before rule 2
    assert outcome["two-gpu"] == ("allowed", "second rule")
    assert outcome["none-sys"] == ("allowed", "fallback")
    # variant line: the option of the first axis
    assert [t.source_line for t in tests] == [28, 28, 29, 29, 30, 30]


def test_placeholder_lists_are_spliced_into_do() -> None:
    tests = {t.variant: t for t in load_file(DATA / "product.yaml")[0].expand()}
    none, one, two = tests["none-gpu"], tests["one-sys"], tests["two-gpu"]
    assert none.threads[0].instrs == (
        ir.Store("x", ir.Const(1), line=10),
        ir.Load("r0", "y", line=12),
    )
    assert one.threads[0].instrs[1] == ir.Fence("sc", "sys", 29)
    assert two.threads[1].instrs[1:3] == (ir.Fence("acq_rel", "gpu", 30), ir.Fence("sc", "gpu", 30))
    assert len(two.threads[1].instrs) == 4


def test_placeholders_fill_numbers_text_and_params() -> None:
    tests = {t.variant: t for t in load_file(DATA / "product.yaml")[0].expand()}
    assert tests["one-sys"].location("y") == ir.Location("y", 0, 1, 5)
    assert tests["one-gpu"].location("y").home == 0
    assert tests["one-sys"].condition.prop == ir.And(
        (ir.Cmp(ir.RegRef("P0", "r0"), "==", ir.Const(0)), ir.Cmp(ir.RegRef("P1", "r0"), "==", ir.Const(0)))
    )
    assert dict(tests["one-sys"].params) == {
        "fence": "{fence: {sem: sc, scope: '{scope}'}}",
        "scope": "sys",
        "home_y": "1",
        "v": "0",
    }
    assert dict(tests["none-gpu"].params)["fence"] == "[]"


LIST_VARIANTS = """\
name: MPL
locations: {x: 0, flag: 0}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - store: {loc: x, value: 1}
      - "{signal}"
  P1:
    at: {rank: "{rank}", cta: 0}
    do:
      - spin: {loc: flag, until: 1, read: "{read}", scope: "{scope}", reg: r0}
      - load: {reg: r1, loc: x}
"~exists": "P1:r0 == 1 /\\\\ P1:r1 == 0"
placeholders:
  signal: the flag store
  read: spin read
  scope: scope
  rank: consumer rank
variants:
  - name: relacq
    set:
      signal: {atomic_store: {loc: flag, value: 1, sem: release, scope: "{scope}"}}
      read: acquire
      scope: sys
      rank: 1
    expect: forbidden
    why: release/acquire sys
  - name: relaxed
    set: {signal: {atomic_store: {loc: flag, value: 1, sem: relaxed, scope: sys}}, read: relaxed, scope: gpu, rank: 0}
    expect: allowed
    why: relaxed
    may_hang: true
---
name: SECOND
locations: {x: 0}
threads:
  P0: {at: {rank: 0, cta: 0}, do: [{load: {reg: r0, loc: x}}]}
not_exists: "0:r0 == 1"
expect: forbidden
why: nobody writes 1
"""


def test_list_variants_and_several_documents(tmp_path: Path) -> None:
    f = tmp_path / "mpl.yaml"
    f.write_text(LIST_VARIANTS)
    first, second = load_file(f)
    relacq, relaxed = first.expand()
    assert relacq.id == "MPL[relacq]" and relacq.source_line == 21
    assert relacq.threads[0].instrs[1] == ir.Store("flag", ir.Const(1), "release", "sys", False, 23)
    assert relacq.threads[1].rank == 1
    assert relacq.threads[1].instrs[0] == ir.Spin("flag", 1, ir.SpinRead("load", "acquire", "sys"), 1000, "r0", 12)
    assert relacq.condition.kind == "not_exists"
    assert relaxed.expect == ir.Expectation("allowed", "relaxed", True)
    assert relaxed.threads[1].instrs[0].read == ir.SpinRead("load", "relaxed", "gpu")
    assert relaxed.threads[1].rank == 0
    [s] = second.expand()
    assert s.condition == ir.Condition("not_exists", ir.Cmp(ir.RegRef("P0", "r0"), "==", ir.Const(1)), "0:r0 == 1")


def test_load_paths_recurses_sorted_and_skips_non_yaml(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.yml").write_text((DATA / "all_ops.yaml").read_text())
    (tmp_path / "a.yaml").write_text((DATA / "product.yaml").read_text())
    (tmp_path / "schema.json").write_text("{not yaml at all")
    (tmp_path / "notes.txt").write_text("::")
    tests = load_paths([tmp_path])
    assert [t.name for t in tests] == ["SBX"] * 6 + ["ALLOPS"]
    assert tests[-1].source_file == str(tmp_path / "b" / "z.yml")


def test_load_paths_reports_problems_of_all_files_at_once(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("name: A\nlocations: {x: 0}\n")
    (tmp_path / "b.yaml").write_text("name: [\n")
    with pytest.raises(LitmusError) as e:
        load_paths([tmp_path, tmp_path / "missing.yaml"])
    files = {Path(p.file).name for p in e.value.problems}
    assert files == {"a.yaml", "b.yaml", "missing.yaml"}


def test_duplicate_pattern_names_across_files(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text((DATA / "all_ops.yaml").read_text())
    (tmp_path / "b.yaml").write_text((DATA / "all_ops.yaml").read_text())
    with pytest.raises(LitmusError, match="pattern name 'ALLOPS' is already used"):
        load_paths([tmp_path])


def test_find_pattern_case_insensitive_variant_and_close_names(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text((DATA / "product.yaml").read_text())
    assert len(find_pattern("sbx", roots=[tmp_path])) == 6
    [one] = find_pattern("SBX[one-SYS]", roots=[tmp_path])
    assert one.variant == "one-sys"
    with pytest.raises(LitmusError, match="did you mean SBX"):
        find_pattern("SBXX", roots=[tmp_path])
    with pytest.raises(LitmusError, match="did you mean one-sys"):
        find_pattern("SBX[one-sy]", roots=[tmp_path])


def test_default_catalog_dir_is_the_repo_catalog() -> None:
    import litmus

    assert default_catalog_dir() == Path(litmus.__file__).resolve().parent.parent / "catalog"
