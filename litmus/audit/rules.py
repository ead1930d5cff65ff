"""The audit rule tables: for each IR op requirement, the instruction shapes a target must carry.

One table per target: ``ptx`` (cuda sm_90), ``amdgcn`` (hip gfx942) and ``sass`` (sm_90
machine code).  A table maps a :class:`RuleKey` (kind, rmw op, sem, scope, volatile) to a
:class:`Rule`: a tuple of alternative :class:`Shape` s.  A shape is an ordered list of steps
that must appear in that textual order; each step is one or more :class:`Pattern` s (any of
them will do).  One step of each shape is the *anchor*, the memory access itself.

A pattern matches an instruction by mnemonic (a regex, matched in full) and by qualifiers:
each entry of ``has`` must be present (``"a|b"``: one of them), no entry of ``lacks`` may be.
Qualifier order never matters.

Every table accepts a *stronger* instruction than asked for (a wider scope, acq_rel for
acquire, ``ld.acquire`` for a relaxed load), never a weaker one.  The rows were checked
against what Triton 3.9 emits for correct kernels; ``docs/audit.md`` shows the evidence.

The tables are data: the small helper functions below only spell the per-scope and per-sem
qualifier fragments once instead of 36 times.
"""

from __future__ import annotations

from dataclasses import dataclass
import re

from litmus.ir import RMW_OPS, SCOPES

# ------------------------------------------------------------------------------ data types

# PTX ld/st patterns never match these state spaces (not rendered: every ld/st row has them).
PTX_NOT_GLOBAL = ("shared", "shared::cta", "shared::cluster", "param", "local", "const")


@dataclass(frozen=True)
class RuleKey:
    """What an IR op asks for.  ``op`` is the RMW op (``cas``...) or ``arrive``/``sync`` for barriers.

    ``sem``/``scope`` are ``"-"`` where they do not apply (weak accesses, barriers).
    """

    kind: str  # load | store | rmw | fence | barrier
    op: str = ""
    sem: str = "-"
    scope: str = "-"
    volatile: bool = False

    def describe(self) -> str:
        """Human-readable name, e.g. ``rmw cas release sys`` or ``load volatile``."""
        words = [self.kind, self.op]
        if self.volatile:
            words.append("volatile")
        else:
            words += [self.sem if self.sem != "-" else "", self.scope if self.scope != "-" else ""]
        return " ".join(w for w in words if w)


@dataclass(frozen=True)
class Pattern:
    """Matches one instruction: mnemonic regex (full match), required and forbidden qualifiers."""

    mnemonic: str
    has: tuple[str, ...] = ()
    lacks: tuple[str, ...] = ()

    def matches(self, mnemonic: str, quals: frozenset[str]) -> bool:
        """Whether an instruction with this mnemonic and qualifier set matches."""
        if not re.fullmatch(self.mnemonic, mnemonic):
            return False
        if any(not (set(item.split("|")) & quals) for item in self.has):
            return False
        return not any(q in quals for q in self.lacks)

    def render(self) -> str:
        """Compact text, e.g. ``atom .release|acq_rel .sys .cas`` or ``buffer_wbl2 sc0 sc1``."""
        sep = " " if "_" in self.mnemonic else "."  # AMDGCN modifiers vs PTX/SASS qualifiers
        text = self.mnemonic + "".join(sep + h for h in self.has)
        shown = [q for q in self.lacks if q not in PTX_NOT_GLOBAL]
        if shown:
            text += " (not " + ", ".join(shown) + ")"
        return text


Step = tuple[Pattern, ...]  # any one of these patterns


@dataclass(frozen=True)
class Shape:
    """One acceptable code shape: steps in textual order; ``steps[anchor]`` is the access."""

    steps: tuple[Step, ...]
    anchor: int = 0

    def render(self) -> str:
        """``a ; then b ; then c`` with alternatives joined by ``or``."""
        return " ; then ".join(" or ".join(p.render() for p in step) for step in self.steps)


@dataclass(frozen=True)
class Rule:
    """All acceptable shapes for one requirement; ``family`` finds the closest instruction."""

    key: RuleKey
    shapes: tuple[Shape, ...]
    family: Pattern
    note: str = ""


