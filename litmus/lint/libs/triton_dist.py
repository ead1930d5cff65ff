"""Stand-in for the ``triton_dist`` package of ByteDance-Seed/Triton-distributed: its device
language is :mod:`litmus.lint.libs.triton_dist_language`; host helpers (``triton_dist.utils``,
``triton_dist.kernels``...) are stubs, as kernels are compiled, never launched."""

from typing import Any

from litmus.lint.stub import Stub

_JIT_OPTIONS = ("version", "repr", "launch_metadata", "do_not_specialize", "do_not_specialize_on_alignment", "debug",
                "noinline")


def jit(fn: Any = None, **options: Any) -> Any:
    """``@triton_dist.jit``: ``triton.jit`` here.  The real one adds Triton-distributed's compile
    passes (its own dialect ops); the kernel's Triton, and its ordering, are the same."""
    import triton

    kept = {k: v for k, v in options.items() if k in _JIT_OPTIONS}
    if fn is None:
        return lambda f: triton.jit(f, **kept)
    return triton.jit(fn, **kept)


def __getattr__(name: str) -> Any:
    return Stub(f"triton_dist.{name}")
