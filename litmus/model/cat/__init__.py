"""Memory models as text: herd-style ``.cat`` files read into the relation algebra.

- :func:`load_cat` (``load_cat(path, profile=None) -> Model``): the file's model, for
  :func:`litmus.model.check` (``check(test, load_cat("ptx-v7.5.cat"))``) and ``litmus model --cat``.
- :func:`parse_cat`: text -> syntax tree (:mod:`litmus.model.cat.ast`).
- :data:`BASES` (:mod:`litmus.model.cat.bases`): the names a cat file may use undefined and what
  each is in the checker; :data:`PROFILES` (:mod:`litmus.model.cat.profiles`): what the checker
  needs that a cat file does not say (its chosen orders and flags), per built-in model.

The modules: ``parser`` (text -> ``ast``), ``translate`` (statements -> definitions and axioms),
``recursion`` (``let rec`` in closed form), ``load`` (files, includes, profile).  See
docs/model.md, "Models as text (``--cat``)".
"""

from litmus.model.cat.bases import BASES
from litmus.model.cat.load import CatModel, load_cat, read_cat
from litmus.model.cat.parser import parse_cat
from litmus.model.cat.profiles import PROFILES

__all__ = ["BASES", "PROFILES", "CatModel", "load_cat", "parse_cat", "read_cat"]