RuleTable = dict[RuleKey, Rule]


def _shape(*steps: Step | Pattern, anchor: int = 0) -> Shape:
    return Shape(tuple(s if isinstance(s, tuple) else (s,) for s in steps), anchor)


def _table(rules: list[Rule]) -> RuleTable:
    return {r.key: r for r in rules}


# ------------------------------------------------------------------------------------ PTX
# PTX defaults: an atom without a sem is relaxed, without a scope is .gpu.  So "scope >= gpu"
# means "not .cta"; "scope >= cta" means anything.  ld/st.volatile is relaxed.sys.

_PTX_SCOPE: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "cta": ((), ()),
    "gpu": ((), ("cta",)),
    "sys": (("sys",), ()),
}
PTX_RMW_OP = {op: op for op in RMW_OPS}


def _ptx_fence(scope: str, sems: str) -> Step:
    has, lacks = _PTX_SCOPE[scope]  # membar.cta / membar.gl / membar.sys read the same way
    return (Pattern("fence", (sems,) + has, lacks), Pattern("membar", has, lacks))


def _ptx_rmw(op: str, sem: str, scope: str) -> Rule:
    has, lacks = _PTX_SCOPE[scope]
    base = ("atom|red", (PTX_RMW_OP[op],) + has, lacks)
    rel = sem in ("release", "acq_rel")
    acq = sem in ("acquire", "acq_rel")
    shapes = []
    for rel_by_fence in ((False, True) if rel else (False,)):
        for acq_by_fence in ((False, True) if acq else (False,)):
            qual = {
                (True, True): "acq_rel",
                (True, False): "release|acq_rel",
                (False, True): "acquire|acq_rel",
                (False, False): "",
            }[(rel and not rel_by_fence, acq and not acq_by_fence)]
            atom = Pattern(base[0], base[1] + ((qual,) if qual else ()), base[2])
            steps: list[Step] = []
            if rel_by_fence:
                steps.append(_ptx_fence(scope, "release|acq_rel|sc"))
            steps.append((atom,))
            if acq_by_fence:
                steps.append(_ptx_fence(scope, "acquire|acq_rel|sc"))
            shapes.append(Shape(tuple(steps), anchor=1 if rel_by_fence else 0))
    return Rule(RuleKey("rmw", op, sem, scope), tuple(shapes), Pattern("atom|red", (PTX_RMW_OP[op],)))


def _ptx_access(kind: str, sem: str, scope: str) -> Rule:
    mn = "ld" if kind == "load" else "st"
    has, lacks = _PTX_SCOPE[scope]
    lacks = lacks + PTX_NOT_GLOBAL
    ordered = "acquire" if kind == "load" else "release"
    strong = (Pattern(mn, ("relaxed|" + ordered,) + has, lacks), Pattern(mn, ("volatile",), lacks))
    if sem == "relaxed":
        shapes = (_shape(strong),)
    else:
        own = Pattern(mn, (ordered,) + has, lacks)
        fence = _ptx_fence(scope, f"{ordered}|acq_rel|sc")
        by_fence = _shape(strong, fence) if kind == "load" else _shape(fence, strong, anchor=1)
        shapes = (_shape(own), by_fence)
    return Rule(RuleKey(kind, "", sem, scope), shapes, Pattern(mn, (), PTX_NOT_GLOBAL))


