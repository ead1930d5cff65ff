"""Laws of access widths over random small tests (hypothesis).

- the granule path of the checker (taken by every test with widths) gives a test without widths
  exactly the states and hangs of the historical path (random tests, and every catalog variant);
- a 64-bit location whose values fit in 32 bits behaves as a 32-bit one, and keeping the 4-byte
  cut of its constant high half (which the granules leave out) changes nothing;
- views that no access uses change no state, and each holds the slice of its location;
- a vector access allows at least what its elements allow in either program order (and, under
  SC, exactly that);
- on random tests with 64-bit words, views and vectors: every SC state is a PTX state, every SC
  hang a PTX hang, and the reads-from pruning drops no state and no hang.

The examples are derandomized (the same every run) and small: a random test with widths can have
tens of thousands of final states.
"""

from __future__ import annotations

import dataclasses
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from litmus.ir import (Condition, Const, Fence, LitmusTest, Load, Location, Rmw, Spin, SpinRead, Store, Thread,
                       TrueProp, element_name)
from litmus.model import DEFAULT_UNROLL, check
from litmus.model import checker
from litmus.model.checker import MODELS, _check
from litmus.model.layout import memory_layout
from litmus.spec import default_catalog_dir, load_paths
from tests.model.test_laws import SCOPES, litmus_tests, spin_tests

ALL_MODELS = pytest.mark.parametrize("model", ["ptx", "ptx75", "sc"])
# Derandomized, so that the time they take does not vary from run to run; the laws that check a
# test several times, or without the pruning, or on the costlier tests with widths, take fewer.
LAWS = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
FEWER = settings(LAWS, max_examples=25)


def through_granules(t: LitmusTest, model: str):
    """``check`` forced onto the granule path."""
    return _check(t, MODELS[model], DEFAULT_UNROLL, memory_layout(t, force=True), time.perf_counter())


def widened(t: LitmusTest, **extra) -> LitmusTest:
    """``t`` with every location 64 bits wide (plus ``extra`` locations)."""
    locs = tuple(dataclasses.replace(l, bits=64) for l in t.locations)
    return dataclasses.replace(t, locations=locs + tuple(extra.values()))


@ALL_MODELS
@LAWS
@given(t=st.one_of(litmus_tests(), spin_tests()))
def test_the_granule_path_agrees_with_the_plain_path(model: str, t: LitmusTest) -> None:
    plain, granules = check(t, model), through_granules(t, model)
    assert set(granules.allowed_states) == set(plain.allowed_states)
    assert granules.possible_hang == plain.possible_hang


@ALL_MODELS
@LAWS
@given(t=st.one_of(litmus_tests(), spin_tests()))
def test_a_64_bit_location_with_32_bit_values_behaves_as_a_32_bit_one(model: str, t: LitmusTest) -> None:
    narrow, wide = check(t, model), check(widened(t), model)
    assert set(wide.allowed_states) == set(narrow.allowed_states)
    assert wide.possible_hang == narrow.possible_hang


def _small(t: LitmusTest) -> bool:
    return sum(len(th.instrs) for th in t.threads) <= 7


