"""Lint a file's kernels, or one jitted kernel: find them, compile them on the CPU, extract their
signalling, apply the rules, and collect what the linter could not see."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from litmus.lint.events import KernelEvents, extract
from litmus.lint.rules import Finding, check_kernel, shape_of

LIMITS = (
    "it reads one file: a producer and a consumer in different files are not paired, and each rule judges one "
    "kernel's side of a flag (the other side is taken as the catalog variant has it)",
    "peer memory is proven only from pointer tables (buffer_ptrs/signal_pad_ptrs loaded in the kernel) and "
    "heap-base translation; a plain pointer argument is taken as local unless marked with --peer",
    "loops whose exit depends on data are analysed only as spins on one flag; for-loops with bounds read from "
    "memory are not",
    "it judges the Triton program; of the compiled code it reads only whether a CTA barrier sits where a "
    "tl.debug_barrier() is missing (run litmus audit on the --emit-yaml pattern for the rest)",
    "what the flags protect across kernel launches (symm_mem's patterns 0 and 2 rely on the launch boundary)",
)
"""What the linter cannot see; printed with every text report and listed in docs/lint.md."""


@dataclass
class KernelReport:
    """One kernel's findings and notes."""

    name: str
    file: str
    line: int
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    events: KernelEvents | None = None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready record."""
        return {"kernel": self.name, "file": self.file, "line": self.line,
                "findings": [f.as_dict() for f in self.findings], "notes": list(self.notes)}


@dataclass
class LintReport:
    """Every kernel linted for one target."""

    file: str
    target: str
    triton_version: str
    peers: frozenset[str]
    kernels: list[KernelReport] = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        """All findings, kernel by kernel."""
        return [f for k in self.kernels for f in k.findings]

    @property
    def incorrect(self) -> list[Finding]:
        """The findings whose shape the model lets go wrong (they make ``litmus lint`` exit 1)."""
        return [f for f in self.findings if f.incorrect]

    @property
    def notes(self) -> list[str]:
        """Notes of every kernel."""
        return [n for k in self.kernels for n in k.notes]

    def rules(self) -> set[tuple[str, str, int]]:
        """``(rule, kernel, line)`` of every finding (what tests compare)."""
        return {(f.rule, f.kernel, f.site.line) for f in self.findings}

    def flag_keys(self) -> set[str]:
        """Addresses some kernel of the file spins on (flags, not payload)."""
        return {e.ptr.key for k in self.kernels if k.events for e in k.events.events
                if e.kind == "spin" and e.ptr is not None}

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready record (``litmus lint --json``)."""
        return {"file": self.file, "target": self.target, "triton": self.triton_version,
                "peers": sorted(self.peers), "kernels": [k.as_dict() for k in self.kernels],
                "incorrect": len(self.incorrect), "limits": list(LIMITS)}

    def emit_yaml(self) -> str:
        """The litmus pattern of the file's signalling (see :mod:`litmus.lint.emit`)."""
        from litmus.lint.emit import emit_yaml

        return emit_yaml([k.events for k in self.kernels if k.events], self.peers, Path(self.file).stem,
                         f"litmus lint {self.file} --target {self.target}", self.flag_keys())


def _with_compiled_barrier(f: Finding, kind: str, asm: str) -> Finding:
    """``f`` with ``compiled_barrier`` filled in for a block-publish finding (see :mod:`litmus.lint.compiled`)."""
    if f.rule != "block-publish" or not f.related:
        return f
    from dataclasses import replace

    from litmus.lint.compiled import barrier_between

    def lines(site: Any) -> set[int]:
        return {site.line, *(fr.line for fr in site.via)}

    return replace(f, compiled_barrier=barrier_between(asm, kind, lines(f.related[0]), lines(f.site)))


