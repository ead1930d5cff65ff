"""YAML text -> plain Python data whose mappings and lists remember where each item was written."""

from __future__ import annotations

import re

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


def _construct_int(loader: _Loader, node: yaml.ScalarNode) -> int:
    try:
        return _BASE_LOADER.construct_yaml_int(loader, node)  # type: ignore[no-any-return]
    except ValueError as e:  # e.g. more digits than Python converts
        raise yaml.constructor.ConstructorError(
            None, None, f"cannot read the integer {str(node.value)[:20]!r}...: {e}", node.start_mark
        ) from None


def _construct_timestamp_text(loader: _Loader, node: yaml.ScalarNode) -> str:
    """A plain ``2001-12-14`` stays text: the format has no dates (YAML 1.2's core schema neither)."""
    return str(loader.construct_scalar(node))


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)
_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp_text)

SAFE_TAGS = frozenset(
    "tag:yaml.org,2002:" + t for t in ("str", "int", "float", "bool", "null", "map", "seq", "merge")
) | {"!"}
"""Explicit YAML tags a file may write (``!!str 12``); any other (``!!binary``, ``!!timestamp``,
``!!set``, ``!!python/...``, ``!local``) is an error at its line."""


def _short_tag(tag: str) -> str:
    return "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag


def check_events(text: str, file: str) -> list[Problem]:
    """Bounds and tags, checked on the event stream before anything is built.

    libyaml's event parser keeps its own stack, so this pass is safe on any nesting; it counts
    each alias as a copy of what it names (an alias bomb is caught before it is expanded) and
    stops at the first limit crossed.  Syntax errors are left to :func:`load_documents`.
    """
    from litmus import limits

    max_nodes, max_depth = limits.YAML_NODES.value, limits.YAML_DEPTH.value
    sizes: dict[str, int] = {}  # anchor -> expanded size of the node it names
    open_anchors: set[str] = set()
    stack: list[list[Any]] = []  # [anchor, expanded size so far] of each open collection
    count = 0  # values of the document so far, aliases expanded

    def at(event: Any, message: str) -> list[Problem]:
        mark = event.start_mark
        return [Problem(file, mark.line + 1, mark.column + 1, message)]

    try:
        for ev in yaml.parse(text, Loader=_BASE_LOADER):
            if isinstance(ev, yaml.DocumentStartEvent):
                sizes.clear()
                count = 0
                continue
            tag = getattr(ev, "tag", None)
            if isinstance(ev, (yaml.ScalarEvent, yaml.CollectionStartEvent)) and tag and tag not in SAFE_TAGS:
                return at(ev, f"YAML tag '{_short_tag(tag)}' is not accepted; values are plain text, numbers, "
                              "true/false, null, lists and mappings (tags allowed: !!str, !!int, !!float, "
                              "!!bool, !!null, !!map, !!seq)")
            wrong = {yaml.ScalarEvent: ("map", "seq"), yaml.SequenceStartEvent: ("map", "str", "int", "float", "bool", "null"),
                     yaml.MappingStartEvent: ("seq", "str", "int", "float", "bool", "null")}.get(type(ev), ())
            if tag and tag.startswith("tag:yaml.org,2002:") and tag.rsplit(":", 1)[1] in wrong:
                what = {yaml.ScalarEvent: "a single value", yaml.SequenceStartEvent: "a list"}.get(type(ev), "a mapping")
                return at(ev, f"YAML tag '{_short_tag(tag)}' is written on {what}; remove the tag")
            if isinstance(ev, yaml.CollectionStartEvent):
                if len(stack) >= max_depth:
                    return at(ev, f"nesting {limits.YAML_DEPTH.message()}")
                stack.append([ev.anchor, 1])
                if ev.anchor:
                    open_anchors.add(ev.anchor)
                size = 1
            elif isinstance(ev, yaml.CollectionEndEvent):
                anchor, done = stack.pop()
                if anchor:
                    sizes[anchor] = done
                    open_anchors.discard(anchor)
                if stack:
                    stack[-1][1] += done
                continue
            elif isinstance(ev, yaml.ScalarEvent):
                size = 1
                if ev.anchor:
                    sizes[ev.anchor] = 1
            elif isinstance(ev, yaml.AliasEvent):
                if ev.anchor in open_anchors:
                    return at(ev, f"alias *{ev.anchor} is used inside the value it names (a recursive "
                                  "structure); a pattern is a tree: copy the value instead")
                size = sizes.get(ev.anchor, 1)  # an unknown anchor is a syntax error, reported later
            else:
                continue
            if stack and not isinstance(ev, yaml.CollectionStartEvent):
                stack[-1][1] += size
            count += size
            if count > max_nodes:
                return at(ev, f"the document {limits.YAML_NODES.message()} (each alias *name counts as a copy)")
    except yaml.YAMLError:
        return []  # reported with its position by load_documents
    return []


def load_documents(text: str, file: str) -> tuple[list[Any], list[Problem]]:
    """The YAML documents of ``text`` (empty documents dropped), or the syntax problem."""
    docs: list[Any] = []
    problems = check_events(text, file)
    if problems:
        return [], problems
    try:
        for doc in yaml.load_all(text, Loader=_Loader):
            if doc is not None:
                docs.append(doc)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else 1
        col = mark.column + 1 if mark else None
        what = " ".join(s for s in (e.context, e.problem) if s)
        fix = _quoting_hint(text, mark.line if mark else None, what) or "check the indentation, quoting and brackets here"
        return [], [Problem(file, line, col, f"bad YAML syntax: {what}; {fix}")]
    except yaml.YAMLError as e:
        return [], [Problem(file, 1, None, f"bad YAML: {e}")]
    except (TypeError, ValueError, AttributeError, KeyError, IndexError) as e:  # PyYAML on odd input
        return [], [Problem(file, 1, None, f"cannot read the YAML ({type(e).__name__}: {e}); "
                                          "check the file's tags (!!...), anchors (&a) and aliases (*a)")]
    return docs, []


def plain(value: Any) -> Any:
    """``value`` with :class:`LDict`/:class:`LList` turned into plain dicts and lists."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def _quoting_hint(text: str, line0: int | None, what: str) -> str | None:
    """The fix for free text with ``": "`` in it (``why: release: ...``), which YAML reads as a
    second mapping: quote the text."""
    if line0 is None or "mapping values are not allowed" not in what:
        return None
    lines = text.splitlines()
    if not 0 <= line0 < len(lines):
        return None
    m = re.match(r"^(\s*(?:- )?)([A-Za-z_][\w.-]*):\s+(.*:\s.*)$", lines[line0])
    if m is None or m.group(3).startswith(("{", "[", '"', "'")):
        return None
    value = m.group(3).replace("\\", "\\\\").replace('"', '\\"')
    return (f"text that contains ': ' must be quoted, or YAML reads a second key: write "
            f'{m.group(2)}: "{value}"')
