"""Check compiled text against the rule tables: every requirement present, in the order it needs.

How the search works (documented in ``docs/audit.md``): the compiled text of a test may hold
every litmus thread's code (``if role == t`` branches, or one kernel per role, concatenated).
Requirements are matched per litmus thread, each thread's search starting at the top of the
whole text.  A requirement is searched after the matches of the earlier requirements of its
thread that it must follow (:func:`litmus.audit.requirements.must_follow`).  Each shape's steps
must appear in textual order; the shape ending earliest is taken (which leaves the most room
for the requirements after it, so a greedy search finds a match whenever one exists).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace

from litmus.audit.asm import AsmInstr, jumps, parse_asm
from litmus.audit.compile import canonical_target
from litmus.codegen.targets import DEFAULT_TARGETS
from litmus.audit.op_code import UNATTRIBUTED, has_line_table, line_ops, op_code, op_order
from litmus.audit.reorder import reordered_reads
from litmus.audit.requirements import Requirement, must_follow, requirements
from litmus.audit.rules import Pattern, Rule, Shape, rule_table
from litmus.audit.widths import sized_rule, width_problem
from litmus.errors import LitmusError, UnsupportedError
from litmus.ir import LitmusTest

CONTEXT = 3  # lines of compiled text shown either side of a finding


@dataclass(frozen=True)
class Finding:
    """A requirement the compiled code does not carry (missing, too weak, or out of order)."""

    test_id: str
    target: str
    op: str  # the requirement, e.g. "P0 #1 rmw cas release sys on flag"
    expected: str  # the accepted shapes
    found: str  # the closest instruction present, with its line, and what it lacks
    context_lines: tuple[str, ...]  # "  57: text" lines around it (">" marks the line)
    line: int | None = None  # line of the closest instruction in the compiled text
    key: str = ""  # the rule key, e.g. "rmw cas release sys"

    def __str__(self) -> str:
        ctx = "\n".join("    " + l for l in self.context_lines)
        return f"{self.test_id} [{self.target}] {self.op}: expected {self.expected}; found {self.found}\n{ctx}"


@dataclass(frozen=True)
class Match:
    """Where a requirement was found: the text lines of its matched steps, anchor first."""

    requirement: Requirement
    lines: tuple[int, ...]
    anchor_line: int | None


@dataclass
class AuditResult:
    """The audit of one test on one target: ``status`` is ``pass``, ``finding`` or ``unsupported``."""

    test_id: str
    target: str
    status: str
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
    reason: str = ""  # why unsupported


# ---------------------------------------------------------------------------- matching


def _find(step: tuple[Pattern, ...], instrs: list[AsmInstr], start: int, stop: int | None = None) -> int | None:
    for i in range(start, len(instrs) if stop is None else stop):
        if any(p.matches(instrs[i].mnemonic, instrs[i].quals) for p in step):
            return i
    return None


def _find_reachable(step: tuple[Pattern, ...], instrs: list[AsmInstr], start: int,
                    edges: dict[int, tuple[int, bool]]) -> int | None:
    """The first instruction matching ``step`` on some control-flow path from ``start``.

    Falls through in text order and also follows branches (``edges``), so a block the
    compiler placed above its predecessor is still found.
    """
    if not edges:
        return _find(step, instrs, start)
    seen: set[int] = set()
    stack = [start]
    while stack:
        i = stack.pop()
        while i < len(instrs) and i not in seen:
            seen.add(i)
            if any(p.matches(instrs[i].mnemonic, instrs[i].quals) for p in step):
                return i
            edge = edges.get(i)
            if edge is not None:
                stack.append(edge[0])
                if edge[1]:
                    break
            i += 1
    return None


def _match_shape(shape: Shape, instrs: list[AsmInstr], start: int,
                 edges: dict[int, tuple[int, bool]] | None = None, follow_first: bool = False) -> list[int] | None:
    """Indices of the earliest in-order match of every step of ``shape`` from ``start``.

    The first step is searched in text order (with ``follow_first``, on the control-flow paths
    leaving ``start``); each later step on the control-flow paths leaving the previous match.
    """
    out: list[int] = []
    pos = start
    for k, step in enumerate(shape.steps):
        text_order = k == 0 and not follow_first
        i = _find(step, instrs, pos) if text_order else _find_reachable(step, instrs, pos, edges or {})
        if i is None:
            return None
        out.append(i)
        pos = i + 1
    return out


def _match_rule(rule: Rule, instrs: list[AsmInstr], start: int,
                edges: dict[int, tuple[int, bool]] | None = None) -> tuple[Shape, list[int]] | None:
    """The shape of ``rule`` that matches earliest from ``start``, and where.

    Text order first; when no shape matches that way and ``start`` follows an earlier match,
    the control-flow paths leaving ``start`` are followed (a loop's body may be laid out above
    its header: the op after a spin then sits earlier in the text than the spin).
    """
    for follow in ((False, True) if edges and start > 0 else (False,)):
        best: tuple[Shape, list[int]] | None = None
        for shape in rule.shapes:
            got = _match_shape(shape, instrs, start, edges, follow_first=follow)
            if got is not None and (best is None or (got[-1] if got else -1) < (best[1][-1] if best[1] else -1)):
                best = (shape, got)
        if best is not None:
            return best
    return None


# ---------------------------------------------------------------------------- findings


def _context(text_lines: list[str], line: int | None) -> tuple[str, ...]:
    if line is None:
        return ()
    lo, hi = max(1, line - CONTEXT), min(len(text_lines), line + CONTEXT)
    return tuple(f"{'>' if n == line else ' '}{n:5d}: {text_lines[n - 1].strip()}" for n in range(lo, hi + 1))


def _lacks(step: tuple[Pattern, ...], ins: AsmInstr) -> str | None:
    """Why ``ins`` fails the anchor ``step``: the qualifiers it lacks or must not have."""
    reasons = []
    for p in step:
        if not re.fullmatch(p.mnemonic, ins.mnemonic):
            continue
        missing = [h for h in p.has if not (set(h.split("|")) & ins.quals)]
        extra = [q for q in p.lacks if q in ins.quals]
        reasons.append(", ".join([f"lacks {h}" for h in missing] + [f"has {q}" for q in extra]))
    return min(reasons, key=len) if reasons else None


def _missing_around(rule: Rule, instrs: list[AsmInstr], start: int, at: int) -> str:
    """What each shape lacks around instruction ``at`` (the closest candidate), joined by ``or``."""
    reasons: list[str] = []
    for shape in rule.shapes:
        if not shape.steps:
            continue
        anchor = shape.steps[shape.anchor]
        if not any(p.matches(instrs[at].mnemonic, instrs[at].quals) for p in anchor):
            why = _lacks(anchor, instrs[at])
            if why:
                reasons.append(why)
            continue
        pos, why = start, "all steps present, but not in the required order"
        for k, step in enumerate(shape.steps):
            if k == shape.anchor:
                pos = at + 1
                continue
            i = _find(step, instrs, pos, at if k < shape.anchor else None)
            if i is None:
                where = "before" if k < shape.anchor else "after"
                why = f"no `{' or '.join(p.render() for p in step)}` {where} it"
                break
            pos = i + 1
        reasons.append(why)
    return "; or ".join(dict.fromkeys(reasons))


def _finding(test: LitmusTest, target: str, req: Requirement, rule: Rule, instrs: list[AsmInstr],
             start: int, after: str, text_lines: list[str]) -> Finding:
    expected = " | or: ".join(s.render() for s in rule.shapes) + (f" ({after})" if after else "")
    anchors = [p for s in rule.shapes if s.steps for p in s.steps[s.anchor]]

    def is_anchor(ins: AsmInstr) -> bool:
        return any(p.matches(ins.mnemonic, ins.quals) for p in anchors)

    family = [i for i, ins in enumerate(instrs) if rule.family.matches(ins.mnemonic, ins.quals) or is_anchor(ins)]
    later = [i for i in family if i >= start]
    if later:
        # the closest candidate: the first that is some shape's access itself (only its
        # surroundings are wrong), else the first of the instruction family at all
        at = next((i for i in later if is_anchor(instrs[i])), later[0])
        lacks = _missing_around(rule, instrs, start, at) or "which is weaker than required"
        found = f"`{instrs[at].text}` at line {instrs[at].line}, {lacks}"
    elif family:
        at = family[-1]
        found = f"`{instrs[at].text}` at line {instrs[at].line}, too early: it must come {after}"
    else:
        at = None
        found = f"no `{rule.family.render()}` instruction at all"
    line = instrs[at].line if at is not None else (instrs[start].line if start < len(instrs) else None)
    return Finding(test.id, target, req.describe(), expected, found, _context(text_lines, line), line,
                   req.key.describe())


def _width_finding(test: LitmusTest, target: str, req: Requirement, rule: Rule, instrs: list[AsmInstr],
                   unsized: tuple[Shape, list[int]], text_lines: list[str]) -> Finding:
    """The finding of an op whose access instruction is there, in order, but not of the op's width."""
    assert req.bits is not None
    shape, idx = unsized
    ins = instrs[idx[shape.anchor]]
    found = f"`{ins.text}` at line {ins.line}, {width_problem(target, ins, req.bits)}"
    expected = " | or: ".join(s.render() for s in rule.shapes)
    return Finding(test.id, target, req.describe(), expected, found, _context(text_lines, ins.line), ins.line,
                   req.key.describe())


