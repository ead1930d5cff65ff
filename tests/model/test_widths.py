"""Access widths, views, vectors and single-copy atomicity in the models, on hand-derived tests.

Each test says the derivation in its docstring; ``word`` is 64 bits (granules ``lo`` = bytes
0-3 and ``hi`` = bytes 4-7), P0 and P1 on different GPUs unless said otherwise.  ``ms``:
morally strong (PTX ISA: strong, each in the other's scope, and overlapping completely).
"""

from __future__ import annotations

import pytest

from litmus.model import check
from litmus.spec import load_text

PTX = ("ptx", "ptx75")
ALL = ("ptx", "ptx75", "sc")
NEW = 0x100000001  # lo = 1, hi = 1
TORN = {0x1, 0x100000000}  # one half new, the other old


def one(text: str):
    """The single test of a YAML pattern without variants (expectation filled in)."""
    head = "name: W\nexpect: allowed\nwhy: hand-derived\n"
    (t,) = load_text(head + text, "widths.yaml")
    return t


def values(text: str, model: str, *keys: str) -> set:
    """The allowed values of ``keys`` (a tuple per state, or a value for one key)."""
    r = check(one(text), model)
    out = {tuple(dict(s)[k] for k in keys) for s in r.allowed_states}
    return {v[0] for v in out} if len(keys) == 1 else out


def two_threads(p0: str, p1: str, locations: str = "") -> str:
    return f"""
locations:
  word: {{init: 0, bits: 64, home: 1}}
  lo: {{view: word, offset: 0, bits: 32}}
  hi: {{view: word, offset: 4, bits: 32}}
{locations}
threads:
  P0:
    at: {{rank: 0, cta: 0}}
    do: [{p0}]
  P1:
    at: {{rank: 1, cta: 0}}
    do: [{p1}]
exists: "true"
"""


RELAXED_STORE = "{atomic_store: {loc: word, value: 0x100000001, sem: relaxed, scope: sys}}"
RELAXED_LOAD = "{atomic_load: {reg: r1, loc: word, sem: relaxed, scope: sys}}"


# ------------------------------------------------------------------ torn reads of one store


@pytest.mark.parametrize("model", ALL)
def test_a_morally_strong_64_bit_load_never_tears(model: str) -> None:
    """relaxed.sys 64-bit store and load: ms (complete overlap), so reading lo from the store and
    hi from the initial write (co-before the store) breaks Single-Copy-Atomicity; SC keeps
    every scalar access one point of the interleaving."""
    assert values(two_threads(RELAXED_STORE, RELAXED_LOAD), model, "P1:r1") == {0, NEW}


@pytest.mark.parametrize("store,load", [
    ("{store: {loc: word, value: 0x100000001}}", RELAXED_LOAD),
    (RELAXED_STORE, "{load: {reg: r1, loc: word}}"),
    ("{atomic_store: {loc: word, value: 0x100000001, sem: relaxed, scope: gpu}}",
     "{atomic_load: {reg: r1, loc: word, sem: relaxed, scope: gpu}}"),
], ids=["plain-store", "plain-load", "gpu-scope-xgpu"])
def test_a_load_not_morally_strong_with_the_store_may_tear(store: str, load: str) -> None:
    """A weak access, or gpu scope across GPUs: not ms, no single-copy atomicity: each granule
    read picks its write alone (PTX); SC still forbids the tear."""
    text = two_threads(store, load)
    for model in PTX:
        assert values(text, model, "P1:r1") == {0, NEW} | TORN
    assert values(text, "sc", "P1:r1") == {0, NEW}


def test_gpu_scope_on_one_gpu_is_morally_strong() -> None:
    text = two_threads(RELAXED_STORE.replace("sys", "gpu"), RELAXED_LOAD.replace("sys", "gpu"))
    text = text.replace("at: {rank: 1, cta: 0}", "at: {rank: 0, cta: 1}")
    assert values(text, "ptx", "P1:r1") == {0, NEW}


