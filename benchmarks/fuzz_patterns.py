"""Random well-formed litmus patterns in the catalog format, with the PTX model's expectation.

The one home of the random-pattern generator: this script writes sets of files for the GPU
(issue "Every pattern a user writes runs"), and ``tests/test_pipeline_fuzz.py`` draws from the
same :func:`pattern` under hypothesis.  With the default :class:`Options` a pattern has 2-4
threads, 1-3 locations (32- or 64-bit, homed on rank 0 or 1), every op kind (plain, volatile and
atomic loads and stores, cas/exch/add with and without a result register, fences), spins with
``==``/``!=``/``>=`` over load, volatile and cas reads, CTAs 0-2.  :data:`WIDE` (``--wide``)
adds 1-6 threads, 1-4 locations of 8, 16, 32 or 64 bits with half-width views, ``vec: 2``
accesses, register values, every spin comparison and masks, counters (threads ``add`` to one
location while another spins with ``>=`` for the total), ``retry`` loops (forward branches) and
CTA barriers shared by every thread of a CTA; each feature also has its own option.

Each file holds one pattern with ``expect`` and ``may_hang`` taken from the model, so ``litmus
run`` classifies it; a pattern the model cannot decide within :data:`MODEL_STEPS` steps of
enumeration (``litmus.model.budget``; a count, so a seed always drops the same patterns) is
dropped and counted::

    python benchmarks/fuzz_patterns.py --count 1000 --seed 1 --out fuzz/
    python benchmarks/fuzz_patterns.py --count 1000 --seed 1 --wide --out fuzz-wide/
    litmus run fuzz/ --backend cuda --iterations 1 --instances 65536 --out fuzz.jsonl

Every option is off by default and draws no random number while off.  The set in
``fuzz_gpu/random/`` was made with ``--count 500 --seed 7`` when patterns were dropped after 5 s
of wall-clock time: this script now writes the same patterns, less or more of the ones near
that limit.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

SCOPES = ("cta", "gpu", "sys")
MODEL_STEPS = 200_000
"""A pattern the model has not decided in this many steps of enumeration is dropped (and
counted): about 2-5 s on one core, and the same patterns on every machine."""

KINDS = ("load", "store", "volatile_load", "volatile_store", "atomic_load", "atomic_store",
         "cas", "exch", "add", "fence", "spin")
"""Every op kind a random op may be, in the order the draw indexes them."""

CMPS = ("==", "!=", "<", "<=", ">", ">=")
"""Every comparison a spin takes (docs/format.md)."""

RMWS = ("cas", "exch", "add")
WIDTHS = (8, 16, 32, 64)
MASKS = (0x1, 0x3, 0xFF)
EXPR_OPS = ("+", "-", "&", "|", "^")


@dataclass(frozen=True)
class Options:
    """What a random pattern may hold.  The defaults are the historical generator's: a feature
    whose chance is 0 (or whose tuple is empty) draws no random number, so the default options
    reproduce every seed's old patterns byte for byte."""

    threads: tuple[int, int] = (2, 4)  # fewest and most threads
    locations: tuple[int, int] = (1, 3)  # fewest and most locations (views not counted)
    ops: tuple[int, int] = (1, 4)  # fewest and most random ops per thread (counters, retries add more)
    widths: tuple[int, ...] = ()  # each location's bits drawn from these; (): 32, or 64 with chance 0.15
    views: float = 0.0  # chance that a location of 16 bits or more is also named by its two halves
    vectors: float = 0.0  # chance that a load or store of 16 bits or more is a vec: 2 access
    refusable: float = 0.0  # chance that an op on an 8/16-bit name may be an RMW Triton lacks there
    spin_cmps: tuple[str, ...] = ("==", "!=", ">=")  # the comparisons of load spins
    masks: float = 0.0  # chance that a load spin compares under a bit mask
    values: float = 0.0  # chance that a store's value is a register or a register expression
    counters: float = 0.0  # chance (with 2 or more locations) of a counter on a location of its own
    retries: float = 0.0  # chance, per thread, of a retry loop (forward branches)
    barriers: float = 0.0  # chance, per CTA, that each of its threads has one bar.sync
    memory_terms: float = 0.0  # chance that the condition also names a location's final value


