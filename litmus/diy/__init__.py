"""diy7-style test generation: relaxation cycles -> catalog YAML with the model's expectations.

- :mod:`~litmus.diy.edges`: the edge vocabulary (``Rfe Fre Coe Rfi Fri Coi PodXY FencedXY
  FenceScdXY FenceAcqReldXY``) and its parsers.
- :mod:`~litmus.diy.cycle`: well-formedness, rotations, and a cycle's events (threads,
  locations, values, the condition).
- :mod:`~litmus.diy.naming`: diy family names (MP, SB, ...) and fence decorations.
- :mod:`~litmus.diy.variants`: the place × sems × scope axes.
- :mod:`~litmus.diy.pattern`: a cycle -> the catalog document; :mod:`~litmus.diy.expect`: the
  PTX model's verdicts as product rules; :mod:`~litmus.diy.enumerate`: every cycle up to a
  length; :mod:`~litmus.diy.write`: YAML text and files.
- :func:`generate`: the whole of ``litmus generate``.

Imports ir, errors, spec and model only (a stage between model and codegen).  See docs/generate.md.
"""

from litmus.diy.generate import Generated, generate

__all__ = ["Generated", "generate"]
