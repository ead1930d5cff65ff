"""Names of generated patterns: diy's family names (MP, SB, LB, ...) with per-thread fence
decorations (``MP+fence.sc+po``), or the cycle itself for shapes without a classic name."""

from __future__ import annotations

from litmus.diy.cycle import build_rotation, canonical, rotations, text
from litmus.diy.edges import EDGES, Edge, parse_cycle

FAMILIES: dict[str, str] = {
    "PodWW Rfe PodRR Fre": "MP",
    "PodWR Fre PodWR Fre": "SB",
    "PodRW Rfe PodRW Rfe": "LB",
    "PodWW Rfe PodRW Coe": "S",
    "PodWW Coe PodWR Fre": "R",
    "PodWW Coe PodWW Coe": "2+2W",
    "Rfe PodRW Rfe PodRR Fre": "WRC",
    "Rfe PodRR Fre Rfe PodRR Fre": "IRIW",
    "PodWW Rfe PodRW Rfe PodRR Fre": "ISA2",
    "Rfe PodRR Fre PodWR Fre": "RWC",
    "PodWW Rfe PodRR Fre PodWR Fre": "W+RWC",
    "PodWR Fre PodWR Fre PodWR Fre": "3.SB",
    "PodRW Rfe PodRW Rfe PodRW Rfe": "3.LB",
    "PodWW Coe PodWW Coe PodWW Coe": "3.2W",
    "PodWR Fre PodWR Fre PodWR Fre PodWR Fre": "4.SB",
    "PodRW Rfe PodRW Rfe PodRW Rfe PodRW Rfe": "4.LB",
    "PodWW Coe PodWW Coe PodWW Coe PodWW Coe": "4.2W",
}
"""Classic shapes (program-order edges plain ``Pod``) -> diy's names."""

_REFERENCES: dict[tuple[str, ...], tuple[str, tuple[str, ...]]] = {
    tuple(e.name for e in canonical(parse_cycle(c))): (name, tuple(c.split())) for c, name in FAMILIES.items()}
"""Canonical plain shape -> (family name, the shape as FAMILIES writes it: P0 first)."""

_LABEL = {"po": "po", "sc": "fence.sc", "acq_rel": "fence.acq_rel"}


def _plain(e: Edge) -> Edge:
    """``e`` with its fence taken off (``FenceScdWR`` -> ``PodWR``)."""
    return EDGES[f"Pod{e.src}{e.dst}"] if e.fence else e


def family(edges: tuple[Edge, ...]) -> str | None:
    """The classic name of the cycle's shape, fences ignored; None for other shapes."""
    found = _REFERENCES.get(tuple(e.name for e in canonical(tuple(_plain(e) for e in edges))))
    return found[0] if found else None


def _labels(edges: tuple[Edge, ...]) -> tuple[str, ...]:
    """One label per thread that has program-order edges (``po``, ``fence.sc``, ``po-fence.sc``)."""
    labels: list[str] = []
    current: list[str] = []
    for e in edges:
        if e.external:
            if current:
                labels.append("-".join(current))
            current = []
        else:
            current.append(_LABEL[e.fence or "po"])
    if current:
        labels.append("-".join(current))
    return tuple(labels)


def rotation(edges: tuple[Edge, ...]) -> tuple[Edge, ...]:
    """The rotation a test is built from: for a classic shape, the one whose threads come in
    the family's order (MP's writer is P0; of a symmetric shape's alignments, the smallest
    labels); else :func:`~litmus.diy.cycle.build_rotation`.  Equal cycles give equal rotations."""
    found = _REFERENCES.get(tuple(e.name for e in canonical(tuple(_plain(e) for e in edges))))
    if found is None:
        return build_rotation(edges)
    aligned = [r for r in rotations(canonical(edges)) if tuple(_plain(e).name for e in r) == found[1]]
    return min(aligned, key=lambda r: (_labels(r), tuple(e.name for e in r)))


def pattern_name(edges: tuple[Edge, ...]) -> str:
    """``MP``, ``MP+fence.sc+po`` (one label per thread with program-order edges, in thread
    order), or the built cycle joined by ``_`` (``PodWR_Fre_PodWW_Coe``)."""
    es = rotation(edges)
    base = family(es)
    if base is None:
        return "_".join(e.name for e in es)
    if not any(e.fence for e in es):
        return base
    return "+".join([base, *_labels(es)])


def cycle_text(edges: tuple[Edge, ...]) -> str:
    """The built cycle as text (the rotation the test is made from)."""
    return text(rotation(edges))
