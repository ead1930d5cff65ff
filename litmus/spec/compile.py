"""One YAML document -> a :class:`~litmus.spec.pattern.Pattern`: its variants expanded into IR
litmus tests (validated with the pydantic models of :mod:`litmus.spec.documents`)."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

import yaml

from litmus import ir
from litmus.errors import Problem
from litmus.spec import documents as m
from litmus.spec.build import build_program
from litmus.spec.meaning import early_meaning_problems
from litmus.spec.pattern import Pattern
from litmus.spec.placeholders import Budget, Filler, uses
from litmus.spec.shape import check_shape, suggest
from litmus.spec.yamlpos import LDict, LList, Pos, plain

TEMPLATE_KEYS: tuple[str, ...] = ("locations", "threads", *m.CONDITION_KEYS)


@dataclass
class _Variant:
    name: str
    env: dict[str, tuple[Any, Pos]]
    expect: ir.Expectation
    line: int


def compile_pattern(raw: Any, file: str) -> tuple[Pattern | None, list[Problem]]:
    """The pattern of one YAML document, or every problem found in it."""
    problems = _duplicate_keys(raw, file, ())
    doc, shape_problems = check_shape(raw, file)
    problems += shape_problems
    if doc is None or problems:
        # report the meaning mistakes the raw document already shows, in the same pass
        return None, _dedupe(problems + early_meaning_problems(raw, file))
    problems += _undeclared(doc, raw, file)
    variants, vproblems = _variants(doc, raw, file)
    problems += vproblems
    if problems:
        return None, problems
    tests: list[ir.LitmusTest] = []
    budget = Budget()
    for v in variants:
        test, tproblems = _expand_one(doc, raw, file, v, budget)
        problems += tproblems
        if budget.exceeded:
            break
        if test is not None:
            tests.append(test)
    if problems:
        return None, _dedupe(problems)
    return Pattern(doc.name, doc.title, file, raw.pos.line, tuple(tests)), []


# ------------------------------------------------------------------------ basic checks


def _duplicate_keys(node: Any, file: str, path: tuple[Any, ...]) -> list[Problem]:
    out: list[Problem] = []
    if isinstance(node, LDict):
        for key, pos, first in node.dups:
            what = "thread name" if path == ("threads",) else "key"
            if path == ("threads",):
                what = "thread name"
            elif path == ("locations",):
                what = "location name"
            out.append(Problem(file, pos.line, pos.column, f"duplicate {what} '{key}' (first at line {first.line}); each may appear once"))
        for k, v in node.items():
            out += _duplicate_keys(v, file, path + (k,))
    elif isinstance(node, LList):
        for v in node:
            out += _duplicate_keys(v, file, path + (0,))
    return out


def _undeclared(doc: m.PatternDoc, raw: LDict, file: str) -> list[Problem]:
    declared = list(doc.placeholders)
    found: list[tuple[str, Pos]] = []
    for key in TEMPLATE_KEYS:
        if key in raw:
            found += uses(raw[key], raw.val_pos[key])
    if "variants" in raw:
        found += uses(raw["variants"], raw.val_pos["variants"])
    out: list[Problem] = []
    for name, pos in found:
        if name not in declared:
            out.append(
                Problem(
                    file, pos.line, pos.column,
                    f"placeholder '{{{name}}}' is used but not declared"
                    + suggest(name, declared, "declare it under placeholders: with a sentence saying what it stands for"),
                )
            )
    return out


# ---------------------------------------------------------------------------- variants


def _variants(doc: m.PatternDoc, raw: LDict, file: str) -> tuple[list[_Variant], list[Problem]]:
    if doc.variants is None:
        return _no_variants(doc, raw, file)
    problems: list[Problem] = []
    if doc.expect is not None or doc.why is not None:
        key = "expect" if doc.expect is not None else "why"
        p = raw.key_pos[key]
        problems.append(Problem(file, p.line, p.column, f"top-level {key}: is only for a pattern without variants; put it in each variant (or in the product's expect rules)"))
    count_problem = _variant_count(doc, raw, file)
    if count_problem is not None:
        return [], problems + [count_problem]
    if isinstance(doc.variants, list):
        variants, more = _list_variants(doc, raw["variants"], file)
    else:
        variants, more = _product_variants(doc, raw["variants"], file)
    return variants, problems + more


def _variant_count(doc: m.PatternDoc, raw: LDict, file: str) -> Problem | None:
    """The problem when ``variants:`` would give no variant, or more than the limit."""
    from litmus import limits

    where = raw.val_pos["variants"]
    if isinstance(doc.variants, list):
        count = len(doc.variants)
        if count == 0:
            return Problem(file, where.line, where.column,
                           "variants: is an empty list; give at least one variant (or remove variants: "
                           "and give expect: and why: for a pattern without placeholders)")
    else:
        count = 1
        axes: LDict = raw["variants"]["product"]
        for axis, options in axes.items():
            if not options:
                p = axes.val_pos[axis]
                return Problem(file, p.line, p.column,
                               f"axis '{axis}' of the product has no options, so the product has no variant; "
                               "give it at least one option")
            count *= len(options)
    if count > limits.VARIANTS.value:
        return Problem(file, where.line, where.column,
                       f"the {count} variants of this pattern exceed the limit of {limits.VARIANTS.value} "
                       f"variants in one pattern; split the pattern, or if this is real input raise the limit "
                       f"with the environment variable {limits.VARIANTS.env}=<larger number>")
    return None


def _no_variants(doc: m.PatternDoc, raw: LDict, file: str) -> tuple[list[_Variant], list[Problem]]:
    problems = []
    if doc.placeholders:
        p = raw.key_pos["placeholders"]
        problems.append(Problem(file, p.line, p.column, "placeholders are declared but there are no variants to fill them; add variants: or remove placeholders:"))
    if doc.expect is None or doc.why is None:
        problems.append(
            Problem(file, raw.pos.line, raw.pos.column,
                    "a pattern without variants needs expect: (forbidden or allowed) and why: (one line saying why)")
        )
        return [], problems
    exp = ir.Expectation(doc.expect, doc.why, doc.may_hang, _audit(doc.audit_expect, raw.pos.line))
    return [_Variant("", {}, exp, raw.pos.line)], problems


def _set_env(values: LDict, declared: list[str], file: str, vname: str) -> tuple[dict[str, tuple[Any, Pos]], list[Problem]]:
    env: dict[str, tuple[Any, Pos]] = {}
    problems: list[Problem] = []
    for k, v in values.items():
        if k not in declared:
            p = values.key_pos[k]
            problems.append(
                Problem(file, p.line, p.column,
                        f"variant '{vname}' sets unknown placeholder '{k}'"
                        + suggest(k, declared, f"declared placeholders: {', '.join(declared) or 'none'}"))
            )
        else:
            env[k] = (v, values.val_pos[k])
    return env, problems


def _unfilled(env: dict[str, Any], declared: list[str], pos: Pos, file: str, vname: str) -> list[Problem]:
    missing = [d for d in declared if d not in env]
    if not missing:
        return []
    return [
        Problem(file, pos.line, pos.column,
                f"variant '{vname}' leaves placeholder{'s' if len(missing) > 1 else ''} "
                f"{', '.join(repr(x) for x in missing)} unfilled; every variant must set every placeholder")
    ]


def _list_variants(doc: m.PatternDoc, raw: LList, file: str) -> tuple[list[_Variant], list[Problem]]:
    declared = list(doc.placeholders)
    out: list[_Variant] = []
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for spec, rv, pos in zip(doc.variants, raw, raw.item_pos):  # type: ignore[arg-type]
        npos = rv.val_pos["name"]
        if spec.name in seen:
            problems.append(Problem(file, npos.line, npos.column, f"duplicate variant name '{spec.name}' (first at line {seen[spec.name]}); give each variant its own name"))
            continue
        seen[spec.name] = npos.line
        env, more = _set_env(rv.get("set") or LDict(pos), declared, file, spec.name)
        problems += more + _unfilled(env, declared, pos, file, spec.name)
        out.append(_Variant(spec.name, env, ir.Expectation(spec.expect, spec.why, spec.may_hang, _audit(spec.audit_expect, pos.line)), pos.line))
    return out, problems


def _product_variants(doc: m.PatternDoc, raw: LDict, file: str) -> tuple[list[_Variant], list[Problem]]:
    spec: m.ProductSpec = doc.variants  # type: ignore[assignment]
    declared = list(doc.placeholders)
    axes: LDict = raw["product"]
    problems = _check_rules(spec, raw, file)
    out: list[_Variant] = []
    for combo in itertools.product(*[list(axes[a].keys()) for a in axes]):
        chosen = dict(zip(axes.keys(), combo))
        name = "-".join(str(o) for o in combo)
        env: dict[str, tuple[Any, Pos]] = {}
        for axis, option in chosen.items():
            values = axes[axis][option]
            more_env, more = _set_env(values if isinstance(values, LDict) else LDict(), declared, file, name)
            problems += more
            env.update(more_env)
        first = axes[next(iter(axes))]
        pos = first.key_pos[combo[0]]
        problems += _unfilled(env, declared, raw.key_pos["product"], file, name)
        rule = next((r for r in spec.expect if _matches(r, chosen)), None)
        if rule is None:
            p = raw.key_pos["expect"]
            problems.append(Problem(file, p.line, p.column, f"no expect rule matches variant '{name}'; add a last rule without when:"))
            continue
        out.append(_Variant(name, env, ir.Expectation(rule.outcome, rule.why, rule.may_hang, _audit(rule.audit_expect, pos.line)), pos.line))
    return out, _dedupe(problems)


def _audit(specs: list[m.AuditExpectSpec], line: int | None) -> tuple[ir.AuditExpect, ...]:
    return tuple(ir.AuditExpect(a.target, a.op, a.triton, a.why, line) for a in specs)


def _matches(rule: m.Rule, chosen: dict[str, str]) -> bool:
    for axis, want in rule.when.items():
        options = [want] if isinstance(want, str) else want
        if chosen.get(axis) not in options:
            return False
    return True


def _check_rules(spec: m.ProductSpec, raw: LDict, file: str) -> list[Problem]:
    problems: list[Problem] = []
    axes = spec.product
    raw_rules: LList = raw["expect"]
    for rule, rr in zip(spec.expect, raw_rules):
        when: LDict = rr.get("when") or LDict()
        for axis, want in rule.when.items():
            if axis not in axes:
                p = when.key_pos[axis]
                problems.append(Problem(file, p.line, p.column, f"expect rule names unknown axis '{axis}'" + suggest(axis, list(axes), f"axes: {', '.join(axes)}")))
                continue
            options = list(axes[axis])
            for o in [want] if isinstance(want, str) else want:
                if o not in options:
                    p = when.val_pos[axis]
                    problems.append(Problem(file, p.line, p.column, f"expect rule names unknown option '{o}' of axis '{axis}'" + suggest(o, options, f"options: {', '.join(options)}")))
    return problems


# ---------------------------------------------------------------------------- expansion


def _expand_one(doc: m.PatternDoc, raw: LDict, file: str, v: _Variant,
                budget: Budget | None = None) -> tuple[ir.LitmusTest | None, list[Problem]]:
    filler = Filler(v.env, budget=budget or Budget())
    concrete = LDict(raw.pos)
    for key, value in raw.items():
        if key in TEMPLATE_KEYS:
            nv, npos = filler.fill(value, raw.val_pos[key])
            concrete.put(key, nv, raw.key_pos[key], npos, raw.val_style.get(key))
        else:
            concrete.put(key, value, raw.key_pos[key], raw.val_pos[key], raw.val_style.get(key))
    prefix = f"in variant '{v.name}': " if v.name else ""
    problems = [Problem(file, p.line, p.column, prefix + msg) for p, msg in filler.problems]
    if problems:
        return None, problems
    too_many = _too_many_ops(concrete, file, prefix) or _out_of_range(concrete, file, prefix)
    if too_many is not None:
        return None, [too_many]
    cdoc, problems = check_shape(concrete, file, v.name)
    if cdoc is None:
        return None, problems + [Problem(file, p.line, p.column, prefix + p.message)
                                 for p in early_meaning_problems(concrete, file)]
    program, problems = build_program(cdoc, concrete, file, v.name)
    if program is None:
        return None, problems
    params = tuple((name, _param_text(v.env[name][0])) for name in doc.placeholders if name in v.env)
    return (
        ir.LitmusTest(
            name=doc.name,
            variant=v.name,
            locations=program.locations,
            threads=program.threads,
            condition=program.condition,
            expect=v.expect,
            title=doc.title,
            description=doc.description,
            origin=doc.source,
            source_file=file,
            source_line=v.line,
            tags=tuple(doc.tags),
            params=params,
        ),
        [],
    )


def _too_many_ops(concrete: LDict, file: str, prefix: str) -> Problem | None:
    from litmus import limits

    threads = concrete.get("threads")
    if not isinstance(threads, LDict):
        return None
    count = sum(len(t["do"]) for t in threads.values() if isinstance(t, LDict) and isinstance(t.get("do"), LList))
    if count <= limits.OPS.value:
        return None
    p = concrete.val_pos["threads"]
    return Problem(file, p.line, p.column, f"{prefix}the {count} ops of this test exceed the limit of "
                                           f"{limits.OPS.value} {limits.OPS.what.split(' (')[0]}; if this is real "
                                           f"input, raise it with the environment variable {limits.OPS.env}=<larger number>")


INT64 = (-(2**63), 2**64 - 1)  # signed 64-bit values, and unsigned ones for 64-bit locations


def _out_of_range(concrete: LDict, file: str, prefix: str) -> Problem | None:
    """The first integer of the program that does not fit a 64-bit memory word or register
    (signed or unsigned)."""
    todo: list[tuple[Any, Pos]] = [(concrete[k], concrete.val_pos[k]) for k in TEMPLATE_KEYS if k in concrete]
    while todo:  # iterative: depth is bounded by the YAML limit, but no need to recurse
        value, pos = todo.pop()
        if isinstance(value, LDict):
            todo += [(v, value.val_pos[k]) for k, v in value.items()]
        elif isinstance(value, LList):
            todo += list(zip(value, value.item_pos))
        elif isinstance(value, int) and not isinstance(value, bool) and not INT64[0] <= value <= INT64[1]:
            text = str(value) if value.bit_length() < 200 else f"an integer of {value.bit_length()} bits"
            return Problem(file, pos.line, pos.column,
                           f"{prefix}{text} does not fit in 64 bits; values, initial values, ranks and bounds "
                           f"must lie in [-2**63, 2**64 - 1]")
    return None


def _param_text(value: Any) -> str:
    """A placeholder value as one line of text (YAML flow style for ops and lists)."""
    if isinstance(value, (dict, list)):
        return flow_text(plain(value))
    return str(value)


_PLAIN_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_YAML_WORDS = frozenset({"y", "yes", "n", "no", "true", "false", "on", "off", "null"})


def flow_text(value: Any) -> str:
    """``value`` (plain dicts, lists and scalars) in YAML flow style, on one line, as
    ``yaml.safe_dump(..., default_flow_style=True)`` writes it: built directly for the shapes
    catalog parameters have (names, numbers, booleans), by PyYAML for anything that may need
    quoting."""
    if _simple(value):
        return _flow(value)
    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10_000).strip()
    return text.removesuffix("\n...").strip()


def _simple(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_simple(k) and _simple(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_simple(v) for v in value)
    if isinstance(value, str):
        return bool(_PLAIN_WORD.fullmatch(value)) and value.lower() not in _YAML_WORDS
    return value is None or isinstance(value, int)


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flow(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _dedupe(problems: list[Problem]) -> list[Problem]:
    out: list[Problem] = []
    seen: set[tuple[Any, ...]] = set()
    for p in problems:
        core = p.message.split("': ", 1)[1] if p.message.startswith("in variant '") else p.message
        core = re.sub(r"^'[^']*' ", "", core)  # the same value reached through two threads
        key = (p.file, p.line, p.column, core)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out