def _ptx_rules() -> RuleTable:
    rules: list[Rule] = []
    for kind in ("load", "store"):
        mn = "ld" if kind == "load" else "st"
        fam = Pattern(mn, (), PTX_NOT_GLOBAL)
        rules.append(Rule(RuleKey(kind), (_shape(fam),), fam, "any global access"))
        ordered = "acquire" if kind == "load" else "release"
        vol = (Pattern(mn, ("volatile",), PTX_NOT_GLOBAL), Pattern(mn, ("relaxed|" + ordered, "sys"), PTX_NOT_GLOBAL))
        rules.append(
            Rule(RuleKey(kind, volatile=True), (_shape(vol),), fam,
                 f"{mn}.volatile, or {mn}.relaxed.sys (same PTX semantics; same SASS: .STRONG.SYS)")
        )
        for sem in ("relaxed", ordered):
            for scope in SCOPES:
                rules.append(_ptx_access(kind, sem, scope))
    for op in RMW_OPS:
        for sem in ("relaxed", "acquire", "release", "acq_rel"):
            for scope in SCOPES:
                rules.append(_ptx_rmw(op, sem, scope))
    for scope in SCOPES:
        rules.append(Rule(RuleKey("fence", "", "acq_rel", scope), (_shape(_ptx_fence(scope, "acq_rel|sc")),),
                          Pattern("fence|membar")))
        rules.append(Rule(RuleKey("fence", "", "sc", scope), (_shape(_ptx_fence(scope, "sc")),),
                          Pattern("fence|membar"), "membar is fence.sc"))
    bar = Pattern("bar|barrier")
    rules.append(Rule(RuleKey("barrier", "sync"), (_shape(Pattern("bar|barrier", ("sync",))),), bar))
    rules.append(Rule(RuleKey("barrier", "arrive"), (_shape(Pattern("bar|barrier", ("arrive",))),), bar))
    return _table(rules)


# --------------------------------------------------------------------------------- AMDGCN
# gfx942 (MI300), LLVM AMDGPUUsage "Memory Model GFX942", non-tgsplit mode (Triton's default).
# Loads/stores: sc0 = workgroup, sc1 = agent, sc0 sc1 = system coherence.  Atomic RMWs bypass
# L1: sc0 only means "return the old value"; sc1 means system scope.  Release = write back L2
# (buffer_wbl2) and wait before the access; acquire = wait and invalidate (buffer_inv) after.

_AMD_MEM = r"(global|flat|buffer)"
_AMD_LOAD = _AMD_MEM + r"_load_\w+"
_AMD_STORE = _AMD_MEM + r"_store_\w+"
_AMD_ACCESS_SCOPE = {"cta": ("sc0|sc1",), "gpu": ("sc1",), "sys": ("sc0", "sc1")}
_AMD_RMW_SCOPE = {"cta": (), "gpu": (), "sys": ("sc1",)}
_AMD_CACHE_SCOPE = {"gpu": ("sc1",), "sys": ("sc0", "sc1")}
AMD_RMW_OP = {
    "cas": "cmpswap(_x2)?", "exch": "swap(_x2)?", "add": "add(_x2)?", "and": "and(_x2)?",
    "or": "or(_x2)?", "xor": "xor(_x2)?", "min": "[su]min(_x2)?", "max": "[su]max(_x2)?",
    "inc": "inc(_x2)?", "dec": "dec(_x2)?",
}
_WAIT_VM = Pattern("s_waitcnt", ("vmcnt(0)",))


def _amd_release(scope: str) -> list[Step]:
    if scope == "cta":
        return []
    return [(Pattern("buffer_wbl2", _AMD_CACHE_SCOPE[scope]),), (_WAIT_VM,)]


def _amd_acquire(scope: str) -> list[Step]:
    if scope == "cta":
        return []
    return [(_WAIT_VM,), (Pattern("buffer_inv", _AMD_CACHE_SCOPE[scope]),)]


def _amd_ordered(key: RuleKey, access: Pattern, family: Pattern, note: str = "") -> Rule:
    rel = key.sem in ("release", "acq_rel")
    acq = key.sem in ("acquire", "acq_rel")
    pre = _amd_release(key.scope) if rel else []
    post = _amd_acquire(key.scope) if acq else []
    shape = Shape(tuple(pre) + ((access,),) + tuple(post), anchor=len(pre))
    return Rule(key, (shape,), family, note)


