"""The shape of a catalog YAML document as pydantic models: the single source of truth.

``catalog/schema.json`` is generated from :class:`PatternDoc`.  Wherever a value may come from a
placeholder, the type accepts a placeholder string ``"{name}"`` too (see :data:`Placeholder`).
Meaning (which registers exist, which locations, ...) is checked later, in ``litmus.spec.build``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, StrictBool, StrictInt, StringConstraints, Tag

from litmus.condition import KIND_WORDS
from litmus.ir import LOCATION_BITS, VECTOR_SIZES

PLACEHOLDER_RE = r"^\{[A-Za-z_][A-Za-z0-9_]*\}$"
NAME_RE = r"^[A-Za-z_][A-Za-z0-9_]*$"
PATTERN_NAME_RE = r"^[A-Za-z0-9_][A-Za-z0-9+\-_.]*$"
THREAD_RE = r"^P[0-9]+$"

Placeholder = Annotated[str, StringConstraints(pattern=PLACEHOLDER_RE)]
Name = Annotated[str, StringConstraints(pattern=NAME_RE)]
PatternName = Annotated[str, StringConstraints(pattern=PATTERN_NAME_RE)]
ThreadName = Annotated[str, StringConstraints(pattern=THREAD_RE)]
NonNegInt = Annotated[StrictInt, Field(ge=0)]
PosInt = Annotated[StrictInt, Field(gt=0)]
Text = Annotated[str, StringConstraints(min_length=1)]

ScopeName = Literal["cta", "gpu", "sys"]
LoadSem = Literal["relaxed", "acquire"]
StoreSem = Literal["relaxed", "release"]
RmwSem = Literal["relaxed", "acquire", "release", "acq_rel"]
FenceSem = Literal["acq_rel", "sc"]
SpinCmp = Literal["==", "!=", "<", "<=", ">", ">="]
Outcome = Literal["forbidden", "allowed"]
Bits = Literal[LOCATION_BITS]  # type: ignore[valid-type] - subscripting with the tuple lists its values
VecSize = Literal[VECTOR_SIZES]  # type: ignore[valid-type]

# Fields that may be placeholdered.
RegP = Union[Name, Placeholder]
LocP = Union[Name, Placeholder]
# A register expression: one binary op between registers and integers, e.g. "r1 + 1".
EXPR_OPERAND = r"(?:[A-Za-z_][A-Za-z0-9_]*|-?0x[0-9a-fA-F]+|-?[0-9]+)"
EXPR_RE = rf"^\s*{EXPR_OPERAND}\s*(?:\+|-|&|\||\^|<<|>>)\s*{EXPR_OPERAND}\s*$"
Expr = Annotated[str, StringConstraints(pattern=EXPR_RE)]
ValueP = Union[StrictInt, Name, Placeholder, Expr]  # an integer, a register name or "r1 + 1"
IntP = Union[StrictInt, Placeholder]
NonNegIntP = Union[NonNegInt, Placeholder]
ScopeP = Union[ScopeName, Placeholder]
BoolP = Union[StrictBool, Placeholder]
BitsP = Union[Bits, Placeholder]
VecP = Union[VecSize, Placeholder]
# a vector load writes one register per element, a vector store takes one value per element
RegsP = Union[RegP, list[RegP]]
ValuesP = Union[ValueP, list[ValueP]]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _by_type(value: Any) -> str | None:
    """Tag of a value by its YAML type, for unions whose members differ by type."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return "<number>"
    if isinstance(value, str):
        return "<text>"
    if isinstance(value, dict):
        return "<mapping>"
    if isinstance(value, list):
        return "<list>"
    return None


# ------------------------------------------------------------------------------ ops


class RegLocArgs(_Strict):
    """Fields of ``load`` and ``volatile_load`` (``vec``: a vector load into a list of registers)."""

    reg: RegsP
    loc: LocP
    vec: Optional[VecP] = None


class LocValueArgs(_Strict):
    """Fields of ``store`` and ``volatile_store`` (``vec``: a vector store of a list of values)."""

    loc: LocP
    value: ValuesP
    vec: Optional[VecP] = None


class AtomicLoadArgs(_Strict):
    """Fields of ``atomic_load``."""

    reg: RegsP
    loc: LocP
    sem: Union[LoadSem, Placeholder]
    scope: ScopeP
    vec: Optional[VecP] = None


class AtomicStoreArgs(_Strict):
    """Fields of ``atomic_store``."""

    loc: LocP
    value: ValuesP
    sem: Union[StoreSem, Placeholder]
    scope: ScopeP
    vec: Optional[VecP] = None


class CasArgs(_Strict):
    """Fields of ``cas``."""

    loc: LocP
    expected: ValueP
    value: ValueP
    sem: Union[RmwSem, Placeholder]
    scope: ScopeP
    reg: Optional[RegP] = None


