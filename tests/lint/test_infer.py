"""Types inferred from the kernel's source: the unannotated kernel pair lints with no
signature, pointers are found through arithmetic and helpers, and constexprs get values that
compile."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from litmus.cli import main
from litmus.lint.infer import summarize
from litmus.lint.load import find_kernels, import_file
from litmus.lint.signature import kernel_signature
from tests.lint.conftest import kernel_file, line_of, linted


def test_the_unannotated_pair_lints_without_a_signature() -> None:
    assert linted("unannotated_broken").rules() == {
        ("peer-scope", "producer", line_of("unannotated_broken", "scope")),
        ("volatile-poll", "consumer", line_of("unannotated_broken", "poll")),
    }
    assert linted("unannotated_ok").rules() == set()


def test_the_report_says_what_was_inferred_in_text_and_json() -> None:
    f = str(kernel_file("unannotated_broken"))
    r = CliRunner().invoke(main, ["lint", f])
    assert r.exit_code == 1
    assert ("kernel producer: inferred src=*fp32 (pointer), data=*fp32 (pointer), flag=*i32 (atomic's pointer), "
            "heap_bases=*u64 (pointer to addresses), cur_rank=i32 (integer)") in r.output
    assert "--signature 'data=*fp32,flag=*i32,out=*fp32,n_elements=i32,BLOCK=128'" in r.output
    data = json.loads(CliRunner().invoke(main, ["lint", f, "--json"]).output)
    producer = next(k for k in data["kernels"] if k["kernel"] == "producer")
    assert producer["inferred"]["heap_bases"] == {"value": "*u64", "why": "pointer to addresses"}
    assert producer["inferred"]["BLOCK"] == {"value": 128, "why": "block size"}
    assert any("kernel producer: inferred" in n for n in producer["notes"])


def test_pointers_through_arithmetic_and_a_translate_helper() -> None:
    [k] = find_kernels(kernel_file("unannotated_broken"), "producer")
    uses = summarize(k.fn).uses
    assert uses["flag"].pointer and uses["flag"].atomic  # via translate(flag + pid, ...) into tl.atomic_xchg
    assert uses["heap_bases"].table  # its loaded words become a pointer in translate
    assert not uses["cur_rank"].pointer and not uses["n_elements"].pointer  # heap_bases + cur_rank: the offset


SOURCE = '''
import triton
import triton.language as tl


@triton.jit
def load_peer(table, rank):
    return tl.load(table + rank).to(tl.pointer_type(tl.float32))


@triton.jit
def k(buffer_ptrs, out, stride, rank: tl.constexpr, world_size: tl.constexpr, STAGES: tl.constexpr,
      MODE: tl.constexpr, BLOCK_M: tl.constexpr, scale=2):
    offs = tl.arange(0, BLOCK_M)
    peers = tl.arange(0, world_size)
    acc = tl.zeros([BLOCK_M], tl.float32)
    for i in range(STAGES):
        peer = load_peer(buffer_ptrs, (rank + 1) % world_size)
        acc += tl.load(peer + offs * stride)
    if MODE == "sum":
        tl.store(out + offs, acc * scale)
'''


def test_constexprs_get_values_that_compile(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(textwrap.dedent(SOURCE))
    sig = kernel_signature(import_file(path).k, {})
    assert sig.types == {"buffer_ptrs": "*u64", "out": "*fp32", "stride": "i32"}
    assert sig.constexprs == {"rank": 0, "world_size": 2, "STAGES": 1, "MODE": "sum", "BLOCK_M": 128, "scale": 2}
    assert sig.inferred["MODE"] == "compared with 'sum'" and sig.inferred["scale"] == "its default"
    from litmus.lint import lint_file

    assert lint_file(path).kernels[0].name == "k"  # and it compiles


@pytest.mark.parametrize("target", ["cuda:90", "hip:gfx942"])
def test_the_unannotated_pair_on_both_targets(target: str) -> None:
    from litmus.lint import lint_file

    assert {r for r, _, _ in lint_file(kernel_file("unannotated_broken"), target=target).rules()} == {
        "peer-scope", "volatile-poll"}


FLAGS = '''
import triton
import triton.language as tl
from absent_lib import grid_sync


@triton.jit
def k(x, numel: tl.constexpr, EVEN: tl.constexpr, FP8: tl.constexpr, COOP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    dtype = tl.float8e4nv if FP8 else tl.float32
    grid_sync(x, COOP)
    if EVEN:
        v = tl.load(x + offs)
    else:
        v = tl.load(x + offs, mask=offs < numel)
    tl.store(x + offs, v.to(dtype))
'''


def test_flags_bounds_and_stub_arguments(tmp_path: Path) -> None:
    path = tmp_path / "flags.py"
    path.write_text(FLAGS)
    sig = kernel_signature(import_file(path).k, {})
    assert sig.constexprs == {"numel": 128, "EVEN": False, "FP8": False, "COOP": False, "BLOCK": 128}
    assert sig.inferred["COOP"] == "given only to a function of a module stubbed empty"
    assert sig.inferred["numel"] == "a bound compared with indices"


TUPLES_AND_DESCRIPTORS = '''
import triton
import triton.language as tl


@triton.jit
def k(buf_tuple, pair, a_desc, out, combine_fn, DT: tl.constexpr, world_size: tl.constexpr,
      BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(world_size):
        acc += tl.load(buf_tuple[i] + offs)
    acc += tl.load(pair[1] + offs)
    tile = a_desc.load([0, 0])
    acc = combine_fn(acc, tl.sum(tile.to(tl.float32), axis=0))
    bits = acc.to(DT, bitcast=True)
    tl.store(out + offs, bits.to(tl.float32, bitcast=True))
'''


def test_tuples_descriptors_functions_and_dtypes_are_inferred(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(TUPLES_AND_DESCRIPTORS)
    import triton.language as tl

    from litmus.lint.libs._common import combine_add

    sig = kernel_signature(import_file(path).k, {})
    assert sig.types["buf_tuple"] == ("*fp32", "*fp32")  # indexed below world_size=2
    assert sig.types["pair"] == ("*fp32", "*fp32")  # indexed up to 1
    assert sig.types["a_desc"] == "tensordesc<bf16[128, 128]>"
    assert sig.constexprs["combine_fn"] is combine_add and sig.constexprs["DT"] == tl.uint32
    assert "indexed below world_size=2" in sig.inferred["buf_tuple"]
    assert "a tensor descriptor" in sig.inferred["a_desc"]
    note = sig.inferred_note()
    assert "buf_tuple=(*fp32,*fp32)" in note and "DT=tl.uint32" in note and "combine_fn=combine_add" in note
    from litmus.lint import lint_file

    report = lint_file(path)
    assert report.kernels[0].name == "k"  # and it compiles
    inferred = json.loads(json.dumps(report.as_dict()))["kernels"][0]["inferred"]  # --json can hold each value
    assert inferred["DT"]["value"] == "tl.uint32" and inferred["buf_tuple"]["value"] == "(*fp32,*fp32)"


def test_a_tuple_or_a_dtype_given_on_the_command_line(tmp_path: Path) -> None:
    from litmus.lint.signature import parse_signature

    path = tmp_path / "k.py"
    path.write_text(TUPLES_AND_DESCRIPTORS)
    given = parse_signature("buf_tuple=(*fp16,*fp16),a_desc=tensordesc<fp16[64, 64]>,DT=tl.int32")
    assert given["buf_tuple"] == "(*fp16,*fp16)" and given["a_desc"] == "tensordesc<fp16[64, 64]>"
    sig = kernel_signature(import_file(path).k, given)
    import triton.language as tl

    assert sig.types["buf_tuple"] == ("*fp16", "*fp16") and sig.constexprs["DT"] == tl.int32


def test_a_function_of_three_arguments_is_not_guessed(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text('''
import triton
import triton.language as tl


@triton.jit
def k(x, fn):
    tl.store(x, fn(1, 2, 3))
''')
    from litmus.errors import LitmusError

    with pytest.raises(LitmusError, match="fn: called as a function of 3 arguments"):
        kernel_signature(import_file(path).k, {})


def test_a_constexpr_that_guards_an_early_return_takes_the_other_value(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text('''
import triton
import triton.language as tl


@triton.jit
def k(flag, TILES: tl.constexpr, MODE: tl.constexpr):
    if TILES == 0:
        return
    if MODE == 2:
        tl.atomic_xchg(flag, TILES, sem="release")
''')
    sig = kernel_signature(import_file(path).k, {})
    assert sig.constexprs == {"TILES": 1, "MODE": 2}  # the code after `return` is compiled; MODE takes its literal
    assert sig.inferred["TILES"] == "compared with 0 before a return: 1, so the code after it is compiled"
