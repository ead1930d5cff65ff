"""Reading TTIR text: ops, regions, SSA values (shadowed names kept apart) and locations."""

from __future__ import annotations

import pytest

from litmus.errors import LitmusError
from litmus.lint.ttir import constant, parse, walk

TTIR = '''#loc = loc("/u/k.py":5:1)
module {
  tt.func public @k(%flag: !tt.ptr<i32> loc("flag"(#loc)), %n: i32 loc("n"(#loc))) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32 loc(#loc1)
    %c1_i32 = arith.constant 1 : i32 loc(#loc1)
    scf.while (%done = %c0_i32) : (i32) -> () {
      %2 = arith.cmpi eq, %done, %c0_i32 : i32 loc(#loc2)
      scf.condition(%2) loc(#loc2)
    } do {
      %done = tt.atomic_cas acquire, sys, %flag, %c1_i32, %c0_i32 : (!tt.ptr<i32>, i32, i32) -> i32 loc(#loc4)
      scf.yield %done : i32 loc(#loc3)
    } loc(#loc3)
    %r = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%acc = %c0_i32) -> (i32)  : i32 {
      %s = arith.addi %acc, %i : i32 loc(#loc2)
      scf.yield %s : i32 loc(#loc2)
    } loc(#loc3)
    ttg.barrier all loc(#loc5)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc1 = loc(unknown)
#loc2 = loc("/u/k.py":7:11)
#loc3 = loc("/u/k.py":7:5)
#loc6 = loc("/u/helper.py":3:9)
#loc7 = loc("/u/k.py":8:16)
#loc4 = loc("done"(#loc8))
#loc8 = loc(callsite(#loc6 at #loc7))
#loc5 = loc("/u/k.py":9:5)
'''


def test_functions_args_and_regions() -> None:
    [fn] = parse(TTIR)
    assert fn.name == "k" and [a.name for a in fn.args] == ["flag", "n"]
    names = [op.name for op in fn.body.ops]
    assert names == ["arith.constant", "arith.constant", "scf.while", "scf.for", "ttg.barrier", "tt.return"]
    loop = fn.body.ops[2]
    assert len(loop.regions) == 2 and loop.regions[0].ops[-1].name == "scf.condition"


def test_a_name_reused_in_a_sibling_region_is_another_value() -> None:
    [fn] = parse(TTIR)
    loop = fn.body.ops[2]
    arg = loop.regions[0].args[0]
    cas = loop.regions[1].ops[0]
    assert arg.name == cas.results[0].name == "done" and arg.id != cas.results[0].id
    cmp = loop.regions[0].ops[0]
    assert cmp.operands[0] is arg  # the before region reads the block argument
    assert loop.regions[1].ops[-1].operands[0] is cas.results[0]  # the yield passes the CAS result
    assert fn.args[0] in cas.operands


def test_locations_resolve_through_names_and_call_sites() -> None:
    [fn] = parse(TTIR)
    cas = fn.body.ops[2].regions[1].ops[0]
    assert [(f.file, f.line, f.col) for f in cas.frames] == [("/u/helper.py", 3, 9), ("/u/k.py", 8, 16)]
    assert fn.body.ops[4].frames[0].line == 9
    assert fn.body.ops[0].frames == ()  # loc(unknown)


def test_constants_and_walk() -> None:
    [fn] = parse(TTIR)
    assert constant(fn.body.ops[1].results[0]) == 1
    assert [op.name for op in walk(fn.body)].count("scf.yield") == 2


def test_unbalanced_text_is_an_error() -> None:
    with pytest.raises(LitmusError, match="unbalanced"):
        parse(TTIR.split("ttg.barrier")[0])