@pytest.mark.parametrize("model", ALL)
def test_a_vector_load_reads_its_elements_separately(model: str) -> None:
    """ld.v2.u32 is two 32-bit loads in no order; each overlaps the 64-bit store only partly
    (not ms) and under SC each element is its own access: every combination."""
    load = "{atomic_load: {reg: [r1, r2], loc: word, vec: 2, sem: relaxed, scope: sys}}"
    got = values(two_threads(RELAXED_STORE, load), model, "P1:r1", "P1:r2")
    assert got == {(0, 0), (0, 1), (1, 0), (1, 1)}


@pytest.mark.parametrize("model", ALL)
def test_a_vector_store_is_seen_element_by_element(model: str) -> None:
    store = "{atomic_store: {loc: word, value: [1, 1], vec: 2, sem: relaxed, scope: sys}}"
    assert values(two_threads(store, RELAXED_LOAD), model, "P1:r1") == {0, NEW} | TORN


@pytest.mark.parametrize("model", ALL)
def test_vector_to_vector_elements_are_atomic_but_unordered(model: str) -> None:
    store = "{atomic_store: {loc: word, value: [0x10001, 0x20002], vec: 2, sem: relaxed, scope: sys}}"
    load = "{atomic_load: {reg: [r1, r2], loc: word, vec: 2, sem: relaxed, scope: sys}}"
    got = values(two_threads(store, load), model, "P1:r1", "P1:r2")
    assert got == {(a, b) for a in (0, 0x10001) for b in (0, 0x20002)}


@pytest.mark.parametrize("model", ALL)
def test_16_bit_views_split_a_32_bit_word(model: str) -> None:
    """A 32-bit store and a 16-bit load of its high half: complete overlap is impossible, but a
    16-bit read of one granule reads one write; the 32-bit reader of the same thread sees the
    store whole (same thread: ms)."""
    text = """
locations:
  w: {init: 0, bits: 32}
  h: {view: w, offset: 2, bits: 16}
threads:
  P0:
    at: {rank: 0, cta: 0}
    do:
      - atomic_store: {loc: w, value: 0x00050007, sem: relaxed, scope: sys}
      - atomic_load: {reg: r0, loc: w, sem: relaxed, scope: sys}
  P1:
    at: {rank: 1, cta: 0}
    do:
      - atomic_load: {reg: r1, loc: h, sem: relaxed, scope: sys}
exists: "true"
"""
    assert values(text, model, "P0:r0") == {0x50007}
    assert values(text, model, "P1:r1") == {0, 5}
    assert values(text, model, "w", "h") == {(0x50007, 5)}


# ---------------------------------------------------------------- two writers of one word


@pytest.mark.parametrize("model", ALL)
def test_two_morally_strong_64_bit_stores_never_mix_in_memory(model: str) -> None:
    """ms writes are co-ordered (Coherence-ms-writes-ordered) the same way on both granules
    (Single-Copy-Atomicity, write part): the word ends as one of them, whole."""
    other = RELAXED_STORE.replace("0x100000001", "0x200000002")
    assert values(two_threads(RELAXED_STORE, other), model, "word") == {NEW, 0x200000002}


def test_two_plain_64_bit_stores_may_mix_in_memory() -> None:
    """Not ms: co may leave them unordered on each granule; each granule ends with either."""
    text = two_threads("{store: {loc: word, value: 0x100000001}}", "{store: {loc: word, value: 0x200000002}}")
    for model in PTX:
        assert values(text, model, "word", "lo", "hi") == {
            (h << 32 | l, l, h) for l in (1, 2) for h in (1, 2)}
    assert values(text, "sc", "word") == {NEW, 0x200000002}


CORR_PARTIAL = """
locations:
  word: {{init: 0, bits: 64, home: 1}}
  lo: {{view: word, offset: 0, bits: 32}}
threads:
  P0:
    at: {{rank: 0, cta: 0}}
    do:
      - atomic_store: {{loc: {first}, value: 2, sem: relaxed, scope: sys}}
  P1:
    at: {{rank: 2, cta: 0}}
    do:
      - atomic_store: {{loc: lo, value: 1, sem: relaxed, scope: sys}}
  P2:
    at: {{rank: 1, cta: 0}}
    do:
      - atomic_load: {{reg: r1, loc: lo, sem: relaxed, scope: sys}}
      - atomic_load: {{reg: r2, loc: lo, sem: relaxed, scope: sys}}
exists: "true"
"""


