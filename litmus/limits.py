"""Limits on what one input file may ask of the loader, so that hostile input cannot hang it,
exhaust its memory or overflow its stack.

Each limit has a default far above what any catalog file needs and an environment variable
that raises it (read when the limit is checked, so tests and callers may change it).  Errors
name the limit, the file and line where it was crossed, and the variable to set.
See docs/format.md, "Limits".
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Limit:
    """One limit: its default and the environment variable that overrides it."""

    env: str
    default: int
    what: str  # what is counted, e.g. "bytes in one input file"

    @property
    def value(self) -> int:
        """The limit in force: ``$env`` when it is a positive integer, else the default."""
        raw = os.environ.get(self.env, "").strip()
        if raw:
            try:
                v = int(raw)
            except ValueError:
                return self.default
            if v > 0:
                return v
        return self.default

    def message(self, found: str | int | None = None) -> str:
        """``"... exceeds the limit of N WHAT; raise it with ENV=..."``."""
        got = f" ({found})" if found is not None else ""
        return (f"exceeds the limit of {self.value} {self.what}{got}; if this is real input, "
                f"raise it with the environment variable {self.env}=<larger number>")


FILE_BYTES = Limit("LITMUS_MAX_FILE_BYTES", 1 << 20, "bytes in one input file")
"""Size of one YAML or ``.litmus`` file (the largest catalog file is under 20 kB)."""

YAML_NODES = Limit("LITMUS_MAX_YAML_NODES", 100_000, "YAML values after alias expansion")
"""Values of one YAML document, counting each use of an alias (``*a``) as a copy of what it
names: bounds "billion laughs" alias bombs."""

YAML_DEPTH = Limit("LITMUS_MAX_YAML_DEPTH", 64, "levels of nested YAML mappings and lists")
"""Nesting depth of YAML collections (a catalog pattern needs about 8)."""

VARIANTS = Limit("LITMUS_MAX_VARIANTS", 10_000, "variants in one pattern")
"""Variants of one pattern: a variant list's length, or the product of a product's axes."""

CONDITION_DEPTH = Limit("LITMUS_MAX_CONDITION_DEPTH", 64, "levels of nested parentheses and negations in a condition")
"""Nesting of ``( )`` and ``~`` in one condition (the parser and evaluator recurse this deep)."""

EXPANDED_TEXT = Limit("LITMUS_MAX_EXPANDED_TEXT", 100_000, "characters of text after filling placeholders")
"""Length of one string after placeholders are filled in (``"{a}{a}"`` nested is a bomb too)."""

EXPANDED_VALUES = Limit("LITMUS_MAX_EXPANDED_VALUES", 500_000, "values made by filling placeholders in one pattern")
"""Values made by filling in the placeholders of all variants of one pattern: bounds the work a
pattern may ask for (variants times the size of each), and placeholder values that use other
placeholders many times."""

OPS = Limit("LITMUS_MAX_OPS", 1_000, "ops in one test (all threads, placeholders filled in)")
"""Ops of one concrete test (a catalog test has under 20; the model checker's work grows
exponentially with the number of ops, so keep tests small long before this limit)."""
