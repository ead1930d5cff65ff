"""Fuzz the input readers with hostile files; count tracebacks, hangs, memory blowups, unlocated
errors and wrong accepts (issue 19).  A benchmark, not a unit test::

    python benchmarks/fuzz_inputs.py --count 5000 --seed 1 [--jobs 8] [--timeout 20] [--mem-mb 2048]

Each input is a file written from one of the generators below: structure-aware mutations of
the catalog's YAML (each known to be invalid, or "either"), line-level text mutations, YAML alias
bombs, deep nesting, variant-product and placeholder bombs, bad encodings and binary content,
and malformed PTX ``.litmus`` files.  Each is read the way ``litmus model`` reads it
(:func:`litmus.spec.load_tests`, then the model on what loads) in a worker process limited
with ``RLIMIT_AS``; the parent kills a worker that passes ``--timeout``.

An input ends as one of:
  ok-error      a LitmusError whose every problem names the file (and a line where meaningful)
  ok-accept     it loaded (and the model ran), and nothing says it must be rejected
  traceback     any other exception
  hang          the worker passed the timeout
  memory        MemoryError, or the worker died (RLIMIT_AS)
  unlocated     a LitmusError with a problem that does not name the file, or has no line
  wrong-accept  it loaded, but the generator made it invalid

The generators and :func:`check_file` are also used by ``tests/spec/test_fuzz_hostile.py``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import resource
import select
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "catalog"

# Problems that concern the whole file, so need no line (the file is named all the same).
WHOLE_FILE = re.compile(r"exceeds the limit of \d+ bytes|no such file|cannot read the file|holds no pattern")


@dataclass
class Case:
    """One generated input: its text (bytes), suffix, and whether it must be rejected."""

    kind: str
    data: bytes
    suffix: str = ".yaml"
    must_reject: bool = False


# ------------------------------------------------------------------------------ sources


_SOURCES: list[str] = []
_LITMUS: list[str] = []


def sources() -> list[str]:
    """The catalog's YAML texts (read once)."""
    if not _SOURCES:
        _SOURCES.extend(p.read_text() for p in sorted(CATALOG.glob("*.yaml")))
    return _SOURCES


def litmus_sources() -> list[str]:
    """Valid ``.litmus`` texts written from catalog variants (made once)."""
    if not _LITMUS:
        sys.path.insert(0, str(ROOT))
        from litmus.errors import LitmusError
        from litmus.interop.writer import write_litmus
        from litmus.spec import load_paths

        for t in load_paths([CATALOG]):
            try:
                _LITMUS.append(write_litmus(t))
            except LitmusError:
                pass
    return _LITMUS


# ------------------------------------------------------------------------ YAML mutations


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _sub_one(rng: random.Random, text: str, pattern: str, new: Callable[[re.Match[str]], str]) -> str | None:
    matches = list(re.finditer(pattern, text, re.M))
    if not matches:
        return None
    m = rng.choice(matches)
    return text[: m.start()] + new(m) + text[m.end():]


def _first_doc(text: str) -> str:
    """The first YAML document only (so that a mutation lands in a pattern we can reason on)."""
    return re.split(r"^---\s*$", text, flags=re.M)[0]


def cond_unknown(rng: random.Random) -> Case | None:
    """A condition naming a register, thread or location that does not exist: must reject."""
    text = _first_doc(rng.choice(sources()))
    bad = rng.choice(["P9:r0 == 1", "P0:r77 == 1", "nowhere == 1", "P1:zz9 == 0", "(P0:qq == 1)"])
    glue = rng.choice([" /\\\\ ", " \\\\/ "])
    out = _sub_one(rng, text, r'^(exists|~exists|not_exists|forall): "(.*)"\s*$',
                   lambda m: f'{m.group(1)}: "{m.group(2)}{glue}{bad}"')
    return Case("cond-unknown-ref", out.encode(), must_reject=True) if out else None


