"""One shared backend of each kind per pytest session (per xdist worker), closed at the end."""

from __future__ import annotations

import inspect
import os
import re
from dataclasses import dataclass, field
from typing import Any

from litmus.errors import LitmusError


def worker_index() -> int | None:
    """The pytest-xdist worker number (``gw3`` -> 3), or None outside xdist."""
    match = re.fullmatch(r"gw(\d+)", os.environ.get("PYTEST_XDIST_WORKER", ""))
    return int(match.group(1)) if match else None


def worker_device(device_count: int) -> int | None:
    """The CUDA device this xdist worker uses: worker N takes device N % device_count."""
    index = worker_index()
    if index is None or device_count <= 0:
        return None
    return index % device_count


def cuda_device_count() -> int:
    """CUDA devices visible to torch (0 without torch or a GPU)."""
    try:
        import torch
    except ImportError:
        return 0
    return int(torch.cuda.device_count()) if torch.cuda.is_available() else 0


def _accepts(fn: Any, name: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params


def resolved_name(name: str) -> str:
    """``name`` with ``auto`` resolved the way ``make_backend`` resolves it (cuda if usable, else cpu)."""
    if name != "auto":
        return name
    try:
        from litmus.run.registry import resolve
    except ImportError:
        return "cuda" if cuda_device_count() > 0 else "cpu"
    try:
        return resolve(name)
    except LitmusError:
        return name


def _cuda_takes_device() -> bool:
    try:
        from litmus.run.cuda import CudaBackend
    except ImportError:
        return False
    return _accepts(CudaBackend, "device")


@dataclass
class BackendPool:
    """Backends created on first use, shared by every item of the session; ``close`` ends them."""

    backends: dict[str, Any] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> tuple[Any | None, str | None]:
        """The backend called ``name``, or None and the reason it cannot be had here."""
        if name in self.backends:
            return self.backends[name], None
        if name in self.failures:
            return None, self.failures[name]
        try:
            from litmus.run.registry import make_backend
        except ImportError as e:
            reason = f"backend {name} unavailable: litmus.run.registry cannot be imported ({e})"
            self.failures[name] = reason
            return None, reason
        opts: dict[str, Any] = {}
        device = worker_device(cuda_device_count()) if worker_index() is not None else None
        if device is not None and resolved_name(name) == "cuda" and _cuda_takes_device():
            opts["device"] = device
        try:
            backend = make_backend(name, **opts)
        except LitmusError as e:
            reason = str(e) if name in str(e) else f"backend {name} unavailable: {e}"
            self.failures[name] = reason
            return None, reason
        self.backends[name] = backend
        return backend, None

    def close(self) -> None:
        """Close every backend that was created (worker processes, devices)."""
        while self.backends:
            _, backend = self.backends.popitem()
            backend.close()
