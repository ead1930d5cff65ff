"""The run driver with a scripted backend: checksum, time budget, durable records, resume."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st

from litmus.condition import parse_prop
from litmus.ir import Condition, Const, Expectation, Load, LitmusTest, Location, Store, Thread
from litmus.report.jsonl import read_records
from litmus.run.backend import Round
from litmus.run.config import RunConfig
from litmus.errors import LitmusError
from litmus.session import run_config, run_tests, run_variant

SB = LitmusTest(
    name="SB", variant="plain", source_file="sb.yaml",
    locations=(Location("x"), Location("y")),
    threads=(Thread("P0", 0, 0, (Store("x", Const(1)), Load("r0", "y"))),
             Thread("P1", 0, 1, (Store("y", Const(1)), Load("r1", "x")))),
    condition=Condition("exists", parse_prop("P0:r0 == 0 /\\ P1:r1 == 0")),
    expect=Expectation("allowed", "no fence"),
)


class Scripted:
    """Returns a fixed histogram each round; ``lie`` miscounts to trip the checksum."""

    name = "scripted"

    def __init__(self, lie: bool = False, sleep: float = 0.0) -> None:
        self.lie, self.sleep, self.rounds = lie, sleep, 0

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "device": "test"}

    def skip_reason(self, test: LitmusTest) -> str | None:
        return None

    def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        self.rounds += 1
        time.sleep(self.sleep)
        state = {"P0:r0": 0, "P1:r1": 0, "x": 1, "y": 1}
        return Round(rows=[(state, False, 3), ({**state, "P0:r0": 1}, False, 7)],
                     instances=10 + (1 if self.lie else 0), seconds=self.sleep)

    def close(self) -> None:
        pass


def test_records_are_written_per_variant_and_resume_skips_them(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    [res] = run_tests([SB], Scripted(), RunConfig(iterations=3), out=out)
    assert res.verdict is not None and res.verdict.verdict == "racy-witnessed"
    assert res.verdict.instances == 30 and res.verdict.target_count == 9
    [rec] = list(read_records(out))
    assert (rec["id"], rec["rounds"], rec["instances"], rec["backend"]) == ("SB[plain]", 3, 30, "scripted")
    backend = Scripted()
    [again] = run_tests([SB], backend, RunConfig(iterations=3), out=out, resume=True)
    assert again.verdict is None and "already" in (again.skipped or "")
    assert backend.rounds == 0


def test_histogram_checksum_mismatch_is_an_error() -> None:
    [res] = run_tests([SB], Scripted(lie=True), RunConfig(iterations=1))
    assert res.verdict is None and res.error is not None
    assert res.error.startswith("ChecksumError: ") and "checksum" in res.error


def test_time_budget_starts_after_the_first_round() -> None:
    backend = Scripted(sleep=0.05)
    [res] = run_tests([SB], backend, RunConfig(iterations=None, time_budget=0.01))
    assert backend.rounds == 2  # the first (compiling) round does not count against the budget
    assert res.record is not None and res.record["rounds"] == 2


def test_checksum_failure_is_a_one_line_cli_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    import litmus.run.registry as registry
    from litmus.cli import main

    monkeypatch.setattr(registry, "make_backend", lambda name, **opts: Scripted(lie=True))
    p = tmp_path / "sb.yaml"
    p.write_text("""name: SB1
