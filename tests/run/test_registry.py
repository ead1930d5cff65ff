"""Backend registry: names, availability reasons, auto selection, plugging in a new backend."""

from __future__ import annotations

import pytest

from litmus.errors import LitmusError
from litmus.run import registry
from litmus.run.cpu import CpuBackend


def test_available_backends_names_reasons():
    import torch

    avail = registry.available_backends()
    assert set(avail) >= {"cpu", "cuda"}
    assert avail["cpu"] is None
    if not torch.cuda.is_available():
        assert avail["cuda"] is not None and "no CUDA device" in avail["cuda"]


def test_auto_is_cpu_without_a_gpu(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert registry.resolve("auto") == "cpu"
    backend = registry.make_backend("auto", workers=1)
    try:
        assert isinstance(backend, CpuBackend) and backend.workers == 1 and backend.worker_pids() == []
    finally:
        backend.close()


def test_auto_prefers_cuda_when_visible(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert registry.resolve("auto") == "cuda"


def test_unknown_name_and_bad_option_are_user_errors(monkeypatch):
    import torch

    with pytest.raises(LitmusError, match="unknown; use auto or one of cpu, cuda, ranks"):
        registry.make_backend("tpu")
    with pytest.raises(LitmusError, match="bad option"):
        registry.make_backend("cpu", colour="blue")
    with pytest.raises(LitmusError, match="workers"):
        registry.make_backend("cpu", workers=0)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(LitmusError, match="not available here: no CUDA device"):
        registry.make_backend("cuda")


def test_a_new_backend_plugs_in(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "AUTO_ORDER", list(registry.AUTO_ORDER))
    made = {}

    def factory(**opts):
        made.update(opts)
        return "ranks-backend"

    registry.register(registry.BackendEntry("ranks", factory, lambda: None, "one process per GPU"), auto_rank=0)
    assert registry.available_backends()["ranks"] is None
    assert registry.resolve("auto") == "ranks"
    assert registry.make_backend("ranks", world_size=4) == "ranks-backend" and made == {"world_size": 4}
