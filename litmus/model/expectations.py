"""What a model result says about a test's declared expectation: which models judge it, and
whether ``may_hang`` matches the model's hang analysis."""

from __future__ import annotations

from litmus.errors import Problem
from litmus.model.checker import MODELS
from litmus.model.relations import Model
from litmus.model.result import ModelResult


def judges_expectations(model: str | Model) -> bool:
    """Whether expectations (written against PTX) are judged by ``model`` (a name in
    :data:`MODELS`, or a model such as a ``.cat`` file gives): every model but a reference one
    (``sc``), whose states are reported and never judged."""
    m = model if isinstance(model, Model) else MODELS.get(model)
    return m is not None and not m.reference


def hang_problem(result: ModelResult, model: str | Model | None = None) -> Problem | None:
    """A located problem when the test declares ``may_hang`` and the model disagrees (either
    way); None when they agree, there is no expectation, or the model is a reference.
    ``model``: the model ``result`` came from, when it is not a name in :data:`MODELS`."""
    t = result.test
    if t.expect is None or not judges_expectations(model if model is not None else result.model):
        return None
    if t.expect.may_hang == result.possible_hang:
        return None
    if result.possible_hang:
        msg = (f"{t.id}: the {result.model} model finds an execution in which a spin never exits "
               "(or a barrier never opens), but the variant does not declare it; add "
               "'may_hang: true' (and say why), or change the test so it cannot hang")
    else:
        msg = (f"{t.id}: declares 'may_hang: true', but under the {result.model} model every "
               "spin exits and every barrier opens; remove may_hang")
    return Problem(t.source_file, t.source_line, None, msg)
