"""Lint a file's kernels, or one jitted kernel: find them, compile them on the CPU, extract their
signalling, apply the rules, and collect what the linter could not see."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from litmus.lint.events import KernelEvents, extract
from litmus.lint.rules import Finding, check_kernel, peer_read_roots, shape_of

LIMITS = (
    "it reads one file: a producer and a consumer in different files are not paired, and each rule judges one "
    "kernel's side of a flag (the other side is taken as the catalog variant has it)",
    "peer memory is proven only from pointer tables (buffer_ptrs/signal_pad_ptrs loaded in the kernel) and "
    "heap-base translation; a plain pointer argument is taken as local unless marked with --peer, read through a "
    "peer pointer by a kernel of the file, or given a symmetric-heap buffer (nvshmem_create_tensor(s), "
    "symm_mem.empty) by a launch in the file; an acquire is matched to a wait by the object its pointer reaches, "
    "offsets not compared",
    "loops whose exit depends on data are analysed only as spins on one flag (and `while` loops on a plain tl.load "
    "of the source, also when the compiler removed them); for-loops with bounds read from memory are not",
    "it judges the Triton program; of the compiled code it reads only whether a CTA barrier sits where a "
    "tl.debug_barrier() is missing (run litmus audit on the --emit-yaml pattern for the rest)",
    "what the flags protect across kernel launches (symm_mem's patterns 0 and 2 rely on the launch boundary)",
    "reuse by the producer: a consumer that resets its flag before reading the payload (iris' CAS reset) races only "
    "if the producer reuses the buffer, which the consumer's kernel does not show, so it is not flagged",
    "tickets: a counter whose value picks the block that goes on (`if tl.atomic_add(c, 1) == n - 1:`) is judged as "
    "a signal; the reads in its branch are not judged as a wait",
    "targets: inline asm is read as PTX (AMDGCN inline asm with side effects is only noted); lint a kernel with PTX "
    "inline asm for cuda, as a hip compile rejects it or leaves it out (both said)",
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
    peers: frozenset[str] = frozenset()  # arguments marked as a peer's for this kernel (--peer, LITMUS_LINT)
    inferred: dict[str, dict[str, Any]] = field(default_factory=dict)  # parameter -> {"value", "why"}

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready record."""
        return {"kernel": self.name, "file": self.file, "line": self.line,
                "findings": [f.as_dict() for f in self.findings], "notes": list(self.notes),
                "inferred": {k: dict(v) for k, v in self.inferred.items()}}


@dataclass
class LintReport:
    """Every kernel linted for one target."""

    file: str
    target: str
    triton_version: str
    peers: frozenset[str]
    kernels: list[KernelReport] = field(default_factory=list)
    context_keys: frozenset[str] = frozenset()  # flags the file's other kernels spin on (--kernel NAME)
    stubbed: dict[str, Any] = field(default_factory=dict)  # modules replaced to import the file
    file_notes: list[str] = field(default_factory=list)  # notes about the file, before the kernels'

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
        """Notes about the file, then those of every kernel."""
        return list(self.file_notes) + [n for k in self.kernels for n in k.notes]

    def rules(self) -> set[tuple[str, str, int]]:
        """``(rule, kernel, line)`` of every finding (what tests compare)."""
        return {(f.rule, f.kernel, f.site.line) for f in self.findings}

    def flag_keys(self) -> set[str]:
        """Addresses some kernel of the file spins on (flags, not payload)."""
        return {e.ptr.key for k in self.kernels if k.events for e in k.events.events
                if e.kind == "spin" and e.ptr is not None} | set(self.context_keys)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready record (``litmus lint --json``)."""
        return {"file": self.file, "target": self.target, "triton": self.triton_version,
                "peers": sorted(self.peers), "kernels": [k.as_dict() for k in self.kernels],
                "incorrect": len(self.incorrect), "limits": list(LIMITS), "stubbed": dict(self.stubbed),
                "notes": list(self.file_notes)}

    def kernel_peers(self) -> dict[str, frozenset[str]]:
        """Each kernel's marked peer arguments (``--peer`` and its own ``LITMUS_LINT`` entry)."""
        return {k.name: k.peers for k in self.kernels}

    def emit_yaml(self) -> str:
        """The litmus pattern of the file's signalling (see :mod:`litmus.lint.emit`)."""
        from litmus.lint.emit import emit_yaml

        return emit_yaml([k.events for k in self.kernels if k.events], self.kernel_peers(), Path(self.file).stem,
                         f"litmus lint {self.file} --target {self.target}", self.flag_keys())