def _amdgcn_rules() -> RuleTable:
    rules: list[Rule] = []
    for kind, mn in (("load", _AMD_LOAD), ("store", _AMD_STORE)):
        fam = Pattern(mn)
        if kind == "load":  # Triton loads a uniform address with a scalar load
            weak = (Pattern(mn), Pattern(r"s_(buffer_)?load_dword\w*"))
            rules.append(Rule(RuleKey(kind), (Shape((weak,)),), fam, "any vector or scalar load"))
        else:
            rules.append(Rule(RuleKey(kind), (_shape(fam),), fam, "any global store"))
        rules.append(
            Rule(RuleKey(kind, volatile=True), (_shape(Pattern(mn, ("sc0", "sc1")), _WAIT_VM),), fam,
                 "LLVM volatile: sc0 sc1 and wait for completion")
        )
        ordered = "acquire" if kind == "load" else "release"
        for sem in ("relaxed", ordered):
            for scope in SCOPES:
                key = RuleKey(kind, "", sem, scope)
                rules.append(_amd_ordered(key, Pattern(mn, _AMD_ACCESS_SCOPE[scope]), fam))
    cas_mn = _AMD_MEM + "_atomic_" + AMD_RMW_OP["cas"]
    for op in RMW_OPS:
        mn = _AMD_MEM + "_atomic_" + AMD_RMW_OP[op]
        for sem in ("relaxed", "acquire", "release", "acq_rel"):
            for scope in SCOPES:
                key = RuleKey("rmw", op, sem, scope)
                if op == "cas":
                    rules.append(_amd_ordered(key, Pattern(mn, _AMD_RMW_SCOPE[scope]), Pattern(mn)))
                    continue
                # LLVM expands RMWs the target cannot do at this scope (and/or/xor/min/max at
                # system scope, as Triton 3.9 shows) into a cmpswap loop with the same scope bits.
                native = Pattern(mn, _AMD_RMW_SCOPE[scope])
                loop = Pattern(cas_mn, _AMD_RMW_SCOPE[scope])
                rule = _amd_ordered(key, native, Pattern(f"{mn}|{cas_mn}"))
                shape = rule.shapes[0]
                steps = tuple((native, loop) if k == shape.anchor else s for k, s in enumerate(shape.steps))
                rules.append(Rule(key, (Shape(steps, shape.anchor),), rule.family,
                                  "or a global_atomic_cmpswap loop (LLVM expansion)"))
    for sem in ("acq_rel", "sc"):
        rules.append(Rule(RuleKey("fence", "", sem, "cta"), (Shape(()),), Pattern("buffer_wbl2|buffer_inv"),
                          "non-tgsplit: a workgroup fence needs no cache maintenance (not checked)"))
        for scope in ("gpu", "sys"):
            steps = tuple(_amd_release(scope)) + (_amd_acquire(scope)[1],)
            rules.append(Rule(RuleKey("fence", "", sem, scope), (Shape(steps),), Pattern("buffer_wbl2|buffer_inv")))
    rules.append(Rule(RuleKey("barrier", "sync"), (_shape(Pattern("s_barrier")),), Pattern("s_barrier")))
    return _table(rules)


# ----------------------------------------------------------------------------------- SASS
# sm_90 machine code as Triton 3.9's ptxas emits it: strong accesses carry .STRONG.<SM|GPU|SYS>;
# a release is a MEMBAR.<ALL|SC>.<scope> before the access; an acquire at gpu/sys scope is a
# CCTL.IVALL (L1 invalidate) after it.  ld/st.volatile and .relaxed.sys both become .STRONG.SYS.

_SASS_SCOPE = {"cta": ("SM|GPU|SYS",), "gpu": ("GPU|SYS",), "sys": ("SYS",)}
_SASS_MEMBAR_SCOPE = {"cta": ("CTA|GPU|SYS",), "gpu": ("GPU|SYS",), "sys": ("SYS",)}
SASS_RMW_OP = {op: op.upper() for op in RMW_OPS}
_SASS_LD, _SASS_ST, _SASS_ATOM = "LDG|LD", "STG|ST", "ATOMG|ATOM|REDG|RED"


def _sass_membar(scope: str, sems: str = "ALL|SC") -> Pattern:
    return Pattern("MEMBAR", (sems,) + _SASS_MEMBAR_SCOPE[scope])


def _sass_ordered(key: RuleKey, access: Pattern, family: Pattern) -> Rule:
    pre = [(_sass_membar(key.scope),)] if key.sem in ("release", "acq_rel") else []
    post = [(Pattern("CCTL", ("IVALL",)),)] if key.sem in ("acquire", "acq_rel") and key.scope != "cta" else []
    return Rule(key, (Shape(tuple(pre) + ((access,),) + tuple(post), anchor=len(pre)),), family)


