"""With a line table, each requirement is matched in its own op's code, in control-flow order.

triton 3.9 lays the blocks of ``MP-iris-reset``'s producer out with its second release CAS
(P0 #4, after the spin) above its first, and above P0's payload store: a text-order search
then took another thread's instruction for P0's and reported a release CAS as acquire.
"""

from __future__ import annotations

import re

import pytest

from litmus.audit import audit_text
from litmus.audit.op_code import line_ops
from litmus.spec import load_tests

pytest.importorskip("triton")


@pytest.fixture(scope="module")
def compiled() -> tuple[object, str, str]:
    from litmus.codegen import compile_variant
    from litmus.codegen.options import audited_kernel

    [test] = load_tests(["catalog/iris_flag_reset.yaml"], variant="relacq-sys")
    c = compile_variant(test, "cuda:90", audited_kernel("cuda"))
    return test, c.text("ptx"), c.source.text


def test_the_catalog_variant_passes_with_its_source(compiled: tuple[object, str, str]) -> None:
    test, ptx, source = compiled
    assert audit_text(test, "ptx", ptx, source) == []


def _weaken(ptx: str, source: str, op: str) -> str:
    """``ptx`` with the release CASes that the line table attributes to ``op`` made relaxed."""
    ops = line_ops(ptx, "ptx", source)
    lines = ptx.splitlines()
    hit = 0
    for n, raw in enumerate(lines, start=1):
        if ops.get(n) == op and "atom.global.release.sys.cas" in raw:
            lines[n - 1] = raw.replace("release", "relaxed")
            hit += 1
    assert hit, f"no release CAS attributed to {op}"
    return "\n".join(lines) + "\n"


def test_a_weakened_second_signal_is_found_though_the_first_is_still_release(
        compiled: tuple[object, str, str]) -> None:
    test, ptx, source = compiled
    bad = _weaken(ptx, source, "P0[4]")
    findings = audit_text(test, "ptx", bad, source)
    assert [f.op for f in findings] == ["P0 #4 rmw cas release sys on flag"]
    assert "relaxed.sys.cas" in findings[0].found
    # the first signal (P0 #1) still has its release: it is not blamed
    assert len(re.findall(r"atom\.global\.release\.sys\.cas", bad)) >= 1


def test_a_weakened_first_signal_is_found(compiled: tuple[object, str, str]) -> None:
    test, ptx, source = compiled
    findings = audit_text(test, "ptx", _weaken(ptx, source, "P0[1]"), source)
    assert [f.op for f in findings] == ["P0 #1 rmw cas release sys on flag"]