locations: {x: 0}
threads: {P0: {at: {rank: 0, cta: 0}, do: [{store: {loc: x, value: 1}}]}}
exists: "x == 1"
expect: allowed
why: one store
""")
    res = CliRunner().invoke(main, ["run", str(p), "--iterations", "1", "--out", str(tmp_path / "r.jsonl")])
    assert res.exit_code == 1
    assert "error: SB1: ChecksumError: SB1: histogram checksum failed" in res.output
    assert "1 variant errored" in res.output and "--resume" in res.output
    assert "Traceback" not in res.output


def test_run_variant_returns_the_model_results_it_classified_against() -> None:
    from litmus.model import check
    from litmus.session import run_variant

    ran = run_variant(SB, Scripted(), RunConfig(iterations=1))
    for got, model in ((ran.ptx, "ptx"), (ran.sc, "sc")):  # all but the seconds it took
        want = check(SB, model)
        assert (got.model, got.allowed_states, got.target_reachable) == (model, want.allowed_states,
                                                                         want.target_reachable)
    assert ran.ptx.model == "ptx" and ran.sc.model == "sc" and ran.rounds == 1


def test_run_variant_uses_model_results_it_is_given(monkeypatch) -> None:
    import litmus.session as session
    from litmus.model import check

    ptx, sc = check(SB, "ptx"), check(SB, "sc")
    calls: list[str] = []
    monkeypatch.setattr(session, "check", lambda test, model: calls.append(model) or check(test, model))
    ran = session.run_variant(SB, Scripted(), RunConfig(iterations=1), ptx=ptx)
    assert calls == ["sc"] and ran.ptx is ptx
    session.run_variant(SB, Scripted(), RunConfig(iterations=1), ptx=ptx, sc=sc)
    assert calls == ["sc"]


def test_run_config_is_built_one_way() -> None:
    from litmus.run.config import PRESETS
    from litmus.session import DEFAULT_ITERATIONS, run_config

    backend = Scripted()
    cfg = run_config(backend)
    assert (cfg.iterations, cfg.time_budget, cfg.instances, cfg.stress) == (DEFAULT_ITERATIONS, None, 1 << 16,
                                                                            PRESETS["default"])
    timed = run_config(backend, iterations=9, time_budget=0.5, instances=7, seed=3, stress="heavy")
    assert (timed.iterations, timed.time_budget, timed.instances, timed.seed) == (None, 0.5, 7, 3)
    assert timed.stress == PRESETS["heavy"]
    assert run_config(backend, iterations=2).iterations == 2


def test_until_bound_stops_once_the_target_is_seen() -> None:
    backend = Scripted()  # every round shows the SB target (3 of 10)
    ran = run_tests([SB], backend, RunConfig(iterations=50, stop_bound=1e-9))[0]
    assert backend.rounds == 1 and ran.record is not None and ran.record["rounds"] == 1


class Clean(Scripted):
    """Never shows the SB target: 1000 completed instances a round."""

    def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        self.rounds += 1
        return Round(rows=[({"P0:r0": 1, "P1:r1": 1, "x": 1, "y": 1}, False, 1000)], instances=1000, seconds=0.0)


def test_until_bound_stops_once_three_over_n_reaches_the_bound() -> None:
    backend = Clean()
    [res] = run_tests([SB], backend, RunConfig(iterations=50, stop_bound=3 / 4000))
    assert backend.rounds == 4 and res.verdict is not None and res.verdict.bound_95 == 3 / 4000
    capped = Clean()
    run_tests([SB], capped, RunConfig(iterations=2, stop_bound=1e-12))
    assert capped.rounds == 2  # the iterations still cap it


class Recorder(Scripted):
    """Records the stress environment of every round it runs."""

    def __init__(self) -> None:
        super().__init__()
        self.envs: list[str] = []

    def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        self.envs.append(config.stress.name)
        return super().run_round(test, config, round_index)


def test_rounds_of_a_variant_rotate_through_the_environments() -> None:
    from dataclasses import replace

    from litmus.run.config import PRESETS

    backend = Recorder()
    envs = [replace(PRESETS["default"], name=n) for n in ("a", "b", "c")]
    config = run_config(backend, iterations=5, stress=envs)
    assert config.stress.name == "a" and [e.name for e in config.rotation] == ["b", "c"]
    run_variant(SB, backend, config)
    assert backend.envs == ["a", "b", "c", "a", "b"]
    with pytest.raises(LitmusError, match="empty rotation"):
        run_config(backend, stress=[])


class Timed(Recorder):
    """Never shows the target; environment ``b`` completes instances fastest."""

    def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        self.envs.append(config.stress.name)
        seconds = 0.001 if config.stress.name == "b" else 0.01
        return Round(rows=[({"P0:r0": 1, "P1:r1": 1, "x": 1, "y": 1}, False, 1000)], instances=1000, seconds=seconds)


def test_a_conformance_variant_run_to_a_bound_fills_with_the_fastest_environment() -> None:
    from dataclasses import replace

    from litmus.run.config import PRESETS

    envs = [replace(PRESETS["default"], name=n) for n in ("a", "b", "c")]
    never = replace(SB, condition=Condition("exists", parse_prop("P0:r0 == 5")))  # the model forbids it
    backend = Timed()
    run_variant(never, backend, run_config(backend, iterations=10, stress=envs, stop_bound=1e-12))
    assert backend.envs == ["a", "b", "c"] * 2 + ["b"] * 4
    racy = Timed()  # SB's target is allowed: the rotation goes on
    run_variant(SB, racy, run_config(racy, iterations=10, stress=envs, stop_bound=1e-12))
    assert racy.envs == ["a", "b", "c"] * 3 + ["a"]


class Ahead(Scripted):
    """Records what ``run_tests`` asks it to compile ahead."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[list[str], int]] = []

    def compile_ahead(self, tests: list[LitmusTest], config: RunConfig, workers: int) -> int:
        self.asked.append(([t.id for t in tests], workers))
        return len(tests)


