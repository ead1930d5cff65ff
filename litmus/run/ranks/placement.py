"""Which world rank (process / GPU) plays each rank number of a litmus test.

Pure Python: no torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from litmus.errors import LitmusError
from litmus.ir import LitmusTest


@dataclass(frozen=True)
class Placement:
    """Test rank ``i`` runs on world rank ``world_ranks[i]`` (identity when ``world_ranks`` is None).

    Several test ranks never share a world rank: two kernels of one process run one after the
    other, so a spin of one waiting for the other would only time out.
    """

    world_size: int
    world_ranks: tuple[int, ...] | None = None

    @classmethod
    def build(cls, world_size: int, ranks: Sequence[int] | None) -> "Placement":
        """A checked placement; raises LitmusError naming the fix for a bad ``ranks`` list."""
        if world_size < 1:
            raise LitmusError(f"ranks backend: world_size={world_size}; use 1 or more")
        if ranks is None:
            return cls(world_size, None)
        mapped = tuple(int(r) for r in ranks)
        bad = [r for r in mapped if not 0 <= r < world_size]
        if bad:
            raise LitmusError(
                f"ranks backend: ranks={list(mapped)} names world rank(s) {bad} but the world has "
                f"{world_size} rank(s) (0..{world_size - 1}); pick ranks below {world_size}"
            )
        if len(set(mapped)) != len(mapped):
            raise LitmusError(
                f"ranks backend: ranks={list(mapped)} maps two test ranks onto one world rank; "
                "each test rank needs its own process (kernels of one process do not run "
                "concurrently), so give distinct world ranks"
            )
        return cls(world_size, mapped)

    def needed(self, test: LitmusTest) -> int:
        """How many ranks ``test`` numbers (largest rank number + 1)."""
        return max(test.ranks, default=0) + 1

    def skip_reason(self, test: LitmusTest) -> str | None:
        """Why ``test`` cannot be placed on this world, or None."""
        need = self.needed(test)
        if self.world_ranks is None:
            if need > self.world_size:
                return f"needs {need} ranks, world has {self.world_size}"
            return None
        if need > len(self.world_ranks):
            return (
                f"needs {need} ranks, world has {self.world_size} and ranks="
                f"{list(self.world_ranks)} places only {len(self.world_ranks)}"
            )
        return None

    def world_rank(self, test_rank: int) -> int:
        """The world rank playing ``test_rank``."""
        return test_rank if self.world_ranks is None else self.world_ranks[test_rank]

    def test_rank(self, world_rank: int, n_test_ranks: int) -> int | None:
        """The test rank ``world_rank`` plays in a test numbering ``n_test_ranks`` ranks, or None."""
        for t in range(n_test_ranks):
            if self.world_rank(t) == world_rank:
                return t
        return None
