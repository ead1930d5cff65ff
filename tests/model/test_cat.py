"""Models as text (``litmus.model.cat``): the cat syntax, located errors, ``include``, ``let rec``
in closed form against iteration, and Dat3M's two PTX cat files against the built-in models
on a sample of the corpus and of the catalog (the whole corpus: benchmarks/bench_dat3m.py --cat)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest
from hypothesis import given, settings, strategies as st

import litmus
from litmus.errors import LitmusError
from litmus.interop import dat3m_dir, read_litmus
from litmus.ir import LitmusTest
from litmus.model import check
from litmus.model.cat import BASES, PROFILES, load_cat, parse_cat, read_cat
from litmus.model.cat.ast import AxiomStmt, Binary, Call, CatExpr, Include, Let, Name, Show, Unary
from litmus.model.compiled import Evaluator
from litmus.model.relations import Base, Interpreter, Model, r_seq, r_union
from litmus.spec import load_paths

ROOT = dat3m_dir()
CORPUS = pytest.mark.skipif(ROOT is None, reason="Dat3M PTX corpus not found: expected ../shared/dat3m-ptx "
                                                "beside the repo (or set LITMUS_DAT3M_PTX)")
CATALOG = Path(litmus.__file__).resolve().parent.parent / "catalog"


def write(folder: Path, name: str, text: str) -> Path:
    p = folder / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def show(e: CatExpr) -> str:
    """Fully parenthesised, operators by name: what the parser built."""
    if isinstance(e, Name):
        return e.name
    if isinstance(e, Unary):
        return f"{e.op}({show(e.arg)})"
    if isinstance(e, Binary):
        return f"({show(e.left)} {e.op} {show(e.right)})"
    assert isinstance(e, Call)
    return f"{e.name}!({', '.join(show(a) for a in e.args)})"


def rhs(text: str) -> str:
    stmt = parse_cat(f"let x = {text}").statements[0]
    assert isinstance(stmt, Let)
    return show(stmt.bindings[0].expr)


# ------------------------------------------------------------------------------ syntax


@pytest.mark.parametrize("text, tree", [
    ("a | b ; c", "(a union (b seq c))"),
    ("a ; b \\ c", "(a seq (b diff c))"),
    ("a \\ b & c", "(a diff (b inter c))"),
    ("a \\ b \\ c", "((a diff b) diff c)"),
    ("M * M & loc", "((M prod M) inter loc)"),
    ("GEN * GEN | SUR * SUR", "((GEN prod GEN) union (SUR prod SUR))"),
    ("r* | s", "(star(r) union s)"),
    ("r^* ; s^+ ; t^-1 ; u? ; v+ ; w^?", "(((((star(r) seq plus(s)) seq inv(t)) seq opt(u)) seq plus(v)) seq opt(w))"),
    ("(a | b)-1", "inv((a union b))"),
    ("a * b^-1", "(a prod inv(b))"),
    ("~a & b", "(compl(a) inter b)"),
    ("[W]; po-loc?; [strong-write]", "((ident(W) seq opt(po-loc)) seq ident(strong-write))"),
    ("toid(W) ; domain(r) * range(r)", "(ident(W) seq (domain(r) prod range(r)))"),
    ("(_ * _) \\ (M * M)", "((_ prod _) diff (M prod M))"),
    ("0 | id", "(0 union id)"),
    ("f(a, b ; c)", "f!(a, (b seq c))"),
])
def test_operators_and_precedence(text: str, tree: str) -> None:
    assert rhs(text) == tree


def test_statements_comments_and_the_model_name() -> None:
    cat = parse_cat('"My model" (* block *) /* c block */ // line\n'
                    "let a = po and b = rf\n"
                    "let rec x = a | x;b and y = x\n"
                    "acyclic a as a-name\n"
                    "irreflexive b\n"
                    "flag ~empty a as racy\n"
                    'include "other.cat"\n'
                    "show a as shown, b\n", "m.cat")
    assert cat.title == "My model"
    let, rec, acy, irr, flag, inc, sh = cat.statements
    assert isinstance(let, Let) and not let.rec and [b.name for b in let.bindings] == ["a", "b"]
    assert isinstance(rec, Let) and rec.rec and [b.name for b in rec.bindings] == ["x", "y"]
    assert isinstance(acy, AxiomStmt) and (acy.kind, acy.name) == ("acyclic", "a-name")
    assert isinstance(irr, AxiomStmt) and (irr.kind, irr.name) == ("irreflexive", None)
    assert isinstance(flag, AxiomStmt) and flag.flag and flag.negated and flag.kind == "empty"
    assert isinstance(inc, Include) and inc.path == "other.cat" and (inc.loc.line, inc.loc.column) == (7, 1)
    assert isinstance(sh, Show)
    assert parse_cat("PTX\nlet a = po").title == "PTX"
    assert parse_cat("let a = po").title is None


def test_dat3m_files_parse() -> None:
    if ROOT is None:
        pytest.skip("Dat3M PTX corpus not found")
    for name, lets, axioms in (("ptx-v6.0.cat", 17, 7), ("ptx-v7.5.cat", 22, 6)):
        cat = parse_cat((ROOT / "cat" / name).read_text(), name)
        assert cat.title == "PTX"
        assert sum(isinstance(s, Let) for s in cat.statements) == lets
        assert sum(isinstance(s, AxiomStmt) for s in cat.statements) == axioms


# ---------------------------------------------------------------------- located errors


def error_of(tmp_path: Path, text: str, name: str = "m.cat", **kw: str) -> str:
    p = write(tmp_path, name, text)
    with pytest.raises(LitmusError) as exc:
        load_cat(p, **kw)
    (problem,) = exc.value.problems
    return str(problem)


@pytest.mark.parametrize("text, where, says", [
    ("let a = po |\nlet b = rf", "2:1", "unexpected 'let'"),
    ("let a = (po", "1:12", "the file ends inside a statement; expected ')'"),
    ("let a = po rf", "1:12", "expected an operator or the next statement"),
    ("let a = po $ rf", "1:12", "unexpected character '$'"),
    ("let a = po (* never\nclosed", "1:12", "this comment is never closed: end it with '*)'"),
    ("let = po", "1:5", "unexpected '='; expected one of: a name, rec"),
    ("let a = po\nacyclic a | foo as x", "2:13", "unknown base relation 'foo'"),
    ("let a = W ; po", "1:9", "';' needs a relation; W is a set (write [W] for the identity on it)"),
    ("let a = W | po", "1:9", "'|' of a set (W) and a relation (po); write [W] to make the set a relation"),
    ("let a = po * W", "1:9", "'*' (cartesian product) needs a set; po is a relation"),
    ("let a = [po]", "1:10", "[...] (the identity on a set) needs a set; po is a relation"),
    ("let a = domain(W)", "1:16", "domain(...) needs a relation; W is a set"),
    ("let a = W^-1", "1:9", "'^-1' needs a relation; W is a set"),
    ("acyclic W", "1:9", "acyclic needs a relation; W is a set"),
    ("let f(x) = x; po", "1:5", "cat functions are not supported"),
    ("let a = f(po)", "1:9", "cat functions are not supported"),
    ("~acyclic po", "1:1", "negated axioms are not supported"),
    ("let a = po and a = rf", "1:16", "'a' is bound twice"),
    ("let rec a = po | (a & rf)", "1:9", "let rec a: the recursion goes through '&'"),
    ("let rec a = po | rf; a; rf", "1:9", "in the middle of a sequence"),
    ("let rec s = W | domain(s; po)", "1:9", "'s' is a set defined by let rec; only relations can be"),
    ("let rec a = po | domain(a) * W", "1:9", "let rec a: the recursion goes through '*'"),
])
def test_errors_name_file_line_column_and_the_fix(tmp_path: Path, text: str, where: str, says: str) -> None:
    msg = error_of(tmp_path, text)
    assert msg.startswith(f"{tmp_path / 'm.cat'}:{where}: "), msg
    assert says in msg, msg
    assert "Traceback" not in msg


def test_unknown_name_lists_what_the_checker_provides(tmp_path: Path) -> None:
    msg = error_of(tmp_path, "acyclic po | foo")
    assert "unknown base relation 'foo'" in msg and "the checker provides: " in msg
    for name in ("po", "rf", "co", "sync_fence", "syncbar", "GEN", "vloc", "_", "0"):
        assert f" {name} " in msg or msg.endswith(f" {name}")


def test_a_profile_that_needs_a_name_the_file_lacks(tmp_path: Path) -> None:
    msg = error_of(tmp_path, "acyclic po | rf | co as sc")
    assert msg.startswith(f"{tmp_path / 'm.cat'}: the ptx profile's sf order")
    assert "needs 'morally-strong'" in msg
    msg = error_of(tmp_path, "acyclic po", profile="vulkan")
    assert "unknown cat profile 'vulkan'; choose one of ptx, ptx75" in msg


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(LitmusError, match=r"nope\.cat: cannot read this cat file: No such file"):
        load_cat(tmp_path / "nope.cat")


# ------------------------------------------------------------------------------- include

# the least a cat file needs for the ptx profile: the names its orders mention
MINIMAL = "let morally-strong = (_ * _) \\ id\nlet cause = po\n"


def test_include_is_relative_to_the_including_file(tmp_path: Path) -> None:
    write(tmp_path, "lib/base.cat", '"base"\nlet morally-strong = (_ * _) \\ id\ninclude "more/cause.cat"\n')
    write(tmp_path, "lib/more/cause.cat", "let cause = po\n")
    top = write(tmp_path, "top.cat", 'TOP\ninclude "lib/base.cat"\nacyclic po | rf | co | fr as sc\n')
    cat = read_cat(top)
    assert cat.title == "TOP" and cat.profile == "ptx"
    assert [Path(f).name for f in cat.files] == ["top.cat", "base.cat", "cause.cat"]
    assert [n for n, _ in cat.model.definitions] == ["morally-strong", "cause"]
    assert [a.name for a in cat.model.axioms] == ["sc"]


def test_include_errors_are_located_at_the_include(tmp_path: Path) -> None:
    msg = error_of(tmp_path, 'let a = po\ninclude "missing.cat"')
    assert msg.startswith(f"{tmp_path / 'm.cat'}:2:1: include 'missing.cat': no such file")
    write(tmp_path, "b.cat", 'include "m.cat"\n')
    msg = error_of(tmp_path, 'include "b.cat"')
    assert msg.startswith(f"{tmp_path / 'b.cat'}:1:1: include cycle: ") and msg.count("m.cat") == 2
    write(tmp_path, "bad.cat", "let a = (po\n")
    assert error_of(tmp_path, 'include "bad.cat"').startswith(f"{tmp_path / 'bad.cat'}:2:1: the file ends")


# ----------------------------------------------------------------------- translation


def test_shadowing_keeps_the_checkers_co(tmp_path: Path) -> None:
    m = load_cat(write(tmp_path, "m.cat", MINIMAL + "let co = co+\nlet fr = rf^-1; co\nlet co = co | co\n"
                       "empty fr & id as x\n"))
    defs = dict(m.definitions)
    assert list(defs) == ["morally-strong", "cause", "co'", "fr", "co''"]
    assert repr(defs["co'"].args[0]) == "co"  # type: ignore[attr-defined]  # co+ of the chosen co
    assert [repr(a) for a in defs["fr"].args[1:]] == ["co'"]  # type: ignore[attr-defined]
    assert [o.name for o in m.orders] == ["sf", "co"] and m.final_order == "co"


def test_polymorphic_names_and_sets(tmp_path: Path) -> None:
    text = MINIMAL + ("let s = (W \\ 0) | _\nlet r = (po | 0) & _\nlet t = [~W]; ~po; id\n"
                      "let d = domain(rf) & range(co)\nempty 0 as e0\nempty (W & R) as no-rw\n")
    m = load_cat(write(tmp_path, "m.cat", text))
    defs = dict(m.definitions)
    assert defs["s"].is_set and not defs["r"].is_set and not defs["t"].is_set and defs["d"].is_set
    ev = Interpreter(m, 3, {"W": 0b011, "R": 0b100, "ALL": 0b111, "po": [0b010, 0b100, 0],
                            "rf": [0, 0, 0], "co": [0b010, 0, 0]})
    assert ev.value(defs["s"]) == 0b111
    assert ev.value(defs["r"]) == [0b010, 0b100, 0]
    # [~W]; ~po; id: from the one non-write (2), every event po does not relate it to
    assert ev.value(defs["t"]) == [0, 0, 0b111]
    assert ev.value(defs["d"]) == 0
    assert [a.kind for a in m.axioms] == ["empty", "empty"] and all(ev.holds(a) for a in m.axioms)


def test_flags_and_show_do_not_constrain(tmp_path: Path) -> None:
    m = load_cat(write(tmp_path, "m.cat", MINIMAL + "flag ~empty po as racy\nshow po\nacyclic po as order\n"))
    assert [a.name for a in m.axioms] == ["order"]


def test_profile_inference(tmp_path: Path) -> None:
    assert read_cat(write(tmp_path, "a.cat", MINIMAL)).profile == "ptx"
    assert read_cat(write(tmp_path, "b.cat", MINIMAL + "let p = GEN * GEN")).profile == "ptx75"
    b = read_cat(write(tmp_path, "c.cat", MINIMAL + "let p = po & vloc"), profile="ptx")
    assert b.profile == "ptx" and not b.model.proxies
    assert set(PROFILES) == {"ptx", "ptx75"}


def test_every_base_the_checker_installs_has_a_cat_name() -> None:
    from litmus.model.executions import build_frame, test_traces
    from litmus.spec.select import load_text
    from tests.patterns import MP_YAML

    test = load_text(MP_YAML)[0]
    frame = build_frame(test, [trs[0].events for trs in test_traces(test, 2)])
    assert frame is not None
    named: set[str] = {"rf", "co", "sf"}

    def walk(e: object) -> None:
        if isinstance(e, Base):
            named.add(e.name)
        else:
            for a in e.args:  # type: ignore[attr-defined]
                walk(a)

    for b in BASES.values():
        walk(b.expr)
    assert set(frame.base) - {"ALL"} <= named


# ----------------------------------------------------------------------------- let rec

N = 5
relations = st.lists(st.integers(0, (1 << N) - 1), min_size=N, max_size=N)


def lfp(step: Callable[[list[int]], list[int]]) -> list[int]:
    """Iterate ``step`` from the empty relation to convergence."""
    x = [0] * N
    while True:
        y = step(x)
        if y == x:
            return x
        x = y


def values_of(tmp_path: Path, text: str, base: dict[str, list[int]], names: list[str]) -> list[list[int]]:
    """The definitions ``names`` of ``text`` over ``base``, by the interpreter and the compiled
    evaluator (the checker's), which must agree."""
    m = load_cat(write(tmp_path, "rec.cat", MINIMAL + text))
    env: dict[str, int | list[int]] = {**base, "ALL": (1 << N) - 1}
    ev, comp = Interpreter(m, N, env), Evaluator(m, N, env)
    defs = dict(m.definitions)
    out = [ev.value(defs[n]) for n in names]
    assert out == [comp.value(defs[n]) for n in names]
    return out  # type: ignore[return-value]


@settings(max_examples=60, deadline=None)
@given(relations, relations, relations, relations)
def test_let_rec_one_variable_is_the_least_fixpoint(tmp_path_factory: pytest.TempPathFactory, a: list[int],
                                                     l: list[int], r: list[int], m: list[int]) -> None:
    tmp = tmp_path_factory.mktemp("rec")
    base = {"po": a, "rf": l, "co": r, "loc": m}
    # ptx-v6.0's observation: X = A | X;M;X
    (got,) = values_of(tmp, "let rec x = po | x; loc; x\n", base, ["x"])
    assert got == lfp(lambda x: r_union(a, r_seq(r_seq(x, m), x)))
    # every shape at once: X = A | L;X | X;R | X;M;X | X;X
    (got,) = values_of(tmp, "let rec x = po | rf; x | x; co | x; loc; x | x; x | x\n", base, ["x"])
    assert got == lfp(lambda x: r_union(r_union(r_union(a, r_seq(l, x)), r_union(r_seq(x, r), r_seq(r_seq(x, m), x))),
                                        r_seq(x, x)))
    # no constant term: empty
    (got,) = values_of(tmp, "let rec x = rf; x | x; co\n", base, ["x"])
    assert got == [0] * N


@settings(max_examples=60, deadline=None)
@given(relations, relations, relations, relations)
def test_let_rec_and_is_the_least_fixpoint_of_the_system(tmp_path_factory: pytest.TempPathFactory, a: list[int],
                                                          l: list[int], r: list[int], m: list[int]) -> None:
    tmp = tmp_path_factory.mktemp("rec")
    base = {"po": a, "rf": l, "co": r, "loc": m}
    # a left-linear system (each variable at the left end of its terms)
    got = values_of(tmp, "let rec x = po | y; rf and y = x; co | y; loc | x\n", base, ["x", "y"])

    def step(xy: list[int]) -> list[int]:
        x, y = xy[:N], xy[N:]
        return r_union(a, r_seq(y, l)) + r_union(r_union(r_seq(x, r), r_seq(y, m)), x)

    want = [0] * (2 * N)
    while (nxt := step(want)) != want:
        want = nxt
    assert got == [want[:N], want[N:]]


def test_v6_observation_is_the_hand_written_closed_form() -> None:
    if ROOT is None:
        pytest.skip("Dat3M PTX corpus not found")
    m = load_cat(ROOT / "cat" / "ptx-v6.0.cat")
    obs = dict(m.definitions)["observation"]
    # A;(M;A)* with A = morally-strong & rf, M = rmw: litmus/model/ptx.py's form
    assert obs.kind == "seq" and [a.kind for a in obs.args] == ["inter", "opt"]  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- agreement


def same(test: LitmusTest, cat: Model, builtin: str) -> None:
    try:
        a = check(test, cat)
    except LitmusError as err:  # refused (a proxy test under v6.0): the built-in refuses it too
        with pytest.raises(LitmusError) as exc:
            check(test, builtin)
        assert [(p.file, p.line) for p in exc.value.problems] == [(p.file, p.line) for p in err.problems]
        return
    b = check(test, builtin)
    assert set(a.allowed_states) == set(b.allowed_states)
    assert (a.validated, a.target_reachable, a.possible_hang) == (b.validated, b.target_reachable, b.possible_hang)


@pytest.fixture(scope="module")
def dat3m_models() -> dict[str, Model]:
    assert ROOT is not None
    return {"ptx": load_cat(ROOT / "cat" / "ptx-v6.0.cat"), "ptx75": load_cat(ROOT / "cat" / "ptx-v7.5.cat")}


SAMPLE = sorted((ROOT / "litmus").rglob("*.litmus"))[::7] if ROOT is not None else []


@CORPUS
def test_dat3m_files_get_the_profiles_of_their_builtin_models() -> None:
    assert ROOT is not None
    assert read_cat(ROOT / "cat" / "ptx-v6.0.cat").profile == "ptx"
    assert read_cat(ROOT / "cat" / "ptx-v7.5.cat").profile == "ptx75"


@CORPUS
@pytest.mark.parametrize("path", SAMPLE, ids=[str(p.relative_to(ROOT)) for p in SAMPLE] if ROOT else [])
def test_dat3m_cat_files_agree_with_the_builtin_models_on_the_corpus(path: Path,
                                                                     dat3m_models: dict[str, Model]) -> None:
    test = read_litmus(path)
    for builtin, cat in dat3m_models.items():
        same(test, cat, builtin)


VARIANTS = load_paths([CATALOG]) if CATALOG.is_dir() else []
PLAIN = [t for t in VARIANTS if not t.uses_widths()][::4]
WIDTHS = [t for t in VARIANTS if t.uses_widths()]


@CORPUS
@pytest.mark.parametrize("test", PLAIN, ids=[t.id for t in PLAIN])
def test_dat3m_cat_files_agree_with_the_builtin_models_on_the_catalog(test: LitmusTest,
                                                                      dat3m_models: dict[str, Model]) -> None:
    for builtin, cat in dat3m_models.items():
        same(test, cat, builtin)


@CORPUS
def test_access_widths_need_eloc_and_single_copy_atomicity_in_the_file(tmp_path: Path) -> None:
    """Dat3M's files have no access widths: with ``eloc`` in morally strong (complete overlap)
    and the Single-Copy-Atomicity axiom added, they agree on the catalog's width tests too."""
    assert ROOT is not None and WIDTHS
    sca = ("\nirreflexive sa; (((rf^-1 & morally-strong); sa; co^-1; rf) | ((morally-strong & co); sa; co))"
           " as Single-Copy-Atomicity\n")
    for name, builtin, old, new in (
            ("ptx-v6.0.cat", "ptx", "let ms2 = ((M * M) & loc)", "let ms2 = ((M * M) & eloc)"),
            ("ptx-v7.5.cat", "ptx75", "let ms3 = ((M * M) & vloc)", "let ms3 = ((M * M) & vloc & eloc)")):
        text = (ROOT / "cat" / name).read_text()
        assert old in text
        cat = load_cat(write(tmp_path, name, text.replace(old, new) + sca))
        for test in WIDTHS:
            same(test, cat, builtin)