def test_run_tests_compiles_ahead_only_what_it_will_run(tmp_path: Path) -> None:
    from dataclasses import replace

    other = replace(SB, variant="other")
    out = tmp_path / "r.jsonl"
    run_tests([SB], Scripted(), RunConfig(iterations=1), out=out)
    backend = Ahead()
    run_tests([SB, other], backend, RunConfig(iterations=1), out=out, resume=True, compile_workers=3)
    assert backend.asked == [(["SB[other]"], 3)]  # SB[plain] is already in the file
    quiet = Ahead()
    run_tests([SB], quiet, RunConfig(iterations=1), compile_workers=0)
    assert quiet.asked == []


class Fixed(Scripted):
    """Returns the same ``rows`` (state, status, count) every 20 ms round."""

    def __init__(self, rows: list) -> None:
        super().__init__()
        self.rows = rows

    def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        self.rounds += 1
        time.sleep(0.02)
        rows = self.rows_now()
        return Round(rows=rows, instances=sum(n for _, _, n in rows), seconds=0.02)

    def rows_now(self) -> list:
        """The rows of the round being run (``self.rounds`` counts it)."""
        return self.rows


def never_target(state: dict[str, int]) -> Fixed:
    """Never shows the target: 1000 ended instances (half of them proven hangs) per round, all
    in ``state`` (an allowed final state of the test)."""
    from litmus.status import COMPLETED, HUNG

    return Fixed([(state, COMPLETED, 500), (state, HUNG, 500)])


def test_a_conformance_variant_runs_past_its_budget_while_its_bound_is_within_reach() -> None:
    from litmus.classify import in_target
    from litmus.model import check, ptx_model_for
    from litmus.run.schedule import FILL_STRETCH
    from litmus.spec import load_paths

    tests = {t.id: t for t in load_paths(["catalog/iris_flag_reset.yaml"])}
    never = tests["MP-reset-race[relacq-plain-reset]"]  # forbidden target, may hang
    ptx = check(never, ptx_model_for(never))
    state = next(dict(s) for s in ptx.allowed_states if not in_target(never, dict(s)))
    near = never_target(state)  # about 5 rounds fit the budget; the bound needs 12, well within FILL_STRETCH budgets
    [res] = run_tests([never], near, RunConfig(time_budget=0.1, stop_bound=3 / 12_000))
    assert res.verdict is not None and res.verdict.verdict == "correct" and res.verdict.bound_95 <= 3 / 12_000
    assert res.verdict.completed == res.verdict.hung  # proven hangs count toward the bound
    far = never_target(state)  # 3e6 ended instances would take a minute: it stops within FILL_STRETCH budgets
    [res] = run_tests([never], far, RunConfig(time_budget=0.1, stop_bound=1e-6))
    assert res.record is not None and res.record["seconds"] < FILL_STRETCH * 0.1 + 0.5 and far.rounds < 60
    racy = never_target(state)  # the same target, declared and checked as allowed: not filling, so the budget is the budget
    allowed = tests["MP-reset-race[relaxed-plain-reset]"]
    [res] = run_tests([allowed], racy, RunConfig(time_budget=0.1, stop_bound=3 / 12_000))
    assert racy.rounds < 12 and res.verdict is not None


class Scarce(Fixed):
    """A hunting variant's rounds: 1000 instances, one completed in an allowed state that is not
    the target and the rest timed out; from round ``witness_at`` on (if set), the completed one
    is ``target`` instead."""

    def __init__(self, state: dict[str, int], target: dict[str, int], witness_at: int | None = None) -> None:
        from litmus.status import TIMED_OUT

        super().__init__([(state, False, 1), (state, TIMED_OUT, 999)])
        self.target, self.witness_at = target, witness_at

    def rows_now(self) -> list:
        if self.witness_at is not None and self.rounds >= self.witness_at:
            return [(self.target, False, 1)] + self.rows[1:]
        return self.rows


