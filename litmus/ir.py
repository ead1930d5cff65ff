"""The litmus intermediate representation (IR): one fully expanded litmus test.

Every stage of the pipeline (``spec`` -> ``model`` / ``codegen`` / ``audit`` -> ``run`` ->
``classify`` -> ``report``) consumes these dataclasses.  The YAML catalog loader
(``litmus.spec``) and the PTX ``.litmus`` reader (``litmus.interop``) both produce them.

Nothing here imports torch or triton.

Semantics in one paragraph: a :class:`LitmusTest` has named memory :class:`Location` s, each
homed on a rank (the GPU whose memory holds it) with an initial value, and :class:`Thread` s,
each placed on a (rank, cta).  A thread runs a list of instructions.  Memory instructions carry
a :data:`Sem` (``weak`` is a plain access; ``volatile`` accesses are ``relaxed`` at ``sys``
scope with ``volatile=True`` kept so code generation can emit ``ld/st.volatile``) and a
:data:`Scope`.  The final :class:`Condition` is herd style: ``exists``, ``~exists`` or
``forall`` over registers (``P1:r0``) and final memory values (``x``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Union

Scope = Literal["cta", "gpu", "sys"]
SCOPES: tuple[str, ...] = ("cta", "gpu", "sys")

# Memory orders.  ``weak`` = plain (non-atomic) access.  ``sc`` only for fences.
Sem = Literal["weak", "relaxed", "acquire", "release", "acq_rel", "sc"]
LOAD_SEMS: tuple[str, ...] = ("weak", "relaxed", "acquire")
STORE_SEMS: tuple[str, ...] = ("weak", "relaxed", "release")
RMW_SEMS: tuple[str, ...] = ("relaxed", "acquire", "release", "acq_rel")
FENCE_SEMS: tuple[str, ...] = ("acq_rel", "sc")

# Proxies (PTX ISA 7.5 "Proxies"): the path a memory access takes.  ``generic`` is every
# ld/st/atom/red; ``texture`` (tld), ``surface`` (suld/sust/suatom/sured), ``constant`` (cold).
# ``async`` (litmus's extension, docs/model.md): the accesses of bulk copies (cp.async.bulk,
# TMA), ordered with generic accesses only through ``fence.proxy.async``.
PROXIES: tuple[str, ...] = ("generic", "texture", "surface", "constant", "async")
# ``fence.proxy.<kind>``: one of PROXIES, or ``alias`` (orders accesses to aliased virtual
# addresses of one physical location).
PROXY_FENCE_KINDS: tuple[str, ...] = PROXIES + ("alias",)

RmwOp = Literal["cas", "exch", "add", "and", "or", "xor", "min", "max", "inc", "dec"]
RMW_OPS: tuple[str, ...] = ("cas", "exch", "add", "and", "or", "xor", "min", "max", "inc", "dec")
COMPUTE_OPS: tuple[str, ...] = ("add", "sub", "mul", "and", "or", "xor", "shl", "shr")

LOCATION_BITS: tuple[int, ...] = (8, 16, 32, 64)
"""The widths a location, a view or a scalar access may have (PTX scalars are at most 64 bits)."""
DEFAULT_BITS = 32
VECTOR_SIZES: tuple[int, ...] = (2, 4)
"""Element counts of a vector access (PTX ``.v2``, ``.v4``)."""

CondKind = Literal["exists", "not_exists", "forall"]
Expect = Literal["forbidden", "allowed"]


# --------------------------------------------------------------------------- operands


@dataclass(frozen=True)
class Reg:
    """A thread-local register, e.g. ``r0``."""

    name: str


@dataclass(frozen=True)
class Const:
    """An integer literal."""

    value: int


Operand = Union[Reg, Const]


# ----------------------------------------------------------------------- instructions


@dataclass(frozen=True)
class Load:
    """``reg := [loc]``.  ``sem`` in LOAD_SEMS.  ``volatile`` implies relaxed.sys.

    ``group``: the loads of one vector instruction (``ld.v2``/``ld.v4``) share a group number
    (unique in the test) and are consecutive in the thread, one per element, each on an element
    view (:func:`element_name`); they have no program order among themselves.

    ``warm``: a plain load the ``warm_reads`` stress adds (:mod:`litmus.codegen.warm`); to the model
    it is any plain load, and codegen gives it its own cache operator (``ld.global.ca``) so that
    no compiler merges it with a later plain load of the location."""

    reg: str
    loc: str
    sem: Sem = "weak"
    scope: Scope = "sys"
    volatile: bool = False
    line: int | None = None
    proxy: str = "generic"
    group: int | None = None
    warm: bool = False


@dataclass(frozen=True)
class Store:
    """``[loc] := value``.  ``sem`` in STORE_SEMS.  ``volatile`` implies relaxed.sys.

    ``group``: as :attr:`Load.group`, for the element stores of one vector store."""

    loc: str
    value: Operand
    sem: Sem = "weak"
    scope: Scope = "sys"
    volatile: bool = False
    line: int | None = None
    proxy: str = "generic"
    group: int | None = None


@dataclass(frozen=True)
class Rmw:
    """An atomic read-modify-write on ``loc`` (PTX ``atom``; ``red`` when ``reg`` is None).

    ``cas``: if ``[loc] == expected`` then ``[loc] := value``; ``reg`` receives the old value.
    ``exch``: ``[loc] := value``.  ``add``/``and``/...: ``[loc] := [loc] op value``.
    A ``cas`` whose comparison fails performs only a read (no write event).
    """

    op: RmwOp
    reg: str | None
    loc: str
    value: Operand
    expected: Operand | None = None  # cas only
    sem: Sem = "relaxed"
    scope: Scope = "sys"
    line: int | None = None
    proxy: str = "generic"


@dataclass(frozen=True)
class Fence:
    """``fence.<sem>.<scope>``; sem is ``acq_rel`` or ``sc``."""

    sem: Sem = "sc"
    scope: Scope = "sys"
    line: int | None = None


@dataclass(frozen=True)
class Barrier:
    """A CTA execution barrier, ``bar.cta.sync id[, count]`` (Triton ``tl.debug_barrier()``).

    ``arrive=True`` is ``bar.cta.arrive``: it signals the barrier without waiting.
    ``count`` is the number of threads expected (None: all threads of the CTA that use ``id``).
    In Dat3M's dialect ``bar.cta.sync a, b, q`` it is the logical barrier ``b`` (the resource
    key is ``(id, count)``) and ``quorum`` is ``q``: the barrier opens once ``q`` threads of
    the CTA arrived (docs/model.md, "Barriers").
    """

    id: Operand = Const(0)
    count: Operand | None = None
    arrive: bool = False
    line: int | None = None
    quorum: Operand | None = None


@dataclass(frozen=True)
class ProxyFence:
    """``fence.proxy.<kind>``, kind in :data:`PROXY_FENCE_KINDS`: orders, within the CTA, the
    accesses of proxy ``kind`` around it with generic accesses (``alias``: accesses through
    aliased virtual addresses).  Model-only: no Triton form."""

    kind: str
    line: int | None = None


@dataclass(frozen=True)
class SpinRead:
    """How a :class:`Spin` reads its location each iteration.

    ``kind="load"``: a load with ``sem``/``scope``/``volatile``.
    ``kind="cas"``: ``atomic_cas(loc, expected=<spin.until>, value=reset)``; when it succeeds
    the location is reset to ``reset`` (iris style: ``atomic_cas(flag, 1, 0, acquire, sys)``).
    """

    kind: Literal["load", "cas"] = "load"
    sem: Sem = "relaxed"
    scope: Scope = "sys"
    volatile: bool = False
    reset: int | None = None  # cas only


# A comparison -> the PTX branch condition that takes it (``bne`` for ``!=``), back again, and
# each condition's negation; a spin on ``cmp`` loops on ``SPIN_LOOP_BRANCH[cmp]``.
CMP_BRANCH: dict[str, str] = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
BRANCH_CMP: dict[str, str] = {b: c for c, b in CMP_BRANCH.items()}
NEGATED_BRANCH: dict[str, str] = {"eq": "ne", "ne": "eq", "lt": "ge", "le": "gt", "gt": "le", "ge": "lt"}
SPIN_LOOP_BRANCH: dict[str, str] = {c: NEGATED_BRANCH[b] for c, b in CMP_BRANCH.items()}
SPIN_CMPS: tuple[str, ...] = tuple(CMP_BRANCH)


@dataclass(frozen=True)
class Spin:
    """Bounded spin: repeat the read until ``([loc] & mask) cmp until`` or ``bound`` reads were made.

    ``cmp`` is one of :data:`SPIN_CMPS` (default ``==``); ``mask=None`` compares the whole value.
    A CAS read (``read.kind == "cas"``) exits when its compare succeeds, so it takes only
    ``==`` and no mask.  The value of the last read (unmasked) goes to ``reg`` if given.  A spin
    that runs out of reads is a *timeout* on hardware; in the model, a spin that can never exit
    is a *possible hang*.
    """

    loc: str
    until: int
    read: SpinRead = field(default_factory=SpinRead)
    bound: int = 1_000_000
    reg: str | None = None
    line: int | None = None
    cmp: str = "=="
    mask: int | None = None


def spin_exits(spin: Spin, value: int) -> bool:
    """Whether a read of ``value`` ends ``spin``."""
    v = value if spin.mask is None else value & spin.mask
    return COMPARE[spin.cmp](v, spin.until)


def spin_exit_text(spin: Spin) -> str:
    """The exit condition as text, e.g. ``flag == 1`` or ``(flag & 0xff) != 0``."""
    lhs = spin.loc if spin.mask is None else f"({spin.loc} & {spin.mask:#x})"
    return f"{lhs} {spin.cmp} {spin.until}"


COMPARE = {  # a comparison operator -> its test, for spins, branches and conditions
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


# -- control flow and register arithmetic: needed to read the PTX .litmus corpus ---------


@dataclass(frozen=True)
class Label:
    """A branch target."""

    name: str
    line: int | None = None


@dataclass(frozen=True)
class Branch:
    """``beq/bne/blt/ble/bgt/bge lhs, rhs, target``; ``cond=None`` is ``goto target``."""

    target: str
    cond: Literal["eq", "ne", "lt", "le", "gt", "ge"] | None = None
    lhs: Operand | None = None
    rhs: Operand | None = None
    line: int | None = None


@dataclass(frozen=True)
class Compute:
    """``dst := a op b`` (``op="mov"``: ``dst := a``).  Register arithmetic, no memory event.

    ``shl``/``shr`` shift left/right (arithmetic); values are 32-bit signed integers on hardware.
    """

    dst: str
    op: Literal["mov", "add", "sub", "mul", "and", "or", "xor", "shl", "shr"]
    a: Operand
    b: Operand | None = None
    line: int | None = None


Instr = Union[Load, Store, Rmw, Fence, ProxyFence, Barrier, Spin, Label, Branch, Compute]


# --------------------------------------------------------------------------- program


@dataclass(frozen=True)
class Location:
    """A memory location: ``home`` is the rank (GPU) whose memory holds it.

    ``bits``: its width (:data:`LOCATION_BITS`).  A *view* (``view_of`` set) is no memory of
    its own: it names bytes ``[offset, offset + bits // 8)`` of location ``view_of`` (never
    itself a view), aligned to its size; its ``init`` and ``home`` are those bytes' initial
    value and the home of ``view_of``.  Values are little-endian: byte ``k`` of a location is
    bits ``8k .. 8k+7`` of its value.
    """

    name: str
    init: int = 0
    home: int = 0
    line: int | None = None
    alias_of: str | None = None  # ``name @ <alias_proxy> aliases <alias_of>`` (PTX proxies)
    alias_proxy: str = "generic"
    bits: int = DEFAULT_BITS
    view_of: str | None = None
    offset: int = 0  # bytes into ``view_of``

    @property
    def is_element(self) -> bool:
        """Whether this is the element view of a vector access (named by :func:`element_name`,
        made by the loader; not an observable)."""
        return self.view_of is not None and "[" in self.name

    def physical(self, test: "LitmusTest") -> str:
        """The location whose memory this name denotes (itself unless it is an alias, or a view:
        then the location whose bytes it names)."""
        base = self.alias_of if self.alias_of is not None else self.view_of
        return self.name if base is None else test.location(base).physical(test)

    def generic_address(self, test: "LitmusTest") -> str:
        """The generic virtual address of this name: a generic alias is its own; a texture,
        surface or constant alias has the generic address of the location it aliases."""
        if self.alias_of is None or self.alias_proxy == "generic":
            return self.name
        return test.location(self.alias_of).generic_address(test)


@dataclass(frozen=True)
class Thread:
    """A litmus thread placed on GPU ``rank``, block ``cta``.  Name like ``P0``."""

    name: str
    rank: int
    cta: int
    instrs: tuple[Instr, ...]
    reg_init: tuple[tuple[str, int], ...] = ()
    line: int | None = None


# --------------------------------------------------------------------------- condition


@dataclass(frozen=True)
class RegRef:
    """``P1:r0`` in a condition."""

    thread: str
    reg: str


@dataclass(frozen=True)
class LocRef:
    """``x`` in a condition: the location's final value."""

    loc: str