def test_a_64_bit_store_racing_with_a_32_bit_view_store_is_not_coherence_ordered() -> None:
    """P0 stores word = 2 (64 bits), P1 stores lo = 1 (32 bits), P2 reads lo twice.  The two
    stores overlap partly: not ms, so co need not order them; P2's first read is not ms with
    P0's store either (no CoRR edge from it).  P2 may read 2 then 1 with lo ending at 2."""
    text = CORR_PARTIAL.format(first="word")
    target = (2, 1, 2)
    for model in PTX:
        assert target in values(text, model, "P2:r1", "P2:r2", "lo")
    assert target not in values(text, "sc", "P2:r1", "P2:r2", "lo")


def test_the_same_with_complete_overlap_is_coherent() -> None:
    """P0 stores lo = 2 (32 bits): the stores are ms and co-ordered; reading 2 then 1 puts 2
    co-before 1 (CoRR), so lo ends at 1."""
    text = CORR_PARTIAL.format(first="lo")
    for model in ALL:
        assert (2, 1, 2) not in values(text, model, "P2:r1", "P2:r2", "lo")
        assert (2, 1, 1) in values(text, model, "P2:r1", "P2:r2", "lo")


# ----------------------------------------------------------------------------- RMWs


ADDS = """
locations:
  word: {{init: 0, bits: 64, home: 1}}
  lo: {{view: word, offset: 0, bits: 32}}
threads:
  P0:
    at: {{rank: 0, cta: 0}}
    do: [{{add: {{loc: word, value: 0x100000001, sem: relaxed, scope: sys}}}}]
  P1:
    at: {{rank: 1, cta: 0}}
    do: [{{add: {{loc: {loc}, value: {value}, sem: relaxed, scope: sys}}}}]
exists: "true"
"""


@pytest.mark.parametrize("model", ALL)
def test_two_64_bit_adds_are_atomic_on_every_granule(model: str) -> None:
    """Atomicity per granule, and co the same way on both granules: never half of each."""
    assert values(ADDS.format(loc="word", value="0x100000001"), model, "word") == {0x200000002}


def test_a_32_bit_add_on_a_view_is_not_atomic_with_a_64_bit_add() -> None:
    """Partial overlap: not ms, so neither RMW atomicity applies: both may read lo = 0 (a lost
    update).  SC keeps every access atomic."""
    text = ADDS.format(loc="lo", value=1)
    for model in PTX:
        assert values(text, model, "word") == {0x100000002, 0x100000001}
    assert values(text, "sc", "word") == {0x100000002}


# ------------------------------------------------------------------------- vector order


ELEMENTS = """
locations:
  word: {{init: 0, bits: 64, home: 1}}
  lo: {{view: word, offset: 0, bits: 32}}
  hi: {{view: word, offset: 4, bits: 32}}
threads:
  P0:
    at: {{rank: 0, cta: 0}}
    do: {writer}
  P1:
    at: {{rank: 1, cta: 0}}
    do:
      - atomic_load: {{reg: r1, loc: hi, sem: acquire, scope: sys}}
      - load: {{reg: r2, loc: lo}}
exists: "P1:r1 == 1 /\\\\ P1:r2 == 0"
"""


@pytest.mark.parametrize("model", ALL)
def test_the_elements_of_a_vector_store_have_no_order(model: str) -> None:
    """Two release stores lo then hi: hi's release covers lo (program order), so seeing hi with an
    acquire then lo stale is forbidden.  st.release.v2: the elements are unordered, so lo is not
    before hi's release: allowed (under SC too: the elements interleave in any order)."""
    scalars = one(ELEMENTS.format(writer="[{atomic_store: {loc: lo, value: 1, sem: release, scope: sys}}, "
                                         "{atomic_store: {loc: hi, value: 1, sem: release, scope: sys}}]"))
    vector = one(ELEMENTS.format(writer="[{atomic_store: {loc: word, value: [1, 1], vec: 2, sem: release, "
                                        "scope: sys}}]"))
    assert not check(scalars, model).target_reachable
    assert check(vector, model).target_reachable