def _sass_rules() -> RuleTable:
    rules: list[Rule] = []
    for kind, mn in (("load", _SASS_LD), ("store", _SASS_ST)):
        fam = Pattern(mn)
        rules.append(Rule(RuleKey(kind), (_shape(fam),), fam))
        rules.append(Rule(RuleKey(kind, volatile=True), (_shape(Pattern(mn, ("STRONG", "SYS"))),), fam))
        for sem in ("relaxed", "acquire" if kind == "load" else "release"):
            for scope in SCOPES:
                key = RuleKey(kind, "", sem, scope)
                rules.append(_sass_ordered(key, Pattern(mn, ("STRONG",) + _SASS_SCOPE[scope]), fam))
    for op in RMW_OPS:
        fam = Pattern(_SASS_ATOM, (SASS_RMW_OP[op],))
        for sem in ("relaxed", "acquire", "release", "acq_rel"):
            for scope in SCOPES:
                key = RuleKey("rmw", op, sem, scope)
                rules.append(_sass_ordered(key, Pattern(_SASS_ATOM, (SASS_RMW_OP[op],) + _SASS_SCOPE[scope]), fam))
    for sem, sems in (("acq_rel", "ALL|SC"), ("sc", "SC")):
        for scope in SCOPES:
            steps: tuple[Step, ...] = ((_sass_membar(scope, sems),),)
            if scope != "cta":
                steps += ((Pattern("CCTL", ("IVALL",)),),)
            rules.append(Rule(RuleKey("fence", "", sem, scope), (Shape(steps),), Pattern("MEMBAR")))
    rules.append(Rule(RuleKey("barrier", "sync"), (_shape(Pattern("BAR", ("SYNC",))),), Pattern("BAR")))
    rules.append(Rule(RuleKey("barrier", "arrive"), (_shape(Pattern("BAR", ("ARV",))),), Pattern("BAR")))
    return _table(rules)


# litmus.codegen falls back to an RMW where the installed Triton has no atomic load/store:
# ``atomic_add(p, 0)`` for a load, ``atomic_xchg`` for a store, with the same sem and scope.
# Such an RMW orders at least as strongly (it is a read *and* a write event), so it is accepted.
_SUBSTITUTE_RMW = {"load": "add", "store": "exch"}


def _with_rmw_substitutes(table: RuleTable) -> RuleTable:
    out = dict(table)
    for key, rule in table.items():
        if key.kind not in _SUBSTITUTE_RMW or (key.sem == "-" and not key.volatile):
            continue
        sem, scope = ("relaxed", "sys") if key.volatile else (key.sem, key.scope)
        rmw = table[RuleKey("rmw", _SUBSTITUTE_RMW[key.kind], sem, scope)]
        note = "; ".join(n for n in (rule.note, f"or an atomic {_SUBSTITUTE_RMW[key.kind]} (codegen fallback)") if n)
        out[key] = Rule(key, rule.shapes + rmw.shapes, rule.family, note)
    return out


TABLES: dict[str, RuleTable] = {
    "ptx": _with_rmw_substitutes(_ptx_rules()),
    "amdgcn": _with_rmw_substitutes(_amdgcn_rules()),
    "sass": _with_rmw_substitutes(_sass_rules()),
}


def rule_table(target: str) -> RuleTable:
    """The rule table of an audit target (``ptx``, ``amdgcn`` or ``sass``)."""
    return TABLES[target]


def render_table(target: str, ops: tuple[str, ...] = ("cas", "exch", "add")) -> str:
    """The table as Markdown (RMW rows only for ``ops``), for ``docs/audit.md``."""
    lines = ["| requirement | accepted shapes (steps in order; `or` = any one) | note |", "|---|---|---|"]
    for key, rule in TABLES[target].items():
        if key.kind == "rmw" and key.op not in ops:
            continue
        shapes = "<br>".join(f"`{s.render()}`" if s.steps else "*(nothing required)*" for s in rule.shapes)
        lines.append(f"| {key.describe()} | {shapes.replace('|', chr(92) + '|')} | {rule.note} |")
    return "\n".join(lines)
