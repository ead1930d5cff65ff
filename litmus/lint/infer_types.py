"""Choose a type or constexpr value for a parameter the user did not give: from a launch in the
file, else from how the kernel uses it (:class:`litmus.lint.infer.Use`).

The element type of an inferred pointer is a convenience, not a finding: ``int32`` for a pointer
an atomic uses or whose memory is stored or compared with an int literal (a flag), ``uint64``
for one whose loaded words become addresses (heap bases, pointer tables), ``fp32`` otherwise.
The choice does not change the ordering the linter reads (sem, scope, barriers, whose memory);
it only lets the kernel compile."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from litmus.lint.infer import Use

_RANK = re.compile(r"^(cur_?rank|my_?rank|rank|local_?rank|src_?rank|from_?rank|pe|my_?pe|rank_id|mype)$", re.I)
_PEER = re.compile(r"^(to_?rank|peer(_?rank)?|dst_?rank|target_?rank|remote_?rank|next_?rank|peer_?pe|"
                   r"dst_?pe|target_?pe|remote_?pe)$", re.I)
_WORLD = re.compile(r"^(world_?size|num_?ranks|n_?ranks|nranks|num_?pes|n_?pes|npes|ws|num_?gpus|"
                    r"num_?devices|tp_?size|ep_?size)$", re.I)


@dataclass(frozen=True)
class Decided:
    """The choice for one parameter: ``value`` (a type, or a constexpr value when ``constexpr``)
    and why; ``value`` None when nothing in the kernel tells it (``why`` says what was seen)."""

    value: Any
    constexpr: bool
    why: str


def _pointer(use: Use) -> tuple[str, str]:
    if use.table:
        return "*u64", "pointer to addresses"
    if use.atomic:
        return "*i32", "atomic's pointer"
    if use.int_data:
        return "*i32", "pointer to an int flag"
    return "*fp32", "pointer"


def _function_or_dtype(use: Use) -> Decided:
    """A constexpr called as a function (of two arguments: a combine function, taken as one
    that adds them; no other function is guessed) or used as a dtype (``tl.uint32`` for a bitcast
    of the 32-bit ints values are inferred as, else ``tl.int32``); ``value`` None otherwise."""
    import triton.language as tl

    from litmus.lint.libs import _common

    if use.arity and not use.dtype:
        if set(use.arity) == {2}:
            return Decided(_common.combine_add, True, "called as a function of 2 arguments: one that adds them")
        counts = " or ".join(map(str, use.arity))
        return Decided(None, True, f"called as a function of {counts} argument{'' if use.arity == (1,) else 's'}")
    if use.dtype and not use.arity:
        if use.bitcast:
            return Decided(tl.uint32, True, "the dtype of a bitcast of a 32-bit value")
        return Decided(tl.int32, True, "used as a dtype")
    return Decided(None, True, "called as a function or used as a dtype")


def _constexpr(name: str, use: Use) -> Decided:
    if use.called:
        return _function_or_dtype(use)
    if isinstance(use.compared, str):
        return Decided(use.compared, True, f"compared with {use.compared!r}")
    if _WORLD.match(name):
        return Decided(2, True, "world size")
    if _PEER.match(name):
        return Decided(1, True, "a peer rank")
    if _RANK.match(name):
        return Decided(0, True, "this rank")
    if use.shape:
        return Decided(128, True, "block size")
    if isinstance(use.compared, bool):
        return Decided(use.compared, True, f"compared with {use.compared}")
    if use.exits is not None and use.compared == use.exits:  # not the value that skips the rest
        return Decided(use.exits + 1, True, f"compared with {use.exits} before a return: {use.exits + 1}, so the "
                       "code after it is compiled")
    if isinstance(use.compared, (int, float)):
        return Decided(use.compared, True, f"compared with {use.compared}")
    if use.size:
        return Decided(128, True, "a bound compared with indices")
    if use.loop_bound or use.divisor:
        return Decided(1, True, "a loop bound or divisor")
    if use.condition:
        return Decided(False, True, "a condition: its False branch")
    if use.stub_arg:
        return Decided(False, True, "given only to a function of a module stubbed empty")
    if use.arith:
        return Decided(1, True, "used in arithmetic")
    if not use.used:
        return Decided(1, True, "unused")
    return Decided(None, True, "its use does not say what value compiles")


DESCRIPTOR_BLOCK = 128
"""Each block dimension of an inferred tensor descriptor: the block size constexprs are inferred as."""
DESCRIPTOR_DTYPE = "bf16"
"""The element type of an inferred tensor descriptor (TMA tiles are GEMM operands, mostly 16-bit)."""
TUPLE_LENGTH = 2
"""The length of a tuple parameter nothing bounds: a world size of 2."""


def _descriptor(rank: int) -> str:
    """The type triton 3.6 and 3.9 both spell for a tensor descriptor of ``rank`` dimensions."""
    return f"tensordesc<{DESCRIPTOR_DTYPE}[{', '.join([str(DESCRIPTOR_BLOCK)] * rank)}]>"


def _tuple_length(use: Use, known: dict[str, Any]) -> tuple[int, str]:
    """How many elements a tuple parameter has: the largest literal index + 1 or the constexpr
    value of the loop bound its index runs to, else :data:`TUPLE_LENGTH`; and why."""
    sizes = [(v, f"indexed up to {v - 1}") for v in use.length if isinstance(v, int)]
    sizes += [(known[v], f"indexed below {v}={known[v]}") for v in use.length
              if isinstance(v, str) and isinstance(known.get(v), int) and not isinstance(known.get(v), bool)]
    if not sizes:
        return TUPLE_LENGTH, f"its length not shown: {TUPLE_LENGTH}"
    return max(sizes)


def decide(name: str, is_constexpr: bool, use: Use | None, hint: tuple[Any, str] | None,
           default: Any, known: dict[str, Any] | None = None) -> Decided:
    """The type or value of parameter ``name``: the launch ``hint`` first, then its
    ``default`` (a parameter with a default is compiled with it), then its ``use``; ``known``
    holds the constexpr values already chosen (a tuple's length may be one)."""
    use = use or Use()
    if hint is not None:
        value, why = hint
        if is_constexpr:
            return Decided(value, True, f"from {why}")
        if value == "*":  # a tensor of unknown dtype: the element type from the kernel's use
            typ, _ = _pointer(use)
            return Decided(typ, False, f"from {why}")
        return Decided(value, False, f"from {why}")
    if not _is_empty(default):
        return Decided(default, True, "its default")
    if is_constexpr:
        return _constexpr(name, use)
    if use.called:  # Triton passes a function (or a dtype) as a constexpr, whatever the annotation
        return _function_or_dtype(use)
    if use.descriptor:
        return Decided(_descriptor(use.descriptor), False,
                       f"a tensor descriptor (its .load/.store take {use.descriptor} offsets); its dtype and block "
                       f"shape are not in the kernel: {DESCRIPTOR_DTYPE}, {DESCRIPTOR_BLOCK} a dimension")
    if use.indexed:
        n, why = _tuple_length(use, dict(known or {}))
        typ, what = _pointer(use) if use.pointer else ("i32", "integer")
        return Decided(tuple([typ] * n), False, f"a tuple of {n} ({what}; {why})")
    if use.pointer:
        typ, why = _pointer(use)
        return Decided(typ, False, why)
    if use.bits == 64:
        return Decided("i64", False, "integer bitcast to a 64-bit type")
    return Decided("i32", False, "integer")


def _is_empty(default: Any) -> bool:
    import inspect

    return default is inspect.Parameter.empty