class RmwArgs(_Strict):
    """Fields of ``exch`` and ``add``."""

    loc: LocP
    value: ValueP
    sem: Union[RmwSem, Placeholder]
    scope: ScopeP
    reg: Optional[RegP] = None


class FenceArgs(_Strict):
    """Fields of ``fence``."""

    sem: Union[FenceSem, Placeholder]
    scope: ScopeP


class BarArgs(_Strict):
    """Fields of ``bar.sync``."""

    id: NonNegIntP = 0


class SpinReadLoad(_Strict):
    """``read: {kind: load, sem, scope}`` or ``{kind: load, volatile: true}``."""

    kind: Literal["load"] = "load"
    sem: Optional[Union[LoadSem, Placeholder]] = None
    scope: Optional[ScopeP] = None
    volatile: BoolP = False


class SpinReadCas(_Strict):
    """``read: {kind: cas, reset, sem, scope}``: iris' ``atomic_cas(flag, until, reset)`` spin."""

    kind: Literal["cas"]
    reset: IntP
    sem: Union[RmwSem, Placeholder]
    scope: ScopeP


SpinReadShort = Literal["volatile", "relaxed", "acquire"]


def _spin_read_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        return "read cas" if value.get("kind") == "cas" else "read load"
    if isinstance(value, str):
        return "read text"
    return None


SpinRead = Annotated[
    Union[
        Annotated[Union[SpinReadShort, Placeholder], Tag("read text")],
        Annotated[SpinReadLoad, Tag("read load")],
        Annotated[SpinReadCas, Tag("read cas")],
    ],
    Discriminator(
        _spin_read_tag,
        custom_error_type="bad_spin_read",
        custom_error_message="read must be 'volatile', 'relaxed', 'acquire' or a mapping {kind: load|cas, ...}",
    ),
]


class SpinArgs(_Strict):
    """Fields of ``spin``."""

    loc: LocP
    until: IntP
    read: SpinRead
    cmp: Union[SpinCmp, Placeholder] = "=="
    mask: Optional[IntP] = None
    bound: Union[PosInt, Placeholder] = 1000
    reg: Optional[RegP] = None
    scope: Optional[ScopeP] = None


class LoadOp(_Strict):
    load: RegLocArgs


class StoreOp(_Strict):
    store: LocValueArgs


class VolatileLoadOp(_Strict):
    volatile_load: RegLocArgs


class VolatileStoreOp(_Strict):
    volatile_store: LocValueArgs


class AtomicLoadOp(_Strict):
    atomic_load: AtomicLoadArgs


class AtomicStoreOp(_Strict):
    atomic_store: AtomicStoreArgs


class CasOp(_Strict):
    cas: CasArgs


class ExchOp(_Strict):
    exch: RmwArgs


class AddOp(_Strict):
    add: RmwArgs


class FenceOp(_Strict):
    fence: FenceArgs


class BarSyncOp(_Strict):
    bar_sync: Optional[BarArgs] = Field(alias="bar.sync")


class SpinOp(_Strict):
    spin: SpinArgs


class RetryArgs(_Strict):
    """Fields of ``retry``: run ``do`` up to ``times`` times, leaving after the first run in
    which ``until`` holds (comparisons of the thread's registers, joined by ``/\\``)."""

    times: Union[PosInt, Placeholder]
    until: Text
    do: list["OpItem"]


class RetryOp(_Strict):
    retry: RetryArgs


# op name in YAML -> (wrapper model, fields model)
OPS: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "load": (LoadOp, RegLocArgs),
    "store": (StoreOp, LocValueArgs),
    "volatile_load": (VolatileLoadOp, RegLocArgs),
    "volatile_store": (VolatileStoreOp, LocValueArgs),
    "atomic_load": (AtomicLoadOp, AtomicLoadArgs),
    "atomic_store": (AtomicStoreOp, AtomicStoreArgs),
    "cas": (CasOp, CasArgs),
    "exch": (ExchOp, RmwArgs),
    "add": (AddOp, RmwArgs),
    "fence": (FenceOp, FenceArgs),
    "bar.sync": (BarSyncOp, BarArgs),
    "spin": (SpinOp, SpinArgs),
    "retry": (RetryOp, RetryArgs),
}


def _op_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return "op placeholder"
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        if key in OPS:
            return f"op {key}"
        if isinstance(key, str) and re.match(PLACEHOLDER_RE, key):
            return "op kind placeholder"
    return None


# ``- "{kind}": {loc: flag, value: 1, ...}``: the op's name comes from a placeholder; its fields
# are checked once a variant fills the name in.
OpKindPlaceholder = Annotated[dict[Placeholder, dict[str, Any]],
                              Field(min_length=1, max_length=1, json_schema_extra={"additionalProperties": False})]