def _rule_for(test: LitmusTest, target: str, req: Requirement) -> Rule:
    table = rule_table(target)
    rule = table.get(req.key)
    if rule is None:
        raise UnsupportedError.at(test.source_file, req.line,
                                  f"{test.id}: no {target} audit rule for {req.key.describe()} "
                                  f"({req.describe()}); add a row to litmus/audit/rules.py")
    canonical = table.get(replace(req.key, op="or"))
    if req.idempotent and canonical is not None and canonical is not rule:
        note = "; ".join(n for n in (rule.note, "or the `or 0` an idempotent RMW is canonicalised to") if n)
        return replace(rule, shapes=rule.shapes + canonical.shapes, note=note)
    return rule


def _reaches(instrs: list[AsmInstr], edges: dict[int, tuple[int, bool]], start: int, target: int) -> bool:
    """Whether instruction ``target`` lies on some control-flow path from instruction ``start``."""
    if not edges:
        return start <= target
    seen: set[int] = set()
    stack = [start]
    while stack:
        i = stack.pop()
        while i < len(instrs) and i not in seen:
            if i == target:
                return True
            seen.add(i)
            edge = edges.get(i)
            if edge is not None:
                stack.append(edge[0])
                if edge[1]:
                    break
            i += 1
    return False


def _op_instructions(test: LitmusTest, kind: str, text: str, source_text: str,
                     instrs: list[AsmInstr]) -> dict[str, list[int]]:
    """Op (``"P0[3]"``) -> indices of the instructions the line table attributes to it; empty
    without a kernel source or a line table."""
    if not source_text or not has_line_table(text, kind):
        return {}
    ops = line_ops(text, kind, source_text)
    out: dict[str, list[int]] = {}
    for i, ins in enumerate(instrs):
        op = ops.get(ins.line)
        if op is not None:
            out.setdefault(op, []).append(i)
    return out


