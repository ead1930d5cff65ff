"""The tutorial's YAML is a working file, byte for byte."""

from __future__ import annotations

import re
from pathlib import Path

from litmus.spec import find_pattern, load_paths

REPO = Path(__file__).resolve().parents[2]
FILE = Path(__file__).parent / "data" / "tutorial_sb.yaml"
EPOCH = Path(__file__).parent / "data" / "tutorial_epoch.yaml"
LL = REPO / "tests" / "codegen" / "data" / "tutorial_ll.yaml"  # section 7, widths: tests/codegen/test_tutorial_widths.py


def test_tutorial_blocks_are_the_test_files() -> None:
    text = (REPO / "docs" / "tutorial-new-pattern.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    assert blocks == [FILE.read_text(), EPOCH.read_text(), LL.read_text()]


def test_tutorial_file_loads_with_the_expectations_it_explains() -> None:
    tests = load_paths([FILE])
    assert [t.variant for t in tests] == ["none-gpu", "none-sys", "acqrel-gpu", "acqrel-sys", "sc-gpu", "sc-sys"]
    assert [t.id for t in tests if t.expect.outcome == "forbidden"] == ["SB-2GPU[sc-sys]"]
    [sc_sys] = find_pattern("sb-2gpu[sc-sys]", roots=[FILE.parent])
    assert sc_sys.threads[0].rank == 0 and sc_sys.threads[1].rank == 1
    assert sc_sys.location("y").home == 1


def test_format_doc_complete_example_loads(tmp_path: Path) -> None:
    text = (REPO / "docs" / "format.md").read_text()
    block = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert block is not None
    f = tmp_path / "mp.yaml"
    f.write_text(block.group(1))
    tests = load_paths([f])
    assert [(t.id, t.expect.outcome) for t in tests] == [("MP[volatile-sys]", "allowed"), ("MP[relacq-sys]", "forbidden")]


def test_the_epoch_example_computes_the_epoch_and_waits_on_a_change() -> None:
    from litmus import ir
    from litmus.model import check

    tests = load_paths([EPOCH])
    assert [(t.variant, t.expect.outcome) for t in tests] == [
        ("store-relacq", "forbidden"), ("exch-relacq", "forbidden"), ("store-relaxed-wait", "allowed")]
    relacq, exch, _ = tests
    assert isinstance(relacq.thread("P0").instrs[2], ir.Compute)  # r100 = r0 + 1, then the store of r100
    assert isinstance(relacq.thread("P0").instrs[3], ir.Store) and isinstance(exch.thread("P0").instrs[3], ir.Rmw)
    assert relacq.thread("P1").instrs[0].cmp == "!="
    assert {dict(s)["P1:r1"] for s in check(relacq, "ptx75").allowed_states} == {1}
