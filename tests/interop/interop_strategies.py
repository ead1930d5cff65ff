"""Hypothesis strategies for small, well-formed IR litmus tests (spins, proxies and barrier
quorums included)."""

from __future__ import annotations

from hypothesis import strategies as st

from litmus.ir import (
    FENCE_SEMS,
    RMW_OPS,
    RMW_SEMS,
    SCOPES,
    And,
    Barrier,
    Branch,
    Cmp,
    COMPUTE_OPS,
    Compute,
    Condition,
    Const,
    Fence,
    Label,
    PROXY_FENCE_KINDS,
    SPIN_CMPS,
    LitmusTest,
    Load,
    Location,
    LocRef,
    Not,
    Or,
    ProxyFence,
    Reg,
    RegRef,
    Rmw,
    Spin,
    SpinRead,
    Store,
    Thread,
    TrueProp,
)

LOCS = ("x", "y", "flag")
REGS = ("r0", "r1", "r2", "r3")
LABELS = ("LC00", "LC01")

ints = st.integers(-3, 5)
regs = st.sampled_from(REGS)
locs = st.sampled_from(LOCS)
operands = st.one_of(ints.map(Const), regs.map(Reg))
scopes = st.sampled_from(SCOPES)


def _load() -> st.SearchStrategy:
    weak = st.builds(Load, regs, locs, st.just("weak"), st.just("sys"))
    strong = st.builds(Load, regs, locs, st.sampled_from(("relaxed", "acquire")), scopes)
    volatile = st.builds(Load, regs, locs, st.just("relaxed"), st.just("sys"), st.just(True))
    return st.one_of(weak, strong, volatile)


def _store() -> st.SearchStrategy:
    weak = st.builds(Store, locs, operands, st.just("weak"), st.just("sys"))
    strong = st.builds(Store, locs, operands, st.sampled_from(("relaxed", "release")), scopes)
    volatile = st.builds(Store, locs, operands, st.just("relaxed"), st.just("sys"), st.just(True))
    return st.one_of(weak, strong, volatile)


@st.composite
def _rmw(draw: st.DrawFn) -> Rmw:
    op = draw(st.sampled_from(RMW_OPS))
    return Rmw(
        op=op,
        reg=draw(st.none() | regs),
        loc=draw(locs),
        value=draw(operands),
        expected=draw(operands) if op == "cas" else None,
        sem=draw(st.sampled_from(RMW_SEMS)),
        scope=draw(scopes),
    )


def _spin() -> st.SearchStrategy:
    weak = st.builds(SpinRead, st.just("load"), st.just("weak"), st.just("sys"))
    strong = st.builds(SpinRead, st.just("load"), st.sampled_from(("relaxed", "acquire")), scopes)
    volatile = st.builds(SpinRead, st.just("load"), st.just("relaxed"), st.just("sys"), st.just(True))
    cas = st.builds(SpinRead, st.just("cas"), st.sampled_from(RMW_SEMS), scopes, st.just(False), ints)
    load_spin = st.builds(Spin, locs, ints, st.one_of(weak, strong, volatile), st.integers(1, 10**6),
                          st.none() | regs, cmp=st.sampled_from(SPIN_CMPS), mask=st.none() | st.integers(0, 255))
    cas_spin = st.builds(Spin, locs, ints, cas, st.integers(1, 10**6), st.none() | regs)
    return st.one_of(load_spin, cas_spin)


def _proxied() -> st.SearchStrategy:
    """Accesses LitmusPTX.g4 can spell through a non-generic proxy, and proxy fences."""
    tex = st.builds(Load, regs, locs, st.just("weak"), st.just("sys"),
                    proxy=st.sampled_from(("texture", "surface", "constant")))
    sust = st.builds(Store, locs, operands, st.just("weak"), st.just("sys"), proxy=st.just("surface"))
    fence = st.builds(ProxyFence, st.sampled_from([k for k in PROXY_FENCE_KINDS if k != "async"]))
    quorum = st.builds(Barrier, st.integers(0, 3).map(Const), operands, st.booleans(), quorum=operands)
    return st.one_of(tex, sust, fence, quorum)


