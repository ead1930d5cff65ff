"""Declared miscompiles in hardware runs: whether a forbidden outcome is one the catalog expects.

A variant's ``audit_expect`` says that on an audit target, with a triton version in a range,
an op is missing from the compiled code (:class:`~litmus.audit.expect.DeclaredFinding`).  A
run executes that code only where a compiler made it: the cuda backend, and the ranks backend
on GPUs, execute the PTX triton emitted (target ``cuda``/``ptx``) as the SASS that the ptxas
triton ships made of it (target ``sass``); the Triton interpreter compiles nothing, so no
declaration applies to it.  A declaration applies to a run when its target is one the run
executes and the installed triton is in its range (the ptxas a triton wheel ships is fixed by
its version, so the triton range is the ptxas range too; a ptxas of one's own through
``TRITON_PTXAS_PATH`` is reported, not matched).

What the miscompile does to outcomes is taken from the model: the declared op of the form
``P1 #2`` (a thread and an instruction index) that is a load is replaced by a copy of the
register of the thread's nearest earlier load of the same location, which is what a merged
load does, and the model's allowed states of that program, less those of the variant, are the
forbidden outcomes the miscompile can show.  None of them means it cannot show in a run
(``SEQLOCK[plain-nofence-gpu]``: gpu scope across GPUs already allows every stale read); an op
that is no such load has an effect the model does not know, and then every forbidden outcome
counts as explained.

A forbidden outcome that a declaration explains is its own verdict, :data:`DECLARED_MISCOMPILE`,
never a plain ``VIOLATION`` (``litmus.session.declared_or_violation`` decides it for a run).
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
from dataclasses import dataclass, replace
from functools import cache, cached_property
from pathlib import Path
from typing import Iterable, Mapping

from litmus.audit.batch import declared_findings
from litmus.audit.compile import canonical_target
from litmus.audit.expect import DeclaredFinding, version_in
from litmus.errors import LitmusError
from litmus.ir import Compute, Load, LitmusTest, Reg
from litmus.toolchain import triton_bin

DECLARED_MISCOMPILE = "declared-miscompile"
"""The verdict of a run whose forbidden outcomes a declared miscompile explains."""

COMPILED_TARGETS: tuple[str, ...] = ("ptx", "sass")
"""The audit targets whose code a run on an NVIDIA GPU executes (canonical names)."""

GPU_BACKENDS: tuple[str, ...] = ("cuda", "ranks")
"""Backends whose kernels triton compiles for the GPU, unless their device is the interpreter."""

INTERPRETER = "Triton interpreter"
"""What a backend's ``describe()['device']`` says when the interpreter runs its kernels."""

DEFAULT_DOC = "docs/compiler-bugs.md"
_DOC = re.compile(r"docs/[\w./-]+\.md")
_OP = re.compile(r"(\S+) #(\d+)")


@dataclass(frozen=True)
class Toolchain:
    """The compilers a run's kernels go through: triton's version and that of the ptxas it uses
    (None: not installed, or no ptxas found)."""

    triton: str | None
    ptxas: str | None = None

    def text(self) -> str:
        """``triton 3.6.0, ptxas 12.8.93`` (what is known)."""
        words = [f"triton {self.triton or 'none'}"]
        if self.ptxas:
            words.append(f"ptxas {self.ptxas}")
        return ", ".join(words)


def ptxas_path() -> Path | None:
    """The ptxas triton compiles with: ``$TRITON_PTXAS_PATH``, else the one the triton wheel
    ships; None when neither exists (triton is not imported to find it)."""
    env = os.environ.get("TRITON_PTXAS_PATH")
    if env:
        return Path(env) if os.access(env, os.X_OK) else None
    bundled = triton_bin()
    path = bundled / "ptxas" if bundled is not None else None
    return path if path is not None and os.access(path, os.X_OK) else None


def ptxas_version(path: Path) -> str | None:
    """``12.9.86`` from ``ptxas --version`` (``... release 12.9, V12.9.86``); None if it does not run."""
    try:
        out = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"\bV(\d+(?:\.\d+)+)", out) or re.search(r"release (\d+(?:\.\d+)+)", out)
    return match.group(1) if match else None


@cache
def installed_toolchain() -> Toolchain:
    """The installed triton and its ptxas (looked up once per process)."""
    try:
        triton = importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        triton = None
    path = ptxas_path()
    return Toolchain(triton, ptxas_version(path) if path is not None else None)


def executed_targets(backend: str, device: str = "") -> tuple[str, ...]:
    """The audit targets whose compiled code a run on ``backend`` executes; ``device`` is the
    backend's ``describe()['device']`` (an interpreter device executes none)."""
    if backend not in GPU_BACKENDS or INTERPRETER in device:
        return ()
    return COMPILED_TARGETS


