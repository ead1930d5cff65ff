"""IR -> allowed final states under the ``ptx`` and ``sc`` memory models.

- :func:`check` (``check(test, model=DEFAULT_MODEL) -> ModelResult``; ``DEFAULT_MODEL`` is
  ``"ptx75"``), :func:`observables`.
- :data:`MODELS`: name -> :class:`~litmus.model.relations.Model`.  Each model is a file of
  relation definitions and axioms (``ptx.py``: PTX 6.0; ``ptx75.py``: PTX 7.5 with proxies;
  ``sc.py``) in the relation algebra of :mod:`litmus.model.relations`; a new model is a new file.
- :func:`hang_problem`: a declared ``may_hang`` the model disagrees with, located;
  :func:`judges_expectations`: whether a model's verdicts judge expectations (not ``sc``).
- :func:`load_cat`: a herd-style ``.cat`` file as a :class:`~litmus.model.relations.Model`
  that ``check`` takes in place of a name (:mod:`litmus.model.cat`).

Nothing here imports torch or triton.  See docs/model.md.
"""

from litmus.model.cat import load_cat
from litmus.model.checker import DEFAULT_MODEL, DEFAULT_UNROLL, MODELS, check, ptx_model_for
from litmus.model.expectations import hang_problem, judges_expectations
from litmus.model.result import ModelResult, State, observables

__all__ = ["DEFAULT_MODEL", "DEFAULT_UNROLL", "MODELS", "ModelResult", "State", "check", "hang_problem", "ptx_model_for",
           "judges_expectations", "load_cat", "observables"]
