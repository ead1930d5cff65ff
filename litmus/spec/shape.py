"""Check one YAML document against :class:`~litmus.spec.documents.PatternDoc`; explain each error
in a sentence that says what is wrong and what is accepted, at the right file:line:column."""

from __future__ import annotations

import difflib
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from annotated_types import Ge, Gt, MinLen
from pydantic import BaseModel, Tag, ValidationError
from pydantic.fields import FieldInfo

from litmus.errors import Problem
from litmus.spec.documents import EXPR_RE, NAME_RE, OPS, PATTERN_NAME_RE, PLACEHOLDER_RE, THREAD_RE, PatternDoc
from litmus.spec.yamlpos import LDict, LList, Pos

KEY = object()  # marks "the key itself" at the end of a real path

_PATTERNS = {
    PLACEHOLDER_RE: 'a placeholder "{name}"',
    NAME_RE: "a name (letters, digits, _; not starting with a digit)",
    EXPR_RE: "a register expression such as \"r1 + 1\" (one of + - & | ^ << >> between a register and an integer or register)",
    PATTERN_NAME_RE: "a name (letters, digits, + - _ .)",
    THREAD_RE: "a thread name P0, P1, ...",
}


def check_shape(doc: Any, file: str, variant: str = "") -> tuple[PatternDoc | None, list[Problem]]:
    """Validate ``doc`` (from :func:`litmus.spec.yamlpos.load_documents`); the model or problems."""
    if not isinstance(doc, LDict):
        line = getattr(getattr(doc, "pos", None), "line", 1)
        return None, [Problem(file, line, 1, f"a pattern must be a mapping (name:, locations:, threads:, ...); got {_kind(doc)}")]
    try:
        return PatternDoc.model_validate(doc), []
    except ValidationError as err:
        return None, explain(err, doc, file, variant)


def explain(err: ValidationError, doc: LDict, file: str, variant: str = "") -> list[Problem]:
    """One problem per offending place in ``doc``."""
    problems: list[Problem] = []
    seen: set[tuple[Any, ...]] = set()
    errors = err.errors()
    resolved = [_resolve(PatternDoc, tuple(e["loc"])) for e in errors]
    # a misspelt key shows up as an unknown key plus a missing one: report only the unknown key
    has_extra = {path[:-1] for (path, _), e in zip(resolved, errors) if e["type"] == "extra_forbidden"}
    for e, (path, tp) in zip(errors, resolved):
        if e["type"] == "missing" and path[:-1] in has_extra:
            continue
        key = (tuple(id(p) if p is KEY else p for p in path), e["type"] in ("missing", "extra_forbidden"))
        if key in seen:
            continue
        seen.add(key)
        pos, message = _message(e, path, tp, doc)
        if variant:
            message = f"in variant '{variant}': {message}"
        problems.append(Problem(file, pos.line, pos.column, message))
    return problems


# ------------------------------------------------------------------------ type walking


def _unwrap(tp: Any) -> tuple[Any, list[Any]]:
    meta: list[Any] = []
    while get_origin(tp) is Annotated:
        args = get_args(tp)
        tp, meta = args[0], meta + list(args[1:])
    return tp, meta


def _is_union(tp: Any) -> bool:
    return get_origin(tp) in (Union, types.UnionType)


def _members(tp: Any) -> list[Any]:
    return [m for m in get_args(tp) if m is not type(None)]


def _field(model: type[BaseModel], key: Any) -> FieldInfo | None:
    for name, f in model.model_fields.items():
        if key == name or key == f.alias:
            return f
    return None


def _field_type(f: FieldInfo) -> Any:
    return Annotated[(f.annotation, *f.metadata)] if f.metadata else f.annotation


def _resolve(root: Any, loc: tuple[Any, ...]) -> tuple[tuple[Any, ...], Any]:
    """Follow a pydantic error ``loc`` through the types: the data path (union tags dropped)
    and the type found there."""
    tp: Any = root
    path: list[Any] = []
    i = 0
    while i < len(loc):
        comp = loc[i]
        tp, _ = _unwrap(tp)
        while _is_union(tp) and len(_members(tp)) == 1:
            tp, _ = _unwrap(_members(tp)[0])
        if _is_union(tp):
            tagged = {_tag(m): m for m in _members(tp)}
            if comp in tagged:
                tp = tagged[comp]
                i += 1
                continue
            break  # a plain union: the rest of loc names its members
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            f = _field(tp, comp)
            path.append(comp)
            if f is None:
                return tuple(path), None
            tp = _field_type(f)
        elif get_origin(tp) is list:
            path.append(comp)
            tp = get_args(tp)[0]
        elif get_origin(tp) is dict:
            path.append(comp)
            if i + 1 < len(loc) and loc[i + 1] == "[key]":
                path.append(KEY)
                return tuple(path), get_args(tp)[0]
            tp = get_args(tp)[1]
        else:
            break
        i += 1
    return tuple(path), tp