def _with_compiled_barrier(f: Finding, kind: str, asm: str) -> Finding:
    """``f`` with ``compiled_barrier`` filled in for a block-publish finding (see :mod:`litmus.lint.compiled`)."""
    if f.rule != "block-publish" or not f.related:
        return f
    from dataclasses import replace

    from litmus.lint.compiled import barrier_between

    from litmus.lint.events import statement_lines

    def lines(site: Any) -> set[int]:
        return set().union(statement_lines(site.file, site.line),
                           *(statement_lines(fr.file, fr.line) for fr in site.via))

    return replace(f, compiled_barrier=barrier_between(asm, kind, lines(f.related[0]), lines(f.site)))


def _stub_note(k: Any) -> str | None:
    """A note naming what kernel ``k`` uses from modules stubbed empty, or None."""
    from litmus.lint.stubs import stub_uses

    used = stub_uses(k.fn)
    if not used:
        return None
    return (f"{k.file}:{k.line}: kernel {k.name} uses {', '.join(used)}, from a module absent here: compiled as "
            "doing nothing to memory; if it signals or waits, describe it with --helpers FILE")


def _symmetric_note(k: Any) -> str | None:
    """What the launch says about whose memory the kernel's buffers are."""
    sym = getattr(k, "symmetric", None) or {}
    if not sym:
        return None
    given = ", ".join(f"{name} (allocated at line {line})" for name, line in sym.items())
    return (f"{k.file}:{k.line}: kernel {k.name}: the launch in the file gives {given} a buffer on the symmetric "
            "heap: taken as memory other GPUs read and write, as --peer would")


def _lint_default_target(found: list[Any], file: str, first: str, signature: Mapping[str, Any] | None,
                         peers: Iterable[str], context: list[Any], infer: bool) -> LintReport:
    """Lint for the default target, or for the other one when the kernels do not compile for
    it but do for the other (a kernel written for AMD that ptxas rejects): the default is a
    guess, and a note says which target was used and why."""
    from litmus.errors import LitmusError

    try:
        return lint_kernels(found, file, first, signature, peers, context=context, infer=infer)
    except LitmusError as err:
        if "could not compile kernel" not in str(err):
            raise
        other = "cuda:90" if first.startswith("hip") else "hip:gfx942"
        try:
            report = lint_kernels(found, file, other, signature, peers, context=context, infer=infer)
        except LitmusError:
            raise err from None
        why = str(err).splitlines()[0]
    report.file_notes.append(f"compiled for {other}: the default target {first} did not compile ({why}); "
                             f"give --target to choose")
    return report


def _compile_explained(k: Any, sig: Any, target: str, num_warps: int) -> Any:
    """:func:`~litmus.lint.compile.compile_kernel`, with a hint on a compile error when the kernel
    uses a name from a module that was stubbed empty to import the file."""
    from litmus.errors import LitmusError, Problem
    from litmus.lint.compile import compile_kernel
    from litmus.lint.stub import Stub, StubModule

    try:
        return compile_kernel(k.fn, sig, target, num_warps)
    except LitmusError as err:
        raw = getattr(k.fn, "fn", k.fn)
        names = set(getattr(getattr(raw, "__code__", None), "co_names", ()))
        stubs = sorted(n for n in names if isinstance(getattr(raw, "__globals__", {}).get(n), (Stub, StubModule)))
        # the hint only where the failing line uses a stub: elsewhere it would blame the wrong name
        lines = {p.line for p in err.problems if p.line}
        source = Path(err.problems[0].file).read_text().splitlines() if err.problems and err.problems[0].file \
            and Path(err.problems[0].file).is_file() else []
        stubs = [n for n in stubs if any(0 < l <= len(source) and n in source[l - 1] for l in lines)]
        if not stubs:
            raise
        hint = (f"; the kernel uses {', '.join(stubs)}, from a module absent here that was stubbed empty: describe "
                "its ordering in a helpers file (litmus lint --helpers FILE) or install the module")
        raise LitmusError([Problem(p.file, p.line, p.column, p.message + hint) for p in err.problems]) from None


