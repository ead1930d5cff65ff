"""Dat3M's whole PTX corpus (``../shared/dat3m-ptx``): every file reads, and every verdict of
its four lists (PTX 6.0 and 7.5, safety and liveness) matches the model of the same cat file.

Each list is checked under its own model (``DAT3M_LISTS``: ptx for v6.0, ptx75 for v7.5), and
the v6.0 lists under ptx75 too (v7.5 must agree with v6.0 wherever no proxy is involved).
"""

from __future__ import annotations

import pytest

from litmus.interop import DAT3M_LISTS, dat3m_dir, read_expected, read_litmus
from litmus.model import check

ROOT = dat3m_dir()
SKIP = pytest.mark.skipif(ROOT is None, reason="Dat3M PTX corpus not found: expected ../shared/dat3m-ptx "
                                              "beside the repo (or set LITMUS_DAT3M_PTX)")
EXPECTED_SIZES = {"PTXv6_0-expected.csv": 135, "PTXv7_5-expected.csv": 264,
                  "PTXv6_0-Liveness-expected.csv": 91, "PTXv7_5-Liveness-expected.csv": 91}


def _cases() -> list[tuple[str, str, str, bool]]:
    if ROOT is None:
        return []
    out = []
    for name, (kind, model) in DAT3M_LISTS.items():
        models = (model, "ptx75") if model == "ptx" else (model,)
        for path, value in sorted(read_expected(ROOT, name).items()):
            out += [(name, m, path, value) for m in models]
    return out


CASES = _cases()


@SKIP
def test_every_corpus_file_reads():
    files = sorted((ROOT / "litmus").rglob("*.litmus"))
    assert len(files) == 748  # plus 5 README/LICENSE files: the 753 of the issue
    for f in files:
        read_litmus(f)


@SKIP
@pytest.mark.parametrize("name, size", sorted(EXPECTED_SIZES.items()))
def test_list_sizes(name: str, size: int):
    assert len(read_expected(ROOT, name)) == size


@SKIP
@pytest.mark.parametrize("name, model, path, value", CASES,
                         ids=[f"{n.split('-')[0]}{'-live' if 'Live' in n else ''}-{m}-{p}" for n, m, p, _ in CASES])
def test_verdict_matches_dat3m(name: str, model: str, path: str, value: bool):
    result = check(read_litmus(ROOT / path), model)
    if DAT3M_LISTS[name][0] == "liveness":
        assert (not result.possible_hang) == value
    else:
        assert result.validated == value


@SKIP
def test_v6_model_refuses_proxy_tests_with_a_location():
    from litmus.errors import LitmusError

    path = ROOT / "litmus/PTX/Manual/proxy/Proxy-Alias-AliasFence.litmus"
    with pytest.raises(LitmusError, match=r"ptx75") as exc:
        check(read_litmus(path), "ptx")
    assert exc.value.problems[0].file == str(path) and exc.value.problems[0].line == 5
