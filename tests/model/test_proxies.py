"""The ptx75 model's proxies, written by hand from the PTX ISA text ("Memory Consistency Model":
proxies, proxy fences, virtual aliases) and, for the async proxy (litmus's extension), from the
ISA's cp.async.bulk / fence.proxy.async text.

ISA statements each test encodes:
- "Memory operations through different proxies to the same location are not ordered unless a
  proxy fence of the right kind is used" (texture, surface, constant; async for bulk copies).
- "fence.proxy.alias" orders accesses to one physical location through different virtual
  addresses (generic aliases).
- Morally strong requires the same proxy, so a generic release/acquire pair orders generic
  accesses only: a payload written by another proxy needs that proxy's fence before the flag.
"""

from __future__ import annotations

import pytest

from litmus.condition import parse_prop
from litmus.errors import LitmusError
from litmus.ir import Condition, Const, LitmusTest, Load, Location, ProxyFence, Store, Thread
from litmus.model import check


def make(threads, locations, cond: str, kind: str = "exists") -> LitmusTest:
    return LitmusTest("proxy", "", tuple(locations), tuple(threads), Condition(kind, parse_prop(cond), cond))


X = Location("x")


def reachable(t: LitmusTest) -> bool:
    return check(t, "ptx75").target_reachable


@pytest.mark.parametrize("proxy", ["surface", "async"])
def test_single_thread_write_by_a_proxy_then_generic_read_needs_the_proxy_fence(proxy: str) -> None:
    def t(fence: bool) -> LitmusTest:
        body = (Store("x", Const(1), proxy=proxy),) + ((ProxyFence(proxy),) if fence else ()) + (Load("r0", "x"),)
        return make([Thread("P0", 0, 0, body)], [X], "P0:r0 == 0")
    assert reachable(t(False))  # no proxy fence: the generic read may miss the other proxy's write
    assert not reachable(t(True))


@pytest.mark.parametrize("proxy", ["texture", "async"])
def test_generic_write_then_proxy_read_needs_the_proxy_fence(proxy: str) -> None:
    def t(fence: bool) -> LitmusTest:
        body = (Store("x", Const(1)),) + ((ProxyFence(proxy),) if fence else ()) + (Load("r0", "x", proxy=proxy),)
        return make([Thread("P0", 0, 0, body)], [X], "P0:r0 == 0")
    assert reachable(t(False)) and not reachable(t(True))


def test_the_wrong_proxy_fence_does_not_help() -> None:
    body = (Store("x", Const(1), proxy="async"), ProxyFence("texture"), Load("r0", "x"))
    assert reachable(make([Thread("P0", 0, 0, body)], [X], "P0:r0 == 0"))


def tma_mp(fence: bool, scope: str = "gpu", consumer_gpu: int = 0) -> LitmusTest:
    """A bulk copy (async proxy) writes the payload, a generic release flag publishes it."""
    p0 = (Store("x", Const(1), proxy="async"),) + ((ProxyFence("async"),) if fence else ()) + (
        Store("flag", Const(1), "release", scope),)
    p1 = (Load("r0", "flag", "acquire", scope), Load("r1", "x"))
    return make([Thread("P0", 0, 0, p0), Thread("P1", consumer_gpu, 1, p1)], [X, Location("flag")],
                "P1:r0 == 1 /\\ P1:r1 == 0")


def test_tma_payload_published_by_a_generic_flag_needs_fence_proxy_async() -> None:
    assert reachable(tma_mp(fence=False))
    assert not reachable(tma_mp(fence=True))
    # across GPUs the flag must be .sys to synchronise at all
    assert reachable(tma_mp(fence=True, scope="gpu", consumer_gpu=1))
    assert not reachable(tma_mp(fence=True, scope="sys", consumer_gpu=1))


def test_the_proxy_fence_orders_only_within_its_cta() -> None:
    """P0 writes through the async proxy; P1 (another CTA) fences and reads generically after
    synchronising: the fence is not in the writer's CTA, so the read may be stale."""
    p0 = (Store("x", Const(1), proxy="async"), Store("flag", Const(1), "release", "gpu"))
    p1 = (Load("r0", "flag", "acquire", "gpu"), ProxyFence("async"), Load("r1", "x"))
    t = make([Thread("P0", 0, 0, p0), Thread("P1", 0, 1, p1)], [X, Location("flag")], "P1:r0 == 1 /\\ P1:r1 == 0")
    assert reachable(t)


def test_generic_alias_needs_fence_proxy_alias() -> None:
    y = Location("y", alias_of="x", alias_proxy="generic")
    def t(fence: bool) -> LitmusTest:
        body = (Store("x", Const(42)),) + ((ProxyFence("alias"),) if fence else ()) + (Load("r0", "y"),)
        return make([Thread("P0", 0, 0, body)], [Location("x"), y], "P0:r0 == 42", kind="forall")
    assert reachable(t(False))       # a counter-example exists: the read through y may be stale
    assert not reachable(t(True))
    assert check(t(True), "ptx75").allowed_states == ((("P0:r0", 42), ("x", 42), ("y", 42)),)


def test_sc_ignores_proxies_and_the_v6_model_refuses_them() -> None:
    t = tma_mp(fence=False)
    assert not check(t, "sc").target_reachable
    with pytest.raises(LitmusError, match="ptx75"):
        check(t, "ptx")


def test_generic_only_tests_agree_between_ptx_and_ptx75() -> None:
    p0 = (Store("x", Const(1)), Store("flag", Const(1), "release", "gpu"))
    p1 = (Load("r0", "flag", "acquire", "gpu"), Load("r1", "x"))
    t = make([Thread("P0", 0, 0, p0), Thread("P1", 0, 1, p1)], [X, Location("flag")], "P1:r0 == 1 /\\ P1:r1 == 0")
    assert check(t, "ptx").allowed_states == check(t, "ptx75").allowed_states


def test_the_stages_judge_a_proxy_test_with_ptx75_and_the_rest_with_ptx() -> None:
    from litmus.model import ptx_model_for
    from litmus.tune import tunable

    proxied = tma_mp(fence=True)
    plain = make([Thread("P0", 0, 0, (Store("x", Const(1)),)), Thread("P1", 0, 1, (Load("r0", "x"),))],
                 [Location("x", 0)], "P1:r0 == 1")
    assert proxied.uses_proxies() and ptx_model_for(proxied) == "ptx75"
    assert not plain.uses_proxies() and ptx_model_for(plain) == "ptx"
    with pytest.raises(LitmusError):
        check(proxied, "ptx")
    unfenced = tma_mp(fence=False)  # a mutant: tune keeps it, judged by ptx75 (ptx would refuse it)
    assert tunable([unfenced, proxied]) == [unfenced]
