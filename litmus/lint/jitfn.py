"""Telling a ``@triton.jit`` function from what wraps it (an autotuner, heuristics)."""

from __future__ import annotations

from typing import Any


def is_jit(obj: Any) -> bool:
    """Whether ``obj`` is a ``@triton.jit`` function (or an autotuner/heuristics wrapping one)."""
    from triton.runtime.jit import JITFunction

    while obj is not None and not isinstance(obj, JITFunction):
        obj = getattr(obj, "fn", None) if obj.__class__.__name__ in ("Autotuner", "Heuristics") else None
    return obj is not None


def unwrap(obj: Any) -> Any:
    """The ``JITFunction`` inside an autotuner/heuristics wrapper."""
    from triton.runtime.jit import JITFunction

    while not isinstance(obj, JITFunction):
        obj = obj.fn
    return obj