def _anchored(got: tuple[Shape, list[int]] | None, own: list[int],
              owner: dict[int, str]) -> tuple[Shape, list[int]] | None:
    """``got`` when its anchor (the access itself) is the op's own instruction or one the line
    table gives to no op; None when it is another op's."""
    if got is None or not got[1]:
        return got
    at = got[1][got[0].anchor]
    return got if at in own or at not in owner else None


def _match_own(rule: Rule, instrs: list[AsmInstr], own: list[int]) -> tuple[Shape, list[int]] | None:
    """The earliest shape of ``rule`` among the instructions of one op (``own``, text order)."""
    got = _match_rule(rule, [instrs[i] for i in own], 0)
    return None if got is None else (got[0], [own[k] for k in got[1]])


def match_text(test: LitmusTest, target: str, text: str,
               source_text: str = "") -> tuple[list[Match], list[Finding]]:
    """Match every requirement of ``test`` in compiled ``text``: the matches and the findings.

    With the kernel source ``source_text`` and a line table in ``text``, each requirement is
    matched among the instructions of its own op, and must lie on a control-flow path after the
    matches of the requirements it must follow: the compiler lays basic blocks out in any
    order, so text position says nothing about program order, and another thread's (or the
    harness's) instruction of the same kind is no match.  Without them, the search runs in
    text order (module docstring).  Raises :class:`UnsupportedError` when the target's table
    has no row for some requirement.
    """
    kind = canonical_target(target)
    instrs = parse_asm(text, kind)
    edges = jumps(text, instrs)
    text_lines = text.splitlines()
    own_of = _op_instructions(test, kind, text, source_text, instrs)
    owner = {i: op for op, idx in own_of.items() if op != UNATTRIBUTED for i in idx}
    reqs = requirements(test)
    partners = _barrier_partners(test, reqs)
    rules = [_rule_for(test, kind, r) for r in reqs]
    sized = [sized_rule(rule, kind, r.bits) if r.bits is not None else rule for r, rule in zip(reqs, rules)]
    matches: list[Match] = []
    findings: list[Finding] = []
    end: dict[int, int] = {}  # requirement index -> index of its last matched instruction
    for j, (req, rule) in enumerate(zip(reqs, sized)):
        preds = [i for i in range(j) if must_follow(reqs[i], req)]
        start = max((end[i] + 1 for i in preds), default=0)
        last = max(preds, key=lambda i: end[i], default=None)
        after = f"after {reqs[last].describe()} (line {instrs[end[last]].line})" if last is not None and end[last] >= 0 else ""
        own = own_of.get(f"{req.thread}[{req.instr_index}]")
        if not own and req.op_kind == "barrier":  # emitted once for its CTA, under a partner's marker
            own = next((own_of[p] for p in partners.get(f"{req.thread}[{req.instr_index}]", ()) if own_of.get(p)), None)
        if own:
            # The op's own code first; else from its first instruction on along the control
            # flow, since the compiler may attribute a trailing wait or cache invalidate (an
            # AMDGCN acquire's buffer_inv) or a merged store to another line.
            got = _match_own(rule, instrs, own)
            if got is None and _plain_mergeable(reqs, j):
                # a plain access merged with a same-location access of its thread (a load forwarded
                # from the thread's store: its lines hold the select of the stored value); an
                # access further on is another op's, whatever line the table gives it
                end[j] = own[-1]
                continue
            got = got or _anchored(_match_rule(rule, instrs, own[0], edges), own, owner)
            if got is None and req.op_kind in ("load", "store") and _legally_merged(reqs, j):  # e.g. an overwritten store
                got = _match_rule(rule, instrs, own[0], edges)
            if got is None:
                unsized = (_match_own(rules[j], instrs, own)
                           or _anchored(_match_rule(rules[j], instrs, own[0], edges), own, owner)
                           if rule is not rules[j] else None)
                sub = [instrs[i] for i in own]
                if unsized is not None and req.bits is not None:
                    findings.append(_width_finding(test, kind, req, rule, instrs, unsized, text_lines))
                else:
                    findings.append(_finding(test, kind, req, rule, sub, 0, "", text_lines))
                end[j] = own[-1]
                continue
            shape, idx = got
            early = [i for i in preds if end[i] >= 0 and idx and not _reaches(instrs, edges, end[i] + 1, idx[0])]
            if early:
                first = instrs[idx[shape.anchor]]
                findings.append(Finding(
                    test.id, kind, req.describe(), " | or: ".join(s.render() for s in rule.shapes) + f" ({after})",
                    f"`{first.text}` at line {first.line}, which no control-flow path reaches after "
                    f"{reqs[early[0]].describe()} (line {instrs[end[early[0]]].line})",
                    _context(text_lines, first.line), first.line, req.key.describe()))
            else:
                matches.append(Match(req, tuple(instrs[i].line for i in idx),
                                     instrs[idx[shape.anchor]].line if idx else None))
            end[j] = idx[-1] if idx else own[-1]
            continue
        if own_of and _plain_mergeable(reqs, j):
            # no instruction of its own, and legally none: a plain access the compiler merged with
            # one of the same location (a load forwarded from the thread's store): nothing to match
            # (vanished() says the same); another op's access of that width is no match for it
            end[j] = start - 1
            continue
        got = _match_rule(rule, instrs, start, edges)
        if got is None:
            unsized = _match_rule(rules[j], instrs, start, edges) if rule is not rules[j] else None
            if unsized is not None and req.bits is not None:  # the right instruction, at the wrong width
                findings.append(_width_finding(test, kind, req, rule, instrs, unsized, text_lines))
                end[j] = unsized[1][-1] if unsized[1] else start - 1
            else:
                findings.append(_finding(test, kind, req, rule, instrs, start, after, text_lines))
                end[j] = start - 1
            continue
        shape, idx = got
        end[j] = idx[-1] if idx else start - 1
        anchor = instrs[idx[shape.anchor]].line if idx else None
        matches.append(Match(req, tuple(instrs[i].line for i in idx), anchor))
    return matches, findings