Term = Union[RegRef, LocRef, Const]


@dataclass(frozen=True)
class Cmp:
    """``lhs op rhs`` with op in ``== != < <= > >=``."""

    lhs: Term
    op: Literal["==", "!=", "<", "<=", ">", ">="]
    rhs: Term


@dataclass(frozen=True)
class And:
    parts: tuple["Prop", ...]


@dataclass(frozen=True)
class Or:
    parts: tuple["Prop", ...]


@dataclass(frozen=True)
class Not:
    part: "Prop"


@dataclass(frozen=True)
class TrueProp:
    """The constant ``true`` (an empty condition)."""


Prop = Union[Cmp, And, Or, Not, TrueProp]


@dataclass(frozen=True)
class Condition:
    """Herd-style final condition.  ``kind`` is ``exists``, ``not_exists`` (``~exists``) or ``forall``.

    The *target outcome* of a condition is the set of final states it names as interesting:
    ``prop`` for ``exists``/``not_exists``, and ``not prop`` for ``forall``.
    """

    kind: str
    prop: Prop
    text: str = ""


# --------------------------------------------------------------------------- the test


@dataclass(frozen=True)
class AuditExpect:
    """A compiled-code finding the catalog expects (a known miscompile on some target).

    ``op`` is a rule key as the audit prints it (e.g. ``rmw cas release sys``); ``triton`` a
    PEP 440 specifier of the Triton versions it applies to ("" for all).
    """

    target: str
    op: str
    triton: str = ""
    why: str = ""
    line: int | None = None


