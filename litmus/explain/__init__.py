"""Why the model allows or forbids a final state (``litmus explain``; docs/explain.md).

- :func:`explain` ``(test, state=None, model="ptx75") -> Explanation``: for an allowed state one
  execution that reaches it, with its edges and the synchronisation it lacks; for a forbidden
  one the axiom that rejects each candidate execution reaching it and its shortest cycle in
  named relations (grouped), or that no candidate reaches it.  Re-checked before it is returned.
- :func:`explanation_text` ``(test, state=None, model="ptx75") -> str``: the same as text, for
  other stages (reports, lint, the pytest plugin) to show; :func:`outcome_text` for one
  observed final state (a run's histogram row).
- :func:`to_dot`: the execution drawn herd-style, as graphviz source; :func:`svg_text` and
  :func:`render_svg` (a file) draw it.
"""

from litmus.explain.explanation import Explanation, ExplanationError, explain
from litmus.explain.graph import render_svg, svg_text, to_dot
from litmus.explain.text import explanation_text, outcome_text, render_text

__all__ = ["Explanation", "ExplanationError", "explain", "explanation_text", "outcome_text", "render_svg", "render_text", "svg_text", "to_dot"]
