"""Lint on rewrites of real signalling kernels (issue 33): iris' message-passing example (a
plain spin the compiler removes), iris' one-shot all-reduce (a local tile peers read
translated), Triton-distributed's ring step (one CTA publishes the grid's stores), and
symm-mem-recipes' barrier (an inline-asm ld.acquire after bar.sync). Every finding and every
absence of one, and what the emitted patterns say."""

from __future__ import annotations

import os
import re

from litmus.lint import lint_file
from litmus.model import check
from litmus.spec import load_text
from tests.lint.conftest import REPO, kernel_file, line_of, linted


def found(name: str) -> set[tuple[str, str, int, str]]:
    return {(f.rule, f.kernel, f.site.line, f.pattern) for f in linted(name).findings}


def test_iris_message_passing_the_removed_spin_and_the_plain_flag() -> None:
    name = "iris_message_passing"
    flag = line_of(name, "plain-flag")
    assert found(name) == {
        ("spin-removed", "consumer_kernel", line_of(name, "plain-spin"), "MP-spin-removed[plain-spin-removed]"),
        ("relaxed-signal", "producer_kernel", flag, "MP-iris[plain-signal-sys]"),
        ("block-publish", "producer_kernel", flag, "MP-block[nobar-release-sys]"),
    }
    removed = next(f for f in linted(name).findings if f.rule == "spin-removed")
    assert removed.incorrect and removed.verdict.bug_allowed
    assert "the compiler removed your spin" in removed.message and "sem='acquire'" in removed.fix
    # the consumer is no longer "nothing to check", and its reset of a flag it never waits for
    # (in the compiled code) is no plain-reset finding
    assert not any("nothing to check" in n for n in linted(name).notes)
    assert not any(f.rule == "plain-reset" for f in linted(name).findings)
    assert found("iris_message_passing_fixed") == set()


def test_iris_message_passing_with_peer_flag_and_alone() -> None:
    path = kernel_file("iris_message_passing")
    with_peer = lint_file(path, peers=["flag"])
    assert {(f.rule, f.kernel) for f in with_peer.incorrect} >= {("spin-removed", "consumer_kernel"),
                                                                 ("relaxed-signal", "producer_kernel")}
    # alone, the producer's plain store is still a flag: the file's (removed) spin reads `flag`
    alone = lint_file(path, "producer_kernel")
    assert {f.rule for f in alone.findings} == {"relaxed-signal", "block-publish"}


def test_iris_one_shot_all_reduce_the_local_tile_is_payload() -> None:
    name = "iris_one_shot_all_reduce"
    assert found(name) == {("block-publish", "all_reduce_as_written", line_of(name, "notify"),
                            "SYMM-barrier-p1[acqrel-nopre-sys]")}
    f = linted(name).findings[0]
    assert f.related[0].line == line_of(name, "tile-store")


def test_triton_distributed_one_cta_publishes_the_grid() -> None:
    name = "triton_dist_grid_signal"
    assert found(name) == {("cross-cta-publish", "ring_step_no_grid_barrier", line_of(name, "cta0-flag"),
                            "MP-grid[cta0-release-sys]")}
    f = linted(name).findings[0]
    assert f.incorrect and f.related[0].line == line_of(name, "block-store") and "grid barrier" in f.fix
    flag = next(e for e in linted(name).kernels[0].events.events if e.kind == "atomic")
    assert flag.one_cta and not any(e.one_cta for e in linted(name).kernels[2].events.events)


def test_symm_mem_recipes_acquire_after_bar_sync_is_the_acquire() -> None:
    name = "symm_mem_recipes_acquire"
    assert found(name) == {("volatile-poll", "read_after_other_acquire", line_of(name, "wait-other"),
                            "SYMM-barrier-p1[recipes-nobar-acq-sys]")}
    f = linted(name).findings[0]
    # the payload is the tl.load, not the asm ld.acquire; the acquire of another address is named
    assert f.related[0].line == line_of(name, "read-other")
    assert f"the tl.load at line {line_of(name, 'read-other')}" in f.message
    assert f"acquire at line {line_of(name, 'acquire-other')}" in f.message and "ld.acquire" in f.fix
    k = linted(name).kernels[0]
    send, wait = [e for e in k.events.events if e.kind == "spin"]
    # one asm string, two spins, each at the operand its [$n] names
    assert (send.until, send.reset, wait.until, wait.reset) == (0, 1, 1, 0)
    assert send.ptr.base != wait.ptr.base and wait.ptr.base == next(
        e for e in k.events.events if e.sem == "acquire").ptr.base


def test_rocm_streamk_a_wt_store_flag_and_a_volatile_spin() -> None:
    name = "rocm_streamk"
    assert found(name) == {
        # a flag: the spin reads `locks + next_pid`, another slot of the array the store writes
        ("relaxed-signal", "streamk_as_written", line_of(name, "wt-flag"), "MP-iris[plain-signal-sys]"),
        ("volatile-poll", "streamk_as_written", line_of(name, "cv-spin"), "MP-iris-volatile[volatile-as-written]"),
    }
    signal, poll = sorted(linted(name).findings, key=lambda f: f.site.line)
    assert signal.incorrect and "a plain tl.store (weak)" in signal.message
    assert signal.related[0].line == line_of(name, "partial")
    assert poll.incorrect and poll.related[0].line == line_of(name, "partials")
    # the flag is raised under `if start_iter != tile_iter`, not in every round: no signal-reuse
    flag = next(e for e in linted(name).kernels[0].events.events if e.kind == "store" and not e.ptr.vector)
    assert flag.loop and flag.some_rounds


