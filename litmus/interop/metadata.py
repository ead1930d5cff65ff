"""IR facts the PTX ``.litmus`` format has no syntax for, carried in the description text.

Location homes travel as one description line ``homes: x@1 flag@0``; notes as lines starting
``note:``.  What LitmusPTX.g4 cannot spell travels as one line ``litmus: ANNOTATION ...``
(:class:`Annotation`): ``P0:volatile@3`` (instruction 3 of P0, written ``relaxed.sys``, is
volatile), ``P0:noreg@2`` (the RMW keeps no old value: written as ``atom`` into a scratch
register), ``P1:spin@0:100000:r0`` (instructions 0-2 of P1, a loop ``LCnn: read; bne``, are a
``Spin`` with bound 100000 whose last read goes to r0; ``-`` for no register).  Indices count
the instructions the reader builds for that thread, before spins are folded back.
:func:`split_description` takes the homes line back out, :func:`split_annotations` the
``litmus:`` line; note lines stay part of the description.
"""

from __future__ import annotations

import re

from dataclasses import dataclass

_HOMES_LINE = re.compile(r"homes:(?P<body>.*)\Z")
_ANNOTATIONS_LINE = re.compile(r"litmus:(?P<body>.*)\Z")
_ANNOTATION = re.compile(r"(P\d+):(volatile|noreg|spin)@(\d+)(?::(\d+):([A-Za-z_][A-Za-z0-9_]*|-))?\Z")


@dataclass(frozen=True)
class Annotation:
    """One fact about instruction ``index`` of ``thread`` (see the module docstring)."""

    thread: str
    kind: str  # volatile | noreg | spin
    index: int
    bound: int | None = None  # spin only
    reg: str | None = None  # spin only: the register of its last read (None: none)

    def text(self) -> str:
        """The annotation as written."""
        tail = f":{self.bound}:{self.reg or '-'}" if self.kind == "spin" else ""
        return f"{self.thread}:{self.kind}@{self.index}{tail}"


def split_annotations(text: str) -> tuple[str, list[Annotation]]:
    """``text`` without its ``litmus:`` line, and that line's annotations.

    Raises ``ValueError`` on a malformed annotation."""
    kept: list[str] = []
    found: list[Annotation] = []
    for line in text.split("\n"):
        m = _ANNOTATIONS_LINE.match(line.strip())
        if not m:
            kept.append(line)
            continue
        for item in m.group("body").split():
            a = _ANNOTATION.match(item)
            if not a or (a.group(2) == "spin") != (a.group(4) is not None):
                raise ValueError(f"litmus: annotation {item!r} is not THREAD:volatile@N, "
                                 "THREAD:noreg@N or THREAD:spin@N:BOUND:REG")
            reg = a.group(5) if a.group(5) not in (None, "-") else None
            found.append(Annotation(a.group(1), a.group(2), int(a.group(3)),
                                    int(a.group(4)) if a.group(4) else None, reg))
    return "\n".join(kept), found


def is_annotations_line(line: str) -> bool:
    """Whether a description line is a ``litmus:`` annotations line."""
    return _ANNOTATIONS_LINE.match(line.strip()) is not None
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


def join_description(text: str, homes: dict[str, int], notes: list[str],
                     annotations: list[Annotation] | None = None) -> str:
    """``text`` followed by one ``note:`` line per note, a ``homes:`` line if any home is set
    and a ``litmus:`` line if there are annotations."""
    lines = [text] if text else []
    lines += [f"note: {n}" for n in notes]
    if homes:
        lines.append(format_homes(homes))
    if annotations:
        lines.append("litmus: " + " ".join(a.text() for a in annotations))
    return "\n".join(lines)


_HEADER_UNSAFE = str.maketrans({'"': "'", "{": "(", "}": ")"})


def header_safe(text: str) -> str:
    """``text`` as a description can hold it: LitmusPTX.g4 ends the header at the first ``{``
    and the reader ends a quoted line at ``"``, so ``"`` becomes ``'`` and braces parentheses."""
    return text.translate(_HEADER_UNSAFE)