def _spin_keys(others: Iterable[Any], target: str, given: Mapping[str, Any], num_warps: int,
               infer: bool = True) -> frozenset[str]:
    """The flags the ``others`` kernels spin on: what makes a plain store of a constant a flag
    in the kernel linted alone (``--kernel NAME``, ``litmus.lint(kernel)``) as in its file. A
    kernel that does not compile here is skipped (the one asked for is linted all the same)."""
    from litmus.errors import LitmusError
    from litmus.lint.compile import compile_kernel
    from litmus.lint.signature import kernel_signature
    from litmus.lint.ttir import parse

    keys: set[str] = set()
    for k in others:
        names = {p.name for p in getattr(k.fn, "params", [])}
        try:
            sig = kernel_signature(k.fn, {**k.signature, **{n: v for n, v in given.items() if n in names}},
                                   getattr(k, "call_site", None), infer)
            compiled = compile_kernel(k.fn, sig, target, num_warps)
        except LitmusError:
            continue
        functions = tuple(parse(compiled.ttir, f"{k.name}.ttir"))
        fn = next((f for f in functions if f.name == k.name), functions[0])
        events = extract(fn, str(Path(k.file).resolve()) if Path(k.file).exists() else k.file, functions)
        keys |= {e.ptr.key for e in events.events if e.kind == "spin" and e.ptr is not None}
    return frozenset(keys)


def lint_kernels(found: Iterable[Any], file: str, target: str = "cuda:90",
                 signature: Mapping[str, Any] | None = None, peers: Iterable[str] = (),
                 num_warps: int = 4, context: Iterable[Any] = (), infer: bool = True) -> LintReport:
    """Lint ``found`` (:class:`~litmus.lint.load.FoundKernel` s) compiled for ``target``.

    ``context``: the file's other kernels, read only for the flags they spin on, so that a
    kernel linted alone gets the findings it gets with its file.  ``infer``: parameters that
    nothing gives a type are inferred from the kernel's launch and source (a note says how)."""
    import triton

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
    # a misspelt --peer would silently leave the memory local (and gpu scope on it unflagged)
    all_params = set().union(*params.values()) if found else set()
    stray = sorted(set(marked) - all_params)
    if stray:
        raise LitmusError.at(file, None, f"--peer {', '.join(stray)} (peers=): no kernel linted here "
                             f"({', '.join(k.name for k in found)}) has such a parameter; name a pointer argument "
                             f"of the kernel (its parameters: {', '.join(sorted(all_params)) or 'none'})")
    for k in found:
        bad = sorted(set(k.peers) - params[k.name])
        if bad:
            raise LitmusError.at(k.file, k.line, f"LITMUS_LINT[{k.name!r}]['peer'] names {', '.join(bad)}, not a "
                                 f"parameter of kernel {k.name} (its parameters: "
                                 f"{', '.join(sorted(params[k.name])) or 'none'})")
    for k in found:
        # what the caller gives applies to each kernel that has the parameter
        mine = {name: value for name, value in given.items() if name in params[k.name]}
        sig = kernel_signature(k.fn, {**k.signature, **mine}, getattr(k, "call_site", None), infer)
        compiled = _compile_explained(k, sig, target, num_warps)
        functions = tuple(parse(compiled.ttir, f"{k.name}.ttir"))
        kernel_fn = next((f for f in functions if f.name == k.name), functions[0])
        events = extract(kernel_fn, str(Path(k.file).resolve()) if Path(k.file).exists() else k.file, functions)
        said = [n for n in (sig.inferred_note(), _stub_note(k), _symmetric_note(k)) if n]
        inferred = {n: {"value": sig.value_of(n), "why": why} for n, why in sig.inferred.items()}
        report.kernels.append(KernelReport(k.name, k.file, k.line, events=events,
                                           notes=said + list(events.notes), inferred=inferred))
        asm_of[k.name] = compiled
    report.peers = marked.union(*(frozenset(k.peers) for k in found))
    names = {k.name for k in found}
    report.context_keys = _spin_keys([k for k in context if k.name not in names], target, given, num_warps, infer)
    keys = report.flag_keys()
    read_roots = peer_read_roots([k.events for k in report.kernels if k.events])  # what peers read
    for kr in report.kernels:
        kpeers = marked | frozenset(next((k.peers for k in found if k.name == kr.name), ()))
        kr.peers = kpeers
        assert kr.events is not None
        findings, notes = check_kernel(kr.events, kpeers, keys, read_roots)
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
        ptx = next((e for e in kr.events.events if e.via.startswith("inline asm")), None)
        if ptx is not None and target.strip().startswith("hip"):
            kr.notes.append(f"{ptx.site}: {ptx.via} is read as PTX, but the target is {target}: the hip backend "
                            "compiled the kernel without rejecting it, and what the AMDGCN does there is not seen; "
                            "lint it with the cuda target its asm is written for")
        shape = shape_of(kr.events, keys, kpeers)
        if not shape.signals and not shape.waits:
            kr.notes.append(f"{kr.file}:{kr.line}: kernel {kr.name} raises and waits for no flag; nothing to check")
    return report


