"""``litmus.lint(kernel)``: the lint check as a fixture for users' own test suites."""

from __future__ import annotations

import pytest

KERNELS = '''
import triton
import triton.language as tl


@triton.jit
def publish_ok(data: "*fp32", flag: "*i32", BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(data + offs, tl.full([BLOCK], 1.0, tl.float32))
    tl.debug_barrier()
    tl.atomic_xchg(flag, 1, sem="release")


@triton.jit
def publish_broken(data: "*fp32", flag: "*i32", BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(data + offs, tl.full([BLOCK], 1.0, tl.float32))
    tl.atomic_xchg(flag, 1, sem="release")
'''


def test_lint_fixture_passes_a_sound_kernel_and_fails_a_broken_one(pytester: pytest.Pytester,
                                                                   flags: list[str]) -> None:
    pytester.makepyfile(mykernels=KERNELS)
    pytester.makepyfile(test_mine="""
        from mykernels import publish_ok, publish_broken

        def test_ok(litmus):
            result = litmus.lint(publish_ok, signature={"BLOCK": 128})
            assert result.findings == []
            result.assert_clean()

        def test_broken(litmus):
            result = litmus.lint(publish_broken, signature={"BLOCK": 128})
            assert result.rules() == {"block-publish"}
            result.assert_clean()

        def test_bad_signature(litmus):
            litmus.lint(publish_ok)
    """)
    result = pytester.runpytest_inprocess(*flags, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=2)
    out = result.stdout.str()
    assert "mykernels.py:17: block-publish: scalar atomic after vector stores" in out
    assert "pattern: MP-block[nobar-release-sys]" in out
    assert "litmus.lint: " in out and "cannot compile without the type or constexpr value of BLOCK" in out
    assert "litmus/lint/" not in out  # no traceback through the linter


MATES = '''
import triton
import triton.language as tl


@triton.jit
def plain_publish(data: "*i32", flag: "*i32"):
    tl.store(data, 1)
    tl.store(flag, 1)


@triton.jit
def consume(data: "*i32", flag: "*i32", out: "*i32"):
    while tl.atomic_add(flag, 0, sem="acquire", scope="gpu") != 1:
        pass
    tl.store(out, tl.load(data))
'''


def test_lint_fixture_reads_the_kernels_file_mates_and_emits_a_pattern(pytester: pytest.Pytester,
                                                                        flags: list[str]) -> None:
    pytester.makepyfile(mates=MATES)
    pytester.makepyfile(test_mates="""
        from litmus.model import check
        from litmus.spec import load_text
        from mates import consume, plain_publish

        def test_plain_store_is_a_flag_because_consume_spins_on_it(litmus):
            result = litmus.lint(plain_publish)
            assert [(f.rule, f.pattern) for f in result.findings] == [
                ("relaxed-signal", "MP-iris[plain-signal-sys]")]
            [t] = load_text(result.emit_yaml())
            assert check(t).target_reachable

        def test_the_consumer_is_clean(litmus):
            result = litmus.lint(consume)
            assert result.findings == []
            result.assert_clean()
            [t] = load_text(result.emit_yaml())
            assert not check(t).target_reachable

        def test_a_misspelt_peer(litmus):
            litmus.lint(consume, peers=["flags"])

        def test_not_a_kernel(litmus):
            litmus.lint(print)
    """)
    result = pytester.runpytest_inprocess(*flags, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2)
    out = result.stdout.str()
    assert "litmus.lint: " in out and "--peer flags (peers=): no kernel linted here (consume)" in out
    assert "is not a @triton.jit function" in out
    assert "litmus/lint/" not in out  # no traceback through the linter
