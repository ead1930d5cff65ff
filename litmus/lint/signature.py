"""Argument types and constexpr values for compiling a user's kernel: from what the user gives
(``--signature 'flag=*i32,BLOCK=128'``, the ``LITMUS_LINT`` dict of the file, or the fixture's
``signature=``), the parameters' annotations (``flag: "*i32"``, ``BLOCK: tl.constexpr = 128``),
a launch of the kernel in its file (:mod:`litmus.lint.callsite`), and what the kernel's source
does with each parameter (:mod:`litmus.lint.infer`), in that order.  When a type still cannot
be known, the error names each such parameter and the fix."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from litmus.errors import LitmusError

_TYPE = re.compile(r"\*?(?:i1|i8|i16|i32|i64|u1|u8|u16|u32|u64|fp8e4nv|fp8e5|fp16|bf16|fp32|f32|fp64)"
                   r"|tensordesc<\w+\[\d+(?:,\s*\d+)*\]>")
_OPEN, _CLOSE = "([<", ")]>"


def type_text(value: Any) -> str:
    """A type or constexpr value as ``--signature`` writes it: a tuple as ``(*fp32,*fp32)``, a
    dtype as ``tl.uint32``; a jitted function by its name."""
    if isinstance(value, tuple):
        return "(" + ",".join(type_text(v) for v in value) + ")"
    import triton.language as tl

    if isinstance(value, tl.dtype):
        return f"tl.{value}"
    if hasattr(value, "fn") and hasattr(value, "src"):  # a JITFunction
        return getattr(value, "__name__", "function")
    return str(value)


def _split(text: str) -> list[str]:
    """``text`` cut at the commas outside brackets (``t=(*fp32,*fp32)``, ``d=tensordesc<bf16[64, 64]>``)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch in _OPEN) - (ch in _CLOSE)
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return parts + [text[start:]]


def parse_type(value: Any) -> str | tuple | None:
    """``value`` as the type Triton takes (``(*fp32,*fp32)`` a tuple), or None when it is no type."""
    if isinstance(value, tuple):
        items = tuple(parse_type(v) for v in value)
        return None if any(i is None for i in items) else items
    if not isinstance(value, str):
        return None
    value = value.strip()
    if value.startswith("(") and value.endswith(")"):
        return parse_type(tuple(p for p in _split(value[1:-1]) if p.strip()))
    return value if _TYPE.fullmatch(value) else None


@dataclass(frozen=True)
class KernelSignature:
    """What ``triton.compile`` needs besides the function: parameter types and constexprs."""

    kernel: str
    file: str
    line: int
    types: dict[str, Any] = field(default_factory=dict)  # a type string, or a tuple of them
    constexprs: dict[str, Any] = field(default_factory=dict)
    inferred: dict[str, str] = field(default_factory=dict)  # parameter -> why its type/value was chosen

    def inferred_note(self) -> str | None:
        """One line saying which parameters were inferred and as what, or None."""
        if not self.inferred:
            return None
        said = ", ".join(f"{k}={type_text(self.value_of(k))} ({why})" for k, why in self.inferred.items())
        text = ",".join(f"{k}={type_text(self.value_of(k))}" for k in self.inferred)
        return (f"{self.file}:{self.line}: kernel {self.kernel}: inferred {said}; if one is wrong, give it with "
                f"--signature '{text}' (or LITMUS_LINT)")

    def value_of(self, name: str) -> Any:
        """The type or constexpr value the kernel is compiled with for ``name``, as JSON can hold
        it: a tuple of types, a dtype or a function as ``--signature`` writes it (``type_text``)."""
        value = self.types[name] if name in self.types else self.constexprs.get(name)
        return value if value is None or isinstance(value, (str, int, float, bool)) else type_text(value)

    def describe(self) -> str:
        """``name=type`` / ``name=value`` pairs, as ``--signature`` takes them."""
        parts = [f"{k}={type_text(v)}" for k, v in {**self.types, **self.constexprs}.items()]
        return ",".join(parts)


def parse_signature(text: str) -> dict[str, str]:
    """``'a=*i32, b=i32,BLOCK=128'`` -> ``{"a": "*i32", "b": "i32", "BLOCK": "128"}``."""
    out: dict[str, str] = {}
    for part in _split(text):
        part = part.strip()
        if not part:
            continue
        name, eq, value = part.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise LitmusError(f"--signature {text!r}: write NAME=TYPE or NAME=VALUE pairs separated by commas, "
                              "e.g. --signature 'flag=*i32,n=i32,BLOCK=128'")
        out[name.strip()] = value.strip()
    return out