def default_target(module: Any) -> str:
    """``hip:gfx942`` for a file that imports an AMD library (iris), else ``cuda:90``."""
    from litmus.lint.libs import HIP_LIBRARIES

    stubbed = getattr(module, "__litmus_stubbed__", None)
    used = set(getattr(stubbed, "standins", {}) or {})
    return "hip:gfx942" if any(n.split(".")[0] in HIP_LIBRARIES for n in used) else "cuda:90"


def lint_file(path: str | Path, kernel: str | None = None, target: str | None = None,
              signature: Mapping[str, Any] | None = None, peers: Iterable[str] = (),
              helpers: str | Path | None = None, infer: bool = True) -> LintReport:
    """Lint the ``@triton.jit`` kernels of the file at ``path`` (or only ``kernel``).

    ``target`` None: hip:gfx942 for a file that imports iris, else cuda:90.  ``helpers``: a
    YAML file describing the ordering of the user's own helper library
    (:mod:`litmus.lint.helpers`)."""
    from litmus.errors import LitmusError
    from litmus.lint.load import import_file, kernels_of

    p = Path(path)
    standins = {}
    if helpers is not None:
        from litmus.lint.helpers import load_helpers

        standins = load_helpers(Path(helpers))
    module = import_file(p, standins)
    found = kernels_of(module, p, kernel)
    context: list[Any] = []
    if kernel is not None:  # the others are read for the flags they spin on
        try:
            context = kernels_of(module, p)
        except LitmusError:
            context = []
    if target is not None:
        report = lint_kernels(found, str(path), target, signature, peers, context=context, infer=infer)
    else:
        report = _lint_default_target(found, str(path), default_target(module), signature, peers, context, infer)
    stubbed = getattr(module, "__litmus_stubbed__", None)
    if stubbed is not None:
        note = stubbed.note(str(path))
        report.stubbed = {"standins": dict(stubbed.standins), "empty": list(stubbed.empty),
                          "guards": list(stubbed.guards)}
        if note:
            report.file_notes.append(note)
    return report


def lint_kernel(fn: Any, target: str = "cuda:90", signature: Mapping[str, Any] | None = None,
                peers: Iterable[str] = (), infer: bool = False) -> LintReport:
    """Lint one jitted kernel object (the pytest fixture's ``litmus.lint(kernel)``).

    ``infer``: off by default here: a test states the kernel's signature (a missing type fails
    the test, as docs/lint.md's fixture section says)."""
    from litmus.errors import LitmusError
    from litmus.lint.jitfn import is_jit, unwrap
    from litmus.lint.load import FoundKernel

    if not is_jit(fn):
        raise LitmusError(f"litmus.lint: {fn!r} is not a @triton.jit function")
    jf = unwrap(fn)
    code = jf.fn.__code__
    module = sys.modules.get(jf.fn.__module__)
    cfg = (getattr(module, "LITMUS_LINT", {}) or {}).get(jf.__name__, {}) if module else {}
    found = [FoundKernel(jf.__name__, jf, code.co_filename, code.co_firstlineno, dict(cfg.get("signature", {}) or {}),
                         tuple(cfg.get("peer", ()) or ()))]
    context: list[Any] = []
    if module is not None:
        from litmus.lint.load import kernels_of

        try:  # the kernel's file-mates, for the flags they spin on (as `litmus lint FILE` reads them)
            context = kernels_of(module, Path(code.co_filename))
        except LitmusError:
            context = []
    return lint_kernels(found, code.co_filename, target, signature, peers, context=context, infer=infer)