DEFAULTS = Options()
"""The historical generator (``fuzz_gpu/random/`` was written with it)."""

WIDE = Options(threads=(1, 6), locations=(1, 4), widths=WIDTHS, views=0.2, vectors=0.15, refusable=0.05,
               spin_cmps=CMPS, masks=0.15, values=0.15, counters=0.3, retries=0.15, barriers=0.3,
               memory_terms=0.2)
"""Every feature on: 1-6 threads, 1-4 locations of every width, and the rest (``--wide``)."""


@dataclass
class _Draw:
    """The state of one pattern's draw: its names, widths and registers so far."""

    rng: random.Random
    opts: Options
    bits: dict[str, int]  # every name ops may access (locations and views) -> its width
    n_regs: int = 0

    def reg(self) -> str:
        """A fresh register name, taken (names are unique over the whole pattern)."""
        r = f"r{self.n_regs}"
        self.n_regs += 1
        return r


def _kinds(d: _Draw, loc: str) -> tuple[str, ...]:
    """The op kinds a random op on ``loc`` draws from: every kind, less those Triton cannot
    express on a narrow name (an RMW on 8 bits, any RMW but cas on 16), unless the op may be
    refused (:attr:`Options.refusable`)."""
    bits = d.bits.get(loc, 32)
    if bits >= 32 or (d.opts.refusable and d.rng.random() < d.opts.refusable):
        return KINDS
    banned = RMWS if bits == 8 else ("exch", "add")
    return tuple(k for k in KINDS if k not in banned)


def _value(d: _Draw, v: int, mine: list[str]) -> int | str:
    """A store's value: ``v``, or (:attr:`Options.values`) one of the thread's registers
    ``mine``, alone or in an expression."""
    if not (mine and d.opts.values and d.rng.random() < d.opts.values):
        return v
    r = d.rng.choice(mine)
    if d.rng.random() < 0.5:
        return r
    return f"{r} {d.rng.choice(EXPR_OPS)} {d.rng.randint(1, 3)}"


def _op(d: _Draw, loc: str, reg: str, mine: list[str], kinds: tuple[str, ...]) -> tuple[dict[str, Any], list[str]]:
    """One random op of ``kinds`` on ``loc`` and the registers it wrote: ``reg`` is the next
    register (``r<d.n_regs>``, a vector load also writes the one after), taken only by an op that
    reads; ``mine`` are the registers the thread wrote before it."""
    rng, opts = d.rng, d.opts
    v = rng.randint(1, 3)
    sc = rng.choice(SCOPES)
    kind = rng.choice(kinds)
    wide = d.bits.get(loc, 32) >= 16
    if kind in ("load", "volatile_load", "atomic_load"):
        body: dict[str, Any] = {"reg": reg, "loc": loc}
        regs = [reg]
        if wide and opts.vectors and rng.random() < opts.vectors:
            regs = [reg, f"r{d.n_regs + 1}"]  # reg is r<n_regs>: the caller counts what the op wrote
            body = {"reg": regs, "loc": loc, "vec": 2}
        if kind == "atomic_load":
            body.update(sem=rng.choice(["relaxed", "acquire"]), scope=sc)
        return {kind: body}, regs
    if kind in ("store", "volatile_store", "atomic_store"):
        value: Any = _value(d, v, mine)
        body = {"loc": loc, "value": value}
        if wide and opts.vectors and rng.random() < opts.vectors:
            body = {"loc": loc, "value": [value, rng.randint(0, 3)], "vec": 2}
        if kind == "atomic_store":
            body.update(sem=rng.choice(["relaxed", "release"]), scope=sc)
        return {kind: body}, []
    if kind in RMWS:
        body = {"loc": loc, "value": v, "sem": rng.choice(["relaxed", "acquire", "release", "acq_rel"]),
                "scope": sc}
        if kind == "cas":
            body["expected"] = rng.randint(0, 2)
        reads = rng.random() < 0.5
        if reads:
            body["reg"] = reg
        return {kind: body}, [reg] if reads else []
    if kind == "fence":
        return {"fence": {"sem": rng.choice(["acq_rel", "sc"]), "scope": sc}}, []
    how = rng.choice(["volatile", "atomic", "cas"] if "cas" in kinds else ["volatile", "atomic"])
    if how == "volatile":
        read: dict[str, Any] = {"kind": "load", "volatile": True}
    elif how == "atomic":
        read = {"kind": "load", "sem": rng.choice(["relaxed", "acquire"]), "scope": sc}
    else:
        read = {"kind": "cas", "reset": rng.randint(0, 3), "sem": rng.choice(["relaxed", "acquire"]), "scope": sc}
    spin: dict[str, Any] = {"loc": loc, "until": v, "read": read, "bound": 1000}
    if how != "cas":
        spin["cmp"] = rng.choice(opts.spin_cmps)
        if opts.masks and rng.random() < opts.masks:
            spin["mask"] = rng.choice(MASKS)
    return {"spin": spin}, []