@ALL_MODELS
@settings(LAWS, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(t=st.one_of(litmus_tests(), spin_tests()).filter(_small))  # cut, a 64-bit word doubles every access
def test_leaving_out_the_cut_of_a_constant_half_changes_nothing(model: str, t: LitmusTest) -> None:
    wide = widened(t)
    merged = check(wide, model)
    cut = _check(wide, MODELS[model], DEFAULT_UNROLL, memory_layout(wide, merge=False), time.perf_counter())
    assert set(cut.allowed_states) == set(merged.allowed_states)
    assert cut.possible_hang == merged.possible_hang


@pytest.mark.parametrize("model", ["ptx", "sc"])
@LAWS
@given(t=litmus_tests())
def test_views_nobody_accesses_change_nothing(model: str, t: LitmusTest) -> None:
    views = {"xl": Location("xl", bits=32, view_of="x", offset=0), "xb": Location("xb", bits=8, view_of="x", offset=5),
             "yh": Location("yh", bits=32, view_of="y", offset=4)}
    base, viewed = check(widened(t), model), check(widened(t, **views), model)
    keys = {k for s in base.allowed_states for k, _ in s}
    projected = {tuple((k, v) for k, v in s if k in keys) for s in viewed.allowed_states}
    assert projected == set(base.allowed_states)
    for s in map(dict, viewed.allowed_states):
        assert s["xl"] == s["x"] & 0xFFFFFFFF and s["xb"] == (s["x"] >> 40) & 0xFF and s["yh"] == s["y"] >> 32


# ------------------------------------------------------------------ random tests with widths

WORD = (Location("x", bits=64), Location("y", bits=32), Location("xl", bits=32, view_of="x", offset=0),
        Location("xh", bits=32, view_of="x", offset=4))
ELEMENTS = tuple(Location(element_name("x", 2, i), bits=32, view_of="x", offset=4 * i) for i in range(2))
VALUES = {"x": (0x100000001, 0x200000003, 0x300000000, 2), "y": (1, 2), "xl": (1, 3), "xh": (1, 2)}


@st.composite
def width_instrs(draw, tid: int, group0: int, most: int) -> tuple:
    """1 to ``most`` ops of one thread on the 64-bit word x (whole, by halves, or as a v2 vector) and y."""
    out: list = []
    for k in range(draw(st.integers(1, most))):
        kind = draw(st.sampled_from(["ld", "st", "st", "rmw", "fence", "vld", "vst"]))
        loc = draw(st.sampled_from(["x", "x", "xl", "xh", "y"]))
        scope = draw(st.sampled_from(SCOPES))
        if kind == "ld":
            out.append(Load(f"r{k}", loc, draw(st.sampled_from(["weak", "relaxed", "acquire"])), scope))
        elif kind == "st":
            out.append(Store(loc, Const(draw(st.sampled_from(VALUES[loc]))),
                             draw(st.sampled_from(["weak", "relaxed", "release"])), scope))
        elif kind == "rmw":  # adds only on 32-bit names: sums of 64-bit values make large value domains
            op = draw(st.sampled_from(["exch", "add"] if loc != "x" else ["exch"]))
            out.append(Rmw(op, f"r{k}", loc, Const(draw(st.sampled_from(VALUES[loc]))),
                           sem=draw(st.sampled_from(["relaxed", "acquire", "release", "acq_rel"])), scope=scope))
        elif kind == "fence":
            out.append(Fence(draw(st.sampled_from(["acq_rel", "sc"])), scope))
        else:
            sem = draw(st.sampled_from(["weak", "relaxed", "acquire" if kind == "vld" else "release"]))
            g = group0 + k
            if kind == "vld":
                out += [Load(f"r{k}{e}", ELEMENTS[e].name, sem, scope, group=g) for e in range(2)]
            else:
                out += [Store(ELEMENTS[e].name, Const(draw(st.sampled_from((1, 2)))), sem, scope, group=g)
                        for e in range(2)]
    return tuple(out)


@st.composite
def width_tests(draw, most: int = 2) -> LitmusTest:
    """2-3 threads of 1 to ``most`` ops each (:func:`width_instrs`); three threads of three ops on
    two granules can have 40,000 final states, and take minutes without the pruning."""
    n = draw(st.integers(2, 3))
    threads = tuple(Thread(f"P{i}", draw(st.integers(0, 1)), draw(st.integers(0, 1)),
                           draw(width_instrs(i, 10 * i, most))) for i in range(n))
    return LitmusTest("widths-law", "", WORD + ELEMENTS, threads, Condition("exists", TrueProp(), "true"))


@pytest.mark.parametrize("model", ["ptx", "ptx75"])
@LAWS
@given(t=width_tests())
def test_sc_states_are_ptx_states_with_widths(model: str, t: LitmusTest) -> None:
    assert set(check(t, "sc").allowed_states) <= set(check(t, model).allowed_states)


@ALL_MODELS
@FEWER
@given(t=width_tests())
def test_pruning_keeps_every_state_with_widths(model: str, t: LitmusTest) -> None:
    pruned = check(t, model)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(checker.MODELS, model, dataclasses.replace(MODELS[model], name=model, coherent=None))
        plain = check(t, model)
    assert set(pruned.allowed_states) == set(plain.allowed_states)
    assert pruned.possible_hang == plain.possible_hang


@ALL_MODELS
@FEWER
@given(t=width_tests(), data=st.data())
def test_a_vector_allows_what_its_elements_allow_in_either_order(model: str, t: LitmusTest, data) -> None:
    spots = [(ti, ii) for ti, th in enumerate(t.threads) for ii, i in enumerate(th.instrs)
             if getattr(i, "group", None) is not None and (ii == 0 or getattr(th.instrs[ii - 1], "group", None) != i.group)]
    if not spots:
        return
    ti, ii = data.draw(st.sampled_from(spots))
    th = t.threads[ti]
    pair = tuple(dataclasses.replace(i, group=None) for i in th.instrs[ii:ii + 2])

    def with_(elements: tuple) -> LitmusTest:
        instrs = th.instrs[:ii] + elements + th.instrs[ii + 2:]
        return dataclasses.replace(t, threads=t.threads[:ti] + (dataclasses.replace(th, instrs=instrs),)
                                   + t.threads[ti + 1:])

    vector = set(check(t, model).allowed_states)
    ordered = set(check(with_(pair), model).allowed_states) | set(check(with_(pair[::-1]), model).allowed_states)
    assert ordered <= vector
    if model == "sc":
        assert ordered == vector


@FEWER
@given(t=width_tests(), data=st.data())
def test_a_spin_on_the_word_hangs_under_ptx_when_it_hangs_under_sc(t: LitmusTest, data) -> None:
    th = t.threads[0]
    until = data.draw(st.sampled_from((0x100000001, 0x300000000, 2, 0)))
    spin = Spin("x", until, SpinRead("load", data.draw(st.sampled_from(["relaxed", "acquire"])), "sys"))
    t = dataclasses.replace(t, threads=(dataclasses.replace(th, instrs=th.instrs + (spin,)),) + t.threads[1:])
    if check(t, "sc").possible_hang:
        assert check(t, "ptx").possible_hang


CATALOG = [t for t in load_paths([default_catalog_dir()]) if not t.uses_widths()]


@pytest.mark.parametrize("test", CATALOG, ids=[t.id for t in CATALOG])
def test_every_catalog_variant_without_widths_through_granules(test: LitmusTest) -> None:
    """The catalog (no widths) forced onto the granule path: the same states and hang verdict."""
    plain, granules = check(test, "ptx"), through_granules(test, "ptx")
    assert set(granules.allowed_states) == set(plain.allowed_states)
    assert granules.possible_hang == plain.possible_hang
