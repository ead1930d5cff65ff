"""The committed JSON Schema is the generated one, and the catalog follows it and loads."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
import yaml

from litmus.spec import catalog_files, default_catalog_dir, load_paths
from litmus.spec.schema import schema, schema_text

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"


def test_committed_schema_is_generated_from_the_models() -> None:
    assert (REPO / "catalog" / "schema.json").read_text() == schema_text()


def test_schema_is_valid_and_accepts_placeholders_everywhere() -> None:
    s = schema()
    jsonschema.Draft202012Validator.check_schema(s)
    doc = yaml.safe_load((DATA / "product.yaml").read_text())
    jsonschema.validate(doc, s)  # "{fence}" whole ops, "{home_y}" numbers
    doc["threads"]["P0"]["do"][0] = {"stor": {"loc": "x", "value": 1}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, s)


def test_schema_agrees_with_the_loader_on_test_data() -> None:
    s = schema()
    for f in sorted(DATA.glob("*.yaml")):
        for doc in yaml.safe_load_all(f.read_text()):
            jsonschema.validate(doc, s)
        assert load_paths([f])


def _catalog_yaml() -> list[Path]:
    return catalog_files([default_catalog_dir()])


def test_every_catalog_file_validates_against_the_schema() -> None:
    s = schema()
    for f in _catalog_yaml():
        for doc in yaml.safe_load_all(f.read_text()):
            if doc is not None:
                jsonschema.validate(doc, s)


def test_the_catalog_loads() -> None:
    files = _catalog_yaml()
    tests = load_paths(files) if files else []
    assert len(tests) >= len(files)
    assert len({t.id for t in tests}) == len(tests)