def merged_program(test: LitmusTest, op: str) -> LitmusTest | None:
    """``test`` with the load that ``op`` (``P1 #2``) names replaced by a copy of the thread's
    nearest earlier load of the same location; None when ``op`` names no such load."""
    match = _OP.fullmatch(op.strip())
    if match is None:
        return None
    name, index = match.group(1), int(match.group(2))
    threads = list(test.threads)
    for k, thread in enumerate(threads):
        if thread.name != name or index >= len(thread.instrs):
            continue
        dropped = thread.instrs[index]
        if not isinstance(dropped, Load):
            return None
        earlier = [i for i in thread.instrs[:index] if isinstance(i, Load) and i.loc == dropped.loc]
        if not earlier:
            return None
        instrs = list(thread.instrs)
        instrs[index] = Compute(dropped.reg, "mov", Reg(earlier[-1].reg), line=dropped.line)
        threads[k] = replace(thread, instrs=tuple(instrs))
        return replace(test, threads=tuple(threads))
    return None


State = tuple[tuple[str, int], ...]


def _added_states(test: LitmusTest, ops: Iterable[str]) -> frozenset[State] | None:
    """The final states the program with every op of ``ops`` merged reaches that ``test`` does
    not, under the PTX model; None when an op is not a mergeable load or the check is too big."""
    from litmus.model import check, ptx_model_for

    merged = test
    for op in sorted(set(ops)):
        merged = merged_program(merged, op)
        if merged is None:
            return None
    try:
        source = check(test, ptx_model_for(test))
        broken = check(merged, ptx_model_for(merged))
    except LitmusError:  # BudgetExceeded among them: the effect is not known
        return None
    return frozenset(broken.allowed_states) - frozenset(source.allowed_states)


def _freeze(state: Mapping[str, int] | State) -> State:
    items = state.items() if isinstance(state, Mapping) else state
    return tuple(sorted((str(k), int(v)) for k, v in items))


@dataclass(frozen=True)
class DeclaredMiscompile:
    """The declarations of ``test`` that apply to a run with ``toolchain``, and what the model
    says they can show."""

    test: LitmusTest
    findings: tuple[DeclaredFinding, ...]
    toolchain: Toolchain

    @cached_property
    def added_states(self) -> frozenset[State] | None:
        """Final states forbidden for the variant that its miscompiled program reaches (empty:
        none; None: the declared ops are not loads the model can merge, so it is not known)."""
        return _added_states(self.test, (f.op for f in self.findings))

    @property
    def visible(self) -> bool | None:
        """Whether a run can show it as a forbidden outcome (None: not known)."""
        added = self.added_states
        return None if added is None else bool(added)

    def explains(self, state: Mapping[str, int] | State) -> bool:
        """Whether the forbidden final ``state`` is one the miscompile produces (every state,
        when its effect is not known)."""
        added = self.added_states
        return added is None or _freeze(state) in added

    def explains_all(self, states: Iterable[Mapping[str, int] | State]) -> bool:
        """Whether there are forbidden ``states`` and the miscompile explains every one."""
        states = list(states)
        return bool(states) and all(self.explains(s) for s in states)

    def ops(self) -> str:
        """``P1 #2 on sass`` for each declaration, joined."""
        return ", ".join(sorted({f"{f.op} on {canonical_target(f.target)}" for f in self.findings}))

    def where(self) -> str:
        """``file:line`` of the first declaration."""
        first = self.findings[0]
        return f"{first.file}:{first.line}" if first.line else first.file

    def doc(self) -> str:
        """The doc that explains it: the first ``docs/....md`` its declarations name."""
        for f in self.findings:
            match = _DOC.search(f.why)
            if match:
                return match.group(0)
        return DEFAULT_DOC

    def reason(self) -> str:
        """One line: the bug, the compiler versions and the doc (the xfail reason)."""
        ranges = ", ".join(sorted({f.triton_version_spec or "any" for f in self.findings}))
        why = self.findings[0].why.rstrip(".")
        see = "" if self.doc() in why else f"; see {self.doc()}"
        return (f"declared miscompile ({self.where()}): {self.ops()} with {self.toolchain.text()} "
                f"(declared for triton {ranges}): {why}{see}")

    def stale_line(self, backend: str, ended: int, bound: float | None) -> str:
        """One line: the run showed no forbidden outcome, so the declaration is stale."""
        b = f"{bound:.2g}" if bound is not None else "?"
        return (f"stale declaration: the declared miscompile ({self.ops()}, {self.where()}) no longer shows "
                f"on this toolchain ({self.toolchain.text()}, {backend}): no forbidden outcome in {ended:,} "
                f"ended instances (95 % bound {b}); fix: narrow or drop its audit_expect (`litmus audit "
                f"{self.test.source_file} --target sass` says whether the code still lacks the op)")


def declared_miscompile(test: LitmusTest, backend: str, toolchain: Toolchain,
                        device: str = "") -> DeclaredMiscompile | None:
    """The declared miscompile a run of ``test`` on ``backend`` (``device``: its
    ``describe()['device']``) with ``toolchain`` executes, or None when no declaration applies."""
    targets = executed_targets(backend, device)
    if not targets or toolchain.triton is None:
        return None
    found = tuple(d for d in declared_findings(test)
                  if canonical_target(d.target) in targets and version_in(toolchain.triton, d.spec()))
    return DeclaredMiscompile(test, found, toolchain) if found else None
