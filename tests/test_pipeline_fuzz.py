"""Property (issue "Every pattern a user writes runs", item 4): every generated pattern goes
through the whole pipeline.

Each pattern, random (``benchmarks/fuzz_patterns.py`` with every feature on, :data:`WIDE`) or
made by ``litmus.diy`` from a relaxation cycle, is loaded by the spec layer, decided by the
model, compiled for ``cuda:90`` and ``hip:gfx942`` and audited (on the CPU, with the kernels the
cuda backend launches), or, for the cpu-run property, generated for both and run on the cpu
backend.  The only exception allowed anywhere is a :class:`LitmusError` located at the
pattern's file and a line (a model past its work budget, an op Triton cannot express); ``ptx``
and ``ptx75`` agree on the verdict and the hang, every value the model allows in sized memory
fits its width, the declared ``may_hang`` passes ``litmus validate``; the audit reports no
finding and no difference; the run raises nothing and shows no outcome the PTX model forbids.

Recipes (integer seeds) are drawn, so a failure shrinks to one that reproduces it, and the
failing pattern's YAML is in the report.  ``tests/data/fuzz_regressions/`` holds the reduced
patterns of reported bugs (:data:`KNOWN_BUGS`), each run strictly and expected to fail until
its bug is fixed; the properties step over an example whose only failures are those bugs.
"""

from __future__ import annotations

import os
import random
import re
import sys
from contextlib import contextmanager
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml
from hypothesis import currently_in_test_context, event, given, note, settings
from hypothesis import strategies as st

from litmus.audit.batch import audit_cell
from litmus.audit.check import Finding
from litmus.codegen import compile_variant, generate
from litmus.codegen.options import audited_kernel
from litmus.errors import LitmusError
from litmus.ir import Fence, LitmusTest, Load, Rmw, Store, Thread
from litmus.model import ModelResult, check, hang_problem, ptx_model_for
from litmus.model.budget import ENV as MODEL_STEPS_ENV
from litmus.run.config import RunConfig
from litmus.run.cpu import CpuBackend
from litmus.session import run_variant
from litmus.spec import load_text

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.fuzz_patterns import WIDE, Options, pattern  # noqa: E402

REGRESSIONS = Path(__file__).parent / "data" / "fuzz_regressions"
TARGETS = ("cuda:90", "hip:gfx942")
MODEL_STEPS = 5_000
"""The model's work budget per check here (a tenth of a second or so): about a third of the
widest random patterns run past it, and the located error is the outcome then checked."""

RUN_OPTIONS = replace(WIDE, threads=(1, 4), ops=(1, 3), refusable=0.0)
"""Random patterns for the cpu run: every feature, fewer threads and ops, so the model decides
most of them within :data:`MODEL_STEPS` (a run needs its verdict)."""

INSTANCES = 128
SPIN_BOUND = 32  # reads per spin: a spin that cannot exit times out fast under the interpreter

DIY_EDGES = "Rfe,Fre,Coe,Rfi,Fri,Coi,Pod*,Fence*"
DIY_PLACES = ("samecta", "xcta", "xgpu")
DIY_SEMS = ("weak", "relaxed", "volatile", "relacq", "exch", "exch-relaxed")
DIY_SCOPES = ("cta", "gpu", "sys")


@cache
def diy_cycles() -> tuple[str, ...]:
    """Every cycle of up to 6 edges over :data:`DIY_EDGES`, as text (enumerated once)."""
    from litmus.diy.generate import select
    from litmus.diy.naming import cycle_text

    return tuple(cycle_text(es) for es in select(edges=DIY_EDGES, max_length=6))


def random_case(seed: int, opts: Options = WIDE) -> tuple[str, str]:
    """The file name and YAML text of random pattern ``seed``, its expectation a probe that
    the model's verdict replaces (:func:`decide`)."""
    doc = pattern(random.Random(seed), seed, opts)
    doc.update(expect="allowed", why="probe, replaced by the model's verdict", may_hang=True)
    return f"fuzz/seed{seed}.yaml", yaml.safe_dump(doc, sort_keys=False)


