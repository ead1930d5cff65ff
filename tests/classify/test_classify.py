"""Classification of observed histograms against model results."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

from hypothesis import given, strategies as st

from litmus.classify import MIN_COMPLETED, MIN_COMPLETED_FRACTION, classify, in_target, rule_of_three
from litmus.condition import parse_prop
from litmus.ir import Condition, Const, Expectation, Load, LitmusTest, Location, Store, Thread
from litmus.status import HUNG, TIMED_OUT

MP = LitmusTest(
    name="MP",
    variant="t",
    locations=(Location("x"), Location("f")),
    threads=(
        Thread("P0", 0, 0, (Store("x", Const(1)), Store("f", Const(1)))),
        Thread("P1", 0, 1, (Load("r0", "f"), Load("r1", "x"))),
    ),
    condition=Condition("exists", parse_prop("P1:r0 == 1 /\\ P1:r1 == 0")),
    expect=Expectation("allowed", "plain accesses"),
)


def st_(r0: int, r1: int) -> tuple[tuple[str, int], ...]:
    return (("P1:r0", r0), ("P1:r1", r1), ("f", 1), ("x", 1))


SC = {st_(0, 0), st_(0, 1), st_(1, 1)}
PTX_WEAK = SC | {st_(1, 0)}


def model(states: set, reachable: bool) -> SimpleNamespace:
    return SimpleNamespace(allowed_states=tuple(states), target_reachable=reachable)


def hist(*rows: tuple[int, int, int]) -> list:
    return [(dict(st_(r0, r1)), False, n) for r0, r1, n in rows]


def test_weak_outcome_witnessed_is_racy_witnessed() -> None:
    v = classify(MP, hist((0, 0, 5), (1, 1, 4), (1, 0, 1)), model(PTX_WEAK, True), model(SC, False))
    assert v.verdict == "racy-witnessed"
    assert v.counts == {"sc": 9, "weak": 1, "forbidden": 0, "timeout": 0, "hang": 0}
    assert v.instances == 10 and v.target_count == 1
    assert v.observation == "Sometimes"
    assert v.rate == 0.1 and v.bound_95 is None


def test_allowed_but_unseen_reports_rule_of_three() -> None:
    v = classify(MP, hist((0, 0, 600), (1, 1, 400)), model(PTX_WEAK, True), model(SC, False))
    assert v.verdict == "racy-unseen"
    assert v.observation == "Never"
    assert v.bound_95 == 3 / 1000


def test_forbidden_by_model_and_unseen_is_correct() -> None:
    forbidden = replace(MP, expect=Expectation("forbidden", "rel/acq"))
    v = classify(forbidden, hist((0, 0, 300), (1, 1, 700)), model(SC, False), model(SC, False))
    assert v.verdict == "correct"
    assert v.bound_95 == 3 / 1000


def test_outcome_outside_model_is_violation() -> None:
    v = classify(MP, hist((1, 1, 5), (1, 0, 2)), model(SC, False), model(SC, False))
    assert v.verdict == "VIOLATION"
    assert v.forbidden_count == 2


def test_mislabelled_forbidden_variant_witnessed_is_violation() -> None:
    # The model allows the weak outcome but the catalog claims it is forbidden: seeing it is a
    # VIOLATION of the declared expectation.
    mislabelled = replace(MP, expect=Expectation("forbidden", "wrong on purpose"))
    v = classify(mislabelled, hist((1, 0, 1), (1, 1, 1)), model(PTX_WEAK, True), model(SC, False))
    assert v.verdict == "VIOLATION"
    assert v.counts["forbidden"] == 1 and v.counts["sc"] == 1


def test_timeouts_are_counted_apart() -> None:
    rows = hist((1, 1, 3)) + [(dict(st_(0, 0)), True, 2)]
    v = classify(MP, rows, model(PTX_WEAK, True), model(SC, False))
    assert v.counts["timeout"] == 2
    assert v.instances == 5
    assert any("timed out" in n for n in v.notes)


def test_forall_target_is_negation() -> None:
    t = replace(MP, condition=Condition("forall", parse_prop("P1:r0 == 1")))
    assert in_target(t, {"P1:r0": 0})
    assert not in_target(t, {"P1:r0": 1})


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 50)), max_size=8))
def test_histogram_total_equals_instances(rows: list) -> None:
    v = classify(MP, hist(*rows), model(PTX_WEAK, True), model(SC, False))
    assert v.instances == sum(n for _, _, n in rows)
    assert sum(v.counts.values()) == v.instances
    assert sum(b.count for b in v.bins) == v.instances


def test_rule_of_three() -> None:
    assert rule_of_three(300) == 0.01
    assert rule_of_three(0) is None


def test_spins_that_all_time_out_give_inconclusive_not_correct() -> None:
    forbidden = replace(MP, expect=Expectation("forbidden", "rel/acq"))
    v = classify(forbidden, [(dict(st_(0, 0)), True, 10_000)], model(SC, False), model(SC, False))
    assert v.verdict == "inconclusive" and v.completed == 0 and v.bound_95 is None
    assert any("only 0 of 10,000 instances ended" in n for n in v.notes)


def test_the_bound_counts_only_completed_instances() -> None:
    forbidden = replace(MP, expect=Expectation("forbidden", "rel/acq"))
    rows = hist((1, 1, 600)) + [(dict(st_(0, 0)), True, 400)]
    v = classify(forbidden, rows, model(SC, False), model(SC, False))
    assert (v.verdict, v.instances, v.completed, v.bound_95) == ("correct", 1000, 600, 3 / 600)


def hanging(possible_hang: bool) -> SimpleNamespace:
    return SimpleNamespace(allowed_states=tuple(SC), target_reachable=False, possible_hang=possible_hang)


def test_proven_hangs_are_ended_instances_and_count_toward_the_bound() -> None:
    forbidden = replace(MP, expect=Expectation("forbidden", "rel/acq", may_hang=True))
    rows = hist((1, 1, 10)) + [(dict(st_(0, 0)), HUNG, 990), (dict(st_(0, 0)), TIMED_OUT, 5)]
    v = classify(forbidden, rows, hanging(True), model(SC, False))
    assert (v.verdict, v.instances, v.completed, v.hung, v.ended) == ("correct", 1005, 10, 990, 1000)
    assert v.counts["hang"] == 990 and v.counts["timeout"] == 5
    assert v.bound_95 == 3 / 1000 and v.bound_completed == 3 / 10
    assert any("990 instance(s) provably hung" in n and "3/N = 0.3" in n for n in v.notes)
    # counted as timeouts instead, the same run has too little evidence
    as_timeouts = hist((1, 1, 10)) + [(dict(st_(0, 0)), TIMED_OUT, 995)]
    assert classify(forbidden, as_timeouts, hanging(True), model(SC, False)).verdict == "inconclusive"


def test_a_proven_hang_the_model_does_not_allow_is_a_violation() -> None:
    forbidden = replace(MP, expect=Expectation("forbidden", "rel/acq"))
    rows = hist((1, 1, 500)) + [(dict(st_(0, 0)), HUNG, 1)]
    v = classify(forbidden, rows, hanging(False), model(SC, False))
    assert v.verdict == "VIOLATION" and v.counts["forbidden"] == 1 and v.counts["hang"] == 0


@given(st.integers(0, 300), st.integers(0, 300), st.integers(0, 300))
def test_hangs_never_make_the_bound_weaker_than_timeouts_would(done: int, hung: int, late: int) -> None:
    """Moving instances from timed out to provably hung only adds evidence: the verdict can
    only go from inconclusive to correct, and the bound only shrink."""
    forbidden = replace(MP, expect=Expectation("forbidden", "rel/acq", may_hang=True))
    base = hist((1, 1, done))
    proven = classify(forbidden, base + [(dict(st_(0, 0)), HUNG, hung), (dict(st_(0, 0)), TIMED_OUT, late)],
                      hanging(True), model(SC, False))
    unproven = classify(forbidden, base + [(dict(st_(0, 0)), TIMED_OUT, hung + late)], hanging(True), model(SC, False))
    assert proven.instances == unproven.instances and proven.completed == unproven.completed == done
    if unproven.verdict == "correct":
        assert proven.verdict == "correct" and proven.bound_95 <= unproven.bound_95
    assert proven.verdict in ("correct", "inconclusive")


def test_a_sighting_needs_no_minimum() -> None:
    rows = hist((1, 0, 1)) + [(dict(st_(0, 0)), True, 99)]
    assert classify(MP, rows, model(PTX_WEAK, True), model(SC, False)).verdict == "racy-witnessed"


@given(st.integers(0, 400), st.integers(0, 400), st.booleans())
def test_inconclusive_exactly_when_absence_lacks_evidence(done: int, timeouts: int, racy: bool) -> None:
    rows = hist((1, 1, done)) + ([(dict(st_(0, 0)), True, timeouts)] if timeouts else [])
    forbidden = MP if racy else replace(MP, expect=Expectation("forbidden", "rel/acq"))
    v = classify(forbidden, rows, model(PTX_WEAK if racy else SC, racy), model(SC, False))
    enough = done >= MIN_COMPLETED and done >= MIN_COMPLETED_FRACTION * (done + timeouts)
    assert (v.verdict == "inconclusive") == (not enough)
    if enough:
        assert v.verdict == ("racy-unseen" if racy else "correct") and v.bound_95 == 3 / done


# A lost-signal race (PyTorch #196546): the zeroing store may land after the peer's signal,
# and then the wait for the signal hangs.  Target: pad == 0.
RESET = LitmusTest(
    name="RESET",
    variant="t",
    locations=(Location("pad", 7),),
    threads=(
        Thread("P0", 0, 0, (Store("pad", Const(0)), Load("r0", "pad"))),
        Thread("P1", 1, 0, (Store("pad", Const(1)),)),
    ),
    condition=Condition("exists", parse_prop("pad == 0")),
    expect=Expectation("allowed", "the zeroing may land last", may_hang=True),
)
RESET_ALLOWED = {(("P0:r0", 1), ("pad", 0)), (("P0:r0", 1), ("pad", 1))}


def reset_model(hang: bool = True, states: set = RESET_ALLOWED) -> SimpleNamespace:
    return SimpleNamespace(allowed_states=tuple(states), target_reachable=True, possible_hang=hang)


def reset_hist(lost: int) -> list:
    return [({"P0:r0": 1, "pad": 1}, False, 900), ({"P0:r0": 0, "pad": 0}, True, lost),
            ({"P0:r0": 0, "pad": 1}, True, 5)]


def test_a_hang_with_the_targets_final_memory_witnesses_it() -> None:
    v = classify(RESET, reset_hist(20), reset_model(), reset_model(hang=False))
    assert v.verdict == "racy-witnessed" and v.hang_witnesses == 20 and v.target_count == 20
    assert v.completed == 900 and v.counts["timeout"] == 25  # still timed out, never completed
    assert v.rate == 20 / 920 and v.observation == "Sometimes"
    assert any("the hang the model allows" in n for n in v.notes)
    assert [b.target for b in v.bins] == [False, True, False]


def test_a_hang_witnesses_nothing_unless_the_model_hangs_and_the_memory_matches() -> None:
    for ptx in (reset_model(hang=False),  # the model says no execution hangs
                reset_model(states={(("P0:r0", 1), ("pad", 1))})):  # no allowed state has pad 0
        v = classify(RESET, reset_hist(20), ptx, reset_model(hang=False))
        assert v.hang_witnesses == 0 and v.target_count == 0 and v.verdict == "racy-unseen"


def test_a_condition_on_registers_is_never_witnessed_by_a_hang() -> None:
    on_reg = replace(RESET, condition=Condition("exists", parse_prop("pad == 0 /\\ P0:r0 == 0")))
    allowed = RESET_ALLOWED | {(("P0:r0", 0), ("pad", 0))}
    v = classify(on_reg, reset_hist(20), reset_model(states=allowed), reset_model(hang=False))
    assert v.hang_witnesses == 0 and v.verdict == "racy-unseen"  # a timed-out register is no value


def test_a_forbidden_target_is_never_witnessed_by_a_hang() -> None:
    fixed = replace(RESET, expect=Expectation("forbidden", "ordered", may_hang=True))
    ptx = SimpleNamespace(allowed_states=((("P0:r0", 1), ("pad", 1)),), target_reachable=False, possible_hang=True)
    v = classify(fixed, reset_hist(20), ptx, reset_model(hang=False))
    assert v.verdict == "correct" and v.hang_witnesses == 0


def test_without_an_sc_reference_allowed_outcomes_count_as_sc_and_the_verdict_stands() -> None:
    with_sc = classify(MP, hist((1, 0, 5), (1, 1, 95)), model(PTX_WEAK, True), model(SC, False))
    without = classify(MP, hist((1, 0, 5), (1, 1, 95)), model(PTX_WEAK, True), None)
    assert (with_sc.counts["sc"], with_sc.counts["weak"]) == (95, 5)
    assert (without.counts["sc"], without.counts["weak"]) == (100, 0)
    assert without.verdict == with_sc.verdict == "racy-witnessed"
    assert any("no SC reference" in n for n in without.notes)
    assert not any("SC reference" in n for n in with_sc.notes)
