"""IR facts the PTX ``.litmus`` format has no syntax for, carried in the description text.

Location homes travel as one description line ``homes: x@1 flag@0``; notes (e.g. that a
spin's bound was dropped) as lines starting ``note:``.  :func:`split_description` takes the
homes line back out; note lines stay part of the description.
"""

from __future__ import annotations

import re

_HOMES_LINE = re.compile(r"homes:(?P<body>.*)\Z")
_HOME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)@(\d+)\Z")


def is_homes_line(line: str) -> bool:
    """Whether a description line is a ``homes:`` line."""
    return _HOMES_LINE.match(line.strip()) is not None


def format_homes(homes: dict[str, int]) -> str:
    """The description line ``homes: x@1 flag@0`` for ``homes`` (location -> rank)."""
    return "homes: " + " ".join(f"{loc}@{rank}" for loc, rank in homes.items())


def split_description(text: str) -> tuple[str, dict[str, int]]:
    """``text`` without its ``homes:`` line, and the homes that line gives (location -> rank).

    Raises ``ValueError`` on a malformed ``homes:`` line.
    """
    kept: list[str] = []
    homes: dict[str, int] = {}
    for line in text.split("\n"):
        m = _HOMES_LINE.match(line.strip())
        if not m:
            kept.append(line)
            continue
        for item in m.group("body").split():
            h = _HOME.match(item)
            if not h:
                raise ValueError(f"homes: entry {item!r} is not LOCATION@RANK (e.g. x@1)")
            homes[h.group(1)] = int(h.group(2))
    return "\n".join(kept), homes


def join_description(text: str, homes: dict[str, int], notes: list[str]) -> str:
    """``text`` followed by one ``note:`` line per note and a ``homes:`` line if any home is set."""
    lines = [text] if text else []
    lines += [f"note: {n}" for n in notes]
    if homes:
        lines.append(format_homes(homes))
    return "\n".join(lines)
