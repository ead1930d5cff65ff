"""Audit compiled PTX / AMDGCN / SASS against per-target rule tables.

A framework that trusts the source is blind to compilers that drop or weaken ordering
(CUDA 5.5 reordering volatile loads, found only in SASS by Alglave et al., ASPLOS 2015;
triton 3.6 ignoring ``atomic_cas`` sem/scope on AMD).  This package reads what the compiler
emitted and checks that every op of a litmus test carries the ordering it needs, in order.

Public API (triton is imported lazily, only by :func:`audit` and :func:`compile_jit`)::

    requirements(test) -> list[Requirement]              # what each thread asks, in program order
    audit_text(test, target, text) -> list[Finding]      # target: ptx | amdgcn | sass
    match_text(test, target, text) -> (list[Match], list[Finding])
    audit(test, target) -> AuditResult                    # compiles via litmus.codegen
    rule_table(target) -> dict[RuleKey, Rule]; render_table(target) -> str (Markdown)
    DeclaredFinding(target, op, triton_version_spec, why); undeclared(findings, declared)
    compile_jit(fn, signature, target, constexprs=None) -> dict[str, str]   # hand-written kernels
"""

from litmus.audit.check import AuditResult, Finding, Match, audit, audit_text, compiled_text, match_text
from litmus.audit.compile import canonical_target, compile_jit
from litmus.audit.expect import DeclaredFinding, stale, undeclared
from litmus.audit.requirements import Requirement, must_follow, requirements
from litmus.audit.rules import Pattern, Rule, RuleKey, Shape, render_table, rule_table

__all__ = [
    "AuditResult",
    "DeclaredFinding",
    "Finding",
    "Match",
    "Pattern",
    "Requirement",
    "Rule",
    "RuleKey",
    "Shape",
    "audit",
    "audit_text",
    "canonical_target",
    "compile_jit",
    "compiled_text",
    "match_text",
    "must_follow",
    "render_table",
    "requirements",
    "rule_table",
    "stale",
    "undeclared",
]