def diy_case(index: int, place: str, sems: str, scope: str) -> tuple[str, str]:
    """The file name and YAML text of the one-variant pattern ``litmus generate`` makes from
    cycle ``index`` of :func:`diy_cycles` (expectations by the ptx model)."""
    from litmus.diy import generate

    cycles = diy_cycles()
    [made] = generate([cycles[index % len(cycles)]], places=place, sems=sems, scopes=scope)
    return f"diy/{made.name}.yaml", made.text


def case(recipe: tuple[Any, ...]) -> tuple[str, str]:
    """The file name and text of a drawn recipe: ``("random", seed, options)`` or ``("diy",
    index, place, sems, scope)``.  Recipes, not texts, are drawn, so hypothesis shrinks and
    prints a seed, and the diy generator's model checks run in the test, not in the draw."""
    if recipe[0] == "random":
        return random_case(*recipe[1:])
    return diy_case(*recipe[1:])


SEEDS = st.integers(0, 2**32 - 1)
random_recipes = st.tuples(st.just("random"), SEEDS, st.just(WIDE))
run_recipes = st.tuples(st.just("random"), SEEDS, st.just(RUN_OPTIONS))
diy_recipes = st.tuples(st.just("diy"), st.integers(0, 10**6), st.sampled_from(DIY_PLACES), st.sampled_from(DIY_SEMS),
                        st.sampled_from(DIY_SCOPES))


@contextmanager
def model_budget(steps: int = MODEL_STEPS) -> Iterator[None]:
    """``$LITMUS_MAX_MODEL_STEPS`` at ``steps`` while inside (restored after)."""
    old = os.environ.get(MODEL_STEPS_ENV)
    os.environ[MODEL_STEPS_ENV] = str(steps)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(MODEL_STEPS_ENV, None)
        else:
            os.environ[MODEL_STEPS_ENV] = old


def assert_located(err: LitmusError, file: str) -> None:
    """``err`` names ``file`` and a line in every one of its problems."""
    assert err.problems, f"a LitmusError without problems: {err}"
    for p in err.problems:
        assert p.file == file and p.line is not None, f"a LitmusError not located at {file}:<line>: {err}"


class KnownBug(Exception):
    """The example hit a reported bug (``KNOWN_BUGS``): the checks past it say nothing."""


KNOWN_BUGS: dict[str, str] = {
    "hip_narrow_volatile_store.yaml":
        "an 8/16-bit volatile store's codegen fallback (atomic_store relaxed.sys) is not a shape the audit's "
        "amdgcn `store volatile` rule accepts",
    "hip_plain_byte_load.yaml":
        "on amdgcn a plain 8/16-bit access, or one of a view, may carry another op's line, and the audit calls it "
        "dropped",
    "hip_plain_vector_store.yaml":
        "on amdgcn LLVM merges neighbouring plain narrow accesses (vector elements, views), which the audit's "
        "width check reports as wider, missing or dropped",
    "hip_fence_fallback_shared_cta.yaml":
        "on amdgcn the fence fallback (an acq_rel atomic_add) of a thread whose CTA holds 3 threads or more "
        "compiles without its buffer_inv",
    "hip_fence_fallback_shared_cta_release.yaml":
        "on amdgcn the fence fallback (an acq_rel atomic_add) of a thread whose CTA holds 3 threads or more "
        "compiles without its buffer_wbl2",
    "hip_rmw_no_result_shared_cta.yaml":
        "on amdgcn an ordered RMW without a result, in a CTA of 3 threads or more, compiles without its "
        "acquire half",
    "hip_narrow_acquire_spin.yaml":
        "on amdgcn an acquire spin on a byte, after a volatile load of its neighbour, shows no buffer_inv",
    "hip_rmw_shared_cta_no_release.yaml":
        "on amdgcn an ordered RMW of a thread in a CTA of 3 threads or more shows no buffer_wbl2 before it "
        "(random seed 209525385: a 64-bit acq_rel add, the thread's first op; cause not investigated)",
    "hip_barrier_after_fence_fallback.yaml":
        "on amdgcn the audit finds no path from the fence fallback's atomic to the ops after it (a bar.sync, an access)",
}
"""Reported bugs, by their reproducer in :data:`REGRESSIONS`.  The properties step over an
example whose only failures are these (so they go on hunting new ones, and count each in
hypothesis's statistics); each reproducer runs strictly in :func:`test_fuzz_regression`, marked
as an expected failure until its bug is fixed."""

