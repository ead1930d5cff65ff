"""Small litmus patterns the plugin tests write into throw-away projects."""

HANDSHAKE = """\
name: Handshake
title: producer writes data then raises ready; consumer reads ready then data
locations:
  data: {init: 0, home: 1}
  ready: {init: 0, home: 1}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - store: {loc: data, value: 1}
      - "{signal}"
  P1:
    at: {rank: 1, cta: 0}
    do:
      - "{wait}"
      - load: {reg: r1, loc: data}
exists: "P1:r0 == 1 /\\\\ P1:r1 == 0"
placeholders:
  signal: how P0 raises ready
  wait: how P1 reads ready into r0
variants:
  - name: relacq-sys
    set:
      signal: {atomic_store: {loc: ready, value: 1, sem: release, scope: sys}}
      wait: {atomic_load: {reg: r0, loc: ready, sem: acquire, scope: sys}}
    expect: forbidden
    why: release/acquire at sys scope synchronise across GPUs
  - name: volatile
    set:
      signal: {volatile_store: {loc: ready, value: 1}}
      wait: {volatile_load: {reg: r0, loc: ready}}
    expect: {expect_volatile}
    why: volatile is relaxed.sys, no release/acquire pattern
"""


def handshake(expect_volatile: str = "allowed") -> str:
    """The handshake pattern; ``expect_volatile="forbidden"`` mislabels its racy variant."""
    return HANDSHAKE.replace("{expect_volatile}", expect_volatile)


BAD = """\
name: Broken
locations: {x: 0}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - stor: {loc: x, value: 1}
exists: "x == 1"
expect: allowed
why: a typo on line 7
"""


PAYLOAD_SEEN = """\
name: Payload-seen
title: deliberately mislabelled - the consumer does see the payload after the flag
locations:
  data: {init: 0, home: 1}
  ready: {init: 0, home: 1}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - store: {loc: data, value: 1}
      - atomic_store: {loc: ready, value: 1, sem: release, scope: sys}
  P1:
    at: {rank: 1, cta: 0}
    do:
      - spin: {loc: ready, until: 1, read: acquire, scope: sys, bound: 1000}
      - load: {reg: r1, loc: data}
exists: "P1:r1 == 1"
expect: forbidden
why: wrong on purpose (the outcome is the ordinary one), so the plugin must flag it
"""