def _compute() -> st.SearchStrategy:
    mov = st.builds(Compute, regs, st.just("mov"), operands)
    binop = st.builds(Compute, regs, st.sampled_from(COMPUTE_OPS),
                      operands, operands)
    return st.one_of(mov, binop)


def _branch() -> st.SearchStrategy:
    goto = st.builds(Branch, st.sampled_from(LABELS))
    cond = st.builds(Branch, st.sampled_from(LABELS),
                     st.sampled_from(("eq", "ne", "lt", "le", "gt", "ge")), operands, operands)
    return st.one_of(goto, cond)


instrs = st.one_of(
    _load(),
    _store(),
    _rmw(),
    st.builds(Fence, st.sampled_from(FENCE_SEMS), scopes),
    st.builds(Barrier, operands, st.none() | operands, st.booleans()),
    _compute(),
    _branch(),
    _spin(),
    _proxied(),
)


@st.composite
def thread_bodies(draw: st.DrawFn) -> tuple:
    """Instructions; every branch target gets exactly one label, at a drawn position."""
    body = draw(st.lists(instrs, max_size=5))
    targets = sorted({i.target for i in body if isinstance(i, Branch)})
    for name in targets:
        body.insert(draw(st.integers(0, len(body))), Label(name))
    return tuple(body)


def _terms(threads: list[str]) -> st.SearchStrategy:
    return st.one_of(
        st.builds(RegRef, st.sampled_from(threads), regs),
        locs.map(LocRef),
        ints.map(Const),
    )


def props(threads: list[str]) -> st.SearchStrategy:
    """Conditions over the given threads' registers and the locations."""
    cmp = st.builds(Cmp, _terms(threads), st.sampled_from(("==", "!=", "<", "<=", ">", ">=")),
                    _terms(threads))
    return st.recursive(
        cmp | st.just(TrueProp()),
        lambda inner: st.one_of(
            st.lists(inner, min_size=2, max_size=3).map(lambda ps: And(tuple(ps))),
            st.lists(inner, min_size=2, max_size=3).map(lambda ps: Or(tuple(ps))),
            inner.map(Not),
        ),
        max_leaves=5,
    )


text = st.text(
    alphabet=st.sampled_from("abcXYZ 019.,;|{}()-+_\n\t"), max_size=40
)


@st.composite
def litmus_tests(draw: st.DrawFn) -> LitmusTest:
    """A small IR test: 2-3 threads on ranks 0-1, locations x/y/flag homed on ranks 0-2."""
    n = draw(st.integers(2, 3))
    names = [f"P{i}" for i in range(n)]
    threads = tuple(
        Thread(
            name,
            rank=draw(st.integers(0, 1)),
            cta=draw(st.integers(0, 1)),
            instrs=draw(thread_bodies()),
            reg_init=tuple(draw(st.dictionaries(regs, ints, max_size=2)).items()),
        )
        for name in names
    )
    locations = tuple(
        Location(loc, init=draw(ints), home=draw(st.integers(0, 2))) for loc in LOCS
    )
    kind = draw(st.sampled_from(("exists", "not_exists", "forall")))
    prop = draw(props(names))
    threads = _init_condition_registers(threads, prop)
    return LitmusTest(
        name=draw(st.from_regex(r"[A-Za-z][A-Za-z0-9+_.-]{0,10}", fullmatch=True)),
        variant=draw(st.just("") | st.from_regex(r"[a-z0-9][a-z0-9_-]{0,8}", fullmatch=True)),
        locations=locations,
        threads=threads,
        condition=Condition(kind, prop),
        description=draw(text),
    )


def _init_condition_registers(threads: tuple[Thread, ...], prop: object) -> tuple[Thread, ...]:
    """Give each register the condition reads, and its thread never writes, an initial 0 (a
    condition may only name registers that exist)."""
    from dataclasses import replace

    from litmus.condition import terms

    out = []
    for t in threads:
        have = {r for r, _ in t.reg_init} | {getattr(i, a, None) for i in t.instrs for a in ("reg", "dst")}
        need = [x.reg for x in terms(prop) if isinstance(x, RegRef) and x.thread == t.name and x.reg not in have]
        extra = tuple((r, 0) for r in dict.fromkeys(need))
        out.append(replace(t, reg_init=t.reg_init + extra) if extra else t)
    return tuple(out)