def _tag(tp: Any) -> str | None:
    _, meta = _unwrap(tp)
    for m in meta:
        if isinstance(m, Tag):
            return m.tag
    return None


def describe(tp: Any) -> str:
    """What values a type accepts, in words."""
    inner, meta = _unwrap(tp)
    meta = [x for m in meta for x in ([m, *m.metadata] if isinstance(m, FieldInfo) else [m])]
    if _is_union(inner):
        parts: list[str] = []
        for m in _members(inner):
            d = describe(m)
            if d not in parts:
                parts.append(d)
        return " or ".join(parts)
    if get_origin(inner) is Literal:
        vals = [repr(v) for v in get_args(inner)]
        return "one of " + ", ".join(vals) if len(vals) > 1 else vals[0]
    if inner is int:
        for m in meta:
            if isinstance(m, Ge) and m.ge == 0:
                return "a non-negative integer"
            if isinstance(m, Gt) and m.gt == 0:
                return "a positive integer"
        return "an integer"
    if inner is bool:
        return "true or false"
    if inner is str:
        for m in meta:
            pattern = getattr(m, "pattern", None)
            if pattern in _PATTERNS:
                return _PATTERNS[pattern]
            if isinstance(m, MinLen) or getattr(m, "min_length", None):
                return "a non-empty string"
        return "a string"
    if isinstance(inner, type) and issubclass(inner, BaseModel):
        return "a mapping with keys " + ", ".join(_accepted(inner))
    if get_origin(inner) is list:
        return "a list"
    if get_origin(inner) is dict:
        return "a mapping"
    return "a value of another type"


def _accepted(model: type[BaseModel]) -> list[str]:
    return [f.alias or name for name, f in model.model_fields.items()]


def _literals(tp: Any) -> list[str]:
    inner, _ = _unwrap(tp)
    if _is_union(inner):
        return [v for m in _members(inner) for v in _literals(m)]
    if get_origin(inner) is Literal:
        return [str(v) for v in get_args(inner)]
    return []


def did_you_mean(word: str, choices: list[str]) -> str:
    """``"; did you mean 'x'?"`` when ``word`` is close to one of ``choices``, else ``""``."""
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def suggest(word: str, choices: list[str], tail: str) -> str:
    """``"; did you mean 'x'? TAIL"`` or ``"; TAIL"``."""
    hint = did_you_mean(word, choices)
    return f"{hint} {tail}" if hint else f"; {tail}"


# ----------------------------------------------------------------------------- messages


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def dotted(path: tuple[Any, ...]) -> str:
    """``threads.P0.do[2].store.value`` for a data path."""
    out = ""
    for p in path:
        if p is KEY:
            continue
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "the pattern"


def locate(doc: Any, path: tuple[Any, ...], key: bool = False) -> Pos:
    """Position of the value (or, with ``key``, of the key) at ``path``; the deepest that exists."""
    node: Any = doc
    best: Pos = getattr(doc, "pos", Pos(1, 1))
    for i, comp in enumerate(path):
        last = i == len(path) - 1 or path[i + 1] is KEY
        if isinstance(node, LDict) and not isinstance(comp, bool) and comp in node:
            best = node.key_pos[comp] if (key and last) or (i + 1 < len(path) and path[i + 1] is KEY) else node.val_pos[comp]
            node = node[comp]
        elif isinstance(node, LList) and isinstance(comp, int) and 0 <= comp < len(node):
            best = node.item_pos[comp]
            node = node[comp]
        else:
            break
    return best


def _owner(path: tuple[Any, ...]) -> str:
    """``op 'store'`` or ``'threads.P0.at'``: what a key belongs to."""
    if len(path) >= 4 and path[0] == "threads" and path[2] == "do" and isinstance(path[3], int):
        if len(path) == 5:
            return f"op '{path[4]}' (threads.{path[1]}.do[{path[3]}])"
        if len(path) > 5:
            return f"'{dotted(path)}'"
    return f"'{dotted(path)}'" if path else "the pattern"


