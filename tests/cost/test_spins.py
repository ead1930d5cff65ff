"""How litmus cost times each spin comparison: a round trip waits every round.

The loop kernel (cuda, ranks) counts rounds in a flag: a spin for the raised value waits for
this round's number, a ``!=`` spin (TEAR-bytes[fixed-acquire-each-byte]: ``b0 != 0``) waits to
leave the previous round's, a byte flag counts modulo 256; any other spin is refused in one
line. The unrolled test (cpu) gives every round a fresh copy of the flag's word and counts a
round trip done when each spin's register ends it by its own comparison.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from click.testing import CliRunner

from litmus.codegen.options import Features
from litmus.cost.command import _measure, cost_command
from litmus.cost.kernel import cost_kernel
from litmus.cost.measure import CostParams
from litmus.cost.shape import Party, Signalling, signalling
from litmus.cost.unrolled import completed_trips, unrolled_test
from litmus.errors import LitmusError
from litmus.ir import Const, Spin, Store
from litmus.spec import default_catalog_dir, load_paths

TESTS = {t.id: t for t in load_paths([default_catalog_dir()])}
PTX = Features(atomic_load=False, atomic_store=False, inline_asm=True)
BYTES = "TEAR-bytes[fixed-acquire-each-byte]"


def sig_of(test_id: str) -> Signalling:
    return signalling(TESTS[test_id])


def exits(sig: Signalling) -> list[str]:
    """The exit tests of the kernel's spins, as Python over ``got`` (the value read) and ``seq``."""
    text = cost_kernel(sig, features=PTX, spin_bound=64).text
    tests = re.findall(r"^\s*spin_done\d+ = spin_done\d+ \| \((.+)\)$", text, re.M)
    assert tests, text
    return [re.sub(r"spin_got\d+", "got", t) for t in tests]


def waits_every_round(test: str, bits: int, rounds: int = 2048) -> bool:
    """Whether the exit ``test`` is false on the flag's value before round ``seq`` (the previous
    round's number, in ``bits`` bits) and true once the round's signal wrote ``seq``."""
    low = (1 << bits) - 1
    return all(not eval(test, {"got": (seq - 1) & low, "seq": seq}) and eval(test, {"got": seq & low, "seq": seq})
               for seq in range(1, rounds + 1))


def with_wait(sig: Signalling, **changes: object) -> Signalling:
    """``sig`` (a message) with its spin changed."""
    (spin,) = sig.wait
    return replace(sig, wait=(replace(spin, **changes),))


# --------------------------------------------------------------------------- loop kernel (cuda, ranks)


def test_a_not_equal_spin_on_a_byte_waits_to_leave_the_previous_rounds_number() -> None:
    sig = sig_of(BYTES)
    assert [(type(o).__name__, o.loc, getattr(o, "cmp", None)) for o in sig.signal + sig.wait] == [
        ("Store", "b0", None), ("Spin", "b0", "!=")]
    tests = exits(sig)
    assert tests == ["got != ((seq - 1) & 255)"] * 2  # ping and pong; no `!= 0`, which round 2 on would pass at once
    assert all(waits_every_round(t, 8) for t in tests)  # 2048 rounds: past 255, the byte wraps


@pytest.mark.parametrize("test_id", ["BUG-primus-turbo-482[fixed-release-acquire-sys]",  # tail != 0, raised to 1
                                     "BUG-nccl-2389[fixed-consumer-clears-what-it-read]"])  # slot != -1, raised to 0
def test_a_not_equal_spin_on_a_32_bit_flag_waits_to_leave_the_previous_rounds_number(test_id: str) -> None:
    tests = exits(sig_of(test_id))
    assert tests == ["got != seq - 1"] * 2 and all(waits_every_round(t, 32) for t in tests)


def test_a_spin_for_the_raised_value_of_a_byte_counts_modulo_256() -> None:
    sig = with_wait(sig_of(BYTES), cmp="==", until=255)
    tests = exits(sig)
    assert tests == ["((got - seq) & 255) < 128"] * 2
    assert all(waits_every_round(t, 8) for t in tests)
    assert all(eval(t, {"got": (seq + 1) & 255, "seq": seq}) for t in tests for seq in range(1, 2049))  # one ahead


