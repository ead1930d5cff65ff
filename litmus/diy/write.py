"""Generated documents -> YAML text and files (ops in flow style, as the catalog writes them)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from litmus.errors import LitmusError


class _Flow(dict):  # type: ignore[type-arg]
    """A mapping written on one line (``{loc: x, value: 1}``)."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Flow, lambda d, data: d.represent_mapping("tag:yaml.org,2002:map", data, flow_style=True))
_Dumper.add_representer(str, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", s, style="|" if "\n" in s else None))

_FLOW_KEYS = {"at", "when", "tags"}
_FLOW_PARENTS = {"locations", "place", "scope"}


def _flow(value: Any, key: str = "", parent: str = "") -> Any:
    """Ops (a mapping of one key to a mapping), ``at``, ``when``, tags, locations and the
    place and scope options in flow style; the rest in block style."""
    if isinstance(value, list):
        items = [_flow(v) for v in value]
        return _FlowList(items) if key in _FLOW_KEYS else items
    if not isinstance(value, dict):
        return value
    inner = {k: _flow(v, k, key) for k, v in value.items()}
    if key in _FLOW_KEYS or parent in _FLOW_PARENTS or _is_op(value):
        return _Flow(inner)
    return inner


class _FlowList(list):  # type: ignore[type-arg]
    """A list written on one line (``[diy, generated]``)."""


_Dumper.add_representer(_FlowList, lambda d, data: d.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True))


_OPS = {"load", "store", "volatile_load", "volatile_store", "atomic_load", "atomic_store", "exch", "cas", "add",
        "fence"}


def _is_op(value: dict[str, Any]) -> bool:
    return len(value) == 1 and next(iter(value)) in _OPS


def dump(doc: dict[str, Any], header: str = "") -> str:
    """The YAML text of one pattern document, after ``header`` comment lines."""
    body = yaml.dump(_flow(doc), Dumper=_Dumper, sort_keys=False, width=120, allow_unicode=True)
    lines = "".join(f"# {line}\n" for line in header.splitlines())
    return lines + body


def file_name(pattern: str) -> str:
    """A file name for a pattern name (``2+2W`` -> ``2+2W.yaml``; only safe characters kept)."""
    return re.sub(r"[^A-Za-z0-9+._-]", "_", pattern) + ".yaml"


def write(out: Path, name: str, text: str) -> Path:
    """Write ``text`` to ``out/<file_name(name)>`` (making ``out``); the path written."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        path = out / file_name(name)
        path.write_text(text)
    except OSError as err:
        raise LitmusError(f"cannot write {out}: {err.strerror or err}") from None
    return path
