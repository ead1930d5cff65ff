"""Ops that compiled to nothing: found through the line table, illegal merges told from legal ones.

The SASS here is written by hand in nvdisasm's ``-g`` form, attributing one memory instruction
to each op's first kernel line, so each case drops exactly the ops it means to.  (ptxas 12.8
really drops ``MP-reread[plain-ldacq-plain]``'s second load: docs/compiler-bugs.md.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from litmus.audit.check import vanished
from litmus.audit.op_code import op_code, op_lines
from litmus.codegen import generate
from litmus.codegen.options import audited_kernel
from litmus.spec import load_tests

CATALOG = Path(__file__).resolve().parents[2] / "catalog"


def variant(file: str, name: str):
    [test] = [t for t in load_tests([str(CATALOG / file)]) if t.variant == name]
    return test


def sass_without(source_text: str, dropped: set[str]) -> str:
    """nvdisasm-style SASS with one ``LDG.E`` per op of ``source_text``, except ``dropped``."""
    first: dict[str, int] = {}
    for line, op in sorted(op_lines(source_text).items()):
        first.setdefault(op, line)
    out = ["\t.text.litmus_grid:"]
    for n, (op, line) in enumerate(sorted(first.items(), key=lambda kv: kv[1])):
        if op in dropped:
            continue
        out.append(f'\t//## File "/cache/kernels/litmus_0123abcd.py", line {line}')
        out.append(f"        /*{n * 16:04x}*/                   LDG.E R{n}, desc[UR4][R2.64] ;")
    return "\n".join(out)


@pytest.mark.parametrize(("file", "name", "dropped", "expected"), [
    # a plain load merged with the one before it, across ld.acquire: illegal
    ("mp_reread.yaml", "plain-ldacq-plain", {"P1[2]"}, ["P1 #2 load on x"]),
    # ... across a relaxed flag read with no fence: legal, nothing orders the two loads
    ("mp_reread.yaml", "plain-relaxed-plain", {"P1[2]"}, []),
    # ... across a relaxed read then fence.acq_rel: illegal
    ("mp_reread.yaml", "plain-fence-plain", {"P1[3]"}, ["P1 #3 load on x"]),
    # the payload store has no same-location partner: dropped outright
    ("mp_reread.yaml", "plain-ldacq-plain", {"P0[0]"}, ["P0 #0 store on x"]),
    # the seqlock's second attempt reusing the first attempt's data (the H200 violation)
    ("seqlock.yaml", "plain-nofence-sys", {"P1[9]", "P1[10]"}, ["P1 #9 load on d0", "P1 #10 load on d1"]),
    # nothing dropped: no finding
    ("seqlock.yaml", "plain-nofence-sys", set(), []),
])
def test_vanished_ops_are_findings_only_when_no_legal_merge_explains_them(
        file: str, name: str, dropped: set[str], expected: list[str]) -> None:
    test = variant(file, name)
    source = generate(test, audited_kernel("cuda")).text
    text = sass_without(source, dropped)
    assert set(op_code(text, "sass", source)) >= {op for op in op_lines(source).values() if op not in dropped}
    assert [f.op for f in vanished(test, "sass", text, source)] == expected


def test_a_fence_next_to_another_fence_may_merge_but_a_lone_fence_may_not() -> None:
    test = variant("mp_reread.yaml", "plain-fence-plain")  # P1: load x, load flag, fence, load x
    source = generate(test, audited_kernel("cuda")).text
    [finding] = vanished(test, "sass", sass_without(source, {"P1[2]"}), source)
    assert finding.op.startswith("P1 #2 fence")


def test_without_a_line_table_nothing_is_claimed() -> None:
    test = variant("mp_reread.yaml", "plain-ldacq-plain")
    source = generate(test, audited_kernel("cuda")).text
    text = "\n".join(l for l in sass_without(source, {"P1[2]"}).splitlines() if "//##" not in l)
    assert vanished(test, "sass", text, source) == []
