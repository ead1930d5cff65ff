"""The 92-test PTX corpus: every file reads, spot checks are exact, and the round trip is the identity."""

from __future__ import annotations

from pathlib import Path


from litmus.interop import (
    load_corpus,
    normalize_for_roundtrip,
    parse_litmus,
    read_expected,
    read_litmus,
    write_litmus,
)
from litmus.ir import (
    And,
    Barrier,
    Branch,
    Cmp,
    Condition,
    Const,
    LitmusTest,
    Load,
    Location,
    Label,
    Or,
    Reg,
    RegRef,
    Rmw,
    Store,
    Thread,
)


def _read(corpus: Path, name: str) -> LitmusTest:
    return read_litmus(corpus / "Manual" / f"{name}.litmus")


def test_corpus_has_92_tests_and_all_read(corpus: Path) -> None:
    tests = load_corpus(corpus)
    assert len(tests) == 92
    assert all(t.threads and t.condition.kind in ("exists", "not_exists", "forall") for t in tests)
    assert all(t.expect is not None and t.expect.outcome in ("allowed", "forbidden") for t in tests)


def test_every_listed_file_exists_and_every_file_is_listed(corpus: Path) -> None:
    listed = set(read_expected(corpus))
    on_disk = {f"Manual/{p.name}" for p in (corpus / "Manual").glob("*.litmus")}
    assert listed == on_disk


def test_expectation_follows_condition_kind(corpus: Path) -> None:
    by_file = {Path(t.source_file).name: t for t in load_corpus(corpus)}
    # exists + 1: reachable; ~exists + 1: unreachable; forall + 1: its negation unreachable.
    assert by_file["MP-cta.litmus"].expect.outcome == "allowed"  # exists, 1
    assert by_file["MP-gpu.litmus"].expect.outcome == "forbidden"  # ~exists, 1
    assert by_file["SB+bar-const-equal.litmus"].expect.outcome == "forbidden"  # forall, 1
    assert by_file["SB+bar-const-diff.litmus"].expect.outcome == "allowed"  # forall, 0
    assert by_file["SB+named-bar-dyn-reg-const.litmus"].expect.outcome == "allowed"


def test_mp_gpu_exact(corpus: Path) -> None:
    t = _read(corpus, "MP-gpu")
    assert t == LitmusTest(
        name="MP-gpu",
        variant="",
        locations=(Location("x", 0, 0, 4), Location("y", 0, 0, 5)),
        threads=(
            Thread("P0", 0, 0, (Store("x", Const(1), "weak", "sys", line=10),
                                Store("y", Const(1), "release", "gpu", line=11)), line=9),
            Thread("P1", 0, 0, (Load("r1", "y", "acquire", "gpu", line=10),
                                Load("r2", "x", "weak", "sys", line=11)),
                   reg_init=(("r1", 0), ("r2", 0)), line=9),
        ),
        condition=Condition(
            "not_exists",
            And((Cmp(RegRef("P1", "r1"), "==", Const(1)), Cmp(RegRef("P1", "r2"), "!=", Const(1)))),
            "(P1:r1 == 1 /\\ P1:r2 != 1)",
        ),
        description="Message passing, sync because release/acquire are morally strong",
        source_file=str(corpus / "Manual" / "MP-gpu.litmus"),
        source_line=1,
    )


def test_sb_named_bar_reg_equal_exact(corpus: Path) -> None:
    t = _read(corpus, "SB+named-bar-reg-equal")
    assert t.threads == (
        Thread("P0", 0, 0, (Store("x", Const(1), line=10), Barrier(Const(1), Reg("r2"), line=11),
                            Load("r0", "y", line=12)), reg_init=(("r0", 0), ("r2", 0)), line=9),
        Thread("P1", 0, 0, (Store("y", Const(1), line=10), Barrier(Const(1), Reg("r3"), line=11),
                            Load("r1", "x", line=12)), reg_init=(("r1", 0), ("r3", 0)), line=9),
    )
    assert t.condition == Condition(
        "forall", Or((Cmp(RegRef("P0", "r0"), "==", Const(1)), Cmp(RegRef("P1", "r1"), "==", Const(1)))),
        "(P0:r0 == 1 \\/ P1:r1 == 1)",
    )
    assert [loc.name for loc in t.locations] == ["x", "y"]


