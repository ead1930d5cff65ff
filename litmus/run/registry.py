"""Backend names -> constructors: ``make_backend("auto" | "cpu" | "cuda", **opts)``.

A backend module registers a *factory* (builds the backend from keyword options) and a *probe*
(why it cannot run here, or None).  Adding a backend (e.g. ``ranks``) is one :func:`register`
call; ``auto`` picks the first available name of :data:`AUTO_ORDER`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from litmus.errors import LitmusError
from litmus.run.backend import Backend


@dataclass(frozen=True)
class BackendEntry:
    """How to build one backend and how to tell whether it can run on this machine."""

    name: str
    factory: Callable[..., Backend]
    probe: Callable[[], str | None]
    summary: str


_REGISTRY: dict[str, BackendEntry] = {}

# ``auto`` takes the first available of these.
AUTO_ORDER: list[str] = ["cuda", "cpu"]


def register(entry: BackendEntry, auto_rank: int | None = None) -> None:
    """Add (or replace) a backend; ``auto_rank`` inserts it into :data:`AUTO_ORDER` at that index."""
    _REGISTRY[entry.name] = entry
    if auto_rank is not None:
        if entry.name in AUTO_ORDER:
            AUTO_ORDER.remove(entry.name)
        AUTO_ORDER.insert(auto_rank, entry.name)


def _cuda_probe() -> str | None:
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "no CUDA device (torch.cuda.is_available() is False)"
    try:
        import triton  # noqa: F401
    except ImportError:
        return "triton is not installed"
    return None


def _cpu_probe() -> str | None:
    try:
        import importlib.metadata

        importlib.metadata.version("triton")
        import torch  # noqa: F401
    except Exception as e:  # torch missing, or no triton distribution
        return f"needs torch and triton ({e})"
    return None


def _make_cpu(**opts: Any) -> Backend:
    from litmus.run.cpu import CpuBackend

    return CpuBackend(**opts)


def _make_cuda(**opts: Any) -> Backend:
    from litmus.run.cuda import CudaBackend

    return CudaBackend(**opts)


def _ranks_probe() -> str | None:
    try:
        import torch  # noqa: F401
    except ImportError:
        return "torch is not installed"
    return None


def _make_ranks(**opts: Any) -> Backend:
    from litmus.run.ranks import RanksBackend

    return RanksBackend(**opts)


register(BackendEntry("cpu", _make_cpu, _cpu_probe,
                      "Triton interpreter on the CPU, one worker process per (rank, cta) role"))
register(BackendEntry("cuda", _make_cuda, _cuda_probe,
                      "one GPU; ranks played by groups of programs (CTAs) of one grid"))
register(BackendEntry("ranks", _make_ranks, _ranks_probe,
                      "one process per rank (GPU), world_size and rank placement as options"))


def backend_names() -> tuple[str, ...]:
    """Every registered backend name, in registration order (``auto`` is not one)."""
    return tuple(_REGISTRY)


def available_backends() -> dict[str, str | None]:
    """Every registered backend name -> why it cannot run here (None when it can)."""
    return {name: entry.probe() for name, entry in _REGISTRY.items()}


def resolve(name: str) -> str:
    """The concrete backend name for ``name`` (``auto`` -> the first available of AUTO_ORDER)."""
    if name == "auto":
        for candidate in AUTO_ORDER:
            if candidate in _REGISTRY and _REGISTRY[candidate].probe() is None:
                return candidate
        reasons = "; ".join(f"{n}: {_REGISTRY[n].probe()}" for n in AUTO_ORDER if n in _REGISTRY)
        raise LitmusError(f"--backend auto: no backend can run here ({reasons})")
    if name not in _REGISTRY:
        raise LitmusError(f"--backend {name!r}: unknown; use auto or one of {', '.join(sorted(_REGISTRY))}")
    return name


def make_backend(name: str = "auto", **opts: Any) -> Backend:
    """Build the backend called ``name`` (``auto``: cuda when a GPU is visible, else cpu).

    ``opts`` go to the backend's constructor.  Raises ``LitmusError`` for an unknown name or a
    backend that cannot run on this machine, naming the reason.
    """
    concrete = resolve(name)
    entry = _REGISTRY[concrete]
    reason = entry.probe()
    if reason is not None:
        raise LitmusError(f"--backend {concrete}: not available here: {reason}")
    try:
        return entry.factory(**opts)
    except TypeError as e:
        raise LitmusError(f"--backend {concrete}: bad option ({e})") from None