def _barrier_partners(test: LitmusTest, reqs: list[Requirement]) -> dict[str, list[str]]:
    """Each barrier op (``P4[1]``) -> the ops of the barriers of the same rank among the other
    threads of its CTA: codegen emits the one ``bar.sync`` a CTA's threads meet at once, under
    the first thread's marker, so that is where the others' barrier is."""
    place = {t.name: (t.rank, t.cta) for t in test.threads}
    bars: dict[str, list[str]] = {}
    for r in reqs:
        if r.op_kind == "barrier":
            bars.setdefault(r.thread, []).append(f"{r.thread}[{r.instr_index}]")
    return {op: [bars[u][k] for u in bars if u != t and place[u] == place[t] and len(bars[u]) > k]
            for t, ops in bars.items() for k, op in enumerate(ops)}


VANISHED_EXPECTED = "an instruction of its own (the line table attributes none to this op)"


def mergeable_plain_ops(test: LitmusTest) -> frozenset[str]:
    """The ops (``"P0[3]"``) that are plain loads or stores their thread may merge with a
    same-location access (:func:`_legally_merged`): such an op needs no instruction of its own."""
    reqs = requirements(test)
    return frozenset(f"{r.thread}[{r.instr_index}]" for k, r in enumerate(reqs) if _plain_mergeable(reqs, k))


