"""``litmus cost``: what each signalling variant costs, so users can pick the cheapest correct one.

Modules: :mod:`.shape` (a variant's signalling ops: flags, signal, wait), :mod:`.unrolled`
(the signalling as a litmus test of many round trips, for the ``cpu`` and ``ranks`` backends),
:mod:`.kernel` (a ping-pong / barrier loop kernel with GPU timestamps, for ``cuda``),
:mod:`.compile` and :mod:`.launch` (load or compile it; launch it and read it back),
:mod:`.stats` (percentiles, spread, the two-run agreement rule), :mod:`.measure` (one variant
on one backend), :mod:`.verdicts` (model and hardware verdicts), :mod:`.ranking` (families
ranked, the cheapest correct variant), :mod:`.render` (rich table, Markdown, JSON) and
:mod:`.command` (the click command). See docs/performance.md, "What signalling costs".
"""