def test_a_hunting_variant_with_too_few_ended_runs_on_until_a_witness_or_the_stretch() -> None:
    from litmus.classify import in_target
    from litmus.model import check, ptx_model_for
    from litmus.run.schedule import HUNT_STRETCH
    from litmus.spec import load_paths

    hunt = next(t for t in load_paths(["catalog/iris_flag_reset.yaml"]) if t.id == "MP-reset-race[relaxed-plain-reset]")
    ptx = check(hunt, ptx_model_for(hunt))
    states = [dict(s) for s in ptx.allowed_states]
    plain = next(s for s in states if not in_target(hunt, s))
    target = next(s for s in states if in_target(hunt, s))
    budget = 0.1  # about 5 rounds
    never = Scarce(plain, target)
    [res] = run_tests([hunt], never, RunConfig(time_budget=budget, stop_bound=1e-9))
    assert res.verdict is not None and res.verdict.verdict == "inconclusive"
    assert res.record is not None and (HUNT_STRETCH - 1) * budget <= res.record["seconds"] < HUNT_STRETCH * budget + 0.5
    late = Scarce(plain, target, witness_at=15)  # after the budget, within the stretch
    [res] = run_tests([hunt], late, RunConfig(time_budget=budget, stop_bound=1e-9))
    assert res.verdict is not None and res.verdict.verdict == "racy-witnessed" and late.rounds == 15
    unbound = Scarce(plain, target)  # without --until-bound the budget is the budget
    [res] = run_tests([hunt], unbound, RunConfig(time_budget=budget))
    assert res.record is not None and res.record["seconds"] < 2 * budget + 0.2


def test_a_hang_that_shows_the_target_is_evidence_enough_to_stop() -> None:
    """Under --until-bound a variant stops once its target is seen, in a hang's final memory too
    (every instance here times out with the target's final memory, as PyTorch #196546's lost
    signal does); it used to run its whole budget, and the hunting stretch on top when some of
    its instances completed."""
    from litmus.status import TIMED_OUT
    from litmus.classify import in_target
    from litmus.model import check, ptx_model_for
    from litmus.spec import load_paths

    test = next(t for t in load_paths(["catalog/bugs_pytorch_196546.yaml"])
                if t.id == "BUG-pytorch-196546[buggy-memset-after-collective]")
    ptx = check(test, ptx_model_for(test))
    target = next(dict(s) for s in ptx.allowed_states if in_target(test, dict(s)))
    lost = Fixed([(target, TIMED_OUT, 1000)])
    [res] = run_tests([test], lost, RunConfig(time_budget=0.1, stop_bound=1e-9))
    assert res.verdict is not None and res.verdict.verdict == "racy-witnessed" and res.verdict.hang_witnesses == 1000
    assert lost.rounds == 1 and res.verdict.seconds_to_first is not None


# BUG-vllm-8558[buggy-one-set-relacq] on the H200, round by round
# (docs/results/h200-variant-time-vllm-relacq-8s.json): per environment, the seconds of its first
# round (loading its kernels), the seconds per instance of its later rounds, and the fraction of
# instances that end.  The fastest environment ("#5") is the slowest but one to show it.
H200_VLLM_RELACQ = {
    "env0": (4.465, 0.057 / 262144, 0.36),
    "env2": (1.165, 0.003 / 1048576, 1.0),
    "env3": (0.971, 0.104 / 2196480, 0.77),
    "env4": (0.074, 0.55 / 16777216, 0.5),
    "env5": (0.025, 0.005 / 16777216, 1.0),
}


class Replay(Scripted):
    """Rounds that take the H200's measured time, scaled by ``scale``: none shows the target."""

    def __init__(self, state: dict[str, int], scale: float) -> None:
        super().__init__()
        self.state, self.scale, self.seen, self.envs = state, scale, set(), []

    def run_round(self, test: LitmusTest, config: RunConfig, round_index: int) -> Round:
        from litmus.status import COMPLETED, TIMED_OUT

        self.rounds += 1
        name = config.stress.name
        first, per_instance, fraction = H200_VLLM_RELACQ[name]
        seconds = (first if name not in self.seen else per_instance * config.instances) * self.scale
        self.seen.add(name)
        self.envs.append(name)
        time.sleep(seconds)
        done = int(config.instances * fraction)
        rows = [(self.state, COMPLETED, done)] + ([(self.state, TIMED_OUT, config.instances - done)]
                                                   if done < config.instances else [])
        return Round(rows=rows, instances=config.instances, seconds=seconds)