def _message(e: dict[str, Any], path: tuple[Any, ...], tp: Any, doc: LDict) -> tuple[Pos, str]:
    kind = e["type"]
    value = e.get("input")
    if kind == "extra_forbidden":
        parent_path = path[:-1]
        _, parent = _resolve(PatternDoc, _loc_prefix(e["loc"], len(parent_path)))
        accepted = _accepted(_unwrap(parent)[0]) if _is_model(parent) else []
        name = str(path[-1])
        if not parent_path:
            what = f"unknown top-level key '{name}'"
        elif _owner(parent_path).startswith("op "):
            what = f"unknown field '{name}' of {_owner(parent_path)}"
        else:
            what = f"unknown key '{name}' in {_owner(parent_path)}"
        hint = did_you_mean(name, accepted)
        msg = f"{what}{hint}{' ' if hint else '; '}accepted: {', '.join(accepted)}"
        if name == "vec" and _owner(parent_path).startswith("op "):
            msg += " (vec is for load and store ops only: a vector RMW or spin is not modelled)"
        elif name in ("view", "offset", "bits") and parent_path[:1] == ("locations",):
            msg += f" ({name} is a field of a location mapping {{init, home, bits}} or {{view, offset, bits}})"
        return locate(doc, path, key=True), msg
    if kind == "missing":
        parent_path = path[:-1]
        _, parent = _resolve(PatternDoc, _loc_prefix(e["loc"], len(parent_path)))
        accepted = _accepted(_unwrap(parent)[0]) if _is_model(parent) else []
        msg = f"{_owner(parent_path)} is missing required key '{path[-1]}'"
        if accepted:
            msg += f" (keys: {', '.join(accepted)})"
        return locate(doc, parent_path, key=True), msg
    if kind == "unknown_op":
        return _unknown_op(value, path, doc)
    if kind == "too_short":
        return locate(doc, path, key=True), f"'{dotted(path)}' must not be empty; give at least one entry"
    if path and path[-1] is KEY:
        return (
            locate(doc, path, key=True),
            f"name {value!r} under '{dotted(path[:-2])}' must be {describe(tp)}",
        )
    msg = f"'{dotted(path)}' must be {describe(tp)}; got {_kind(value)}"
    if isinstance(value, str):
        msg += did_you_mean(value, _literals(tp))
    if path and path[-1] == "bound":
        msg += " (spins must be bounded by a positive integer)"
    return locate(doc, path), msg


def _is_model(tp: Any) -> bool:
    inner = _unwrap(tp)[0]
    return isinstance(inner, type) and issubclass(inner, BaseModel)


def _loc_prefix(loc: tuple[Any, ...], n_real: int) -> tuple[Any, ...]:
    """The shortest prefix of ``loc`` that covers ``n_real`` data-path components."""
    for i in range(len(loc) + 1):
        path, _ = _resolve(PatternDoc, tuple(loc[:i]))
        if len(path) >= n_real:
            # include any union tags that follow, so the type is the member chosen
            j = i
            while j < len(loc):
                p2, _ = _resolve(PatternDoc, tuple(loc[: j + 1]))
                if len(p2) > n_real:
                    break
                j += 1
            return tuple(loc[:j])
    return tuple(loc)


def _unknown_op(value: Any, path: tuple[Any, ...], doc: LDict) -> tuple[Pos, str]:
    names = list(OPS)
    accepted = "accepted: " + ", ".join(names) + ', or a placeholder "{name}"'
    if isinstance(value, dict) and len(value) == 1:
        op = str(next(iter(value)))
        hint = did_you_mean(op, names)
        sep = " " if hint else "; "
        return locate(doc, path + (op,), key=True), f"unknown op '{op}'{hint}{sep}{accepted}"
    if isinstance(value, dict):
        keys = ", ".join(str(k) for k in value) or "none"
        return (
            locate(doc, path),
            f"an op is a mapping with exactly one key, the op name; found keys {keys} "
            "(indent the fields under the op, or start each op with '- '); " + accepted,
        )
    if isinstance(value, str):
        return locate(doc, path), f"op {value!r} is not a placeholder \"{{name}}\"; write ops as mappings, {accepted}"
    return locate(doc, path), f"an op must be a mapping {{op: {{fields}}}}; got {_kind(value)}; {accepted}"

