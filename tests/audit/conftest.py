"""Compiled text of the hand-written kernels, compiled once per session and shared."""

from __future__ import annotations

import warnings
from functools import lru_cache

from litmus.audit.compile import compile_jit
from litmus.ir import Barrier, Condition, Const, Fence, LitmusTest, Load, Location, Rmw, Store, Thread, TrueProp


@lru_cache(maxsize=None)
def compiled(kernel: str, target: str, **constexprs: object) -> dict[str, str]:
    """Text artifacts of ``tests.audit.kernels.<kernel>`` for ``ptx``, ``amdgcn`` or ``sass`` (cached)."""
    from tests.audit import kernels

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile_jit(getattr(kernels, kernel), kernels.SIG, target, constexprs)


def text(kernel: str, kind: str, **constexprs: object) -> str:
    """The ``ptx``/``amdgcn``/``sass`` text of a kernel."""
    return compiled(kernel, kind, **constexprs)[kind]


def single_thread_test(*instrs: object, name: str = "T") -> LitmusTest:
    """A one-thread LitmusTest with locations x and flag, running ``instrs``."""
    return LitmusTest(
        name=name, variant="", locations=(Location("x"), Location("flag")),
        threads=(Thread("P0", 0, 0, tuple(instrs)),), condition=Condition("exists", TrueProp()),
    )


__all__ = ["Barrier", "Const", "Fence", "Load", "Rmw", "Store", "compiled", "single_thread_test", "text"]