def _plain_mergeable(reqs: list[Requirement], k: int) -> bool:
    """Whether requirement ``k`` is a plain load or store that :func:`_legally_merged` lets its
    thread merge: it needs no instruction of its own."""
    r = reqs[k]
    return r.op_kind in ("load", "store") and not r.strong and _legally_merged(reqs, k)


def _legally_merged(reqs: list[Requirement], k: int) -> bool:
    """Whether requirement ``k``, which compiled to nothing, may have been merged legally: a
    fence next to another fence or barrier, or an access with a same-location access of its
    thread and nothing between them that orders (an acquire, fence or barrier before it when the
    other comes first; a release, fence or barrier after it when the other comes later)."""
    x = reqs[k]
    mine = [j for j, r in enumerate(reqs) if r.thread == x.thread]
    if x.op_kind == "fence":
        at = mine.index(k)
        near = [reqs[mine[i]] for i in (at - 1, at + 1) if 0 <= i < len(mine)]
        return any(r.op_kind in ("fence", "barrier") for r in near)
    for j in mine:
        if j == k or reqs[j].loc != x.loc:
            continue
        between = [reqs[i] for i in mine if min(j, k) < i < max(j, k)]
        if j < k and not any(r.acquires for r in between):
            return True
        if j > k and not any(r.releases for r in between):
            return True
    return False


def vanished(test: LitmusTest, target: str, text: str, source_text: str) -> list[Finding]:
    """Findings for the memory accesses and fences of ``test`` that compiled to no instruction
    at all in ``text`` (compiled from the kernel source ``source_text``) where no legal merge
    explains it: the compiler dropped the op, or merged it with an access of the same location
    across an op that orders them (e.g. reused a plain load's value across ``ld.acquire``).
    Empty when ``text`` has no line table (SASS without ``nvdisasm``)."""
    kind = canonical_target(target)
    if not has_line_table(text, kind):
        return []
    code = op_code(text, kind, source_text)
    marked = set(op_order(source_text))
    reqs = requirements(test)
    out = []
    for k, req in enumerate(reqs):
        op = f"{req.thread}[{req.instr_index}]"
        if req.op_kind == "barrier" or op not in marked or code.get(op) or _legally_merged(reqs, k):
            continue
        out.append(Finding(test.id, kind, req.describe(), VANISHED_EXPECTED,
                           "nothing: the compiler dropped this op, or merged it with an access of the same "
                           "location across an op that orders them, so its value or effect is not the "
                           "one the test asked for", (), None, req.key.describe()))
    return out