MP_VECTOR = """
locations:
  data: {{init: 0, bits: 64, home: 1}}
  flag: {{init: 0, home: 1}}
threads:
  P0:
    at: {{rank: 0, cta: 0}}
    do:
      - store: {{loc: data, value: [7, 9], vec: 2}}
      - atomic_store: {{loc: flag, value: 1, sem: {rel}, scope: sys}}
  P1:
    at: {{rank: 1, cta: 0}}
    do:
      - atomic_load: {{reg: r0, loc: flag, sem: {acq}, scope: sys}}
      - load: {{reg: [r1, r2], loc: data, vec: 2}}
exists: "P1:r0 == 1 /\\\\ (P1:r1 != 7 \\\\/ P1:r2 != 9)"
"""


@pytest.mark.parametrize("model", PTX)
def test_a_release_flag_publishes_both_elements_of_a_vector_payload(model: str) -> None:
    """Every element of the vector store is program-order before the release, every element of
    the vector load after the acquire: MP stays forbidden; with relaxed flags it is allowed."""
    assert not check(one(MP_VECTOR.format(rel="release", acq="acquire")), model).target_reachable
    assert check(one(MP_VECTOR.format(rel="relaxed", acq="relaxed")), model).target_reachable


# --------------------------------------------------- vLLM #2760: a flag written in halves


FLAG = """
locations:
  word: {{init: 0, bits: 64, home: 1}}
  lo: {{view: word, offset: 0, bits: 32}}
  hi: {{view: word, offset: 4, bits: 32}}
  x: {{init: 0, home: 1}}
  y: {{init: 0, home: 1}}
threads:
  P0:
    at: {{rank: 0, cta: 0}}
    do:
      - store: {{loc: x, value: 1}}
      - atomic_store: {{loc: lo, value: 1, sem: release, scope: sys}}
  P1:
    at: {{rank: 2, cta: 0}}
    do:
      - store: {{loc: y, value: 1}}
      - atomic_store: {{loc: hi, value: 1, sem: release, scope: sys}}
  P2:
    at: {{rank: 1, cta: 0}}
    do: {wait}
exists: "P2:r1 == 0 \\\\/ P2:r2 == 0"
"""
WAIT_WORD = ("[{spin: {loc: word, until: 0x100000001, read: {kind: load, sem: acquire, scope: sys}, reg: r0}}, "
             "{load: {reg: r1, loc: x}}, {load: {reg: r2, loc: y}}]")
WAIT_HALVES = ("[{spin: {loc: lo, until: 1, read: {kind: load, sem: acquire, scope: sys}}}, "
               "{spin: {loc: hi, until: 1, read: {kind: load, sem: acquire, scope: sys}}}, "
               "{load: {reg: r1, loc: x}}, {load: {reg: r2, loc: y}}]")


def test_vllm_2760_a_64_bit_acquire_does_not_synchronize_with_32_bit_releases() -> None:
    """Each peer writes its payload, then its own half of the flag with st.release.sys; the
    waiter spins with a 64-bit ld.acquire.sys until the word holds both halves.  The acquire
    overlaps each release only partly: not ms, no synchronization, so a payload may be stale
    after the wait (PTX); SC forbids it.  The spin exits (both halves are written) and cannot
    hang: a stuck read sees an initial half, which each release follows in co."""
    t = one(FLAG.format(wait=WAIT_WORD))
    for model in PTX:
        r = check(t, model)
        assert r.target_reachable and not r.possible_hang
        assert {dict(s)["P2:r0"] for s in r.allowed_states} == {NEW}
    assert not check(t, "sc").target_reachable


def test_vllm_2760_the_fix_waits_on_each_half_with_its_own_32_bit_acquire() -> None:
    """One 32-bit flag per peer, each waited on by a 32-bit acquire that overlaps its release
    completely: both synchronize, no stale payload."""
    t = one(FLAG.format(wait=WAIT_HALVES))
    for model in ALL:
        r = check(t, model)
        assert not r.target_reachable and not r.possible_hang


@pytest.mark.parametrize("model", ALL)
def test_a_64_bit_spin_on_a_half_nobody_writes_hangs(model: str) -> None:
    """Only lo is ever written: the spin waits for hi = 1 forever (each stuck read may see a
    co-maximal write: lo's release and hi's initial write)."""
    text = FLAG.format(wait=WAIT_WORD).replace("atomic_store: {loc: hi, value: 1", "atomic_store: {loc: lo, value: 1")
    assert check(one(text), model).possible_hang
