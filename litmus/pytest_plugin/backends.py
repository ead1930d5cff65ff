"""One shared backend of each kind per pytest session (per xdist worker), closed at the end."""

from __future__ import annotations

import inspect
import os
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from litmus.errors import LitmusError
from litmus.pytest_plugin.devices import WORKER, assign_device, gpu_turn, lock_index, this_worker, worker_number


def worker_index() -> int | None:
    """The pytest-xdist worker number (``gw3`` -> 3), or None outside xdist."""
    return worker_number(os.environ.get(WORKER))


def worker_device(device_count: int) -> int | None:
    """The CUDA device this xdist worker uses: worker N takes device N % device_count."""
    return assign_device(os.environ.get(WORKER), device_count)


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
    """Backends created on first use, shared by every item of the session; ``close`` ends them.

    ``share``: several xdist workers may run on one GPU at once (``--litmus-gpu-share``).
    """

    backends: dict[str, Any] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    share: bool = False
    _described: dict[int, dict[str, Any]] = field(default_factory=dict)

    def describe(self, backend: Any) -> dict[str, Any]:
        """``backend.describe()``, asked once per backend (it may query the device)."""
        key = id(backend)
        if key not in self._described:
            self._described[key] = dict(backend.describe())
        return self._described[key]

    def on_gpu(self, backend: Any) -> bool:
        """Whether ``backend`` runs compiled kernels on a GPU (not the Triton interpreter)."""
        from litmus.audit.declared import executed_targets

        return bool(executed_targets(backend.name, str(self.describe(backend).get("device", ""))))

    def turn(self, backend: Any) -> AbstractContextManager[None]:
        """Hold ``backend``'s GPU for one run while other workers of this xdist run share it
        (:func:`litmus.pytest_plugin.devices.lock_index`); nothing otherwise."""
        if not self.on_gpu(backend):
            return gpu_turn(None)
        worker, count = this_worker()
        return gpu_turn(lock_index(backend.name, worker, count, cuda_device_count(), self.share))

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
        self._described.clear()
        while self.backends:
            _, backend = self.backends.popitem()
            backend.close()