def _constexpr_value(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if text in ("True", "False", "true", "false"):
        return text in ("True", "true")
    if text.startswith("tl."):  # a dtype: tl.uint32
        import triton.language as tl

        dtype = getattr(tl, text[3:], None)
        if isinstance(dtype, tl.dtype):
            return dtype
    try:
        return float(text)
    except ValueError:
        return text.strip("'\"")


def kernel_signature(fn: Any, given: Mapping[str, Any] | None = None,
                     hints: Mapping[str, tuple[Any, str]] | None = None, infer: bool = True) -> KernelSignature:
    """The signature of jitted ``fn``: ``given`` first, then annotations and defaults, then the
    launch ``hints`` (:func:`litmus.lint.callsite.call_site_hints`), then (with ``infer``) the
    kernel's use of each parameter; ``inferred`` says which came from the last two.

    Raises :class:`LitmusError` at the kernel's ``def`` line naming every parameter whose type or
    constexpr value is still unknown, with the ``--signature`` text that would fill it in."""
    given = dict(given or {})
    raw = getattr(fn, "fn", fn)
    code = getattr(raw, "__code__", None)
    file = code.co_filename if code else "<kernel>"
    line = code.co_firstlineno if code else 0
    name = getattr(fn, "__name__", getattr(raw, "__name__", "kernel"))
    params = list(getattr(fn, "params", []))
    known = {p.name for p in params}
    unknown_given = sorted(set(given) - known)
    if unknown_given:
        raise LitmusError.at(file, line, f"kernel {name} has no parameter(s) {', '.join(unknown_given)} "
                             f"(its parameters: {', '.join(p.name for p in params)})")
    types: dict[str, Any] = {}
    constexprs: dict[str, Any] = {}
    open_params: list[Any] = []
    for p in params:
        ann = str(getattr(p, "annotation", "") or "")
        is_constexpr = bool(getattr(p, "is_constexpr", False))
        default = getattr(p, "default", None)
        has_default = default is not None and default.__class__.__name__ != "type" and default is not inspect_empty()
        if p.name in given:
            value = given[p.name]
            typ = None if is_constexpr else parse_type(value)
            if typ is not None:
                types[p.name] = typ
            elif is_constexpr:
                constexprs[p.name] = _constexpr_value(value)
            else:
                raise LitmusError.at(file, line, f"kernel {name}: {p.name}={value!r} is not a Triton type; write e.g. "
                                     f"{p.name}=*i32 (a pointer to int32), {p.name}=i32 or {p.name}=i64")
        elif is_constexpr and has_default:
            constexprs[p.name] = getattr(default, "value", default)
        elif not is_constexpr and ann and _TYPE.fullmatch(ann):
            types[p.name] = ann
        else:
            open_params.append(p)
    inferred: dict[str, str] = {}
    missing: list[str] = []
    reasons: dict[str, str] = {}
    if open_params and infer:
        from litmus.lint.infer import summarize
        from litmus.lint.infer_types import decide

        summary = summarize(fn)
        # constexprs first: a tuple's length may be one of them (``for i in tl.static_range(world_size)``)
        open_params.sort(key=lambda p: not getattr(p, "is_constexpr", False))
        for p in open_params:
            is_constexpr = bool(getattr(p, "is_constexpr", False))
            default = getattr(p, "default", None)
            has_default = default is not None and default is not inspect_empty()
            decided = decide(p.name, is_constexpr, summary.uses.get(p.name), dict(hints or {}).get(p.name),
                             getattr(default, "value", default) if has_default else inspect_empty(), constexprs)
            if decided.value is None:
                reasons[p.name] = decided.why
                missing.append(f"{p.name}=<value>" if is_constexpr else f"{p.name}=<type>")
            elif decided.constexpr:
                constexprs[p.name] = decided.value
                inferred[p.name] = decided.why
            else:
                types[p.name] = decided.value
                inferred[p.name] = decided.why
    else:
        missing = [f"{p.name}=<value>" if getattr(p, "is_constexpr", False) else f"{p.name}=<type>"
                   for p in open_params]
    if missing:
        position = {p.name: i for i, p in enumerate(params)}
        missing.sort(key=lambda m: position[m.split("=")[0]])
        reasons = {k: reasons[k] for k in sorted(reasons, key=position.__getitem__)}
        why = "; ".join(f"{k}: {v}" for k, v in reasons.items())
        others = ", ".join(f"{k}={type_text(types.get(k, constexprs.get(k)))}"
                           for k in sorted(inferred, key=position.__getitem__))
        raise LitmusError.at(file, line, f"kernel {name}: cannot compile without the type or constexpr value of "
                             f"{', '.join(m.split('=')[0] for m in missing)}"
                             f"{f' ({why})' if why else ''}; give them with --signature "
                             f"'{','.join(missing)}' (types like *i32, *fp32, i32, i64; constexprs as values), "
                             "annotate the parameters (flag: \"*i32\"), or set LITMUS_LINT in the file"
                             f"{f' (inferred meanwhile: {others})' if others else ''}")
    # Triton wants the parameters in order
    order = [p.name for p in params]
    types = {k: types[k] for k in order if k in types}
    constexprs = {k: constexprs[k] for k in order if k in constexprs}
    return KernelSignature(name, file, line, types, constexprs, {k: inferred[k] for k in order if k in inferred})


def inspect_empty() -> Any:
    """``inspect.Parameter.empty`` (what Triton stores as a parameter's missing default)."""
    import inspect

    return inspect.Parameter.empty
