"""YAML catalog -> IR: load, validate (file:line:column errors), expand variants, JSON Schema.

The file format is described in ``docs/format.md``; its shape is the pydantic model
:class:`litmus.spec.documents.PatternDoc` (``python -m litmus.spec.schema`` prints the JSON Schema).
"""

from litmus.spec.loader import (
    catalog_files,
    default_catalog_dir,
    find_pattern,
    load_file,
    load_paths,
    load_patterns,
)
from litmus.spec.pattern import Pattern
from litmus.spec.select import (
    INLINE_FILE,
    filter_variants,
    load_tests,
    load_text,
)

__all__ = [
    "INLINE_FILE",
    "Pattern",
    "catalog_files",
    "default_catalog_dir",
    "filter_variants",
    "find_pattern",
    "load_file",
    "load_paths",
    "load_patterns",
    "load_tests",
    "load_text",
]