def test_a_variant_whose_budget_runs_out_in_its_warm_rounds_still_reaches_its_bound() -> None:
    """Replayed at a tenth of the H200's times, with a tenth of the catalog's 1.5 s budget: the
    budget runs out before every environment has shown its rate, so the variant finishes its
    warm rounds, then runs the fastest one to 3/N <= 1e-9.  Projected at its mean rate when the
    budget ran out (before 7700cb0) it stopped, as in catalog runs 18-20, at 1e-7 or so."""
    from dataclasses import replace as _replace

    from litmus.classify import in_target
    from litmus.model import check, ptx_model_for
    from litmus.run.config import PRESETS
    from litmus.spec import load_paths

    test = next(t for t in load_paths(["catalog/bugs_vllm_8558.yaml"]) if t.id == "BUG-vllm-8558[buggy-one-set-relacq]")
    ptx = check(test, ptx_model_for(test))
    state = next(dict(s) for s in ptx.allowed_states if not in_target(test, dict(s)))
    envs = [_replace(PRESETS["default"], name=n) for n in H200_VLLM_RELACQ]
    backend = Replay(state, 0.1)
    config = RunConfig(stress=envs[0], rotation=tuple(envs[1:]), instances=1 << 24, time_budget=0.15, stop_bound=1e-9)
    [res] = run_tests([test], backend, config)
    assert res.verdict is not None and res.verdict.verdict == "correct" and res.verdict.bound_95 <= 1e-9
    assert set(backend.envs[:10]) == set(H200_VLLM_RELACQ) and set(backend.envs[10:]) == {"env5"}


def test_a_test_past_the_sc_model_budget_still_runs_on_its_ptx_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SC reference only splits allowed outcomes into sc and weak: when its enumeration
    runs past the budget, the variant runs and is classified by the PTX model."""
    import litmus.session as session
    from litmus.model.budget import BudgetExceeded

    real = session.check

    def check(test: LitmusTest, model: str = "ptx") -> Any:
        if model == "sc":
            raise BudgetExceeded.at("sb.yaml", 1, "SB: the sc model checker stopped after 10 steps")
        return real(test, model)

    monkeypatch.setattr(session, "check", check)
    [res] = run_tests([SB], Scripted(), RunConfig(iterations=1))
    assert res.error is None and res.verdict is not None and res.verdict.verdict == "racy-witnessed"
    assert res.verdict.counts["weak"] == 0 and res.verdict.counts["sc"] == 10
    assert any("no SC reference" in n for n in res.verdict.notes)


@given(rounds=st.integers(1, 50), spent=st.floats(0, 100), instances=st.integers(0, 10**7),
       ended_share=st.floats(0, 1), witnessed=st.booleans(),
       budget=st.one_of(st.none(), st.floats(0.1, 10)), bound=st.one_of(st.none(), st.floats(1e-9, 1e-2)),
       iterations=st.integers(1, 20))
def test_stop_rule_laws(rounds: int, spent: float, instances: int, ended_share: float, witnessed: bool,
                        budget: float | None, bound: float | None, iterations: int) -> None:
    """The evidence ends a run whatever its budget; without a bound, the budget alone does; a run
    that goes on is never shown as finished."""
    from litmus.run.schedule import RoundPlan
    from litmus.session import StopRule

    config = RunConfig(iterations=iterations, time_budget=budget, stop_bound=bound)
    rule = StopRule(config, RoundPlan(config, fill=bound is not None and not witnessed, spins=False))
    n_ended = int(instances * ended_share)
    done = rule.done(rounds, spent, instances, n_ended, witnessed)
    if bound is not None and witnessed:
        assert done
    if bound is None:
        assert done == rule.budget_spent(rounds, spent)
    if not done:
        assert 0.0 <= rule.progress(rounds, spent) <= 0.99


def test_a_record_keeps_the_model_answer_its_verdict_rests_on(tmp_path: Path) -> None:
    from litmus.model import check, ptx_model_for
    from litmus.model.facts import ModelFacts, model_facts

    out = tmp_path / "r.jsonl"
    run_tests([SB], Scripted(), RunConfig(iterations=1), out=out)
    [rec] = list(read_records(out))
    kept = ModelFacts.from_dict(rec["model"])
    assert kept == model_facts(SB, check(SB, ptx_model_for(SB)))
    assert kept.target_reachable and kept.keys == ("P0:r0", "P1:r1")


def test_a_backend_with_a_default_time_budget_gets_it_unless_told_otherwise() -> None:
    """The CPU backends run each variant for a time budget (their rounds cost very different times
    by the variant's shape); iterations or a budget given explicitly win."""
    class Budgeted(Scripted):
        default_time_budget = 0.3

    backend = Budgeted()
    assert (run_config(backend).time_budget, run_config(backend).iterations) == (0.3, None)
    assert (run_config(backend, iterations=2).time_budget, run_config(backend, iterations=2).iterations) == (None, 2)
    assert run_config(backend, time_budget=1.5).time_budget == 1.5
    assert run_config(Scripted()).time_budget is None