OpItem = Annotated[
    Union[
        Annotated[LoadOp, Tag("op load")],
        Annotated[StoreOp, Tag("op store")],
        Annotated[VolatileLoadOp, Tag("op volatile_load")],
        Annotated[VolatileStoreOp, Tag("op volatile_store")],
        Annotated[AtomicLoadOp, Tag("op atomic_load")],
        Annotated[AtomicStoreOp, Tag("op atomic_store")],
        Annotated[CasOp, Tag("op cas")],
        Annotated[ExchOp, Tag("op exch")],
        Annotated[AddOp, Tag("op add")],
        Annotated[FenceOp, Tag("op fence")],
        Annotated[BarSyncOp, Tag("op bar.sync")],
        Annotated[SpinOp, Tag("op spin")],
        Annotated[RetryOp, Tag("op retry")],
        Annotated[Placeholder, Tag("op placeholder")],
        Annotated[OpKindPlaceholder, Tag("op kind placeholder")],
    ],
    Discriminator(
        _op_tag,
        custom_error_type="unknown_op",
        custom_error_message="an op is a mapping with one key naming the op, or a placeholder",
    ),
]
RetryArgs.model_rebuild()

# ------------------------------------------------------------------------ the program


class LocationFull(_Strict):
    """``x: {init: 0, home: 1, bits: 64}``: initial value, the rank whose memory holds it and
    the width; or ``lo: {view: x, offset: 0, bits: 32}``: a view of bytes of another location
    (no init or home of its own)."""

    init: IntP = 0
    home: NonNegIntP = 0
    bits: BitsP = 32
    view: Optional[LocP] = None
    offset: NonNegIntP = 0


LocationSpec = Annotated[
    Union[
        Annotated[StrictInt, Tag("<number>")],
        Annotated[Placeholder, Tag("<text>")],
        Annotated[LocationFull, Tag("<mapping>")],
    ],
    Discriminator(
        _by_type,
        custom_error_type="bad_location",
        custom_error_message="a location is an initial value (integer) or a mapping {init, home, bits} "
                             "or {view, offset, bits}",
    ),
]


class At(_Strict):
    """Placement of a thread: GPU ``rank`` and CTA (block) index ``cta``."""

    rank: NonNegIntP
    cta: NonNegIntP


class ThreadSpec(_Strict):
    """One thread: where it runs, its ops in program order, optional initial register values."""

    at: At
    do: list[OpItem]
    regs: dict[Name, StrictInt] = {}


# --------------------------------------------------------------------------- variants


class AuditExpectSpec(_Strict):
    """A finding the compiled-code audit is expected to report (a known miscompile)."""

    target: str
    op: str
    triton: str = ""
    why: Text


class VariantSpec(_Strict):
    """One entry of a variant list."""

    name: PatternName
    set: dict[Name, Any] = {}
    expect: Outcome
    why: Text
    may_hang: StrictBool = False
    audit_expect: list[AuditExpectSpec] = []


class Rule(_Strict):
    """An expectation rule of a product; the first whose ``when`` matches a variant wins."""

    when: dict[Name, Union[PatternName, list[PatternName]]] = {}
    outcome: Outcome
    why: Text
    may_hang: StrictBool = False
    audit_expect: list[AuditExpectSpec] = []


class ProductSpec(_Strict):
    """``variants: {product: {axis: {option: {placeholder: value}}}, expect: [rules]}``."""

    product: dict[Name, dict[PatternName, dict[Name, Any]]] = Field(min_length=1)
    expect: list[Rule] = Field(min_length=1)


Variants = Annotated[
    Union[
        Annotated[list[VariantSpec], Tag("<list>")],
        Annotated[ProductSpec, Tag("<mapping>")],
    ],
    Discriminator(
        _by_type,
        custom_error_type="bad_variants",
        custom_error_message="variants is a list of variants or a mapping {product, expect}",
    ),
]


class PatternDoc(_Strict):
    """One YAML document: one pattern of the litmus catalog."""

    model_config = ConfigDict(
        extra="forbid",
        title="litmus catalog pattern",
        json_schema_extra={"description": "One pattern of the litmus catalog; see docs/format.md."},
    )

    name: PatternName
    title: str = ""
    description: str = ""
    source: str = ""
    tags: list[str] = []
    locations: dict[Name, LocationSpec] = Field(min_length=1)
    threads: dict[ThreadName, ThreadSpec] = Field(min_length=1)
    exists: Optional[str] = None
    tilde_exists: Optional[str] = Field(default=None, alias="~exists")
    not_exists: Optional[str] = None
    forall: Optional[str] = None
    placeholders: dict[Name, str] = {}
    variants: Optional[Variants] = None
    expect: Optional[Outcome] = None
    why: Optional[Text] = None
    may_hang: StrictBool = False
    audit_expect: list[AuditExpectSpec] = []


CONDITION_KEYS: tuple[str, ...] = tuple(KIND_WORDS)
"""The pattern keys that hold a condition: every spelling of a condition kind."""
