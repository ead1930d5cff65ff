"""The stress a run uses when it is given none, and the settings ``litmus tune`` keeps per GPU model.

``litmus run`` without ``--stress`` (``--stress auto``) on the cuda backend runs a rotation: first
the settings ``litmus tune`` last kept for the GPU model it finds (``$LITMUS_CACHE/tuned/``),
else the ``default`` preset (one program per SM, what the ablation of docs/detection.md found);
then the ``resident`` launch, which ends the spinning instances that one program per SM leaves
timed out.  A variant whose evidence is in after its first round never reaches the second.
Other backends get the ``default`` preset.  The run's header says which it got
(:class:`StressChoice`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from litmus.run.config import PRESETS, Stress, load_stresses, write_stress

AUTO = "auto"
"""The ``--stress`` value that picks the settings for the device (the default)."""


@dataclass(frozen=True)
class StressChoice:
    """The environments a run uses and where they come from, in words for its header."""

    environments: tuple[Stress, ...]
    origin: str


def device_key(device: str) -> str:
    """A file name for a GPU model: ``nvidia-h100-80gb-hbm3`` for ``NVIDIA H100 80GB HBM3``."""
    return re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-") or "unknown-device"


def cache_file(device: str) -> Path:
    """Where ``litmus tune`` keeps the settings it found on ``device``."""
    from litmus.codegen.loader import cache_root

    return cache_root() / "tuned" / f"{device_key(device)}.json"


def save_for_device(device: str, stresses: Sequence[Stress]) -> Path:
    """Keep ``stresses`` as ``device``'s tuned settings; return the file."""
    path = cache_file(device)
    write_stress(path, stresses)
    return path


def choose_stress(spec: str, backend: str, device: str | None) -> StressChoice:
    """The environments of ``--stress spec`` on ``backend`` (whose GPU is ``device``)."""
    if spec != AUTO:
        return StressChoice(load_stresses(spec), spec)
    if backend != "cuda" or not device:
        return StressChoice((PRESETS["default"],), "default preset")
    resident = PRESETS["resident"]
    path = cache_file(device)
    if path.is_file():
        kept = load_stresses(str(path))
        return StressChoice(kept + (() if resident in kept else (resident,)),
                            f"tuned on this machine for {device} ({path}), then the resident launch")
    return StressChoice((PRESETS["default"], resident),
                        f"default preset (one program per SM), then the resident launch; `litmus tune MP SB LB "
                        f"--variant 'relaxed-*'` keeps settings tuned for {device}")