def lint_kernels(found: Iterable[Any], file: str, target: str = "cuda:90",
                 signature: Mapping[str, Any] | None = None, peers: Iterable[str] = (),
                 num_warps: int = 4) -> LintReport:
    """Lint ``found`` (:class:`~litmus.lint.load.FoundKernel` s) compiled for ``target``."""
    import triton

    from litmus.lint.compile import compile_kernel
    from litmus.lint.signature import kernel_signature
    from litmus.lint.ttir import parse

    from litmus.errors import LitmusError

    found = list(found)
    marked = frozenset(peers)
    report = LintReport(file, target, triton.__version__, marked)
    asm_of: dict[str, Any] = {}
    given = dict(signature or {})
    params = {k.name: {p.name for p in getattr(k.fn, "params", [])} for k in found}
    unused = sorted(set(given) - set().union(*params.values())) if found else []
    if unused:
        raise LitmusError.at(file, None, f"the signature given (--signature, signature=) names "
                             f"{', '.join(unused)}, a parameter of no kernel linted here "
                             f"({', '.join(k.name for k in found)})")
    for k in found:
        # what the caller gives applies to each kernel that has the parameter
        mine = {name: value for name, value in given.items() if name in params[k.name]}
        sig = kernel_signature(k.fn, {**k.signature, **mine})
        compiled = compile_kernel(k.fn, sig, target, num_warps)
        functions = tuple(parse(compiled.ttir, f"{k.name}.ttir"))
        kernel_fn = next((f for f in functions if f.name == k.name), functions[0])
        events = extract(kernel_fn, str(Path(k.file).resolve()) if Path(k.file).exists() else k.file, functions)
        report.kernels.append(KernelReport(k.name, k.file, k.line, events=events, notes=list(events.notes)))
        asm_of[k.name] = compiled
    report.peers = marked.union(*(frozenset(k.peers) for k in found))
    keys = report.flag_keys()
    for kr in report.kernels:
        kpeers = marked | frozenset(next((k.peers for k in found if k.name == kr.name), ()))
        assert kr.events is not None
        findings, notes = check_kernel(kr.events, kpeers, keys)
        compiled = asm_of.get(kr.name)
        if compiled is not None and compiled.asm:
            findings = [_with_compiled_barrier(f, compiled.asm_kind, compiled.asm) for f in findings]
        kr.findings, kr.notes = findings, list(dict.fromkeys(kr.notes + notes))
        touches_peers = any(e.ptr is not None and e.ptr.shared(kpeers) for e in kr.events.events)
        plain = sorted({e.ptr.root for e in kr.events.events if e.kind in ("spin", "atomic") and e.ptr is not None
                        and e.ptr.origin == "arg" and not e.ptr.shared(kpeers)})
        if touches_peers and plain:
            kr.notes.append(f"{kr.file}:{kr.line}: kernel {kr.name} uses peer memory, and signals through the plain "
                            f"pointer argument(s) {', '.join(plain)}, taken as this GPU's memory; if another GPU "
                            f"writes them, say so with {' '.join('--peer ' + p for p in plain)}")
        shape = shape_of(kr.events, keys, kpeers)
        if not shape.signals and not shape.waits:
            kr.notes.append(f"{kr.file}:{kr.line}: kernel {kr.name} raises and waits for no flag; nothing to check")
    return report


def lint_file(path: str | Path, kernel: str | None = None, target: str = "cuda:90",
              signature: Mapping[str, Any] | None = None, peers: Iterable[str] = ()) -> LintReport:
    """Lint the ``@triton.jit`` kernels of the file at ``path`` (or only ``kernel``)."""
    from litmus.lint.load import find_kernels

    found = find_kernels(path, kernel)
    return lint_kernels(found, str(path), target, signature, peers)


def lint_kernel(fn: Any, target: str = "cuda:90", signature: Mapping[str, Any] | None = None,
                peers: Iterable[str] = ()) -> LintReport:
    """Lint one jitted kernel object (the pytest fixture's ``litmus.lint(kernel)``)."""
    from litmus.errors import LitmusError
    from litmus.lint.load import FoundKernel, is_jit, unwrap

    if not is_jit(fn):
        raise LitmusError(f"litmus.lint: {fn!r} is not a @triton.jit function")
    jf = unwrap(fn)
    code = jf.fn.__code__
    module = __import__("sys").modules.get(jf.fn.__module__)
    cfg = (getattr(module, "LITMUS_LINT", {}) or {}).get(jf.__name__, {}) if module else {}
    found = [FoundKernel(jf.__name__, jf, code.co_filename, code.co_firstlineno, dict(cfg.get("signature", {}) or {}),
                         tuple(cfg.get("peer", ()) or ()))]
    return lint_kernels(found, code.co_filename, target, signature, peers)
