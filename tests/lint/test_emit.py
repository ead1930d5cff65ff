"""--emit-yaml: the pattern of a file's signalling loads through litmus.spec, and the model's
verdict on it agrees with the lint findings (broken: the bug outcome allowed; correct: not)."""

from __future__ import annotations

import pytest

from litmus.model import check
from litmus.spec import load_text
from tests.lint.conftest import linted

CASES = [
    ("iris_ok", {"LINT-iris-ok-put-producer": False, "LINT-iris-ok-get-producer": False}),
    ("iris_broken", {"LINT-iris-broken-put-producer": True, "LINT-iris-broken-get-producer": True}),
    ("tritonbench_lock", {"LINT-tritonbench-lock-splitk-fixup-ok": False,
                          "LINT-tritonbench-lock-splitk-fixup-broken": True}),
    # each barrier also gives its pads' protocol (-pads), sound at sys scope in every form
    ("symm_mem_barrier", {**{f"LINT-symm-mem-barrier-{k}": bad for k, bad in (
        ("pattern0-ok", False), ("pattern0-broken", True), ("pattern1-ok", False), ("pattern1-nopre", True),
        ("pattern1-nopost", True), ("pattern2-ok", False), ("pattern2-broken", True))},
        **{f"LINT-symm-mem-barrier-{k}-pads": False for k in (
            "pattern0-ok", "pattern0-broken", "pattern1-ok", "pattern1-nopre", "pattern1-nopost", "pattern2-ok",
            "pattern2-broken")}}),
    ("triton_tutorial_lock", {"LINT-triton-tutorial-lock-dw-accumulate-ok": False,
                              "LINT-triton-tutorial-lock-dw-accumulate-nobarrier": True,
                              "LINT-triton-tutorial-lock-dw-accumulate-plain-unlock": True}),
    ("vllm_barrier", {"LINT-vllm-barrier-two-slot-barrier-ok": False,
                      # the reset's bug is a hang of the second round, not a stale read (below)
                      "LINT-vllm-barrier-one-slot-barrier-broken": False}),
    # the consumer's removed spin: the compiled consumer does not wait
    ("iris_message_passing", {"LINT-iris-message-passing-producer-kernel": True}),
    ("iris_message_passing_fixed", {"LINT-iris-message-passing-fixed-producer-fixed": False}),
    # a counter barrier: world_size - 1 senders, so the fixed form neither goes wrong nor hangs
    ("iris_one_shot_all_reduce", {"LINT-iris-one-shot-all-reduce-all-reduce-as-written": True,
                                  "LINT-iris-one-shot-all-reduce-all-reduce-fixed": False}),
    ("triton_dist_grid_signal", {"LINT-triton-dist-grid-signal-ring-step-grid-barrier": False,
                                 "LINT-triton-dist-grid-signal-ring-step-no-grid-barrier": True,
                                 "LINT-triton-dist-grid-signal-ring-step-per-cta-flag": False}),
    ("symm_mem_recipes_acquire", {"LINT-symm-mem-recipes-acquire-read-after-barrier": False,
                                  "LINT-symm-mem-recipes-acquire-read-after-barrier-pads": False,
                                  "LINT-symm-mem-recipes-acquire-read-after-other-acquire": True,
                                  "LINT-symm-mem-recipes-acquire-read-after-other-acquire-pads": False}),
]


@pytest.mark.parametrize(("name", "expected"), CASES, ids=[c[0] for c in CASES])
def test_emitted_pattern_loads_and_the_model_agrees(name: str, expected: dict[str, bool]) -> None:
    tests = load_text(linted(name).emit_yaml(), f"{name}.yaml")
    assert {t.id: check(t).target_reachable for t in tests} == expected
    for t in tests:
        assert t.expect is not None and t.expect.outcome == "forbidden"


def test_a_reset_flag_is_emitted_as_two_rounds_and_the_model_finds_the_hang() -> None:
    tests = {t.id: t for t in load_text(linted("vllm_barrier").emit_yaml())}
    broken = tests["LINT-vllm-barrier-one-slot-barrier-broken"]
    assert [type(i).__name__ for i in broken.thread("P1").instrs] == ["Spin", "Load", "Store", "Spin", "Load"]
    assert broken.expect.may_hang is False and check(broken).possible_hang
    assert not check(tests["LINT-vllm-barrier-two-slot-barrier-ok"]).possible_hang


def test_block_payload_adds_a_second_storing_thread() -> None:
    [t] = [t for t in load_text(linted("tritonbench_lock").emit_yaml()) if t.id.endswith("broken")]
    assert [th.name for th in t.threads] == ["P0", "P1", "P2"]
    assert (t.thread("P1").rank, t.thread("P1").cta) == (0, 1)  # one GPU: the consumer is another CTA
    p0 = [type(i).__name__ for i in t.thread("P0").instrs]
    assert p0 == ["Store", "Rmw"]  # no bar.sync: the broken form's missing tl.debug_barrier()


def test_a_mutex_starts_held_by_the_producer() -> None:
    [t] = [t for t in load_text(linted("triton_tutorial_lock").emit_yaml()) if t.id.endswith("-ok")]
    assert t.location("flag").init == 1  # P0 holds the lock; its release writes 0, P1's CAS takes it
    assert t.thread("P1").instrs[0].until == 0


def test_barrier_war_is_emitted_as_pattern_2() -> None:
    [t] = [t for t in load_text(linted("symm_mem_barrier").emit_yaml()) if t.id.endswith("pattern2-broken")]
    assert "P0:r1 == 1" in t.condition.text
    assert (t.thread("P1").rank, t.location("x").home) == (1, 1)