def reordered(test: LitmusTest, target: str, text: str, source_text: str) -> list[Finding]:
    """Findings for reads that ``text`` places above an earlier strong read of the same address
    (:mod:`litmus.audit.reorder`): the later read may return a value older than the one the
    earlier read observed.  Empty for AMDGCN and for SASS without a line table."""
    kind = canonical_target(target)
    if not has_line_table(text, kind):
        return []
    out = []
    for earlier, later, moved, kept in reordered_reads(text, kind, source_text, requirements(test)):
        out.append(Finding(test.id, kind, later.describe(), f"its read after the read of {earlier.describe()}",
                           f"line {moved.line} `{moved.text}` above line {kept.line} `{kept.text}`, the same "
                           f"address: it may return a value older than the one {earlier.thread} #{earlier.instr_index} "
                           "read, which the PTX model forbids once that read observed a write",
                           _context(text.splitlines(), moved.line), moved.line, later.key.describe()))
    return out


def audit_text(test: LitmusTest, target: str, text: str, source_text: str = "") -> list[Finding]:
    """Findings of ``test`` against compiled ``text`` for ``target`` (``ptx``, ``amdgcn``, ``sass``),
    compiled from the kernel source ``source_text`` when given (:func:`match_text`)."""
    return match_text(test, target, text, source_text)[1]


# ---------------------------------------------------------------------------- via codegen

# audit kind -> the litmus.codegen target string compiled for it
CODEGEN_TARGET = {**DEFAULT_TARGETS, "sass": DEFAULT_TARGETS["ptx"]}


def _kind_and_codegen_target(target: str) -> tuple[str, str]:
    t = target.strip().lower()
    if t.startswith("cuda:"):
        return "ptx", target
    if t.startswith("hip:"):
        if not t.split(":", 1)[1].startswith("gfx94"):
            raise UnsupportedError(f"audit target {target!r}: the AMDGCN rules are for the gfx942 memory "
                                   "model (gfx940-gfx942); use hip:gfx942")
        return "amdgcn", target
    kind = canonical_target(target)
    return kind, CODEGEN_TARGET[kind]


def audit(test: LitmusTest, target: str) -> AuditResult:
    """Compile ``test`` with ``litmus.codegen`` for ``target`` and audit the result.

    ``target`` is a codegen target (``cuda:90`` audits PTX, ``hip:gfx942`` AMDGCN) or an audit
    kind (``ptx``, ``amdgcn``, ``sass``).  Status ``unsupported`` (with ``reason``) when codegen
    is missing, raises :class:`UnsupportedError`, or produced no text of that kind.
    """
    t0 = time.perf_counter()

    def result(status: str, findings: list[Finding] | None = None, reason: str = "") -> AuditResult:
        return AuditResult(test.id, target, status, findings or [], time.perf_counter() - t0, reason)

    try:
        kind, codegen_target = _kind_and_codegen_target(target)
    except UnsupportedError as exc:
        return result("unsupported", reason=str(exc))
    try:
        from litmus.codegen import compile_variant
        from litmus.codegen.options import audited_kernel
    except ImportError as exc:
        return result("unsupported", reason=f"litmus.codegen is not available: {exc}")
    try:
        compiled = compile_variant(test, codegen_target, audited_kernel(codegen_target.split(":", 1)[0]),
                                   sass=kind == "sass")
    except (UnsupportedError, LitmusError) as exc:  # no Triton form, or the compiler failed on it
        return result("unsupported", reason=str(exc))
    text = compiled_text(compiled, kind)
    if not text.strip():
        return result("unsupported", reason=f"the compiled artifacts of {test.id} hold no {kind} text")
    try:
        source_text = getattr(getattr(compiled, "source", None), "text", "")
        findings = audit_text(test, kind, text, source_text) + (
            vanished(test, kind, text, source_text) + reordered(test, kind, text, source_text) if source_text else [])
    except UnsupportedError as exc:
        return result("unsupported", reason=str(exc))
    return result("finding" if findings else "pass", findings)


def compiled_text(compiled: object, kind: str) -> str:
    """The ``kind`` text of a ``litmus.codegen`` ``Compiled`` (every kernel, concatenated)."""
    text_of = getattr(compiled, "text", None)
    if callable(text_of):
        return text_of(kind)
    asm = getattr(compiled, "asm", None)
    if isinstance(asm, dict):
        return asm.get(kind, "")
    raise LitmusError(f"cannot read {kind} text from {type(compiled).__name__}")
