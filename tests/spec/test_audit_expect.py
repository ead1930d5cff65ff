"""Declared audit findings (audit_expect) travel from YAML into the IR expectation."""

from __future__ import annotations

from pathlib import Path

import pytest

from litmus.errors import LitmusError
from litmus.ir import AuditExpect
from litmus.spec import load_paths

BASE = """\
name: CAS-AMD
locations: {flag: 0}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - cas: {loc: flag, expected: 0, value: 1, sem: release, scope: sys}
exists: "flag == 1"
variants:
  - name: release-sys
    set: {}
    expect: allowed
    why: one thread
    audit_expect:
%s
"""


def test_audit_expect_is_carried_to_the_ir(tmp_path: Path) -> None:
    p = tmp_path / "cas.yaml"
    p.write_text(BASE % ('      - {target: "hip:gfx942", op: rmw cas release sys, triton: ">=3.6,<3.8",'
                         ' why: triton 3.6 ignores atomic_cas sem/scope on AMD}'))
    (test,) = load_paths([p])
    assert test.expect is not None
    assert test.expect.audit == (
        AuditExpect("hip:gfx942", "rmw cas release sys", ">=3.6,<3.8",
                    "triton 3.6 ignores atomic_cas sem/scope on AMD", test.expect.audit[0].line),
    )
    assert test.expect.audit[0].line is not None


def test_audit_expect_needs_why(tmp_path: Path) -> None:
    p = tmp_path / "cas.yaml"
    p.write_text(BASE % '      - {target: "hip:gfx942", op: rmw cas release sys}')
    with pytest.raises(LitmusError) as err:
        load_paths([p])
    assert "why" in str(err.value)
    assert err.value.problems[0].line is not None