def _thread_ops(d: _Draw, t: int, names: list[str], reads: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Thread ``t``'s random ops over ``names`` (appending each register it writes to ``reads``)."""
    rng, opts = d.rng, d.opts
    ops: list[dict[str, Any]] = []
    wrote: list[list[str]] = []  # the registers each op wrote
    for _ in range(rng.randint(*opts.ops)):
        # The register is r<registers so far>, taken only by an op that reads: the historical
        # names, which the default options must keep.
        loc = rng.choice(names)
        op, regs = _op(d, loc, f"r{d.n_regs}", [r for rs in wrote for r in rs], _kinds(d, loc))
        d.n_regs += len(regs)
        ops.append(op)
        wrote.append(regs)
        reads += [(f"P{t}", r) for r in regs]
    if opts.retries and rng.random() < opts.retries:
        at = rng.randint(0, len(ops))
        ops.insert(at, _retry(d, t, names, [r for rs in wrote[:at] for r in rs], reads))
    return ops


def _retry(d: _Draw, t: int, names: list[str], mine: list[str], reads: list[tuple[str, str]]) -> dict[str, Any]:
    """A ``retry`` loop of 1-3 ops (no spin: the format refuses one inside), run up to 2-3
    times until a register it wrote compares with a drawn value; ``mine`` are the registers
    the thread wrote before it."""
    rng = d.rng
    body: list[dict[str, Any]] = []
    wrote: list[str] = []
    for _ in range(rng.randint(1, 3)):
        loc = rng.choice(names)
        op, regs = _op(d, loc, f"r{d.n_regs}", mine + wrote, tuple(k for k in _kinds(d, loc) if k != "spin"))
        d.n_regs += len(regs)
        body.append(op)
        wrote += regs
    if not wrote:
        r = d.reg()
        body.insert(0, {"load": {"reg": r, "loc": rng.choice(names)}})
        wrote.append(r)
    reads += [(f"P{t}", r) for r in wrote]
    until = f"{rng.choice(wrote)} {rng.choice(CMPS)} {rng.randint(0, 3)}"
    return {"retry": {"times": rng.randint(2, 3), "until": until, "do": body}}


def _counter(d: _Draw, loc: str, threads: dict[str, Any], reads: list[tuple[str, str]], others: list[str]) -> None:
    """A counter on ``loc``: 1-3 threads each ``add`` 1 to it somewhere in their ops, and one
    thread, at its end (after its own add), spins with ``>=`` until the total is in and then
    reads one of ``others`` (the counter as a barrier)."""
    rng = d.rng
    names = list(threads)
    adders = rng.sample(names, rng.randint(1, min(3, len(names))))
    for name in adders:
        ops = threads[name]["do"]
        add: dict[str, Any] = {"loc": loc, "value": 1, "sem": rng.choice(["relaxed", "release", "acq_rel"]),
                               "scope": rng.choice(SCOPES)}
        if rng.random() < 0.3:
            add["reg"] = r = d.reg()
            reads.append((name, r))
        ops.insert(rng.randint(0, len(ops)), {"add": add})
    waiter = rng.choice(names)
    read = {"kind": "load", "sem": rng.choice(["relaxed", "acquire"]), "scope": rng.choice(SCOPES)}
    threads[waiter]["do"].append({"spin": {"loc": loc, "until": len(adders), "cmp": ">=", "read": read,
                                           "bound": 1000}})
    r = d.reg()
    threads[waiter]["do"].append({"load": {"reg": r, "loc": rng.choice(others)}})
    reads.append((waiter, r))


def _barriers(d: _Draw, threads: dict[str, Any]) -> None:
    """For each CTA (a (rank, cta) pair) with chance :attr:`Options.barriers`, one ``bar.sync``
    in every thread of it, each at a drawn place; never in a CTA with a retry loop (a barrier
    under branches has no Triton form)."""
    ctas: dict[tuple[int, int], list[str]] = {}
    for name, t in threads.items():
        ctas.setdefault((t["at"]["rank"], t["at"]["cta"]), []).append(name)
    for members in ctas.values():
        if any("retry" in op for m in members for op in threads[m]["do"]):
            continue
        if d.rng.random() < d.opts.barriers:
            for m in members:
                ops = threads[m]["do"]
                ops.insert(d.rng.randint(0, len(ops)), {"bar.sync": {}})


def _location(d: _Draw, name: str) -> dict[str, Any]:
    """The entry of location ``name`` with its drawn width: ``bits`` is written out for 32 only
    half the time (the other half keeps the historical signed 32-bit convention)."""
    bits = d.bits[name]
    entry: dict[str, Any] = {"init": 0, "home": d.rng.randint(0, 1)}
    if bits != 32 or d.rng.random() < 0.5:
        entry["bits"] = bits
    return entry


def pattern(rng: random.Random, k: int, opts: Options = DEFAULTS) -> dict[str, Any]:
    """One random pattern named ``FUZZ-<k>`` (no expectation yet) with the features ``opts``
    allows."""
    n_threads, n_locs = rng.randint(*opts.threads), rng.randint(*opts.locations)
    locs = [f"l{i}" for i in range(n_locs)]
    d = _Draw(rng, opts, {})
    views: dict[str, dict[str, Any]] = {}
    counter = None
    if opts.widths:
        d.bits = {l: rng.choice(opts.widths) for l in locs}
    if opts.counters and n_locs >= 2 and rng.random() < opts.counters:
        counter = locs[-1]  # a location of its own: only the counter's ops touch it
        if d.bits:
            d.bits[counter] = rng.choice([b for b in opts.widths if b >= 32] or [32])  # add needs 32 or 64 bits
    if opts.views and d.bits:
        for l in locs:
            if l != counter and d.bits[l] >= 16 and rng.random() < opts.views:
                half = d.bits[l] // 2
                for i, part in enumerate(("lo", "hi")):
                    views[f"{l}_{part}"] = {"view": l, "offset": i * half // 8, "bits": half}
                    d.bits[f"{l}_{part}"] = half
    names = [n for n in [*locs, *views] if n != counter]
    threads: dict[str, Any] = {}
    reads: list[tuple[str, str]] = []
    for t in range(n_threads):
        ops = _thread_ops(d, t, names, reads)
        threads[f"P{t}"] = {"at": {"rank": rng.randint(0, 1), "cta": rng.randint(0, 2)}, "do": ops}
    if counter is not None:
        _counter(d, counter, threads, reads, names)
    if opts.barriers:
        _barriers(d, threads)
    terms = [f"{t}:{r} == {rng.randint(0, 3)}" for t, r in reads[:3]] or [f"{locs[0]} == {rng.randint(0, 3)}"]
    if opts.memory_terms and rng.random() < opts.memory_terms:
        terms.append(f"{rng.choice(locs)} == {rng.randint(0, 3)}")
    if d.bits:
        locations: dict[str, Any] = {l: _location(d, l) for l in locs}
        locations.update(views)
    else:
        locations = {l: {"init": 0, "home": rng.randint(0, 1), **({"bits": 64} if rng.random() < 0.15 else {})}
                     for l in locs}
    return {
        "name": f"FUZZ-{k}",
        "source": "benchmarks/fuzz_patterns.py",
        "locations": locations,
        "threads": threads,
        "exists": " /\\ ".join(terms),
    }


def with_expectation(doc: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """``doc`` with ``expect``/``may_hang``/``why`` from the PTX model, or None when it does not
    load or the model cannot decide it."""
    from litmus.errors import LitmusError
    from litmus.model import check
    from litmus.spec import load_text

    from litmus.model.budget import ENV

    probe = {**doc, "expect": "allowed", "why": "probe", "may_hang": True}
    before = os.environ.get(ENV)
    os.environ[ENV] = str(MODEL_STEPS)
    try:
        [test] = load_text(yaml.safe_dump(probe, sort_keys=False), str(path))
        result = check(test, "ptx75")
    except LitmusError:
        return None
    finally:
        if before is None:
            del os.environ[ENV]
        else:
            os.environ[ENV] = before
    return {**doc, "expect": "allowed" if result.target_reachable else "forbidden",
            "may_hang": bool(result.possible_hang), "why": "the PTX 7.5 model's verdict on a random pattern"}


def _range(text: str) -> tuple[int, int]:
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def options(args: argparse.Namespace) -> Options:
    """The :class:`Options` the command line asks for: ``--wide`` or the defaults, then each
    option given."""
    opts = WIDE if args.wide else DEFAULTS
    given = {k: v for k, v in vars(args).items() if k in Options.__dataclass_fields__ and v is not None}
    return replace(opts, **given)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--wide", action="store_true", help="every feature on (WIDE): 1-6 threads, 1-4 locations, ...")
    ap.add_argument("--threads", type=_range, metavar="MIN-MAX", help="threads per pattern (default 2-4)")
    ap.add_argument("--locations", type=_range, metavar="MIN-MAX", help="locations per pattern (default 1-3)")
    ap.add_argument("--ops", type=_range, metavar="MIN-MAX", help="random ops per thread (default 1-4)")
    ap.add_argument("--widths", type=lambda s: tuple(int(b) for b in s.split(",")), metavar="BITS,...",
                    help="location widths to draw from, of 8,16,32,64 (default: 32, or 64 with chance 0.15)")
    ap.add_argument("--spin-cmps", dest="spin_cmps", type=lambda s: tuple(s.split(",")), metavar="CMP,...",
                    help="comparisons of load spins (default ==,!=,>=)")
    for name in ("views", "vectors", "refusable", "masks", "values", "counters", "retries", "barriers",
                 "memory_terms"):
        ap.add_argument(f"--{name.replace('_', '-')}", dest=name, type=float, metavar="P",
                        help=f"chance of {name.replace('_', ' ')} (Options.{name}; default 0)")
    args = ap.parse_args(argv)
    opts = options(args)
    rng = random.Random(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    written = dropped = k = 0
    while written < args.count:
        path = args.out / f"fuzz{k:05d}.yaml"
        doc = with_expectation(pattern(rng, k, opts), path)
        k += 1
        if doc is None:
            dropped += 1
            continue
        path.write_text(yaml.safe_dump(doc, sort_keys=False))
        written += 1
    print(f"{written} patterns in {args.out} ({dropped} dropped: the model or the loader refused them)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
