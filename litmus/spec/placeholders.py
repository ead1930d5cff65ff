"""Placeholders: find the ``{name}`` uses in a pattern and fill them with a variant's values."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from litmus import limits
from litmus.spec.yamlpos import LDict, LList, Pos

WHOLE = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_]*)\}$")
INNER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
MAX_DEPTH = 16


def uses(value: Any, pos: Pos) -> list[tuple[str, Pos]]:
    """Every placeholder name used in ``value`` (written at ``pos``), with where it is used."""
    out: list[tuple[str, Pos]] = []
    if isinstance(value, str):
        out.extend((m.group(1), pos) for m in INNER.finditer(value))
    elif isinstance(value, LDict):
        for k, v in value.items():
            if isinstance(k, str) and (m := WHOLE.match(k)):
                out.append((m.group(1), value.key_pos[k]))
            out.extend(uses(v, value.val_pos[k]))
    elif isinstance(value, LList):
        for v, p in zip(value, value.item_pos):
            out.extend(uses(v, p))
    return out


@dataclass
class Budget:
    """Values that filling placeholders may still produce, shared by all variants of a pattern
    (placeholders whose values use other placeholders many times are a bomb without aliases)."""

    left: int = field(default_factory=lambda: limits.EXPANDED_VALUES.value)
    exceeded: bool = False


@dataclass
class Filler:
    """Fills placeholders from ``env`` (name -> (value, where the value is written)).

    ``problems`` collects (pos, message) for values that cannot be filled in.
    """

    env: dict[str, tuple[Any, Pos]]
    problems: list[tuple[Pos, str]] = field(default_factory=list)
    budget: Budget = field(default_factory=Budget)
    texts: dict[str, Any] = field(default_factory=dict)  # placeholder -> its text, filled

    def fill(self, value: Any, pos: Pos, depth: int = 0) -> tuple[Any, Pos]:
        """``value`` with every placeholder filled, and the position of the result."""
        self.budget.left -= 1
        if self.budget.left < 0:
            if not self.budget.exceeded:
                self.budget.exceeded = True
                self.problems.append((pos, "filling in the placeholders of all variants "
                                           + limits.EXPANDED_VALUES.message()))
            return value, pos
        if depth > MAX_DEPTH:
            self.problems.append((pos, f"placeholders refer to each other more than {MAX_DEPTH} deep (a cycle?); make one of them a plain value"))
            return value, pos
        if isinstance(value, str):
            return self._fill_text(value, pos, depth)
        if isinstance(value, LDict):
            out = LDict(value.pos)
            out.dups = value.dups
            for k, v in value.items():
                nv, npos = self.fill(v, value.val_pos[k], depth)
                out.put(self._fill_key(k, value.key_pos[k]), nv, value.key_pos[k], npos, value.val_style.get(k))
            return out, pos
        if isinstance(value, LList):
            outl = LList(value.pos)
            for v, p in zip(value, value.item_pos):
                nv, npos = self.fill(v, p, depth)
                if isinstance(v, str) and WHOLE.match(v) and isinstance(nv, LList):
                    for item, ipos in zip(nv, nv.item_pos):  # splice a list of ops
                        outl.add(item, ipos)
                else:
                    outl.add(nv, npos)
            return outl, pos
        return value, pos

    def _fill_key(self, key: Any, pos: Pos) -> Any:
        """A mapping key that is exactly ``"{name}"`` (an op kind) becomes the placeholder's text."""
        m = WHOLE.match(key) if isinstance(key, str) else None
        if m is None or m.group(1) not in self.env:
            return key
        v, _ = self.env[m.group(1)]
        if not isinstance(v, str) or INNER.search(v):
            self.problems.append((pos, f"placeholder '{m.group(1)}' names an op here, so its value must be an "
                                       f"op name such as atomic_store or exch; got {v!r:.80}"))
            return key
        return v

    def _fill_text(self, text: str, pos: Pos, depth: int) -> tuple[Any, Pos]:
        m = WHOLE.match(text)
        if m:
            if m.group(1) not in self.env:
                return text, pos
            v, vpos = self.env[m.group(1)]
            return self.fill(v, vpos, depth + 1)
        if not INNER.search(text):
            return text, pos

        def repl(mm: re.Match[str]) -> str:
            name = mm.group(1)
            if name not in self.env:
                return mm.group(0)
            v, _ = self.env[name]
            if isinstance(v, str) and INNER.search(v):
                if name not in self.texts:  # once per placeholder: "{a}{a}{a}" nested is exponential
                    self.texts[name] = self.fill(v, pos, depth + 1)[0]
                v = self.texts[name]
            if isinstance(v, bool) or not isinstance(v, (int, str)):
                self.problems.append(
                    (pos, f"placeholder '{name}' is used inside the text {text!r:.200}, so its value must be a number or a string")
                )
                return mm.group(0)
            return str(v)

        limit = limits.EXPANDED_TEXT.value
        parts: list[str] = []
        size = end = 0
        for mm in INNER.finditer(text):
            parts += [text[end:mm.start()], repl(mm)]
            end = mm.end()
            size += len(parts[-2]) + len(parts[-1])
            if size > limit:
                self.problems.append((pos, f"the text {text[:60]!r}... with its placeholders filled in "
                                           + limits.EXPANDED_TEXT.message()))
                return text, pos
        parts.append(text[end:])
        return "".join(parts), pos
