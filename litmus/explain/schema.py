"""The JSON Schema of one ``litmus explain --json`` line (:meth:`Explanation.as_dict`;
docs/explain.md, "JSON")."""

from __future__ import annotations

from typing import Any

_EVENT: dict[str, Any] = {
    "type": "object",
    "required": ["id", "thread", "rank", "cta", "index", "kind", "op", "sem", "scope", "loc", "value", "proxy",
                 "label"],
    "properties": {
        "id": {"type": "string", "description": "P1:2 (thread P1's event 2 in program order) or init:x"},
        "thread": {"type": ["string", "null"], "description": "null for an initial write"},
        "rank": {"type": ["integer", "null"]},
        "cta": {"type": ["integer", "null"]},
        "index": {"type": "integer"},
        "kind": {"enum": ["R", "W", "F", "B"]},
        "op": {"type": "string", "description": "ld, st, atom (either half of an RMW), fence, fence.proxy, "
                                                "bar.sync, bar.arrive or init"},
        "sem": {"enum": ["weak", "relaxed", "acquire", "release", "acq_rel", "sc"]},
        "scope": {"enum": ["cta", "gpu", "sys"]},
        "loc": {"type": ["string", "null"], "description": "the location (a granule such as word+0:4 with widths)"},
        "value": {"type": ["integer", "null"]},
        "proxy": {"type": "string"},
        "label": {"type": "string", "description": "W.rel.sys flag=1 (P0)"},
    },
}

_EDGE: dict[str, Any] = {
    "type": "array", "prefixItems": [{"type": "string"}, {"type": "string"}, {"type": "string"}],
    "minItems": 3, "maxItems": 3,
    "description": "[from event id, relation, to event id]; a relation name of the model (rf, co, fr, po, "
                   "sync, ...), name^-1 for its inverse",
}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "litmus explain --json",
    "type": "object",
    "required": ["test", "variant", "id", "source", "state", "model", "allowed", "execution", "forbidden_by"],
    "properties": {
        "test": {"type": "string"},
        "variant": {"type": "string"},
        "id": {"type": "string"},
        "source": {"type": "string"},
        "state": {"type": "string", "description": "the state explained, as a condition"},
        "model": {"type": "string"},
        "allowed": {"type": "boolean"},
        "execution": {
            "type": ["object", "null"], "description": "an allowed state: one execution that reaches it",
            "required": ["state", "events", "edges", "notes"],
            "properties": {
                "state": {"type": "object", "additionalProperties": {"type": "integer"}},
                "events": {"type": "array", "items": _EVENT},
                "edges": {"type": "array", "items": _EDGE},
                "notes": {"type": "array", "items": {"type": "string"}},
            },
        },
        "forbidden_by": {
            "type": ["array", "null"], "description": "a forbidden state: the rejected candidates, grouped",
            "items": {
                "type": "object",
                "required": ["axiom", "kind", "cycle", "closes", "executions", "events"],
                "properties": {
                    "axiom": {"type": "string", "description": "the model's own axiom name"},
                    "kind": {"enum": ["acyclic", "irreflexive", "empty"]},
                    "cycle": {"type": "array", "items": _EDGE, "minItems": 1},
                    "closes": {"type": "boolean"},
                    "executions": {"type": "integer", "minimum": 1},
                    "events": {"type": "array", "items": _EVENT},
                },
            },
        },
        "candidates": {"type": "integer", "description": "candidate executions that reach the state"},
        "level": {"enum": [0, 1, 2], "description": "which candidates are listed (docs/explain.md)"},
        "unexplained": {"type": "object", "additionalProperties": {"type": "integer"}},
        "no_candidate": {"type": ["string", "null"]},
        "stopped": {"type": "boolean"},
    },
}
