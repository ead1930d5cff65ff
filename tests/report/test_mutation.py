"""Mutation score: conformance tests vs mutants, multi-GPU mutants counted apart, unseen reasons."""

from __future__ import annotations

from litmus.model import check
from litmus.model.facts import on_one_gpu, spans_gpus
from litmus.report.mutation import mutation_score, score_text
from litmus.spec import find_pattern


def _mp(variant: str):
    [test] = find_pattern(f"MP[{variant}]")
    return test


def test_on_one_gpu_keeps_ctas_apart_and_moves_every_location_home() -> None:
    test = _mp("relacq-xgpu-gpu")
    assert spans_gpus(test)
    one = on_one_gpu(test)
    assert not spans_gpus(one)
    assert len({(t.rank, t.cta) for t in one.threads}) == len({(t.rank, t.cta) for t in test.threads})
    # a gpu-scoped release/acquire across GPUs is a mutant, and on one GPU it is correct
    assert check(test, "ptx").target_reachable and not check(one, "ptx").target_reachable


def test_score_counts_witnessed_mutants_and_sets_multi_gpu_ones_apart() -> None:
    tests = [_mp(v) for v in ("relacq-xgpu-sys", "relacq-xgpu-gpu", "relaxed-xgpu-sys", "relcas-xcta-cta")]
    records = [
        {"id": tests[0].id, "verdict": "correct", "backend": "cuda", "world_size": 1},
        {"id": tests[1].id, "verdict": "racy-unseen", "backend": "cuda", "world_size": 1,
         "instances": 10, "completed": 10, "bound_95": 0.3},
        {"id": tests[2].id, "verdict": "racy-witnessed", "backend": "cuda", "world_size": 1},
        {"id": tests[3].id, "verdict": "inconclusive", "backend": "cuda", "world_size": 1,
         "instances": 50, "completed": 5},
    ]
    score = mutation_score(tests, records)
    assert (score.conformance, score.mutants, len(score.witnessed), score.multi_gpu_mutants) == (1, 3, 1, 1)
    assert score.score == 1 / 3 and score.showable == 2 and score.showable_score == 1 / 2
    reasons = {u.id: (u.verdict, u.multi_gpu, u.reason) for u in score.unseen}
    assert reasons[tests[1].id][:2] == ("racy-unseen", True) and "needs several GPUs" in reasons[tests[1].id][2]
    assert reasons[tests[3].id][:2] == ("inconclusive", False) and "5 of 50" in reasons[tests[3].id][2]
    assert "mutation score: 33.3 %" in score_text(score)


def test_a_mutant_missing_from_the_records_is_unseen_as_skipped_and_several_gpus_show_all() -> None:
    tests = [_mp("relacq-xgpu-gpu")]
    score = mutation_score(tests, [{"id": "other", "verdict": "correct", "backend": "ranks", "world_size": 2}])
    assert score.machine_gpus == 2 and score.showable == 1
    [u] = score.unseen
    assert u.verdict == "skipped" and "not in the results" in u.reason


def test_the_score_reads_the_model_from_the_records_and_checks_nothing_again(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A record keeps the model's answer (its ``model`` field): the score is the same as the one
    the model gives, and the model is not asked again."""
    import litmus.model
    from litmus.model.facts import model_facts

    tests = [_mp(v) for v in ("relacq-xgpu-sys", "relacq-xgpu-gpu", "relaxed-xgpu-sys")]
    records = [{"id": t.id, "verdict": "racy-unseen", "backend": "cuda", "world_size": 1, "instances": 10,
                "completed": 10, "model": model_facts(t, check(t, "ptx75")).as_dict()} for t in tests]
    expected = mutation_score(tests, [{k: v for k, v in r.items() if k != "model"} for r in records])

    def no_check(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the model was checked again")

    monkeypatch.setattr(litmus.model, "check", no_check)
    score = mutation_score(tests, records)
    assert (score.conformance, score.mutants, score.multi_gpu_mutants) == \
        (expected.conformance, expected.mutants, expected.multi_gpu_mutants) == (1, 2, 1)
