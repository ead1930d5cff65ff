"""Property (issue 19): a hostile input file gives a located error or a valid load, in bounded
time and memory, never a traceback; inputs made invalid are never accepted.

The strategies are the mutation generators of ``benchmarks/fuzz_inputs.py`` (structure-aware
edits of catalog YAML, alias bombs, deep nesting, product and placeholder bombs, bad encodings
and binary content, malformed ``.litmus``) driven by hypothesis's random source, so a failure
shrinks to a short recipe.  That script runs the same checks at scale (5,000+ inputs, each in a
memory-limited subprocess); this test keeps CI under half a minute.
"""

from __future__ import annotations

import resource
import signal
from pathlib import Path
from types import FrameType, ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.by_path import load_by_path

ROOT = Path(__file__).resolve().parents[2]
SECONDS = 10  # per input; the slowest seen in 5,000 is under 2 s
MEMORY_MB = 1024  # growth of the peak resident size over the whole run


def _fuzz_module() -> ModuleType:
    return load_by_path("_fuzz_inputs", ROOT / "benchmarks" / "fuzz_inputs.py")


FUZZ = _fuzz_module()


class _Timeout(BaseException):  # not Exception: check_file counts those as tracebacks
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Timeout


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


_BASELINE = _peak_mb()


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(sorted(FUZZ.GENERATORS)), rng=st.randoms(use_true_random=False))
def test_hostile_input_is_located_or_loads(workdir: Path, name: str, rng: object) -> None:
    case = FUZZ.generate(rng, name)
    path = workdir / f"case{case.suffix}"
    path.write_bytes(case.data)
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(SECONDS)
    try:
        out = FUZZ.check_file(str(path), model=False)
    except _Timeout:
        pytest.fail(f"{case.kind}: no answer within {SECONDS} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert out["status"] in ("ok-error", "ok-accept"), f"{case.kind}: {out}"
    if case.must_reject:
        assert out["status"] == "ok-error", f"{case.kind} was accepted but must be rejected"
    assert _peak_mb() - _BASELINE < MEMORY_MB, f"{case.kind}: peak memory grew past {MEMORY_MB} MiB"