FENCE_MERGE_DOCUMENTED = "docs/compiler-bugs.md finding 3 (triton >= 3.8 merges a plain reread across an inline-asm fence)"
"""Not litmus's bug: triton 3.8 and 3.9 merge a plain load with an earlier one of the same
location across a fence written as inline asm, the way a user writes one; the audit reports it,
and ``tests/data/fuzz_regressions/cuda_load_merged_across_fence.yaml`` declares it.  Random
patterns cannot declare it."""

CAS16_DOCUMENTED = "docs/audit.md#access-widths (gfx942 has no 16-bit cas)"
"""Not a bug: the audit reports the 32-bit compare-and-swap loop LLVM makes of a 16-bit one on
gfx942 by design, and docs/audit.md says so; random patterns cannot declare it."""

_WEAK_ACCESS = re.compile(r"P\d+ #\d+ (?:load|store) on (\S+) \((\d+)-bit\)$")
_VOLATILE_NARROW_STORE = re.compile(r"P\d+ #\d+ store volatile on \S+ \((?:8|16)-bit\)$")
_CAS16 = re.compile(r"P\d+ #\d+ rmw cas \w+ \w+ on \S+ \(16-bit\)$")
_ORDERED = re.compile(r"(P\d+) #\d+ (?:fence \w+|rmw \w+ (?:acquire|release|acq_rel)) (?:gpu|sys)"
                      r"(?: on \S+)?(?: \(\d+-bit\))?$")
_NARROW_ACQUIRE = re.compile(r"P\d+ #\d+ load acquire \w+ on \S+ \((?:8|16)-bit\)$")
_WEAK_LOAD = re.compile(r"(P\d+) #(\d+) load on (\S+)(?: \(\d+-bit\))?$")
_BARRIER = re.compile(r"P\d+ #\d+ barrier sync$")
_AFTER = re.compile(r"which no control-flow path reaches after ((P\d+) #(\d+)) ")


def _thread(test: LitmusTest, name: str) -> Thread:
    return next(t for t in test.threads if t.name == name)


def _cta_size(test: LitmusTest, name: str) -> int:
    """How many threads share thread ``name``'s CTA (its rank and CTA index)."""
    t = _thread(test, name)
    return sum((u.rank, u.cta) == (t.rank, t.cta) for u in test.threads)


def _plain_view_of(test: LitmusTest, thread: str, loc: str) -> bool:
    """Whether ``thread`` makes a plain access of a view or vector element of ``loc``, which
    LLVM may merge with a plain access of ``loc`` itself (random seed 188142477: a 32-bit load
    and a 2 x 16-bit vector load of it became one ``global_load_dword``)."""
    views = {l.name for l in test.locations if l.view_of == loc}
    return any(isinstance(i, (Load, Store)) and i.loc in views and i.sem == "weak" and not i.volatile
               for i in _thread(test, thread).instrs)


def _narrow_volatile_store(test: LitmusTest, ins: object) -> bool:
    return isinstance(ins, Store) and ins.volatile and test.location(ins.loc).bits < 32


