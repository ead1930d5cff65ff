"""Compile a jitted Triton function for a named audit target on the CPU (no GPU needed).

The audit normally reads what ``litmus.codegen.compile_variant`` produced; this helper exists
so the rule tables can be checked against real compiler output of small hand-written kernels
(tests, ``docs/audit.md``).  Triton is imported lazily.
"""

from __future__ import annotations

from typing import Any, Mapping

from litmus.codegen.targets import DEFAULT_TARGETS, Target, parse_target
from litmus.errors import LitmusError

TARGETS: dict[str, Target] = {kind: parse_target(text) for kind, text in DEFAULT_TARGETS.items()}
"""The audit table name -> the compile target its hand-written kernels are checked on."""

# Other spellings a caller (or litmus.codegen) may use for the same targets.
TARGET_ALIASES: dict[str, str] = {
    "ptx": "ptx",
    "cuda": "ptx",
    "sm_90": "ptx",
    "sm90": "ptx",
    "nvidia": "ptx",
    "sass": "sass",
    "amdgcn": "amdgcn",
    "hip": "amdgcn",
    "rocm": "amdgcn",
    "gfx942": "amdgcn",
    "amd": "amdgcn",
}


def canonical_target(target: str) -> str:
    """The audit table name (``ptx``, ``amdgcn`` or ``sass``) for a target spelling."""
    key = target.strip().lower()
    if key.startswith("cuda:") or key.startswith("hip:"):
        key = key.split(":", 1)[0]
    if key not in TARGET_ALIASES:
        known = ", ".join(sorted(TARGET_ALIASES))
        raise LitmusError(f"unknown audit target {target!r}; use one of: {known}")
    return TARGET_ALIASES[key]


def compile_jit(
    fn: Any,
    signature: Mapping[str, str],
    target: str,
    constexprs: Mapping[str, Any] | None = None,
) -> dict[str, str]:
    """Compile jitted ``fn`` for ``target`` (``ptx``, ``amdgcn`` or ``sass``); return its text artifacts.

    The result maps artifact names (``ttir``, ``ttgir``, ``llir``, ``ptx`` or ``amdgcn``) to
    their text; target ``sass`` compiles for cuda and adds ``sass`` when Triton's tools run here
    (it costs about 0.7 s a kernel on the 2-core CI machine, so it is only done when asked).
    """
    from litmus.codegen.compiler import compile_jit as compile_for

    name = canonical_target(target)
    return compile_for(fn, signature, TARGETS["ptx" if name == "sass" else name], constexprs, sass=name == "sass")