def test_a_side_the_file_lacks_is_the_catalogs_correct_one() -> None:
    from litmus.lint import lint_file
    from tests.lint.conftest import kernel_file

    consumer = lint_file(kernel_file("iris_broken"), "get_consumer")
    [t] = load_text(consumer.emit_yaml())
    assert t.id == "LINT-iris-broken-get-consumer"
    assert [type(i).__name__ for i in t.thread("P0").instrs] == ["Store", "Rmw"]  # payload, then release.sys
    assert t.thread("P0").instrs[1].sem == "release" and t.thread("P0").instrs[1].scope == "sys"
    assert check(t).target_reachable  # the volatile poll alone lets the stale read through
    producer = lint_file(kernel_file("iris_ok"), "put_producer")
    [t] = load_text(producer.emit_yaml())
    assert t.thread("P1").instrs[0].read.sem == "acquire" and not check(t).target_reachable


def _variant(kernel: str) -> dict:
    from litmus.lint import lint_file
    from tests.lint.conftest import kernel_file

    return {t.id: t for t in load_text(lint_file(kernel_file("variants"), kernel).emit_yaml())}


def test_a_pad_barrier_at_gpu_scope_breaks_the_pads_protocol() -> None:
    # pattern 0: no data of the kernel's own, so the message passing is sound; the pads are not
    tests = _variant("pad_barrier_gpu_nodata")
    assert not check(tests["LINT-variants-pad-barrier-gpu-nodata"]).target_reachable
    pads = tests["LINT-variants-pad-barrier-gpu-nodata-pads"]
    assert pads.condition.text == "pad0 == 0 /\\ pad1 == 0" and check(pads).target_reachable
    assert [i.read.scope for i in pads.thread("P0").instrs] == ["gpu", "gpu"]
    assert not check(_variant("pad_barrier_acqrel")["LINT-variants-pad-barrier-acqrel-pads"]).target_reachable


def test_a_strong_store_signal_keeps_its_sem() -> None:
    [t] = _variant("release_store_signal").values()
    signal = t.thread("P0").instrs[-1]
    assert (type(signal).__name__, signal.sem, signal.scope) == ("Store", "release", "sys")
    assert not check(t).target_reachable


def test_a_per_element_flag_adds_no_second_storing_thread() -> None:
    from litmus.lint import lint_file
    from tests.lint.conftest import kernel_file

    [t] = load_text(lint_file(kernel_file("rule_shapes"), "flag_per_element").emit_yaml())
    assert [th.name for th in t.threads] == ["P0", "P1"] and not check(t).target_reachable


def test_two_rounds_keep_the_producers_fence() -> None:
    # fence_then_relaxed_signal is paired with relaxed_reset in its file: the fence is in each round
    [t] = [t for t in load_text(linted("rule_shapes").emit_yaml()) if t.id.endswith("fence-then-relaxed-signal")]
    assert [type(i).__name__ for i in t.thread("P0").instrs] == ["Store", "Fence", "Rmw", "Store", "Fence", "Rmw"]


def test_a_side_the_file_lacks_takes_part_in_the_reset() -> None:
    from litmus.lint import lint_file
    from tests.lint.conftest import kernel_file

    def alone(kernel: str):
        [t] = load_text(lint_file(kernel_file("rule_shapes"), kernel).emit_yaml())
        return t, check(t)

    # a flag raised every round: the catalog's consumer resets it, and the model finds the hang
    t, m = alone("signal_every_round")
    assert "Rmw" in [type(i).__name__ for i in t.thread("P1").instrs] and m.possible_hang
    # the producer waits for the reset first: the same consumer is then sound
    t, m = alone("signal_after_reset")
    assert [type(i).__name__ for i in t.thread("P0").instrs] == ["Store", "Rmw", "Spin", "Store", "Rmw"]
    assert not m.possible_hang and not m.target_reachable
    # a consumer's release reset, with the catalog's producer (which waits for the reset): sound
    t, m = alone("release_reset")
    assert t.thread("P0").instrs[2].until == 0 and not m.possible_hang and not m.target_reachable
    # a relaxed reset: the first read may see the second round's payload (the write-after-read)
    t, m = alone("relaxed_reset")
    assert "P1:r1 != 1" in t.condition.text and m.target_reachable


def test_a_counter_barrier_has_as_many_senders_as_its_wait_counts() -> None:
    from litmus.lint.emit import MAX_COUNTER_SENDERS, counter_senders
    from litmus.lint.events import Event, Site

    def add(value: int | None, op: str = "add") -> Event:
        return Event("atomic", Site("k.py", 1), "tl.atomic_add", op, "release", "sys", value=value)

    assert counter_senders(add(1), 2) == 2 and counter_senders(add(2), 6) == 3
    assert counter_senders(add(1), 1) == 1 and counter_senders(add(2), 3) == 1  # one sender; not a multiple
    assert counter_senders(add(1, "exch"), 3) == 1 and counter_senders(add(None), 3) == 1
    assert counter_senders(add(1), MAX_COUNTER_SENDERS + 1) == 1
    tests = {t.id: t for t in load_text(linted("iris_one_shot_all_reduce").emit_yaml(), "ar.yaml")}
    fixed = tests["LINT-iris-one-shot-all-reduce-all-reduce-fixed"]
    assert [t.name for t in fixed.threads] == ["P0", "P1", "P2", "P4"]
    assert not check(fixed).possible_hang
