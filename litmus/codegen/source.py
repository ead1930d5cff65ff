"""The generated module: its text, its calling convention and the fallbacks it used."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from litmus.codegen.layout import Layout
from litmus.codegen.options import CodegenOptions, Features


@dataclass(frozen=True)
class KernelSource:
    """Triton source of one litmus test: a real ``.py`` module defining ``layout.kernels``.

    ``fallbacks`` names every op emitted with a substitute for the requested instruction
    (one line each: where, what was asked, what was emitted).
    """

    test_id: str
    text: str
    layout: Layout
    options: CodegenOptions
    features: Features
    fallbacks: tuple[str, ...]

    @property
    def digest(self) -> str:
        """sha256 of the module text (names the cache file)."""
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def kernel_names(self) -> tuple[str, ...]:
        """The ``@triton.jit`` functions the module defines."""
        return tuple(k.name for k in self.layout.kernels)
