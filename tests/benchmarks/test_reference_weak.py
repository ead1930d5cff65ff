"""The cuda-litmus-style reference kernel (benchmarks/reference_weak.py) under the Triton interpreter:
every instance is played exactly once per role, the two roles in different programs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import reference_weak as rw  # noqa: E402


@pytest.mark.parametrize("test", rw.TESTS)
@pytest.mark.parametrize("programs,block,iterations", [(2, 4, 1), (3, 8, 2), (5, 4, 3)])
def test_every_instance_played_once_per_role(test: str, programs: int, block: int, iterations: int) -> None:
    ref = rw.WeakReference(test, programs, block, iterations, device="cpu", seed=7, mark=True)
    n = ref.instances
    assert n == programs * block * iterations
    for k in range(3):  # three rounds: three seeded shuffles
        r = ref.run_round(k)
        mark = ref.buffers["mark"]
        plays0, plays1, prog0, prog1 = mark[:n], mark[n:2 * n], mark[2 * n:3 * n], mark[3 * n:]
        assert plays0.eq(1).all() and plays1.eq(1).all(), f"round {k}: an instance not played exactly once"
        assert prog0.ne(prog1).all(), f"round {k}: both roles of an instance in one program"
        assert ref.buffers["loc"].eq(1).all(), f"round {k}: a location never written"
        assert sum(r.counts) == n and r.instances == n
        assert r.weak == r.counts[rw.WEAK_CODE[test]]


def test_rounds_are_seeded() -> None:
    a = rw.WeakReference("MP", 6, 8, 1, device="cpu", seed=3)
    b = rw.WeakReference("MP", 6, 8, 1, device="cpu", seed=3)
    c = rw.WeakReference("MP", 6, 8, 1, device="cpu", seed=4)
    pa, pb, pc = (x.round_params(5) for x in (a, b, c))
    assert pa[0].tolist() == pb[0].tolist() and pa[1:] == pb[1:]
    assert (pa[0].tolist(), pa[1:]) != (pc[0].tolist(), pc[1:])
    perm, lane_mult, loc_mult = pa
    assert sorted(perm.tolist()) == list(range(6)) and lane_mult % 2 == 1 and 1 <= loc_mult < 48
    a.run_round(5)
    b.run_round(5)
    assert a.buffers["rb"].tolist() == b.buffers["rb"].tolist()


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        rw.WeakReference("MP", 1, 8, device="cpu")
    with pytest.raises(ValueError, match="power of two"):
        rw.WeakReference("MP", 4, 6, device="cpu")
    with pytest.raises(ValueError, match="interpreter"):
        rw.WeakReference("MP", 4, 8, access="relaxed", device="cpu")


def test_occupancy_estimate() -> None:
    class Props:
        max_threads_per_multi_processor = 2048
        regs_per_multiprocessor = 65536
        shared_memory_per_multiprocessor = 233472

    assert rw.occupancy(n_regs=24, num_warps=8, shared=0, props=Props) == 8  # thread limit
    assert rw.occupancy(n_regs=64, num_warps=8, shared=0, props=Props) == 4  # register limit
    assert rw.occupancy(n_regs=16, num_warps=1, shared=0, props=Props) == 32  # programs-per-SM cap


def test_relaxed_access_compiles_to_relaxed_gpu_ptx() -> None:
    """The GPU form: ld/st.relaxed.gpu for the test's accesses (compiled for sm_90, no GPU needed)."""
    triton = pytest.importorskip("triton")
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    mod = rw.kernel_module(interpret=False)
    sig = {n: "*i32" for n in ("loc", "ra", "rb", "wg_perm", "mark")}
    sig.update({n: "i32" for n in ("G", "L", "ITERS", "lane_mult", "loc_mult")})
    sig.update({n: "constexpr" for n in ("TEST", "ACCESS", "MARK", "BLOCK")})
    src = ASTSource(mod.weak_kernel, sig, constexprs={"TEST": 0, "ACCESS": 0, "MARK": False, "BLOCK": 256})
    try:
        ptx = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 8}).asm["ptx"]
    except Exception as e:  # no ptxas/LLVM for cuda in this triton build
        pytest.skip(f"cannot compile for cuda:90 here: {e}")
    assert ptx.count("st.relaxed.gpu.global.b32") == 2
    assert ptx.count("ld.relaxed.gpu.global.b32") == 2
