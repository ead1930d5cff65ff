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


def _constexpr(name: str, use: Use) -> Decided:
    if use.called:
        return Decided(None, True, "called as a function or used as a dtype")
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


def decide(name: str, is_constexpr: bool, use: Use | None, hint: tuple[Any, str] | None,
           default: Any) -> Decided:
    """The type or value of parameter ``name``: the launch ``hint`` first, then its
    ``default`` (a parameter with a default is compiled with it), then its ``use``."""
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
    if use.called:
        return Decided(None, False, "called as a function or used as a dtype")
    if use.pointer:
        typ, why = _pointer(use)
        return Decided(typ, False, why)
    return Decided("i32", False, "integer")


def _is_empty(default: Any) -> bool:
    import inspect

    return default is inspect.Parameter.empty