def known_finding(test: LitmusTest, target: str, finding: Finding, findings: list[Finding]) -> str | None:
    """The reproducer in :data:`KNOWN_BUGS` whose bug accounts for ``finding`` (one of
    ``findings``, the cell's), :data:`FENCE_MERGE_DOCUMENTED`, :data:`CAS16_DOCUMENTED`, or None:
    a new finding."""
    if (m := _WEAK_LOAD.match(finding.op)) and "nothing: the compiler dropped this op" in finding.found:
        before = _thread(test, m[1]).instrs[:int(m[2])]
        fences = [k for k, i in enumerate(before) if isinstance(i, Fence)]
        if fences and any(isinstance(i, Load) and i.loc == m[3] for i in before[:fences[-1]]):
            return FENCE_MERGE_DOCUMENTED
    if not target.startswith("hip:"):
        return misplaced_before(test, target, finding, findings)
    locs = {l.name: l for l in test.locations}
    if m := _AFTER.search(finding.found):
        before = _thread(test, m[2]).instrs[int(m[3])]
        if _narrow_volatile_store(test, before):
            return "hip_narrow_volatile_store.yaml"  # the audit places that store at another copy of it
        if (isinstance(before, (Load, Store)) and before.sem == "weak" and not before.volatile
                and (locs[before.loc].bits < 32 or locs[before.loc].view_of is not None)):
            # a plain narrow or view access carries another op's line (the reproducer); the ops
            # after it are then looked for after that line (random seed 73652237)
            return "hip_plain_byte_load.yaml"
        if isinstance(before, (Fence, Rmw)):
            # the audit places the fence (or RMW) at an atomic inside the loop the AMD backend
            # makes of it, and no path leads from there to the ops after it: a barrier (the
            # reproducer) or any access (random seed 1325)
            return "hip_barrier_after_fence_fallback.yaml"
    viewed = bool(m := _WEAK_ACCESS.match(finding.op)) and _plain_view_of(test, finding.op.split()[0], m[1])
    if m and (int(m[2]) < 32 or locs[m[1]].view_of is not None or viewed):
        merged = "wider than the op" in finding.found or ".v" in m[1] or viewed
        return "hip_plain_vector_store.yaml" if merged else "hip_plain_byte_load.yaml"
    if _VOLATILE_NARROW_STORE.match(finding.op) and "no `s_waitcnt vmcnt(0)` after it" in finding.found:
        return "hip_narrow_volatile_store.yaml"
    if _CAS16.match(finding.op) and "a 32-bit access where the op is 16 bits" in finding.found:
        return CAS16_DOCUMENTED
    if (m := _ORDERED.match(finding.op)) and _cta_size(test, m[1]) >= 3:
        if "no `buffer_inv" in finding.found or "no `s_waitcnt vmcnt(0)` after it" in finding.found:
            rmw = " rmw " in finding.op
            return "hip_rmw_no_result_shared_cta.yaml" if rmw else "hip_fence_fallback_shared_cta.yaml"
        if "`buffer_inv" in finding.found and "which is weaker than required" in finding.found:
            return "hip_fence_fallback_shared_cta_release.yaml"
        if " rmw " in finding.op and "no `buffer_wbl2" in finding.found:
            return "hip_rmw_shared_cta_no_release.yaml"
    if _NARROW_ACQUIRE.match(finding.op) and "no `buffer_inv" in finding.found:
        return "hip_narrow_acquire_spin.yaml"
    return misplaced_before(test, target, finding, findings)


def misplaced_before(test: LitmusTest, target: str, finding: Finding, findings: list[Finding]) -> str | None:
    """The known bug behind a barrier ``finding`` that no path reaches after the op before it: the
    audit looks for the barrier after where it placed that op, and a known finding on that op (a
    load merged away, say) misplaces it; on any target."""
    if _BARRIER.match(finding.op) and (m := _AFTER.search(finding.found)):
        before = [f for f in findings if f.op.startswith(m[1] + " ")]
        return next((k for f in before if (k := known_finding(test, target, f, findings)) is not None), None)
    return None


def sized_values_fit(test: LitmusTest, result: ModelResult) -> None:
    """Every value the model allows in a sized name (8, 16 or 64 bits, a view, a vector
    element) fits its width (docs/format.md: sized memory holds unsigned values)."""
    sized = {l.name: l.bits for l in test.locations if l.bits != 32 or l.view_of is not None}
    bad = sorted({(k, v) for state in result.allowed_states for k, v in state
                  if k in sized and not 0 <= v < 1 << sized[k]})
    assert not bad, f"{result.model} allows values that do not fit their sized locations: {bad[:4]}"


def load(file: str, text: str) -> LitmusTest:
    """The one variant of ``text``; a refusal must be located, and fails the test: every case
    here is well formed."""
    if currently_in_test_context():
        note(f"{file}:\n{text}")
    try:
        tests = load_text(text, file)
    except LitmusError as err:
        assert_located(err, file)
        raise AssertionError(f"a well-formed generated pattern was refused: {err}") from None
    assert len(tests) == 1
    return tests[0]


