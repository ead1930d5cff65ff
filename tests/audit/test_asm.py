"""Reading PTX, AMDGCN and SASS text into mnemonic + qualifier sets."""

from litmus.audit.asm import parse_asm


def test_ptx_predicates_comments_and_multiple_statements_per_line() -> None:
    text = "\t@%p1 atom.global.sys.acq_rel.exch.b32 %r3, [ %rd1 + 0 ], %r1; // x\n" \
           "\tfence.sc.sys; mov.u32 %r2, 0;\n.loc 1 2 3\n$L__tmp0:\n.b8 1 // DWARF\n\tbar.sync \t0;\n"
    got = [(i.line, i.mnemonic, sorted(i.quals)) for i in parse_asm(text, "ptx")]
    assert got == [
        (1, "atom", ["acq_rel", "b32", "exch", "global", "sys"]),
        (2, "fence", ["sc", "sys"]),
        (2, "mov", ["u32"]),
        (6, "bar", ["sync"]),
    ]


def test_amdgcn_modifiers_are_qualifiers_and_metadata_is_skipped() -> None:
    text = "\tbuffer_wbl2 sc0 sc1\n\ts_waitcnt vmcnt(0) lgkmcnt(0)\n" \
           "\tglobal_atomic_cmpswap v0, v1, v[0:1], s[2:3] sc0 sc1 ; comment\n.LBB0_2:\n" \
           "amdhsa.target:   amdgpu9.42\n  - .address_space:  global\n"
    got = [(i.mnemonic, {"sc0", "sc1", "vmcnt(0)"} & i.quals) for i in parse_asm(text, "amdgcn")]
    assert got == [("buffer_wbl2", {"sc0", "sc1"}), ("s_waitcnt", {"vmcnt(0)"}),
                   ("global_atomic_cmpswap", {"sc0", "sc1"})]


def test_sass_control_codes_addresses_and_predicates_are_stripped() -> None:
    text = "Function:k\n--:-:-:-:6\tMEMBAR.ALL.SYS;\n01:0:5:-:2\t@!P0 ATOMG.E.CAS.STRONG.SYS PT, R2, [R2], R4, R5;\n" \
           "        /*00f0*/                   LDG.E.STRONG.GPU R2, desc[UR6][R2.64] ;\nLBB0:\n"
    got = [(i.mnemonic, sorted(i.quals)) for i in parse_asm(text, "sass")]
    assert got == [("MEMBAR", ["ALL", "SYS"]), ("ATOMG", ["CAS", "E", "STRONG", "SYS"]),
                   ("LDG", ["E", "GPU", "STRONG"])]
