"""YAML text -> plain Python data whose mappings and lists remember where each item was written."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from litmus.errors import Problem


@dataclass(frozen=True)
class Pos:
    """A 1-based line and column in a YAML file."""

    line: int
    column: int


class LDict(dict):
    """A YAML mapping: ``pos`` of the mapping, ``key_pos``/``val_pos`` of each entry."""

    pos: Pos
    key_pos: dict[Any, Pos]
    val_pos: dict[Any, Pos]
    val_style: dict[Any, str | None]
    dups: list[tuple[Any, Pos, Pos]]  # (key, where repeated, where first written)

    def __init__(self, pos: Pos = Pos(1, 1)):
        super().__init__()
        self.pos = pos
        self.key_pos = {}
        self.val_pos = {}
        self.val_style = {}
        self.dups = []

    def put(self, key: Any, value: Any, key_pos: Pos, val_pos: Pos, style: str | None = None) -> None:
        """Set ``key`` with the positions of the key and the value."""
        self[key] = value
        self.key_pos[key] = key_pos
        self.val_pos[key] = val_pos
        self.val_style[key] = style


class LList(list):
    """A YAML sequence: ``pos`` of the sequence, ``item_pos`` of each item."""

    pos: Pos
    item_pos: list[Pos]

    def __init__(self, pos: Pos = Pos(1, 1)):
        super().__init__()
        self.pos = pos
        self.item_pos = []

    def add(self, value: Any, pos: Pos) -> None:
        """Append ``value`` written at ``pos``."""
        self.append(value)
        self.item_pos.append(pos)


def _pos(node: yaml.Node) -> Pos:
    return Pos(node.start_mark.line + 1, node.start_mark.column + 1)


# libyaml's parser when PyYAML was built with it (several times faster; same node marks).
_BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BASE_LOADER):  # type: ignore[misc, valid-type]
    """A SafeLoader building :class:`LDict`/:class:`LList` and recording duplicate keys."""


def _construct_map(loader: _Loader, node: yaml.MappingNode):  # type: ignore[no-untyped-def]
    data = LDict(_pos(node))
    yield data
    loader.flatten_mapping(node)
    for knode, vnode in node.value:
        key = loader.construct_object(knode, deep=True)
        if isinstance(key, (list, dict)):
            key = str(key)
        value = loader.construct_object(vnode, deep=True)
        if key in data:
            data.dups.append((key, _pos(knode), data.key_pos[key]))
            continue
        style = vnode.style if isinstance(vnode, yaml.ScalarNode) else None
        data.put(key, value, _pos(knode), _pos(vnode), style)


def _construct_seq(loader: _Loader, node: yaml.SequenceNode):  # type: ignore[no-untyped-def]
    data = LList(_pos(node))
    yield data
    for item in node.value:
        data.add(loader.construct_object(item, deep=True), _pos(item))


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


def load_documents(text: str, file: str) -> tuple[list[Any], list[Problem]]:
    """The YAML documents of ``text`` (empty documents dropped), or the syntax problem."""
    docs: list[Any] = []
    try:
        for doc in yaml.load_all(text, Loader=_Loader):
            if doc is not None:
                docs.append(doc)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else 1
        col = mark.column + 1 if mark else None
        what = " ".join(s for s in (e.context, e.problem) if s)
        return [], [
            Problem(file, line, col, f"bad YAML syntax: {what}; check the indentation, quoting and brackets here")
        ]
    except yaml.YAMLError as e:
        return [], [Problem(file, 1, None, f"bad YAML: {e}")]
    return docs, []


def plain(value: Any) -> Any:
    """``value`` with :class:`LDict`/:class:`LList` turned into plain dicts and lists."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value