def empty_variants(rng: random.Random) -> Case | None:
    """``variants: []``: must reject."""
    text = _first_doc(rng.choice(sources()))
    if not re.search(r"^variants:", text, re.M):
        return None
    head = text[: re.search(r"^variants:", text, re.M).start()]  # type: ignore[union-attr]
    tail = rng.choice(["variants: []\n", "variants:\n", "variants: {product: {a: {}}, expect: [{outcome: allowed, why: w}]}\n"])
    return Case("empty-variants", (head + tail).encode(), must_reject=True)


def two_key_op(rng: random.Random) -> Case | None:
    """An op mapping with two keys: must reject."""
    text = _first_doc(rng.choice(sources()))
    extra = rng.choice(["fence: {sem: sc, scope: sys}", "load: {reg: r9, loc: x}", "bar.sync: {}"])
    out = _sub_one(rng, text, r"^(\s*)- \{?(store|load|atomic_store|atomic_load|fence|spin|cas|exch|add|volatile_store|volatile_load): (\{[^\n]*\})\}?\s*$",
                   lambda m: f"{m.group(1)}- {{{m.group(2)}: {m.group(3)}, {extra}}}\n")
    return Case("two-key-op", out.encode(), must_reject=True) if out else None


def bad_tag(rng: random.Random) -> Case | None:
    """A ``!!binary``/``!!timestamp``/... tag on some value: must reject."""
    text = _first_doc(rng.choice(sources()))
    tag = rng.choice(["!!binary aGVsbG8=", "!!timestamp 2001-12-14", "!!set {a, b}", "!!python/object:os.system x",
                      "!local 1", "!!omap [a: 1]", "!!pairs [a: 1]", "!!timestamp 2001-12-14t21:59:43.10-05:00"])
    out = _sub_one(rng, text, r"^(\s*(?:- )?)(value|until|init|home|rank|cta|why|title|name|expect|outcome): ([^\n{}\[\],]+)$",
                   lambda m: f"{m.group(1)}{m.group(2)}: {tag}")
    return Case("bad-tag", out.encode(), must_reject=True) if out else None


def unknown_placeholder(rng: random.Random) -> Case | None:
    """A placeholder used but not declared: must reject."""
    text = _first_doc(rng.choice(sources()))
    out = _sub_one(rng, text, r"loc: ([a-z]\w*)\b", lambda m: 'loc: "{undeclared_ph}"')
    return Case("undeclared-placeholder", out.encode(), must_reject=True) if out else None


def unknown_location_op(rng: random.Random) -> Case | None:
    """An op on an undeclared location, or reading an unwritten register: must reject."""
    text = _first_doc(rng.choice(sources()))
    if rng.random() < 0.5:
        out = _sub_one(rng, text, r"loc: ([a-z]\w*)\b", lambda m: "loc: nowhere_loc")
    else:
        out = _sub_one(rng, text, r"value: \d+\b", lambda m: "value: r_unwritten")
    return Case("unknown-ref-op", out.encode(), must_reject=True) if out else None


def structural(rng: random.Random) -> Case | None:
    """A structure-aware edit of a parsed catalog document (may be valid or not)."""
    import yaml

    docs = [d for d in yaml.safe_load_all(rng.choice(sources())) if d]
    doc = rng.choice(docs)
    paths: list[tuple[Any, list[Any]]] = []  # (container, key path)

    def walk(node: Any, path: list[Any]) -> None:
        if len(paths) > 2000:
            return
        if isinstance(node, dict):
            for k, v in node.items():
                paths.append((node, path + [k]))
                walk(v, path + [k])
        elif isinstance(node, list):
            for i, v in enumerate(node):
                paths.append((node, path + [i]))
                walk(v, path + [i])

    walk(doc, [])
    if not paths:
        return None
    container, path = rng.choice(paths)
    key = path[-1]
    op = rng.choice(["delete", "null", "int", "str", "list", "dict", "dup", "rename", "huge", "neg", "float", "bool"])
    if op == "delete":
        del container[key]
    elif op == "null":
        container[key] = None
    elif op == "int":
        container[key] = rng.choice([0, -1, 1, 2**31, 2**64, -(2**63), 7])
    elif op == "str":
        container[key] = rng.choice(["", "x", "{nope}", "P0:r0", "sys", "acq_rel", "\u00e9\u00e8", "a" * 300, "{" * 5])
    elif op == "list":
        container[key] = [container[key]] if rng.random() < 0.5 else []
    elif op == "dict":
        container[key] = {"k": container[key]} if rng.random() < 0.5 else {}
    elif op == "dup" and isinstance(container, list):
        container.insert(key, container[key])
    elif op == "rename" and isinstance(container, dict):
        container[str(key) + rng.choice(["x", "_", "s"])] = container.pop(key)
    elif op == "huge":
        container[key] = 10**rng.choice([20, 100, 4000])
    elif op == "neg":
        container[key] = -abs(container[key]) if isinstance(container[key], int) and not isinstance(container[key], bool) else -5
    elif op == "float":
        container[key] = rng.choice([1.5, float("inf"), float("nan"), 0.0])
    elif op == "bool":
        container[key] = rng.choice([True, False])
    text = yaml.safe_dump(doc, sort_keys=False, width=10_000)
    return Case(f"structural-{op}", text.encode())