def decide(test: LitmusTest, file: str, text: str, known: bool) -> tuple[LitmusTest, ModelResult | None]:
    """The model's verdict on ``test`` (None past :data:`MODEL_STEPS`, a located error), and
    the test reloaded with that verdict and its hang analysis declared, which must pass
    ``litmus validate``'s hang check.  A random pattern is judged by ``ptx75`` (the
    generator's model), a diy one by ``ptx``: their verdicts must agree with each other and
    with the run's model, :func:`ptx_model_for`; sized values must fit (with ``known``, a
    test that stores a register to sized memory is a :class:`KnownBug` then)."""
    try:
        with model_budget():
            ran = check(test, ptx_model_for(test))
            other = check(test, "ptx" if ran.model == "ptx75" else "ptx75")
    except LitmusError as err:
        assert_located(err, file)
        return test, None
    assert (ran.target_reachable, ran.possible_hang) == (other.target_reachable, other.possible_hang), \
        f"{ran.model} and {other.model} disagree: target {ran.target_reachable} / {other.target_reachable}, " \
        f"hang {ran.possible_hang} / {other.possible_hang}"
    sized_values_fit(test, ran)
    doc = yaml.safe_load(text)
    verdict = "allowed" if ran.target_reachable else "forbidden"
    if "variants" in doc:  # diy: the generator's own rules; they must be the model's verdict
        assert test.expect is not None and test.expect.outcome == verdict, (test.expect, verdict)
        for rule in doc["variants"]["expect"]:
            rule["may_hang"] = ran.possible_hang
    else:
        doc.update(expect=verdict, may_hang=ran.possible_hang)
    [declared] = load_text(yaml.safe_dump(doc, sort_keys=False), file)
    with model_budget():
        problem = hang_problem(check(declared, ptx_model_for(declared)))
    assert problem is None, str(problem)
    return declared, ran


def compiles_and_audits(test: LitmusTest, file: str, known: bool) -> tuple[bool, set[str]]:
    """Audit ``test`` on every target, with the run kernels: each cell passes, or codegen
    refuses the test with a located error.  Whether it compiled for cuda, and the known bugs
    (:func:`known_finding`, with ``known``) its findings were all put down to."""
    compiled = {}
    bugs: set[str] = set()
    for target in TARGETS:
        cell = audit_cell(test, target, run_kernels=True)
        if cell.status == "unsupported":
            try:
                compile_variant(test, target, audited_kernel(target.split(":")[0]))
            except LitmusError as err:
                assert_located(err, file)
            else:
                raise AssertionError(f"{target}: the audit found it unsupported, codegen did not: {cell.result.reason}")
            compiled[target] = False
            continue
        findings = list(cell.undeclared)  # a reproducer may declare a compiler's finding (audit_expect)
        put_down = [known_finding(test, target, f, findings) if known else None for f in findings]
        new = [f"{f.op}: expected {f.expected}, found {f.found}" for f, k in zip(findings, put_down) if k is None]
        differs = [d for k in cell.kernels for d in k.differences]
        assert not new and not differs and not cell.stale and cell.status in ("pass", "finding", "declared"), \
            f"{target}: {cell.status}: findings {new}, differences {differs}"
        bugs.update(k for k in put_down if k is not None)
        compiled[target] = True
    assert len(set(compiled.values())) == 1, f"codegen refuses the test on one target only: {compiled}"
    return compiled["cuda:90"], bugs


def generates(test: LitmusTest, file: str) -> bool:
    """Whether codegen makes the kernels of ``test`` for cuda and hip (without compiling them);
    a refusal must be located, and the same on both."""
    made = set()
    for backend in ("cuda", "hip"):
        try:
            generate(test, audited_kernel(backend).with_backend(backend))
            made.add(True)
        except LitmusError as err:
            assert_located(err, file)
            made.add(False)
    assert len(made) == 1, "codegen refuses the test on one backend only"
    return made.pop()


def runs_clean(test: LitmusTest, ptx: ModelResult, backend: CpuBackend, seed: int, compiled: bool) -> None:
    """One cpu round of ``test``: skipped exactly when codegen refused it; otherwise no error and
    no outcome the PTX model forbids."""
    skip = backend.skip_reason(test)
    assert (skip is None) == compiled, f"cpu backend skip reason {skip!r}, codegen compiled: {compiled}"
    if skip is not None:
        if currently_in_test_context():
            event("cpu run: skipped, no Triton form")
        return
    config = RunConfig(iterations=1, instances=INSTANCES, seed=seed, spin_bound=SPIN_BOUND)
    ran = run_variant(test, backend, config, ptx=ptx)
    v = ran.verdict
    if currently_in_test_context():
        event(f"cpu run: {v.verdict}")
    forbidden = [(dict(b.state), b.count) for b in v.bins if b.label == "forbidden"]
    assert v.forbidden_count == 0 and v.verdict != "VIOLATION", f"forbidden outcomes on the cpu: {forbidden}"
    assert v.instances == INSTANCES


