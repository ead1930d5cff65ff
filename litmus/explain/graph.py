"""An explanation drawn herd-style with graphviz: a column per thread, grouped by GPU (rank) and
CTA so that scope boundaries show, events top to bottom in program order, edges coloured and
labelled by relation, a rejecting cycle in bold.  :func:`to_dot` needs only the Python package
``graphviz``; :func:`render_svg` also needs its ``dot`` program."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from litmus.errors import LitmusError

from litmus.explain.events import Event
from litmus.explain.explanation import Edge, Explanation

COLOURS = {"po": "black", "rf": "red", "co": "blue", "fr": "darkorange", "sync": "darkgreen", "sf": "magenta",
           "bar": "purple"}
"""Edge colour per relation (herd's where herd has one); anything else is grey."""

PIP = "pip install graphviz"
DOT = ("graphviz's dot program is not installed: apt-get install graphviz (Debian, Ubuntu), brew install graphviz "
       "(macOS) or conda install graphviz; --dot FILE writes the graph without it")


def _graphviz() -> Any:
    try:
        import graphviz
    except ImportError:
        raise LitmusError(f"drawing an execution needs the Python package graphviz: {PIP}") from None
    return graphviz


def to_dot(x: Explanation, xlabels: bool = False) -> str:
    """The graphviz source of ``x``: the execution that reaches an allowed state, or the first
    rejected candidate of a forbidden one with its cycle in bold; ``xlabels``: edge labels placed
    after layout (the fallback for the graphs whose labelled cross-cluster edges dot cannot route)."""
    gv = _graphviz()
    if x.allowed:
        events, edges, bold = list(x.events), list(x.edges), []
        title = f"{x.test.id} ({x.model}): {x.state_text} allowed"
    elif x.forbidden_by:
        g = x.forbidden_by[0]
        events, bold = list(g.events), list(g.cycle)
        edges = _context(g)
        title = f"{x.test.id} ({x.model}): {x.state_text} forbidden by {g.axiom}"
    else:
        events, edges, bold = [], [], []
        title = f"{x.test.id} ({x.model}): no candidate execution ends in {x.state_text}"
    dot = gv.Digraph(name="execution", graph_attr={"label": _escape(title), "labelloc": "t", "fontsize": "14",
                                                   "rankdir": "TB", "nodesep": "0.6", "ranksep": "0.5",
                                                   "newrank": "true", "fontname": "Helvetica"},
                     node_attr={"shape": "box", "style": "rounded", "fontname": "Helvetica", "fontsize": "11"},
                     edge_attr={"fontname": "Helvetica", "fontsize": "10"})
    bold_po = {(e.src, e.dst) for e in bold if e.relation == "po"}
    drawn = _nodes(dot, x, events, bold_po)
    seen = {(e.src, e.dst) for e in bold}
    bold = [e for e in bold if not (e.relation == "po" and (e.src, e.dst) in drawn)]
    label = "xlabel" if xlabels else "label"
    for e in edges:
        if (e.src, e.dst) in seen:
            continue
        dot.edge(_node(e.src), _node(e.dst), color=_colour(e.relation),
                 fontcolor=_colour(e.relation), constraint="false", **{label: e.relation})
    for e in bold:
        dot.edge(_node(e.src), _node(e.dst), color=_colour(e.relation),
                 fontcolor=_colour(e.relation), penwidth="3", style="bold", constraint="false", **{label: e.relation})
    _caption(dot, x, events)
    return str(dot.source)


def _caption(dot: Any, x: Explanation, events: list[Event]) -> None:
    """The why, under the drawing: what synchronisation the execution lacks, or the cycle."""
    from litmus.explain.text import cycle_text

    if x.allowed:
        lines = list(x.notes)
    elif x.forbidden_by:
        g = x.forbidden_by[0]
        lines = [f"{g.axiom}: {cycle_text(g.cycle, {e.id: e for e in g.events})}"]
    else:
        lines = [x.no_candidate or ""]
    if not lines or not events:
        return
    text = "".join(_escape(chunk) + "\\l" for line in lines for chunk in textwrap.wrap(line, 90))
    dot.node("caption", text, shape="plaintext", fontsize="10")
    for t in x.test.threads:  # below every column
        mine = [e for e in events if e.thread == t.name]
        if mine:
            dot.edge(_node(mine[-1].id), "caption", style="invis")


def _context(g: Any) -> list[Edge]:
    """The reads-from and coherence edges of a rejected candidate, beside its cycle."""
    from litmus.model.relations import bits

    ex = g.example
    ids = {k: ev.id for k, ev in enumerate(g.events)}
    out = []
    for name in ("rf", "co"):
        r = ex.relations.get(name)
        if r is None:
            continue
        for a, row in enumerate(r):
            later = 0
            if name == "co":
                for j in bits(row):
                    later |= r[j]
            for b in bits(row & ~later):
                out.append(Edge(ids[a], name, ids[b]))
    return out


def _nodes(dot: Any, x: Explanation, events: list[Event], bold_po: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """One cluster per rank, CTA and thread, each column held together by its program-order edges
    (bold where the cycle takes them); returns those edges."""
    drawn: set[tuple[str, str]] = set()
    inits = [e for e in events if e.thread is None]
    if inits:
        with dot.subgraph(name="cluster_init") as c:
            c.attr(label="initial state", style="dashed", color="grey")
            for e in inits:
                c.node(_node(e.id), f"{e.loc}={e.value}", color="grey")
    threads = [t for t in x.test.threads if any(e.thread == t.name for e in events)]
    ranks = sorted({t.rank for t in threads})
    for r in ranks:
        with dot.subgraph(name=f"cluster_rank{r}") as gpu:
            gpu.attr(label=f"GPU (rank) {r}", style="solid", color="black")
            for cta in sorted({t.cta for t in threads if t.rank == r}):
                with gpu.subgraph(name=f"cluster_rank{r}_cta{cta}") as block:
                    block.attr(label=f"CTA {cta}", style="dashed", color="steelblue")
                    for t in (t for t in threads if t.rank == r and t.cta == cta):
                        with block.subgraph(name=f"cluster_{_safe(t.name)}") as col:
                            col.attr(label=t.name, style="invis")
                            mine = [e for e in events if e.thread == t.name]
                            for e in mine:
                                col.node(_node(e.id), f"{e.id}: {_short(e)}")
                            for a, b in zip(mine, mine[1:]):
                                width = "3" if (a.id, b.id) in bold_po else "1"
                                col.edge(_node(a.id), _node(b.id), label="po", weight="10", color="black",
                                         penwidth=width)
                                drawn.add((a.id, b.id))
    firsts = [next(e for e in events if e.thread == t.name) for t in threads]
    with dot.subgraph(name="first") as row:  # every column starts on one row (newrank allows it)
        row.attr(rank="same")
        for e in firsts:
            row.node(_node(e.id))
    if inits:
        for e in firsts:
            dot.edge(_node(inits[0].id), _node(e.id), style="invis")
    return drawn


def _escape(text: str) -> str:
    """``text`` as a graphviz label (a backslash starts an escape there: ``/\\`` needs two)."""
    return text.replace("\\", "\\\\")


def _short(e: Event) -> str:
    return e.label.rsplit(" (", 1)[0]


def _node(eid: str) -> str:
    return "e_" + _safe(eid)


def _safe(s: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in s)


def _colour(relation: str) -> str:
    return COLOURS.get(relation.split("^")[0].replace("-", "_"), "grey40")


def svg_text(x: Explanation) -> str:
    """``x`` drawn as an SVG document (needs graphviz's ``dot``; a LitmusError saying how to
    install it when it is missing)."""
    gv = _graphviz()
    try:
        try:
            return gv.Source(to_dot(x)).pipe(format="svg", quiet=True).decode("utf-8")
        except gv.CalledProcessError:
            # dot's router fails on some labelled edges between clusters ("trouble in init_rank",
            # "lost edge"); labels placed after layout route on every graph seen so far
            return gv.Source(to_dot(x, xlabels=True)).pipe(format="svg", quiet=True).decode("utf-8")
    except gv.ExecutableNotFound:
        raise LitmusError(f"--svg: {DOT}") from None
    except gv.CalledProcessError as e:
        said = (e.stderr or b"").decode("utf-8", "replace").strip().splitlines()
        raise LitmusError(f"--svg: dot could not lay out the drawing of {x.test.id} ({said[0] if said else e}); "
                          "--dot FILE writes its graphviz source, which other layouts (neato -n, fdp) may draw") from None


def render_svg(x: Explanation, path: str | Path) -> None:
    """Write ``x`` drawn as SVG to ``path`` (needs graphviz's ``dot``)."""
    Path(path).write_text(svg_text(x), encoding="utf-8")


def write_dot(x: Explanation, path: str | Path) -> None:
    """Write the graphviz source of ``x`` to ``path``."""
    Path(path).write_text(to_dot(x) + "\n", encoding="utf-8")
