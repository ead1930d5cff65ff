"""A cycle -> the catalog document (a Python mapping in the YAML format of docs/format.md)
whose product of ``place`` × ``sems`` × ``scope`` options are its variants; the expectations
are added by :mod:`litmus.diy.expect`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litmus.diy.cycle import Event, Layout, layout, text
from litmus.diy.edges import Edge
from litmus.diy.naming import family, pattern_name, rotation
from litmus.diy.variants import PLACES, SEMS, access_placeholder, place_option, sems_option


@dataclass(frozen=True)
class Axes:
    """The options chosen for each product axis, in the order variants are made."""

    places: tuple[str, ...]
    sems: tuple[str, ...]
    scopes: tuple[str, ...]


def _fence_op(e: Edge) -> dict[str, Any]:
    return {"fence": {"sem": e.fence, "scope": "{scope}"}}


def _describe(lay: Layout) -> str:
    lines = [f"diy cycle: {text(lay.edges)}."]
    for t, thread in enumerate(lay.threads):
        parts = []
        for item in thread:
            if isinstance(item, Event):
                parts.append(f"W {item.loc}={item.value}" if item.dir == "W" else f"R {item.loc} -> {item.reg}")
            else:
                parts.append(f"fence.{item.fence}")
        lines.append(f"P{t}: " + "; ".join(parts))
    lines.append(f"Target: {lay.condition.replace(chr(92) + '/', 'and').replace('/' + chr(92), 'and')}.")
    return "\n".join(lines) + "\n"


def document(edges: tuple[Edge, ...], axes: Axes) -> dict[str, Any]:
    """The pattern document of the cycle ``edges``: template, placeholders and the variant
    product (no ``expect`` yet)."""
    lay = layout(rotation(edges))
    threads: dict[str, Any] = {}
    placeholders: dict[str, str] = {}
    for t, thread in enumerate(lay.threads):
        ops: list[Any] = []
        position = 0
        for item in thread:
            if isinstance(item, Event):
                name = access_placeholder(item, position)
                position += 1
                ops.append("{" + name + "}")
                what = f"write of {item.loc} = {item.value}" if item.dir == "W" else f"read of {item.loc} into {item.reg}"
                placeholders[name] = f"P{t}'s {what}"
            else:
                ops.append(_fence_op(item))
        threads[f"P{t}"] = {"at": {"rank": f"{{p{t}_rank}}", "cta": f"{{p{t}_cta}}"}, "do": ops}
        placeholders[f"p{t}_rank"] = f"GPU rank of P{t}"
        placeholders[f"p{t}_cta"] = f"CTA index of P{t}"
    for loc in lay.locations:
        placeholders[f"{loc}_home"] = f"rank whose memory holds {loc}"
    placeholders["scope"] = "the scope of every atomic access and fence"
    shape = family(lay.edges)
    return {
        "name": pattern_name(edges),
        "title": f"diy cycle {text(lay.edges)}" + (f" ({shape} shape)" if shape else ""),
        "description": _describe(lay),
        "source": f"litmus generate '{text(lay.edges)}' (diy7-style, herdtools)",
        "tags": ["diy", "generated"] + ([shape.lower()] if shape else []),
        "locations": {loc: {"init": 0, "home": f"{{{loc}_home}}"} for loc in lay.locations},
        "threads": threads,
        "exists": lay.condition,
        "placeholders": placeholders,
        "variants": {"product": {
            "place": {p: place_option(p, lay) for p in axes.places},
            "sems": {s: sems_option(SEMS[s], lay) for s in axes.sems},
            "scope": {sc: {"scope": sc} for sc in axes.scopes},
        }},
    }


def option_words(axis: str, option: str) -> str:
    """Words for one option in a why sentence."""
    if axis == "place":
        return PLACES[option]
    if axis == "sems":
        return SEMS[option].says
    return f"{option} scope"