def through_pipeline(file: str, text: str, backend: CpuBackend | None = None, seed: int = 0,
                     known: bool = True, audit: bool = True) -> None:
    """Every check of the module docstring on one pattern; the audit only with ``audit`` (else
    codegen alone, for cuda and hip: a second or so less), the cpu run only with ``backend``
    (and a model verdict).  With ``known``, an example whose only failures are reported bugs
    (:data:`KNOWN_BUGS`) passes, counted in hypothesis's statistics."""
    bugs: set[str] = set()
    try:
        test = load(file, text)
        test, ptx = decide(test, file, text, known)
        if audit:
            compiled, bugs = compiles_and_audits(test, file, known)
        else:
            compiled = generates(test, file)
        if backend is not None and ptx is not None:
            runs_clean(test, ptx, backend, seed, compiled)
        elif ptx is None and currently_in_test_context():
            event("model: past its work budget")
    except KnownBug as bug:
        bugs = {str(bug)}
    for bug in sorted(bugs):
        event(f"stepped over: {bug}")


@pytest.fixture(scope="module")
def cpu_backend(litmus_cache: Path) -> Iterator[CpuBackend]:
    """One cpu backend for the module (workers start once; a 4-thread pattern needs 4)."""
    backend = CpuBackend(workers=2, spin_bound=SPIN_BOUND, start=True)
    yield backend
    backend.close()


@settings(max_examples=10, deadline=None)
@given(random_recipes)
def test_random_patterns_load_decide_compile_and_audit(recipe: tuple[Any, ...]) -> None:
    through_pipeline(*case(recipe))


@settings(max_examples=4, deadline=None)
@given(diy_recipes)
def test_diy_patterns_load_decide_compile_and_audit(recipe: tuple[Any, ...]) -> None:
    through_pipeline(*case(recipe))


@settings(max_examples=50, deadline=None)
@given(st.one_of(run_recipes, diy_recipes), st.integers(0, 2**16))
def test_patterns_run_on_the_cpu_without_a_forbidden_outcome(cpu_backend: CpuBackend, recipe: tuple[Any, ...],
                                                             seed: int) -> None:
    through_pipeline(*case(recipe), backend=cpu_backend, seed=seed, audit=False)


def _regressions() -> list[Path]:
    return sorted(REGRESSIONS.glob("*.yaml"))


@pytest.mark.parametrize("path", [
    pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[p.name])) if p.name in KNOWN_BUGS else p
    for p in _regressions()], ids=lambda p: p.name)
def test_fuzz_regression(path: Path, cpu_backend: CpuBackend) -> None:
    """A pattern the fuzz once failed on, through the same checks, with no bug stepped over
    (its expectation is the model's, as for a drawn one)."""
    through_pipeline(str(path.relative_to(ROOT)), path.read_text(), backend=cpu_backend, seed=1, known=False)


def test_every_known_bug_has_its_reproducer() -> None:
    """A bug the properties step over is one a regression test keeps failing on."""
    assert set(KNOWN_BUGS) <= {p.name for p in _regressions()}


