"""IR -> allowed final states under the ``ptx`` and ``sc`` memory models.

- :func:`check` (``check(test, model="ptx") -> ModelResult``), :func:`observables`.
- :data:`MODELS`: name -> :class:`~litmus.model.relations.Model`.  Each model is a file of
  relation definitions and axioms (``ptx.py``, ``sc.py``) in the relation algebra of
  :mod:`litmus.model.relations`; a new model is a new file.

Nothing here imports torch or triton.  See docs/model.md.
"""

from litmus.model.checker import DEFAULT_UNROLL, MODELS, check
from litmus.model.result import ModelResult, State, observables

__all__ = ["DEFAULT_UNROLL", "MODELS", "ModelResult", "State", "check", "observables"]
