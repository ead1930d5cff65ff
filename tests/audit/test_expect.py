"""Declared (expected) findings filter the audit's findings by target, op and triton version."""

import pytest

from litmus.audit import DeclaredFinding, Finding, stale, undeclared
from litmus.errors import LitmusError

F = Finding("MP[x]", "amdgcn", "P0 #1 rmw cas release sys on flag", "buffer_wbl2 sc0 sc1 ; then ...",
            "`global_atomic_cmpswap ...` at line 9", (), 9, "rmw cas release sys")


def test_declared_finding_covers_by_key_or_requirement_prefix_and_version() -> None:
    by_key = DeclaredFinding("hip:gfx942", "rmw cas release sys", ">=3.6,<3.8", "triton#1234")
    by_req = DeclaredFinding("amdgcn", "P0 #1", "", "known")
    assert undeclared([F], [by_key], "3.6.0") == []
    assert undeclared([F], [by_key], "3.9.0") == [F]  # fixed in 3.8: the finding is news again
    assert undeclared([F], [by_req], "3.9.0") == []
    assert undeclared([F], [DeclaredFinding("ptx", "rmw cas release sys")], "3.6.0") == [F]
    assert undeclared([F], [DeclaredFinding("amdgcn", "rmw cas acquire sys")], "3.6.0") == [F]


def test_stale_declarations_are_reported() -> None:
    d = DeclaredFinding("amdgcn", "rmw cas release sys", ">=3.6,<3.8")
    assert stale([], [d], "amdgcn", "3.7.1") == [d]
    assert stale([F], [d], "amdgcn", "3.7.1") == []
    assert stale([], [d], "amdgcn", "3.9.0") == []  # not meant for this version


def test_bad_version_spec_names_the_file_and_line() -> None:
    d = DeclaredFinding("amdgcn", "rmw cas release sys", "three-point-six", file="catalog/mp.yaml", line=12)
    with pytest.raises(LitmusError, match=r"catalog/mp.yaml:12: .*version specifier"):
        undeclared([F], [d], "3.9.0")
