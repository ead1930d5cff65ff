"""The small MP and SB patterns that tests in several folders load: written once, here.

``SB_YAML``: store buffering with a fence placeholder (variants ``plain`` and ``fence-sc-gpu``).
``MP_YAML``: iris-style message passing, a release CAS flag and an acquire CAS spin at sys scope.
The ``sb_file`` / ``mp_file`` fixtures (tests/conftest.py) write them to a temporary file.
"""

from __future__ import annotations

SB_YAML = """\
name: SB-cli
title: store buffering
description: test file
source: herd classic SB
locations: {x: 0, y: 0}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - store: {loc: x, value: 1}
      - "{fence}"
      - load: {reg: r0, loc: y}
  P1:
    at: {rank: 0, cta: 1}
    do:
      - store: {loc: y, value: 1}
      - "{fence}"
      - load: {reg: r1, loc: x}
exists: "P0:r0 == 0 /\\\\ P1:r1 == 0"
placeholders:
  fence: the fence between the store and the load
variants:
  - name: plain
    set: {fence: []}
    expect: allowed
    why: no fence
  - name: fence-sc-gpu
    set: {fence: {fence: {sem: sc, scope: gpu}}}
    expect: forbidden
    why: morally strong fence.sc on both sides
"""

MP_YAML = """\
name: MP-audit
locations: {x: 0, flag: 0}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - store: {loc: x, value: 1}
      - cas: {loc: flag, expected: 0, value: 1, sem: release, scope: sys}
  P1:
    at: {rank: 1, cta: 0}
    do:
      - spin: {loc: flag, until: 1, read: {kind: cas, reset: 0, sem: acquire, scope: sys}}
      - load: {reg: r1, loc: x}
exists: "P1:r1 == 0"
expect: forbidden
why: release CAS / acquire CAS spin at sys scope
"""
