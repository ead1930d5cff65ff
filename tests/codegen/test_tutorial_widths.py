"""The tutorial's widths example (docs/tutorial-new-pattern.md, section 7) is a working file,
byte for byte, that generates, and whose model verdicts are the ones the tutorial shows."""

from __future__ import annotations

import re
from pathlib import Path

from litmus.codegen import CodegenOptions, generate
from litmus.model import check
from litmus.spec import load_paths

REPO = Path(__file__).resolve().parents[2]
FILE = Path(__file__).parent / "data" / "tutorial_ll.yaml"


def test_the_third_yaml_block_is_the_test_file() -> None:
    text = (REPO / "docs" / "tutorial-new-pattern.md").read_text()
    assert re.findall(r"```yaml\n(.*?)```", text, re.S)[2] == FILE.read_text()


def test_the_ll_example_loads_models_and_generates_as_the_tutorial_says() -> None:
    tests = load_paths([FILE])
    assert [(t.variant, t.expect.outcome) for t in tests] == [
        ("one-store", "forbidden"), ("vector-store", "allowed"), ("two-stores", "allowed")]
    one, vec, _ = tests
    assert one.thread("P1").instrs[0].cmp == "!=" and one.thread("P1").instrs[0].mask == 0xFFFFFFFF00000000
    assert {dict(s)["P1:r0"] for s in check(one, "ptx75").allowed_states} == {0x10000002A}
    assert {dict(s)["P1:r0"] for s in check(vec, "ptx75").allowed_states} == {0x100000000, 0x10000002A}
    src = generate(one, CodegenOptions(backend="cuda"))
    assert 'st.volatile.global.b64 [$1], $2; mov.u32 $0, 0;", "=r,l,l"' in src.text
    assert "(spin_got" in src.text and "& 18446744069414584320) != 0" in src.text