def test_the_wide_options_reach_every_feature() -> None:
    """The drawn patterns hold what the module docstring promises (so the properties above
    fuzz it): every op kind and width, views, vectors, counters, retries, barriers, masks,
    register values, every spin comparison, 1 to 6 threads and 1 to 4 locations."""
    seen: set[str] = set()

    def walk(ops: list[dict[str, Any]], thread: str, uses: dict[str, list[tuple[str, dict[str, Any]]]]) -> None:
        for op in ops:
            [(kind, body)] = op.items()
            seen.add(kind)
            body = body or {}
            if kind == "retry":
                walk(body["do"], thread, uses)
            if "loc" in body:
                uses.setdefault(body["loc"], []).append((thread, op))
            if "vec" in body:
                seen.add("vec")
            if isinstance(body.get("value"), str):
                seen.add("register value")
            if kind == "spin":
                seen.add(f"spin {body.get('cmp', '==')}")
                seen.update(["mask"] if "mask" in body else [])

    threads, locations = set(), set()
    for seed in range(400):
        doc = pattern(random.Random(seed), seed, WIDE)
        threads.add(len(doc["threads"]))
        locations.add(sum("view" not in l for l in doc["locations"].values()))
        for loc in doc["locations"].values():
            seen.add(f"bits {loc.get('bits', 'none')}")
            seen.update(["view"] if "view" in loc else [])
        uses: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        for name, t in doc["threads"].items():
            walk(t["do"], name, uses)
        for ops in uses.values():  # a counter: only adds of 1, from 2 threads or more, and a >= spin for them all
            adds = [(t, op["add"]) for t, op in ops if "add" in op]
            spins = [op["spin"] for _, op in ops if "spin" in op]
            if (len(adds) + len(spins) == len(ops) and len({t for t, _ in adds}) >= 2 and spins
                    and all(a["value"] == 1 for _, a in adds)
                    and any(s.get("cmp") == ">=" and s["until"] == len(adds) for s in spins)):
                seen.add("counter")
    kinds = {"load", "store", "volatile_load", "volatile_store", "atomic_load", "atomic_store", "cas", "exch", "add",
             "fence", "spin", "retry", "bar.sync"}
    assert kinds | {"vec", "register value", "mask", "counter", "view", "bits 8", "bits 16", "bits 32", "bits 64",
                    "bits none"} | {f"spin {c}" for c in ("==", "!=", "<", "<=", ">", ">=")} <= seen
    assert threads == set(range(1, 7)) and locations == set(range(1, 5))


def test_a_barrier_after_a_merged_load_is_put_down_to_the_merge_on_cuda() -> None:
    """Seed 301 of the random fuzz: triton merged P0's second load across its fence, and the audit,
    looking for P0's barrier after where it placed that load, reported the barrier as well; both
    are the documented merge, on cuda as on hip."""
    [test] = load_text("""name: MERGED-THEN-BARRIER
locations: {l2: 0, l0: 0}
threads:
  P0:
    at: {rank: 0, cta: 2}
    do:
      - load: {reg: r0, loc: l2}
      - fence: {sem: acq_rel, scope: gpu}
      - load: {reg: r1, loc: l2}
      - volatile_store: {loc: l0, value: 2}
      - bar.sync: {}
exists: "P0:r0 == 0"
expect: allowed
why: probe
""", "merged.yaml")
    merged = Finding(test.id, "cuda:90", "P0 #2 load on l2", "an instruction of its own",
                     "nothing: the compiler dropped this op, or merged it", ())
    barrier = Finding(test.id, "cuda:90", "P0 #4 barrier sync", "bar|barrier.sync (after P0 #2 load on l2)",
                      "`bar.sync 0` at line 277, which no control-flow path reaches after P0 #2 load on l2 (line 483)", ())
    assert known_finding(test, "cuda:90", merged, [merged, barrier]) == FENCE_MERGE_DOCUMENTED
    assert known_finding(test, "cuda:90", barrier, [merged, barrier]) == FENCE_MERGE_DOCUMENTED
    assert known_finding(test, "cuda:90", barrier, [barrier]) is None  # alone, it is a new finding


def test_any_op_after_a_misplaced_fence_fallback_is_that_known_bug_on_hip() -> None:
    """Seed 1325 of the random fuzz: on gfx942 the accesses after a fence fallback, not only a
    barrier, were reported as reached by no path after it."""
    [test] = load_text("""name: AFTER-FENCE
locations: {l0: 0}
threads:
  P1:
    at: {rank: 1, cta: 1}
    do:
      - fence: {sem: acq_rel, scope: sys}
      - store: {loc: l0, value: 1}
exists: "l0 == 0"
expect: allowed
why: probe
""", "after.yaml")
    store = Finding(test.id, "hip:gfx942", "P1 #1 store on l0 (32-bit)", "(global|flat|buffer)_store_\\w+ (32-bit)",
                    "`global_store_dword v[20:21], v26, off` at line 1666, which no control-flow path reaches after "
                    "P1 #0 fence acq_rel sys (line 2394)", ())
    assert known_finding(test, "hip:gfx942", store, [store]) == "hip_barrier_after_fence_fallback.yaml"
    assert known_finding(test, "cuda:90", store, [store]) is None


