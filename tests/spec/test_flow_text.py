"""flow_text: placeholder values as one line of YAML flow style, exactly as PyYAML writes it."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from litmus.spec.compile import flow_text
from litmus.spec.loader import load_paths

scalars = st.one_of(st.integers(-5, 10**6), st.booleans(), st.none(), st.floats(allow_nan=False, width=32),
                    st.text(st.sampled_from("abxyz_.:- 01'\"#{}[],TrueNo"), max_size=6))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text("abcxyz._", min_size=1, max_size=5), inner, max_size=3)),
    max_leaves=8)


def _pyyaml(value: object) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10_000).strip()
    return text.removesuffix("\n...").strip()


@settings(max_examples=300, deadline=None)
@given(values)
def test_flow_text_matches_pyyaml(value: object) -> None:
    assert flow_text(value) == _pyyaml(value)


def test_catalog_parameters_render_as_pyyaml_would() -> None:
    tests = load_paths(["catalog"])
    assert any("{" in text for t in tests for _, text in t.params)  # op-valued parameters exist
    for t in tests:
        for _, text in t.params:
            if text.startswith(("{", "[")):
                assert flow_text(yaml.safe_load(text)) == text