def test_triton_distributed_ticket_after_the_ctas_stores() -> None:
    name = "triton_dist_ticket"
    assert found(name) == {
        ("block-publish", "ring_step_ticket_as_written", line_of(name, "ticket-add"), "MP-block[nobar-release-sys]"),
        ("cross-cta-publish", "ring_step_ticket_as_written", line_of(name, "ticket-flag"),
         "MP-grid[ticket-release-sys]"),
        ("cross-cta-publish", "ring_step_ticket_release_only", line_of(name, "release-only-flag"),
         "MP-grid[ticket-release-sys]"),
    }
    block = next(f for f in linted(name).findings if f.rule == "block-publish")
    assert block.incorrect and block.related[0].line == line_of(name, "ticket-block")
    assert "signal by some threads" in block.message and "atom.release.gpu.global.add" in block.message
    # the inline asm's `$2` is the constant 1 it is given: a ticket whose value the kernel reads
    add = next(e for e in linted(name).kernels[0].events.events if e.kind == "atomic")
    assert (add.value, add.used) == (1, True)
    ticket = next(f for f in linted(name).findings if f.kernel == "ring_step_ticket_release_only")
    assert ticket.incorrect and [s.line for s in ticket.related] == [line_of(name, "release-only-block"),
                                                                     line_of(name, "release-only-ticket")]
    assert "last ticket" in ticket.message and "sem='release'" in ticket.message and "acq_rel" in ticket.fix


def test_the_last_tickets_flag_is_emitted_with_the_other_ctas_ticket() -> None:
    tests = _patterns("triton_dist_ticket")
    release_only = tests["LINT-triton-dist-ticket-ring-step-ticket-release-only"]
    # P8, another CTA, stores z and adds to the counter; P0's ticket reads that add
    store, add = release_only.thread("P8").instrs
    assert (type(store).__name__, add.op, add.loc, add.sem) == ("Store", "add", "grid", "release")
    assert [type(i).__name__ for i in release_only.thread("P0").instrs] == ["Store", "Barrier", "Spin", "Store"]
    assert check(release_only).target_reachable
    assert not check(tests["LINT-triton-dist-ticket-ring-step-ticket-fixed"]).target_reachable


def _patterns(name: str, kernel: str | None = None) -> dict:
    report = linted(name) if kernel is None else lint_file(kernel_file(name), kernel)
    return {t.id: t for t in load_text(report.emit_yaml(), f"{name}.yaml")}


def test_a_counter_barrier_is_emitted_with_its_senders() -> None:
    tests = _patterns("iris_one_shot_all_reduce")
    fixed = tests["LINT-iris-one-shot-all-reduce-all-reduce-fixed"]
    # world_size 3: the wait counts 2 senders, P0 and P4, each adding 1 after its own tile
    assert {t.name for t in fixed.threads} == {"P0", "P1", "P2", "P4"}
    m = check(fixed)
    assert not m.target_reachable and not m.possible_hang
    m = check(tests["LINT-iris-one-shot-all-reduce-all-reduce-as-written"])
    assert m.target_reachable and not m.possible_hang


def test_the_removed_spin_and_the_grid_are_in_the_emitted_patterns() -> None:
    mp = _patterns("iris_message_passing")["LINT-iris-message-passing-producer-kernel"]
    assert not any(i.__class__.__name__.lower().startswith("spin") for i in mp.thread("P1").instrs)
    assert check(mp).target_reachable
    grid = _patterns("triton_dist_grid_signal")
    assert check(grid["LINT-triton-dist-grid-signal-ring-step-no-grid-barrier"]).target_reachable
    assert grid["LINT-triton-dist-grid-signal-ring-step-no-grid-barrier"].thread("P8") is not None
    assert not check(grid["LINT-triton-dist-grid-signal-ring-step-per-cta-flag"]).target_reachable


def test_each_kernel_file_names_its_source_and_commit() -> None:
    for name in ("iris_message_passing", "iris_message_passing_fixed", "iris_one_shot_all_reduce",
                 "triton_dist_grid_signal", "symm_mem_recipes_acquire", "rocm_streamk", "triton_dist_ticket"):
        doc = kernel_file(name).read_text().split('"""')[1]
        assert re.search(r"commit\s+[0-9a-f]{8}", doc) and re.search(r"\w+/[\w-]+\s+``[\w/-]+\.py``", doc), name


def test_the_page_shows_what_spin_removed_prints() -> None:
    import triton
    from click.testing import CliRunner

    from litmus.cli import main
    from tests.lint.test_docs import _matches

    doc = (REPO / "docs" / "lint.md").read_text()
    block = doc.split("```console\n$ litmus lint tests/lint/kernels/iris_message_passing.py\n", 1)[1].split("```")[0]
    # the page shows triton 3.9's summary line; 3.6 removes the spin too and gives the same findings
    block = block.replace("(triton 3.9.0)", f"(triton {triton.__version__})")
    cwd = os.getcwd()
    os.chdir(REPO)  # the page shows paths relative to the repository
    try:
        r = CliRunner().invoke(main, ["lint", "tests/lint/kernels/iris_message_passing.py"])
    finally:
        os.chdir(cwd)
    assert r.exit_code == 1
    assert _matches(block.splitlines(), r.output.splitlines()), r.output
