"""The ``ranks`` backend: one process per rank (GPU), heaps in symmetric memory.

Modules: :mod:`.backend` (:class:`RanksBackend`, the driving side), :mod:`.pool` (the spawned
rank processes, :class:`RankFailure`), :mod:`.worker` (entry point of a spawned rank process),
:mod:`.session` (one rank's process group, heap, kernels and round), :mod:`.heaps` (symmetric
memory or shared-memory files), :mod:`.placement` (test ranks -> world ranks), :mod:`.env`
(launcher detection, child environment, free ports).  See docs/multi-gpu.md.
"""

from litmus.run.ranks.backend import RanksBackend
from litmus.run.ranks.pool import RankFailure

__all__ = ["RankFailure", "RanksBackend"]
