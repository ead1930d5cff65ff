"""The sentences of the meaning checks, shared by the full check (:mod:`litmus.spec.build`) and
the early one that runs while the document's shape is still wrong (:mod:`litmus.spec.meaning`)."""

from __future__ import annotations

from litmus.spec.shape import suggest


def unknown_location(loc: str, op: str, thread: str, locs: list[str]) -> str:
    """An op names a location that is not declared."""
    return (f"unknown location '{loc}' in {op} of {thread}"
            + suggest(loc, locs, f"known locations: {', '.join(locs)} (declare it under locations:)"))


def register_before_write(reg: str, op: str, thread: str) -> str:
    """An op reads a register its thread has not written yet."""
    return (f"register '{reg}' is read by {op} in {thread} before {thread} writes it; "
            f"load into it first, or give it an initial value under regs:")


def unknown_thread(thread: str, threads: list[str]) -> str:
    """The condition names a thread that does not exist."""
    return f"condition names thread {thread}, which does not exist; threads: {', '.join(threads)}"


def unwritten_register(thread: str, reg: str, known: list[str]) -> str:
    """The condition reads a register its thread never writes."""
    return (f"condition reads {thread}:{reg}, but {thread} never writes register '{reg}'"
            + suggest(reg, known, f"registers of {thread}: {', '.join(known) or 'none'} "
                      "(or give it an initial value under regs:)"))


def undeclared_location(loc: str, locs: list[str]) -> str:
    """The condition names a location that is not declared."""
    return f"condition names location '{loc}', which is not declared" + suggest(loc, locs, f"locations: {', '.join(locs)}")
