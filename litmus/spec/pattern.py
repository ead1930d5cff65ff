"""A compiled catalog pattern: its name, where it was defined, and its variants as IR tests.

Kept apart from :mod:`litmus.spec.compile` (YAML and pydantic) so that patterns read back from
the spec cache need neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from litmus import ir


@dataclass(frozen=True)
class Pattern:
    """A catalog pattern: a template plus the variants that fill it."""

    name: str
    title: str
    source_file: str
    source_line: int
    tests: tuple[ir.LitmusTest, ...] = field(repr=False)

    def expand(self) -> list[ir.LitmusTest]:
        """One litmus test per variant, in the order the file gives them."""
        return list(self.tests)

    @property
    def variants(self) -> list[str]:
        """The variant names."""
        return [t.variant for t in self.tests]
