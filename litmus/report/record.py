"""The run record: one per variant, the one shape a run's result has from the session that makes
it to the JSON line it is written as and every report that reads it back.

A record is JSON (a dict), so that a results file is plain JSON Lines that any tool reads; this
module is its one definition: every key, what it holds, and which records have it.
:func:`litmus.session.result_record` and :func:`litmus.session.error_record` make them,
:mod:`litmus.report.jsonl` writes and reads them, and the report, the page, the mutation score,
the comparison and the pytest plugin read them.  ``tests/report/test_record.py`` fails on a key
a record has that is not declared here.
"""

from __future__ import annotations

from typing import Any, TypedDict


class HistogramBin(TypedDict):
    """One observed final state and how many instances ended in it."""

    state: dict[str, int]  # observable -> value
    count: int
    label: str  # sc, weak, forbidden, timeout, hang (litmus.classify.LABELS)
    target: bool  # the state witnesses the condition's target


class ModelFactsRecord(TypedDict):
    """The model's answer the verdict rests on (:class:`litmus.model.facts.ModelFacts`)."""

    model: str
    target_reachable: bool
    possible_hang: bool
    keys: list[str]  # the condition's keys
    states: list[list[int]]  # allowed final states on ``keys``
    one_gpu_target_reachable: bool | None  # a test across GPUs, every rank on GPU 0; else None


class RunRecord(TypedDict, total=False):
    """One variant's run.  Every record has the variant's keys, the verdict keys and the machine
    keys; a finished variant also the evidence keys; an errored one (verdict ``error``) also
    ``error``, ``traceback`` and ``reproduce``, with zeros and empties for the evidence."""

    # the variant
    id: str  # "MP[relacq-sys]"
    test: str
    variant: str
    source: str  # the pattern file
    expect: str | None  # declared: forbidden, allowed, or None
    # the verdict
    verdict: str  # report.rates.VERDICT_ORDER (VIOLATION, declared-miscompile, ...), or error
    observation: str  # Never, Sometimes, Always
    notes: list[str]
    # the evidence
    instances: int
    completed: int  # every spin exited
    hung: int  # provably hung (they count as ended)
    target_count: int
    hang_witnesses: int  # timed-out or hung instances whose final memory shows the target
    hung_witnesses: int  # those of them that provably hung
    counts: dict[str, int]  # label -> instances (litmus.classify.LABELS)
    rate: float  # target / ended
    bound_95: float | None  # 3/N over the ended instances when the target was never seen
    bound_completed: float | None  # 3/N over the completed ones
    seconds_to_first: float | None  # until the target was first seen
    seconds: float
    rounds: int
    histogram: list[HistogramBin]
    model: ModelFactsRecord
    # how it ran
    config: dict[str, Any]  # RunConfig.as_dict()
    seed: int
    finished_at: str  # ISO 8601, UTC
    # an errored variant
    error: str  # one line: what failed
    traceback: str
    reproduce: str  # the command that runs the variant alone
    # the machine (the backend's describe())
    backend: str
    device: str
    arch: str
    world_size: int
    placement: str
    default_instances: int
    torch: str
    triton: str
    ranks: list[int] | None  # ranks backend: the world ranks used
    launcher: str  # ranks backend: spawn or torchrun
    start_barrier: str  # ranks backend
    heaps: str  # ranks backend: symm_mem or shared-memory


RECORD_KEYS: frozenset[str] = frozenset(RunRecord.__annotations__)
"""Every key a run record may have."""