def test_ops_after_a_plain_element_access_that_carries_another_line_are_that_known_bug_on_hip() -> None:
    """Seed 73652237 of the random fuzz: on gfx942 the audit placed a plain load of a vector
    element at another op's line, and reported the ops after it as reached by no path after it."""
    [test] = load_text("""name: AFTER-ELEMENT
locations:
  l0: {init: 0, bits: 64}
threads:
  P2:
    at: {rank: 0, cta: 0}
    do:
      - load: {reg: [r0, r1], loc: l0, vec: 2}
      - store: {loc: l0, value: 1}
exists: "l0 == 0"
expect: allowed
why: probe
""", "element.yaml")
    load = test.threads[0].instrs[0]
    assert test.location(load.loc).view_of == "l0"  # the element is a view of its vector's word
    after = Finding(test.id, "hip:gfx942", "P2 #2 store on l0 (64-bit)", "(global|flat|buffer)_store_\\w+ (64-bit)",
                    "`global_store_dwordx2 v[14:15], v[18:19], off` at line 549, which no control-flow path "
                    "reaches after P2 #0 load on l0.v2[0] (32-bit) (line 1794)", ())
    assert known_finding(test, "hip:gfx942", after, [after]) == "hip_plain_byte_load.yaml"


def test_a_whole_word_load_merged_with_a_vector_load_of_it_is_the_vector_merge_bug_on_hip() -> None:
    """Seed 188142477 of the random fuzz: on gfx942 LLVM made one ``global_load_dword`` of a
    plain 32-bit load and a plain 2 x 16-bit vector load of the same word, and the audit called
    the 32-bit load dropped."""
    [test] = load_text("""name: WORD-AND-VECTOR
locations:
  l0: {init: 0, bits: 32}
threads:
  P1:
    at: {rank: 1, cta: 0}
    do:
      - load: {reg: r2, loc: l0}
      - load: {reg: [r3, r4], loc: l0, vec: 2}
exists: "l0 == 0"
expect: allowed
why: probe
""", "word.yaml")
    dropped = Finding(test.id, "hip:gfx942", "P1 #0 load on l0 (32-bit)", "an instruction of its own",
                      "nothing: the compiler dropped this op", ())
    assert known_finding(test, "hip:gfx942", dropped, [dropped]) == "hip_plain_vector_store.yaml"
    alone = load_text("""name: WORD-ALONE
locations:
  l0: {init: 0, bits: 32}
threads:
  P1:
    at: {rank: 1, cta: 0}
    do:
      - load: {reg: r2, loc: l0}
exists: "l0 == 0"
expect: allowed
why: probe
""", "alone.yaml")[0]
    assert known_finding(alone, "hip:gfx942", dropped, [dropped]) is None  # no view: a new finding


def test_the_unexplained_hip_findings_are_put_down_to_their_reproducers() -> None:
    """The random fuzz's seed 209525385 (hip:gfx942): its finding is put down to its strict-xfail
    reproducer, and the same finding without the shape is not."""
    wide = load_text((REGRESSIONS / "hip_rmw_shared_cta_no_release.yaml").read_text(), "wide.yaml")[0]
    add = Finding(wide.id, "hip:gfx942", "P2 #0 rmw add acq_rel sys on l1 (64-bit)", "buffer_wbl2 sc0 sc1 ; ...",
                  "`global_atomic_add_x2 v[2:3], v[30:31], v[14:15], off sc0 sc1` at line 2872, no "
                  "`buffer_wbl2 sc0 sc1` before it", ())
    assert known_finding(wide, "hip:gfx942", add, [add]) == "hip_rmw_shared_cta_no_release.yaml"
    alone = load_text("""name: ADD-ALONE
locations:
  l1: {init: 0, bits: 64}
threads:
  P2:
    at: {rank: 1, cta: 1}
    do:
      - add: {loc: l1, value: 1, sem: acq_rel, scope: sys, reg: r6}
exists: "P2:r6 == 0"
expect: allowed
why: probe
""", "alone.yaml")[0]
    assert known_finding(alone, "hip:gfx942", add, [add]) is None  # alone in its CTA: a new finding
