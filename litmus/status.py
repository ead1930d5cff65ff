"""What became of one instance of a run: it completed, a bounded spin ran out of reads, or it
provably hung.

A histogram row (``litmus.run.backend.Row``) carries one of these as its second element.  Only
:data:`COMPLETED` is truthy-false, so ``if status:`` still reads "did not complete".

``HUNG`` comes from quiescent spins (``CodegenOptions.quiesce``, docs/codegen.md "Quiescent
hangs"): every thread of the instance was finished or waiting in a spin, and each waiting thread
had read, after an acquire that made every earlier write visible to it, a value its spin does not
wait for.  No thread can then write again, so no spin can ever exit: the instance ended in a
hang, which is an outcome of its own (the model's ``possible_hang``), not missing evidence.
"""

from __future__ import annotations

COMPLETED = 0
TIMED_OUT = 1
HUNG = 2


def ended(status: int) -> bool:
    """Whether an instance with ``status`` reached an end the model describes (it completed, or
    it provably hung): such an instance is evidence of what it did not show."""
    return status in (COMPLETED, HUNG)
