"""Per-op compiled code from the line table: attribution, signatures, comparison."""

from __future__ import annotations

from litmus.audit.op_code import compare_op_code, op_code, op_lines, signature

SOURCE = """def k():
    setup = 1
    # --- P0[0] (line 3)
    # store: plain st
    tl.store(a, 1)
    # --- P0[1] (line 4)
    _ = tl.atomic_cas(f, 0, 1, sem="release", scope="sys")
    # outputs of P0
    tl.store(out, 0)
"""

PTX = """\t.file\t1 "/cache/kernels/litmus_abc.py"
\t.file\t2 "/triton/language/standard.py"
\t.loc\t1 2 5
\tld.global.b64 %rd1, [%rd2];
\t.loc\t1 5 5
\tst.global.v2.b32 [%rd3], {%r1, %r2};
\t.loc\t1 7 9
\tbar.sync 0;
\t.loc\t1 8 9
\tatom.global.release.sys.cas.b32 %r3, [%rd4], %r4, %r5;
\t.loc\t2 314 12, function_name $L__info_string0, inlined_at 1 7 27
\tmembar.sys;
\t.loc\t1 9 5
\tst.global.b32 [%rd5], %r6;
"""


def test_each_op_owns_its_lines_and_the_comment_after_it() -> None:
    lines = op_lines(SOURCE)
    assert lines[5] == "P0[0]" and lines[7] == "P0[1]"
    assert lines[6] == "P0[0]"  # the next marker: a comment, counted to the op before it
    assert lines[8] == "P0[1]"  # '# outputs of P0' right after P0[1]'s code
    assert 2 not in lines and 9 not in lines  # setup and outputs are no op's


def test_harness_code_inside_an_op_is_no_ops() -> None:
    source = """def k():
    # --- P1[0] (line 3)
    while go:
        got = tl.atomic_load(f, sem="acquire", scope="sys")
        if it % 64 == 0:  # harness: has every other thread of the instance finished?
            fin = tl.load(w, volatile=True)  # harness
        it += 1
    # outputs of P1
"""
    ptx = """\t.file\t1 "/cache/kernels/litmus_abc.py"
\t.loc\t1 4 15
\tld.global.acquire.sys.b32 %r1, [%rd1];
\t.loc\t1 6 19
\tld.volatile.global.b32 %r2, [%rd2];
"""
    lines = op_lines(source)
    assert lines[4] == lines[7] == "P1[0]" and 5 not in lines and 6 not in lines
    assert op_code(ptx, "ptx", source) == {"P1[0]": frozenset({"ld.acquire.b32.global.sys"})}


def test_op_code_reads_the_line_table_with_inlined_code_and_drops_vector_widths() -> None:
    code = op_code(PTX, "ptx", SOURCE)
    assert code == {"P0[0]": frozenset({"st.b32.global"}),
                    "P0[1]": frozenset({"bar.sync", "atom.b32.cas.global.release.sys", "membar.sys"})}


def test_signatures_keep_ordering_and_drop_the_rest() -> None:
    assert signature("ptx", "add", frozenset({"s32"}), "add.s32") is None
    assert signature("ptx", "ld", frozenset({"shared", "b32"}), "ld.shared.b32") is None
    assert signature("amdgcn", "global_load_dwordx2", frozenset({"v1", "sc0", "sc1", "off"}),
                     "global_load_dwordx2 v1, v[2:3], off sc0 sc1") == "global_load_dword sc0 sc1"
    # where a wait lands depends on unrelated code: left to the rule-based audit
    assert signature("amdgcn", "s_waitcnt", frozenset({"vmcnt(0)"}), "s_waitcnt vmcnt(0)") is None


def test_compare_names_what_each_side_has_alone() -> None:
    a = {"P0[1]": frozenset({"atom.release.sys"})}
    r = {"P0[1]": frozenset({"atom.relaxed.sys"})}
    assert compare_op_code(a, r, "grid") == [
        "P0[1]: only in the audited kernel: atom.release.sys; only in the grid kernel: atom.relaxed.sys"]
    assert compare_op_code(a, a, "grid") == []
    # a signature the other kernel has only without a line is excused, and only that one
    loose = {**r, "(no line)": frozenset({"atom.release.sys"})}
    assert compare_op_code(a, {"P0[1]": frozenset(), "(no line)": frozenset({"atom.release.sys"})}, "grid") == []
    assert compare_op_code(a, loose, "grid") == [
        "P0[1]: only in the audited kernel: -; only in the grid kernel: atom.relaxed.sys"]
    both = {"P0[1]": frozenset({"atom.release.sys"}), "(no line)": frozenset({"atom.release.sys"})}
    assert compare_op_code(a, both, "grid") == []


def test_a_cta_barrier_merged_into_the_adjacent_barrier_op_is_no_difference() -> None:
    bar, st = frozenset({"bar.sync"}), frozenset({"st.global.relaxed.sys"})
    audited = {"P0[0]": st, "P0[1]": bar, "P1[0]": bar, "P1[1]": frozenset({"ld.global.relaxed.sys"})}
    merged = {**audited, "P0[1]": frozenset()}  # the compiler kept one bar.sync, under P1[0]
    order = ["P0[0]", "P0[1]", "P1[0]", "P1[1]"]
    assert compare_op_code(audited, merged, "parallel", order) == []
    # without the order, or with a memory op between the two barriers, it is a difference
    assert compare_op_code(audited, merged, "parallel") != []
    assert compare_op_code(audited, merged, "parallel", ["P0[1]", "P0[0]", "P1[0]", "P1[1]"]) != []
    # a barrier lost next to an op that is not barrier-only is a difference too
    lost = {**audited, "P0[1]": frozenset(), "P1[0]": frozenset({"bar.sync", "st.global.relaxed.sys"})}
    assert compare_op_code(audited, lost, "parallel", order) != []
    # and so is a barrier op that turned into something else
    assert compare_op_code(audited, {**audited, "P0[1]": st}, "parallel", order) != []


def test_a_mergeable_plain_access_kept_in_one_kernel_only_is_no_difference() -> None:
    kept = {"P4[2]": frozenset({"ld.b8.global"})}
    merged = {"P4[2]": frozenset()}
    assert compare_op_code(merged, kept, "grid", mergeable=frozenset({"P4[2]"})) == []
    assert compare_op_code(kept, merged, "grid", mergeable=frozenset({"P4[2]"})) == []
    # not mergeable: a difference
    assert compare_op_code(merged, kept, "grid") != []
    # a strong access is never excused, nor a plain one that became another plain access
    strong = {"P4[2]": frozenset({"ld.global.relaxed.sys"})}
    assert compare_op_code(merged, strong, "grid", mergeable=frozenset({"P4[2]"})) != []
    assert compare_op_code(kept, {"P4[2]": frozenset({"ld.b32.global"})}, "grid",
                           mergeable=frozenset({"P4[2]"})) != []
