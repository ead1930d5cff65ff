"""The JSON Schema of a catalog YAML document, generated from :mod:`litmus.spec.documents`.

``python -m litmus.spec.schema > catalog/schema.json`` regenerates the committed copy.
"""

from __future__ import annotations

import json
from typing import Any

from litmus.spec.documents import PatternDoc

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one pattern document."""
    out: dict[str, Any] = {"$schema": SCHEMA_DIALECT}
    out.update(PatternDoc.model_json_schema(by_alias=True))
    return out


def schema_text() -> str:
    """:func:`schema` as the text of ``catalog/schema.json``."""
    return json.dumps(schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    print(schema_text(), end="")