def test_a_barrier_of_not_equal_spins_counts_and_one_with_a_reset_is_refused() -> None:
    sig = sig_of("XLA-block-barrier[relacq-sys]")  # P0: s1 = 1, spin s0 == 1; P1: s0 = 1, spin s1 == 1
    parties = tuple(replace(p, ops=tuple(replace(o, cmp="!=", until=0) if isinstance(o, Spin) else o for o in p.ops))
                    for p in sig.parties)
    tests = exits(replace(sig, parties=parties))
    assert tests == ["got != seq - 1"] * 2 and all(waits_every_round(t, 32) for t in tests)
    p0: Party = parties[0]
    reset = replace(p0, ops=p0.ops + (Store("s0", Const(0), "relaxed", "sys"),))  # puts back round 1's value
    with pytest.raises(LitmusError) as err:
        cost_kernel(replace(sig, parties=(reset, parties[1])), features=PTX)
    assert str(err.value) == ("XLA-block-barrier[relacq-sys]: the loop kernel cannot time the spin `s0 != 0`: s0 is "
                              "also written store 0, which may put back the previous round's value and end the spin "
                              "at once")


@pytest.mark.parametrize("test_id, spin", [
    ("BUG-vllm-8558[buggy-one-set-relacq]", "a1 == 2"),  # a flag raised to 1
    ("BUG-pytorch-196546[fixed-barrier-after-memset]", "pad == 1"),  # raised to 0 from 7
    ("MP-reset-race[ready-relaxed-reset]", "flag == 0"),  # waits for a reset
])
def test_spins_the_round_counter_cannot_time_are_refused_in_one_line(test_id: str, spin: str) -> None:
    with pytest.raises(LitmusError) as err:
        cost_kernel(sig_of(test_id), features=PTX)
    line = str(err.value)
    assert "\n" not in line and line.startswith(f"{test_id}: the loop kernel cannot time the spin `{spin}`: ")
    assert "wait every round" in line


def test_a_flag_two_parties_add_to_is_refused() -> None:
    # every party adds 1 and spins `counter >= 2`: from round 2 on the counter is past 2 before any add
    with pytest.raises(LitmusError, match=r"^BUG-flashinfer-3610\[fixed-last-cta-out-resets\]: 4 adds to counter "
                                          r"in a round do not count rounds"):
        cost_kernel(sig_of("BUG-flashinfer-3610[fixed-last-cta-out-resets]"), features=PTX)


@pytest.mark.parametrize("changes, why", [
    ({"until": 7}, "only `== 255`, `>= 255` (this round's number) or `!= 0` (leaving the previous round's)"),
    ({"cmp": "<", "until": 255}, "only `== 255`, `>= 255`"),
    ({"mask": 0xF0}, "a masked comparison would not see it"),
])
def test_other_comparisons_on_a_counted_flag_are_refused(changes: dict, why: str) -> None:
    with pytest.raises(LitmusError, match=re.escape(why)):
        cost_kernel(with_wait(sig_of(BYTES), **changes), features=PTX)


def test_a_refused_spin_costs_its_variant_one_line_on_cuda() -> None:
    m, line = _measure(sig_of("MP-reset-race[ready-relaxed-reset]"), "cuda", None, CostParams())
    assert m is None and line is not None and "\n" not in line
    assert line.startswith("MP-reset-race[ready-relaxed-reset]: the loop kernel cannot time the spin `flag == 0`")


# --------------------------------------------------------------------------- unrolled test (cpu)


def test_a_not_equal_round_trip_is_done_when_its_spins_left_the_initial_value() -> None:
    sig = sig_of(BYTES)
    t = unrolled_test(sig, 3)
    spins = [(p.name, o) for p in t.threads for o in p.instrs if isinstance(o, Spin)]
    assert {(o.cmp, o.until) for _, o in spins} == {("!=", 0)}
    assert {l.name: l.init for l in t.locations if l.name.startswith("b0")} == {f"b0{s}{j}": 0 for s in ("", "_back")
                                                                                for j in range(3)}  # fresh, at 0
    full = {f"{p}:{o.reg}": 0xFF for p, o in spins}
    assert completed_trips(full, sig, t) == 3
    assert completed_trips(dict(full, **{"P1:s1": 0}), sig, t) == 1  # round 2's ping never left 0


def test_a_spin_the_fresh_flag_already_ends_is_refused() -> None:
    with pytest.raises(LitmusError) as err:
        unrolled_test(with_wait(sig_of(BYTES), until=7), 2)  # b0 starts at 0, and 0 != 7
    assert str(err.value) == (f"{BYTES}: the spin `b0 != 7` would not wait: b0 starts at 0, which already ends it, "
                              "so a round trip would time no signal")


def test_tear_bytes_is_measured_on_the_cpu_backend() -> None:
    res = CliRunner().invoke(cost_command, ["TEAR-bytes", "--variant", "fixed-acquire-each-byte", "--backend", "cpu",
                                            "-n", "3", "-k", "1", "--warmup", "0", "--json"])
    assert res.exit_code == 0, res.output
    (row,) = [r for f in json.loads(res.output)["families"] for r in f["rows"]]
    assert row["cost"] is not None, row["skipped"]
    assert row["cost"]["round_trips"] == row["cost"]["asked"] == 2 * 3