def text_mutation(rng: random.Random) -> Case | None:
    """Line and byte edits of a catalog file (may be valid or not)."""
    lines = _lines(rng.choice(sources()))
    for _ in range(rng.randint(1, 4)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        op = rng.choice(["del", "dup", "swap", "junk", "indent", "dedent", "truncate", "flip"])
        if op == "del":
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "junk":
            lines.insert(i, rng.choice(['key: "unterminated\n', "x: [1, 2\n", "- ]\n", "a: b: c\n", "\t- tab\n",
                                        "&a\n", "*nope\n", "? complex\n", "%YAML 1.1\n", "--- !!map\n", "...\n", "|\n",
                                        ": x\n", "{\n", "<<: *a\n", "!!binary x\n"]))
        elif op == "indent":
            lines[i] = "  " + lines[i]
        elif op == "dedent":
            lines[i] = lines[i].lstrip()
        elif op == "truncate":
            lines = lines[:i]
            lines.append(lines[-1][: len(lines[-1]) // 2] if lines else "")
        elif op == "flip" and lines[i]:
            s = lines[i]
            k = rng.randrange(len(s))
            lines[i] = s[:k] + rng.choice("{}[]:,-&*!|>'\"#%@` \t0xzP~\\/") + s[k + 1:]
    return Case("text-mutation", "".join(lines).encode())


_BOMB_SPOTS = ("ops", "placeholders", "top", "rank", "condition", "locations")


def alias_bomb(rng: random.Random) -> Case:
    """"Billion laughs" through ops, placeholders, top-level keys, ``rank`` ...: must reject."""
    width, levels = rng.choice([(9, 9), (10, 8), (20, 6), (4, 16), (2, 40), (50, 4)])
    spot = rng.choice(_BOMB_SPOTS)
    leaf = {"ops": "{store: {loc: x, value: 1}}", "placeholders": "{fence: {sem: sc, scope: sys}}",
            "top": "lol", "rank": "0", "condition": "1", "locations": "0"}[spot]
    defs = [f"b0: &b0 [{', '.join([leaf] * width)}]"]
    for k in range(1, levels):
        defs.append(f"b{k}: &b{k} [{', '.join([f'*b{k - 1}'] * width)}]")
    top = levels - 1
    bombs = "\n".join("x-" + d if spot != "top" else d for d in defs)
    body = {
        "ops": f"      - *b{top}\n",
        "placeholders": "      - \"{p}\"\n",
        "top": "      - store: {loc: x, value: 1}\n",
        "rank": "      - store: {loc: x, value: 1}\n",
        "condition": "      - store: {loc: x, value: 1}\n",
        "locations": "      - store: {loc: x, value: 1}\n",
    }[spot]
    at = f"*b{top}" if spot == "rank" else "0"
    locs = f"{{x: 0, y: *b{top}}}" if spot == "locations" else "{x: 0}"
    text = (f"{bombs}\nname: BOMB\nlocations: {locs}\nthreads:\n  P0:\n    at: {{rank: {at}, cta: 0}}\n    do:\n{body}"
            f"exists: \"x == 1\"\n")
    if spot == "placeholders":
        text += f"placeholders: {{p: ops}}\nvariants:\n  - name: v\n    set: {{p: *b{top}}}\n    expect: allowed\n    why: w\n"
    else:
        text += "expect: allowed\nwhy: w\n"
    if spot == "condition":
        text = text.replace('exists: "x == 1"', f"exists: *b{top}")
    return Case(f"alias-bomb-{spot}", text.encode(), must_reject=True)


def deep_nesting(rng: random.Random) -> Case:
    """Nesting far past any limit, in YAML (flow or block) or in a condition: must reject."""
    depth = rng.choice([100, 1000, 5000, 50_000])
    form = rng.choice(["flow-list", "flow-map", "block", "cond-paren", "cond-not", "cond-mixed", "litmus-cond"])
    base = ("name: DEEP\nlocations: {x: 0}\nthreads:\n  P0:\n    at: {rank: 0, cta: 0}\n    do:\n"
            "      - load: {reg: r0, loc: x}\n")
    tail = "expect: allowed\nwhy: w\n"
    if form == "flow-list":
        text = base + 'exists: "P0:r0 == 0"\n' + tail + "junk: " + "[" * depth + "]" * depth + "\n"
    elif form == "flow-map":
        text = base + 'exists: "P0:r0 == 0"\n' + tail + "junk: " + "{a: " * depth + "1" + "}" * depth + "\n"
    elif form == "block":
        depth = min(depth, 3000)
        text = base + 'exists: "P0:r0 == 0"\n' + tail + "junk:\n" + "".join(" " * (i + 1) + f"k{i}:\n" for i in range(depth)) + " " * (depth + 1) + "v\n"
    elif form == "litmus-cond":
        lit = rng.choice(litmus_sources())
        cond = "(" * depth + "x == 0" + ")" * depth
        head, kw, _ = _litmus_cond(lit)
        text = f"{head}{kw} {cond}\n"
        return Case("deep-litmus-cond", text.encode(), suffix=".litmus", must_reject=True)
    else:
        if form == "cond-paren":
            cond = "(" * depth + "P0:r0 == 0" + ")" * depth
        elif form == "cond-not":
            cond = "~" * depth + "P0:r0 == 0"
        else:
            cond = "~(" * depth + "P0:r0 == 0" + ")" * depth
        text = base + f"exists: '{cond}'\n" + tail
    return Case(f"deep-{form}", text.encode(), must_reject=True)


def product_bomb(rng: random.Random) -> Case:
    """A variant product of millions, or placeholders that multiply: must reject."""
    if rng.random() < 0.5:
        axes, opts = rng.choice([(4, 45), (6, 15), (12, 4), (24, 2)])  # 4M, 11M, 16M, 16M variants
        product = "".join(f"    a{i}:\n" + "".join(f"      o{j}: {{}}\n" for j in range(opts)) for i in range(axes))
        text = ("name: PBOMB\nlocations: {x: 0}\nthreads:\n  P0:\n    at: {rank: 0, cta: 0}\n    do:\n"
                "      - load: {reg: r0, loc: x}\nexists: \"P0:r0 == 0\"\nvariants:\n  product:\n" + product
                + "  expect:\n    - outcome: allowed\n      why: w\n")
        return Case("variant-product-bomb", text.encode(), must_reject=True)
    levels = rng.choice([8, 12, 16])
    kind = rng.choice(["text", "ops"])
    decl = ", ".join(f"p{i}: s" for i in range(levels + 1))
    if kind == "text":
        sets = ", ".join(f'p{i}: "{{p{i + 1}}}{{p{i + 1}}}{{p{i + 1}}}{{p{i + 1}}}{{p{i + 1}}}"' for i in range(levels)) + f", p{levels}: x"
        use = '      - store: {loc: "{p0}", value: 1}\n'
    else:
        sets = ", ".join(f'p{i}: ["{{p{i + 1}}}", "{{p{i + 1}}}", "{{p{i + 1}}}", "{{p{i + 1}}}"]' for i in range(levels)) + f", p{levels}: {{fence: {{sem: sc, scope: sys}}}}"
        use = '      - "{p0}"\n'
    text = ("name: PHBOMB\nlocations: {x: 0}\nthreads:\n  P0:\n    at: {rank: 0, cta: 0}\n    do:\n" + use
            + 'exists: "x == 1"\n' + f"placeholders: {{{decl}}}\nvariants:\n  - name: v\n    set: {{{sets}}}\n"
            "    expect: allowed\n    why: w\n")
    return Case(f"placeholder-bomb-{kind}", text.encode(), must_reject=True)


def bad_bytes(rng: random.Random) -> Case:
    """Random bytes, UTF-16, gzip, ELF, Latin-1, NULs, huge files: must reject."""
    text = rng.choice(sources())
    form = rng.choice(["random", "utf16", "utf16-nobom", "gzip", "elf", "latin1", "nul", "huge", "png", "utf32"])
    if form == "random":
        data = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4000)))
    elif form == "utf16":
        data = text.encode("utf-16")
    elif form == "utf16-nobom":
        data = text.encode("utf-16-le")
    elif form == "utf32":
        data = text.encode("utf-32")
    elif form == "gzip":
        data = gzip.compress(text.encode())
    elif form == "elf":
        data = b"\x7fELF\x02\x01\x01\x00" + bytes(rng.randrange(256) for _ in range(2000))
    elif form == "png":
        data = b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(500))
    elif form == "latin1":
        data = (text[: len(text) // 2] + "caf\u00e9 \u00ff" + text[len(text) // 2:]).encode("latin-1", "replace")
    elif form == "nul":
        k = rng.randrange(len(text))
        data = (text[:k] + "\0" + text[k:]).encode()
    else:
        data = (text * (2_000_000 // len(text) + 1)).encode()
    suffix = rng.choice([".yaml", ".yaml", ".litmus"])
    must = form != "random" or b"\0" in data or _not_utf8(data)
    if form == "random" and not must:
        return Case("bad-bytes-random", data, suffix)  # valid UTF-8 junk: either
    return Case(f"bad-bytes-{form}", data, suffix, must_reject=must)


def _not_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return False
    except UnicodeDecodeError:
        return True


_LIT_COND = re.compile(r"^(~exists|exists|forall)\b", re.M)


def _litmus_cond(text: str) -> tuple[str, str, str]:
    """(text before the condition, its keyword, its body without the outer parentheses)."""
    m = list(_LIT_COND.finditer(text))[-1]
    body = text[m.end():].strip()
    if body.startswith("(") and body.endswith(")"):
        body = body[1:-1]
    return text[: m.start()], m.group(1), body


def litmus_mutation(rng: random.Random) -> Case | None:
    """Malformed PTX ``.litmus`` files: text edits (either) or bad condition references (reject)."""
    text = rng.choice(litmus_sources())
    form = rng.choice(["cond-thread", "cond-reg", "cond-loc", "edit", "edit", "edit", "truncate", "empty-cond", "long-cond"])
    if form in ("cond-thread", "cond-reg", "cond-loc"):
        bad = {"cond-thread": "P9:r0 == 1", "cond-reg": "P0:zz == 1", "cond-loc": "nowhere == 1"}[form]
        head, kw, body = _litmus_cond(text)
        glue = rng.choice(["/\\", "\\/"])
        out = f"{head}{kw} ({body} {glue} {bad})\n"
        return Case(f"litmus-{form}", out.encode(), ".litmus", must_reject=True)
    if form == "truncate":
        return Case("litmus-truncate", text[: rng.randrange(len(text))].encode(), ".litmus")
    if form == "empty-cond":
        head, kw, _ = _litmus_cond(text)
        return Case("litmus-empty-cond", f"{head}{kw}\n".encode(), ".litmus", must_reject=True)
    if form == "long-cond":
        n = rng.choice([1000, 20000])
        cond = " /\\ ".join(["x == 0"] * n)
        head, kw, _ = _litmus_cond(text)
        return Case("litmus-long-cond", f"{head}{kw} ({cond})\n".encode(), ".litmus")
    chars = list(text)
    for _ in range(rng.randint(1, 5)):
        k = rng.randrange(len(chars))
        op = rng.random()
        if op < 0.4:
            chars[k] = rng.choice("{}|;:,=()@ \n\"PxXr0123456789~/\\.-")
        elif op < 0.7:
            del chars[k]
        else:
            chars.insert(k, rng.choice(["|", ";", "\n", "{", "}", '"', "P9", "@cta 9", "exists", "ld.weak r0, x"]))
    return Case("litmus-edit", "".join(chars).encode(), ".litmus")


GENERATORS: dict[str, tuple[Callable[[random.Random], Case | None], int]] = {
    # name: (generator, weight)
    "structural": (structural, 20),
    "text": (text_mutation, 20),
    "cond-unknown": (cond_unknown, 5),
    "empty-variants": (empty_variants, 3),
    "two-key-op": (two_key_op, 4),
    "bad-tag": (bad_tag, 4),
    "undeclared": (unknown_placeholder, 3),
    "unknown-ref": (unknown_location_op, 4),
    "alias-bomb": (alias_bomb, 6),
    "deep": (deep_nesting, 6),
    "product-bomb": (product_bomb, 4),
    "bad-bytes": (bad_bytes, 8),
    "litmus": (litmus_mutation, 13),
}


def generate(rng: random.Random, name: str | None = None) -> Case:
    """One case from the generator ``name`` (or one drawn by weight)."""
    while True:
        if name is None:
            names = list(GENERATORS)
            pick = rng.choices(names, weights=[GENERATORS[n][1] for n in names])[0]
        else:
            pick = name
        case = GENERATORS[pick][0](rng)
        if case is not None:
            return case


# ---------------------------------------------------------------------------- checking


def check_file(path: str, model: bool = True, on_loaded: Callable[[], None] | None = None) -> dict[str, Any]:
    """Load ``path`` as ``litmus model`` does; the outcome as a dict (see the module doc)."""
    from litmus.errors import LitmusError
    from litmus.spec import load_tests

    stage = "load"
    try:
        tests = load_tests([path])
        if model:
            from litmus.model import check

            stage = "model"
            if on_loaded is not None:
                on_loaded()
            for t in tests:
                check(t)
    except LitmusError as e:
        bad = [str(p) for p in e.problems if p.file != path or (p.line is None and not WHOLE_FILE.search(p.message))]
        if bad or not e.problems:
            return {"status": "unlocated", "detail": (bad or [str(e)])[0][:300]}
        return {"status": "ok-error", "detail": str(e.problems[0])[:300]}
    except MemoryError:
        return {"status": _staged("memory", stage), "detail": "MemoryError"}
    except Exception as e:  # noqa: BLE001 - that is what is counted
        import traceback

        tb = traceback.extract_tb(e.__traceback__)[-1]
        return {"status": _staged("traceback", stage),
                "detail": f"{type(e).__name__}: {str(e)[:150]} at {tb.filename}:{tb.lineno}"[:300]}
    return {"status": "ok-accept", "detail": f"{len(tests)} tests"}


def _staged(status: str, stage: str) -> str:
    """``traceback`` while reading; ``model-traceback`` when the model checker failed on a test
    that loaded (counted apart: the model is not an input reader)."""
    return status if stage == "load" else f"model-{status}"


def _worker(mem_mb: int) -> None:
    """Read paths on stdin; write one JSON outcome per line."""
    if mem_mb:
        limit = mem_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.setrecursionlimit(10_000)
    for line in sys.stdin:
        job = json.loads(line)
        def loaded() -> None:
            sys.stdout.write('{"stage": "model"}\n')
            sys.stdout.flush()

        out = check_file(job["path"], job.get("model", True), loaded)
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


class _Worker:
    def __init__(self, mem_mb: int):
        self.mem_mb = mem_mb
        self.start()

    def start(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), LITMUS_NO_SPEC_CACHE="1")
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker", "--mem-mb", str(self.mem_mb)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        self.buf = b""

    def run(self, path: str, timeout: float, model: bool) -> tuple[dict[str, Any], float]:
        assert self.proc.stdin and self.proc.stdout
        t0 = time.monotonic()
        self.proc.stdin.write(json.dumps({"path": path, "model": model}) + "\n")
        self.proc.stdin.flush()
        stage = "load"
        fd = self.proc.stdout.fileno()
        while True:
            if b"\n" not in self.buf:  # read the raw fd: a buffered reader would hide lines from select
                left = timeout - (time.monotonic() - t0)
                ready, _, _ = select.select([fd], [], [], max(left, 0))
                if not ready:
                    self.restart()
                    return ({"status": _staged("hang", stage), "detail": f"no answer in {timeout:.0f} s ({stage})"},
                            time.monotonic() - t0)
                chunk = os.read(fd, 1 << 16)
                self.buf += chunk
                if chunk:
                    continue
            line, _, self.buf = self.buf.partition(b"\n")
            if not line:
                code = self.proc.wait()
                self.start()
                return ({"status": _staged("memory", stage), "detail": f"worker died (exit {code}, {stage})"},
                        time.monotonic() - t0)
            out = json.loads(line)
            if out.get("stage"):
                stage = out["stage"]
                continue
            return out, time.monotonic() - t0

    def restart(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.start()

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


CATEGORIES = ("traceback", "hang", "memory", "unlocated", "wrong-accept")
MODEL_CATEGORIES = ("model-traceback", "model-hang", "model-memory")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per input before it counts as a hang")
    ap.add_argument("--mem-mb", type=int, default=2048, help="RLIMIT_AS of each worker, MiB")
    ap.add_argument("--no-model", action="store_true", help="only load; do not run the model on what loads")
    ap.add_argument("--keep", default=None, help="folder to keep the failing inputs in")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        _worker(args.mem_mb)
        return 0
    sys.path.insert(0, str(ROOT))
    rng = random.Random(args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="litmus-fuzz-"))
    cases = []
    for i in range(args.count):
        case = generate(rng)
        path = tmp / f"case{i:05d}{case.suffix}"
        path.write_bytes(case.data)
        cases.append((str(path), case))
    import concurrent.futures
    import queue
    import threading

    workers: queue.Queue[_Worker] = queue.Queue()
    for _ in range(args.jobs):
        workers.put(_Worker(args.mem_mb))
    counts: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = {}
    examples: dict[str, list[str]] = {}
    lock = threading.Lock()
    slowest = [0.0, ""]
    t0 = time.monotonic()

    def one(item: tuple[str, Case]) -> None:
        path, case = item
        w = workers.get()
        try:
            out, secs = w.run(path, args.timeout, not args.no_model)
        finally:
            workers.put(w)
        status = out["status"]
        if status == "ok-accept" and case.must_reject:
            status = "wrong-accept"
        with lock:
            counts[status] += 1
            by_kind.setdefault(case.kind, Counter())[status] += 1
            if secs > slowest[0]:
                slowest[:] = [secs, f"{case.kind} {path}"]
            if status in CATEGORIES or status in MODEL_CATEGORIES:
                examples.setdefault(status, []).append(f"{case.kind} {path}: {out['detail']}")
                if args.keep:
                    Path(args.keep).mkdir(parents=True, exist_ok=True)
                    Path(args.keep, Path(path).name).write_bytes(case.data)

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        list(ex.map(one, cases))
    while not workers.empty():
        workers.get().close()
    wall = time.monotonic() - t0
    print(f"fuzz_inputs: {args.count} inputs, seed {args.seed}, {args.jobs} workers, timeout {args.timeout:.0f} s, "
          f"RLIMIT_AS {args.mem_mb} MiB, model {'off' if args.no_model else 'on'}: {wall:.1f} s")
    print("  " + ", ".join(f"{k}: {counts[k]}" for k in ("ok-error", "ok-accept", *CATEGORIES)))
    print("  the model checker on inputs that loaded (not input reading): "
          + ", ".join(f"{k}: {counts[k]}" for k in MODEL_CATEGORIES))
    print(f"  slowest input: {slowest[0]:.2f} s ({slowest[1]})")
    print("  by generator (outcome: count):")
    for kind in sorted(by_kind):
        print(f"    {kind:28s} " + ", ".join(f"{k} {v}" for k, v in sorted(by_kind[kind].items())))
    for status in (*CATEGORIES, *MODEL_CATEGORIES):
        for ex_line in examples.get(status, [])[:5]:
            print(f"  {status}: {ex_line}")
    return 1 if any(counts[c] for c in CATEGORIES) else 0


if __name__ == "__main__":
    sys.exit(main())