@dataclass(frozen=True)
class Expectation:
    """What the catalog declares about the condition's target outcome under the PTX model.

    ``outcome="forbidden"``: no allowed execution reaches the target outcome (it must never
    appear on hardware).  ``"allowed"``: some allowed execution reaches it (racy).
    ``may_hang``: the model may find an execution in which a spin never exits.
    """

    outcome: Expect
    why: str = ""
    may_hang: bool = False
    audit: tuple[AuditExpect, ...] = ()


@dataclass(frozen=True)
class LitmusTest:
    """One concrete litmus test: a pattern with every placeholder filled (one variant)."""

    name: str  # the pattern name, e.g. "MP"
    variant: str  # the variant name, e.g. "volatile-sys"; "" for a test with no variants
    locations: tuple[Location, ...]
    threads: tuple[Thread, ...]
    condition: Condition
    expect: Expectation | None = None
    title: str = ""
    description: str = ""
    origin: str = ""  # where the pattern comes from in real code ("source" in YAML)
    source_file: str = ""  # the file this test was read from
    source_line: int | None = None
    tags: tuple[str, ...] = ()
    params: tuple[tuple[str, str], ...] = ()  # the placeholder values of this variant

    @property
    def id(self) -> str:
        """``NAME[variant]``, or ``NAME`` when there is no variant."""
        return f"{self.name}[{self.variant}]" if self.variant else self.name

    def location(self, name: str) -> Location:
        """The location called ``name``."""
        for loc in self.locations:
            if loc.name == name:
                return loc
        raise KeyError(name)

    def thread(self, name: str) -> Thread:
        """The thread called ``name``."""
        for t in self.threads:
            if t.name == name:
                return t
        raise KeyError(name)

    def uses_widths(self) -> bool:
        """Whether the test has a location that is not 32 bits wide, a view or a vector access."""
        return any(l.bits != DEFAULT_BITS or l.view_of is not None for l in self.locations) or any(
            getattr(i, "group", None) is not None for t in self.threads for i in t.instrs)

    def uses_proxies(self) -> bool:
        """Whether the test has an aliased location, a non-generic access or a proxy fence."""
        return any(l.alias_of is not None for l in self.locations) or any(
            isinstance(i, ProxyFence) or getattr(i, "proxy", "generic") != "generic"
            for t in self.threads for i in t.instrs)

    @property
    def ranks(self) -> tuple[int, ...]:
        """The sorted distinct ranks used by threads and location homes."""
        return tuple(sorted({t.rank for t in self.threads} | {l.home for l in self.locations}))


def element_name(loc: str, vec: int, index: int) -> str:
    """The element view of element ``index`` of a ``vec``-element vector access to ``loc``:
    ``word.v2[1]`` (a name no YAML location can have)."""
    return f"{loc}.v{vec}[{index}]"


def scope_includes(scope: str, a: Thread, b: Thread) -> bool:
    """Whether thread ``b`` lies in the ``scope`` instance of thread ``a`` (cta, gpu or sys)."""
    if scope == "sys":
        return True
    if scope == "gpu":
        return a.rank == b.rank
    if scope == "cta":
        return a.rank == b.rank and a.cta == b.cta
    raise ValueError(f"unknown scope {scope!r}")