def test_ticketlock_diff_gpu_exact(corpus: Path) -> None:
    t = _read(corpus, "Ticketlock-diff-gpu")
    assert [(th.name, th.rank, th.cta) for th in t.threads] == [("P0", 0, 0), ("P1", 1, 0)]
    assert t.locations == (Location("in", 0, 0, 4), Location("out", 0, 0, 4), Location("x", 0, 0, 5))
    assert t.threads[1].instrs == (
        Rmw("add", "r1", "in", Const(1), sem="acquire", scope="gpu", line=8),
        Label("LC00", line=9),
        Load("r2", "out", "acquire", "gpu", line=10),
        Branch("LC01", "eq", Reg("r1"), Reg("r2"), line=11),
        Branch("LC00", line=12),
        Label("LC01", line=13),
        Load("r3", "x", "weak", "sys", line=14),
        Store("x", Const(2), "weak", "sys", line=15),
        Rmw("add", "r4", "out", Const(1), sem="release", scope="gpu", line=16),
    )
    assert t.condition.prop.parts[0] == Cmp(RegRef("P0", "r1"), "==", RegRef("P0", "r2"))


def test_lb_no_thin_air_register_exact(corpus: Path) -> None:
    t = _read(corpus, "LB+NoThinAir-register")
    assert t.name == "NoThinAir-register"  # the header's name, not the file name
    assert t.threads == (
        Thread("P0", 0, 0, (Load("r1", "y", line=10), Store("x", Reg("r1"), line=11)),
               reg_init=(("r1", 0),), line=9),
        Thread("P1", 0, 1, (Load("r2", "x", line=10), Store("y", Reg("r2"), line=11)),
               reg_init=(("r2", 0),), line=9),
    )
    assert t.condition.kind == "not_exists"


def test_pc_bar_sync_arrive_exact(corpus: Path) -> None:
    t = _read(corpus, "PC-bar-sync-arrive")
    assert t.description == ("Producer-Consumer pattern using named barriers. \n"
                             " Arrive does not block P1.\n Load and store are not ordered.")
    assert t.locations == (Location("x", 0, 0, 6),)
    assert t.threads == (
        Thread("P0", 0, 0, (Load("r0", "x", line=10), Barrier(Const(0), line=11),
                            Barrier(Const(1), arrive=True, line=12)), reg_init=(("r0", 0),), line=9),
        Thread("P1", 0, 0, (Barrier(Const(1), arrive=True, line=10), Store("x", Const(1), line=11),
                            Barrier(Const(0), line=12)), line=9),
    )
    assert t.condition == Condition("exists", Cmp(RegRef("P0", "r0"), "==", Const(1)), "(P0:r0 == 1)")


def test_sub_reads_as_add_of_the_negation(corpus: Path) -> None:
    atom = _read(corpus, "Atom-minus-location_").threads[0].instrs[0]
    red = _read(corpus, "Red-minus-location_").threads[1].instrs[0]
    assert atom == Rmw("add", "r0", "x", Const(-1), sem="acq_rel", scope="sys", line=9)
    assert red == Rmw("add", None, "x", Const(-1), sem="acq_rel", scope="sys", line=9)


def test_cas_operands_and_dat3m_register_arith(corpus: Path) -> None:
    cas = _read(corpus, "MICRO24-Fig4b").threads[1].instrs[1]
    assert cas == Rmw("cas", "r1", "flag", value=Const(0), expected=Const(1), sem="relaxed",
                      scope="gpu", line=17)
    add = _read(corpus, "MP-dlb").threads[0].instrs[3]
    assert (add.dst, add.op, add.a, add.b) == ("r2", "add", Reg("r2"), Const(1))


def test_location_in_condition_only_and_empty_thread(corpus: Path) -> None:
    t = _read(corpus, "LB+RMW-b")
    assert t.threads[1].instrs == ()
    assert t.threads[1].reg_init == (("r1", 0),)


def test_round_trip_is_identity_on_the_corpus(corpus: Path) -> None:
    for path in sorted((corpus / "Manual").glob("*.litmus")):
        t = read_litmus(path)
        text = write_litmus(t)
        back = parse_litmus(text, file="roundtrip")
        assert normalize_for_roundtrip(back) == normalize_for_roundtrip(t), path.name
        assert write_litmus(back) == text, path.name  # writing is a fixed point


def test_numeric_thread_ids_in_conditions_become_p_names(corpus: Path) -> None:
    t = _read(corpus, "CoRW_")
    assert t.condition.prop.parts[0] == Cmp(RegRef("P1", "r1"), "==", Const(1))


def test_corpus_dir_env_override(tmp_path: Path, monkeypatch) -> None:
    from litmus.interop import CORPUS_ENV, corpus_dir

    monkeypatch.setenv(CORPUS_ENV, str(tmp_path))
    assert corpus_dir() is None  # no expected.csv there
    (tmp_path / "expected.csv").write_text("Manual/a.litmus,1\n")
    assert corpus_dir() == tmp_path
    assert read_expected(tmp_path) == {"Manual/a.litmus": True}
