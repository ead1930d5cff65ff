"""Whether the code one compiler version emitted has a CTA barrier between two source lines.

The rules judge the Triton program; this says what the compiled code for the chosen target
happens to do, read from the ``.loc`` line markers of the PTX / AMDGCN.  A barrier there that
the program did not ask for (Triton 3.9 puts ``bar.sync`` / ``s_barrier`` around a scalar
``tl.atomic_*``) is the compiler's, and another version or target need not emit it.
"""

from __future__ import annotations

import re

_ISA = {
    "ptx": (re.compile(r"^\s*(?:@!?%\w+\s+)?st\.global"), re.compile(r"^\s*(?:@!?%\w+\s+)?(?:atom|red)\."),
            re.compile(r"^\s*(?:@!?%\w+\s+)?(?:bar\.sync|barrier\.sync|bar\.red|barrier\.cta)")),
    "amdgcn": (re.compile(r"^\s*(?:global|buffer|flat)_store"), re.compile(r"^\s*(?:global|buffer|flat)_atomic"),
               re.compile(r"^\s*s_barrier")),
}
_LOC = re.compile(r"^\s*\.loc\s+\d+\s+(\d+)\s+\d+")
_INLINED_AT = re.compile(r"inlined_at\s+\d+\s+(\d+)")


def barrier_between(asm: str, kind: str, store_lines: set[int], signal_lines: set[int]) -> bool | None:
    """For the last store from ``store_lines`` before the first atomic from ``signal_lines`` (in
    text order): is there a barrier between them?  None when either cannot be found."""
    store_re, atomic_re, barrier_re = _ISA[kind]
    lines: set[int] = set()  # the current .loc line and the lines it was inlined at
    last_store = False
    barrier_since = False
    for raw in asm.splitlines():
        m = _LOC.match(raw)
        if m:
            lines = {int(m.group(1)), *(int(x) for x in _INLINED_AT.findall(raw))}
            continue
        if store_re.match(raw) and lines & store_lines:
            last_store, barrier_since = True, False
        elif barrier_re.match(raw) and last_store:
            barrier_since = True
        elif atomic_re.match(raw) and lines & signal_lines and last_store:
            return barrier_since
    return None
