"""How a jitted function uses each parameter, read from its source: whether it reaches the
pointer argument of a memory operation (``tl.load``/``tl.store``/``tl.atomic_*``, or a jitted
helper's pointer parameter, followed into the helper), directly or through arithmetic
(``p + offs``, ``p + pid * stride``), casts and helpers that return it (a translate), and what
else tells its type or a constexpr value that compiles (a ``tl.arange`` bound, a loop bound, a
comparison with a literal).  :mod:`litmus.lint.signature` turns these uses into types."""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field
from typing import Any

from litmus.lint.source import dotted

ATOMICS = ("atomic_add", "atomic_and", "atomic_cas", "atomic_max", "atomic_min", "atomic_or", "atomic_xchg",
           "atomic_xor", "atomic_sub", "atomic_load", "atomic_store")
MEMORY_OPS = ("load", "store", *ATOMICS)
_PASS_THROUGH = ("cast", "multiple_of", "max_contiguous", "broadcast_to", "reshape", "view", "expand_dims",
                 "advance", "to", "cast_ptr", "pointer_cast")
_SHAPE_CALLS = ("full", "zeros", "ones", "empty", "zeros_like")
DESCRIPTOR_METHODS = ("load", "store", "atomic_add", "atomic_min", "atomic_max", "atomic_and", "atomic_or",
                      "atomic_xor", "atomic_xchg", "gather", "scatter")
"""Methods of a ``tl.tensor_descriptor`` (``a_desc.load([m, k])``): the parameter is a TMA descriptor."""
LOCAL_POINTER = "<pointer>"
"""A root that is no parameter: a pointer made in the function (a loaded address cast to a
pointer); ``table + rank`` is built on it, not on ``rank``."""


@dataclass
class Use:
    """What the source says about one parameter."""

    pointer: bool = False
    atomic: bool = False  # the pointer of an atomic
    int_data: bool = False  # a pointer whose memory is written or compared with an int literal
    table: bool = False  # a pointer whose loaded words become addresses (heap bases, pointer tables)
    shape: bool = False  # a tl.arange bound or a tensor shape
    loop_bound: bool = False
    divisor: bool = False
    arith: bool = False
    called: bool = False  # called as a function or used as a dtype: no value can be guessed
    compared: Any = None  # a literal it is compared with
    used: bool = False
    compared_to: tuple[str, ...] = ()  # for a pointer: the parameters its loaded value is compared with
    condition: bool = False  # tested as a condition (``if EVEN_K:``, ``x if FP8 else y``)
    stub_arg: bool = False  # given to a function of a module stubbed empty (which ignores it)
    size: bool = False  # compared with a run-time value (``offs < numel``): a bound
    indexed: bool = False  # indexed with an element index (``buf_tuple[i]``): a tuple
    length: tuple[Any, ...] = ()  # what bounds the indices: int literals (an index + 1), loop-bound parameters
    arity: tuple[int, ...] = ()  # called as a function with these numbers of arguments
    dtype: bool = False  # used as a dtype (``dtype=P``, ``x.to(P)``, ``tl.full(shape, v, P)``)
    bitcast: bool = False  # the dtype of a bitcast (``x.to(P, bitcast=True)``): as wide as the value
    exits: Any = None  # the literal at which ``if P == literal: return`` leaves the function early
    bits: int = 0  # the width of the dtype it is bitcast to (``x.to(tl.uint64, bitcast=True)``: 64)
    descriptor: int = 0  # the rank of a tensor descriptor (``desc.load([m, k])``): 2; 0 when no descriptor


    def merge(self, other: "Use") -> None:
        """Add what ``other`` says (a helper's use of the parameter it was given)."""
        for name in ("pointer", "atomic", "int_data", "table", "shape", "loop_bound", "divisor", "arith", "called",
                     "used", "condition", "size", "stub_arg", "indexed", "dtype", "bitcast"):
            setattr(self, name, getattr(self, name) or getattr(other, name))
        self.arity = tuple(dict.fromkeys(self.arity + other.arity))
        self.length = tuple(dict.fromkeys(self.length + other.length))
        self.descriptor = max(self.descriptor, other.descriptor)
        self.bits = max(self.bits, other.bits)
        if self.compared is None:
            self.compared = other.compared
        if self.exits is None:
            self.exits = other.exits
        self.compared_to = tuple(dict.fromkeys(self.compared_to + other.compared_to))


@dataclass
class Summary:
    """The uses of a function's parameters, and which pointer parameters its result derives from."""

    params: list[str]
    uses: dict[str, Use] = field(default_factory=dict)
    returns: list[str] = field(default_factory=list)


def _dotted(node: ast.AST) -> str:
    """``tl.atomic_add`` for the callee ``tl.atomic_add`` (the attributes alone after a call or a
    subscript); ``""`` for anything else."""
    return dotted(node, partial=True)


def _last(node: ast.AST) -> str:
    return _dotted(node).rsplit(".", 1)[-1]


def _is_tl(node: ast.AST, names: tuple[str, ...]) -> bool:
    """Whether ``node`` is ``tl.<one of names>`` (or ``triton.language.<name>``)."""
    d = _dotted(node)
    return "." in d and d.rsplit(".", 1)[-1] in names and d.rsplit(".", 1)[0] in ("tl", "triton.language", "language")


def _arg(call: ast.Call, index: int, *names: str) -> ast.expr | None:
    if len(call.args) > index and not isinstance(call.args[index], ast.Starred):
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg in names), None)


def _int_literal(node: ast.AST | None) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool)


def _is_pointer_type(node: ast.AST | None) -> bool:
    """``tl.pointer_type(...)``, ``x.dtype``, ``x.type``: the target of a cast to a pointer."""
    if isinstance(node, ast.Call) and _last(node.func) == "pointer_type":
        return True
    return isinstance(node, ast.Attribute) and node.attr in ("dtype", "type")


def _dtype_bits(node: ast.AST) -> int:
    """The width of ``tl.<dtype>`` (``tl.uint64``: 64), or 0 for anything else."""
    import re

    if not (isinstance(node, ast.Attribute) and _dotted(node.value) in ("tl", "triton.language", "language")):
        return 0
    found = re.search(r"(\d+)$", _last(node))
    return int(found.group(1)) if found else 0


def function_def(fn: Any) -> ast.FunctionDef | None:
    """The ``def`` of jitted ``fn`` (its ``src``), or None when it has no readable source."""
    src = getattr(fn, "src", None)
    if src is None:
        return None
    try:
        tree = ast.parse(textwrap.dedent(src))
    except SyntaxError:
        return None
    return next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)


class _Analyzer:
    def __init__(self, node: ast.FunctionDef, globals_: dict[str, Any], cache: dict[int, Summary], depth: int):
        self.node = node
        self.globals = globals_
        self.cache = cache
        self.depth = depth
        args = node.args.args + node.args.kwonlyargs
        self.params = [a.arg for a in args]
        self.constexpr = {a.arg for a in args if a.annotation is not None and "constexpr" in ast.dump(a.annotation)}
        self.declared_ptr = {a.arg for a in args if isinstance(a.annotation, ast.Constant)
                             and str(a.annotation.value).startswith("*")}
        self.uses = {p: Use() for p in self.params}
        self.assigns: dict[str, list[ast.expr]] = {}
        self.loaded: dict[str, list[ast.Call]] = {}  # local -> the tl.load calls it is assigned from
        # loop variable -> what bounds it (``for i in tl.static_range(world_size)``: world_size)
        self.loop_bounds: dict[str, tuple[Any, ...]] = {}
        for n in ast.walk(node):
            if isinstance(n, ast.For) and isinstance(n.target, ast.Name) and isinstance(n.iter, ast.Call) \
                    and _last(n.iter.func) in ("range", "static_range") and n.iter.args:
                stop = n.iter.args[0] if len(n.iter.args) == 1 else n.iter.args[1]
                if isinstance(stop, ast.Name) and stop.id in self.params:
                    self.loop_bounds[n.target.id] = (stop.id,)
                elif _int_literal(stop):
                    self.loop_bounds[n.target.id] = (stop.value,)  # type: ignore[union-attr]
        for n in ast.walk(node):
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    self._bind(t, n.value)
            elif isinstance(n, (ast.AnnAssign, ast.AugAssign)) and n.value is not None:
                value = n.value if isinstance(n, ast.AnnAssign) else ast.BinOp(n.target, n.op, n.value)
                self._bind(n.target, value)

    def _bind(self, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self.assigns.setdefault(target.id, []).append(value)
            if isinstance(value, ast.Call) and _is_tl(value.func, ("load",)):
                self.loaded.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
            for t, v in zip(target.elts, value.elts):
                self._bind(t, v)

    # -- helpers ----------------------------------------------------------------------------

    def helper(self, func: ast.expr) -> tuple[Any, Summary] | None:
        """The jitted function a call's callee names, with its summary."""
        from litmus.lint.jitfn import is_jit, unwrap

        parts = _dotted(func).split(".")
        if not parts[0] or self.depth > 8:
            return None
        obj: Any = self.globals.get(parts[0])
        for p in parts[1:]:
            obj = getattr(obj, p, None)
        if obj is None or not is_jit(obj):
            return None
        jf = unwrap(obj)
        return jf, summarize(jf, self.cache, self.depth + 1)

    @staticmethod
    def bind_call(call: ast.Call, params: list[str]) -> dict[str, ast.expr]:
        """The argument expression of each parameter of the callee."""
        out = {p: a for p, a in zip(params, call.args) if not isinstance(a, ast.Starred)}
        out.update({k.arg: k.value for k in call.keywords if k.arg in params})
        return out

    # -- pointer flow -----------------------------------------------------------------------

    def roots(self, e: ast.AST | None, seen: frozenset[str] = frozenset()) -> list[str]:
        """The parameters ``e``'s value is built from additively (pointer candidates), in order."""
        if e is None:
            return []
        if isinstance(e, ast.Name):
            if e.id in self.params and e.id not in self.assigns:
                return [e.id]
            if e.id in seen:
                return []
            out = [e.id] if e.id in self.params else []
            for v in self.assigns.get(e.id, []):
                out += [r for r in self.roots(v, seen | {e.id}) if r not in out]
            return out
        if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub)):
            left, right = self.roots(e.left, seen), self.roots(e.right, seen)
            return left + [r for r in right if r not in left]
        if isinstance(e, ast.Subscript):  # ``p[:, None]`` a view, ``buf_tuple[i]`` an element: built on ``p``
            return self.roots(e.value, seen)
        if isinstance(e, ast.IfExp):
            return self.roots(e.body, seen) + self.roots(e.orelse, seen)
        if isinstance(e, ast.Call):
            name = _last(e.func)
            source = self.pointer_cast(e)
            if source is not None:  # a cast to a pointer: of a parameter's value, or a pointer made here
                return self.roots(source, seen) or [LOCAL_POINTER]
            if isinstance(e.func, ast.Attribute) and name in _PASS_THROUGH and not _is_tl(e.func, _PASS_THROUGH):
                return self.roots(e.func.value, seen)  # x.to(...)
            if name in _PASS_THROUGH or name == "make_block_ptr":
                return self.roots(_arg(e, 0, "input", "base", "ptr", "pointer"), seen)
            if name == "where":
                return self.roots(_arg(e, 1, "x"), seen) + self.roots(_arg(e, 2, "y"), seen)
            found = self.helper(e.func)
            if found is not None:
                _, summary = found
                bound = self.bind_call(e, summary.params)
                out: list[str] = []
                for p in summary.returns:
                    if p == LOCAL_POINTER:  # the helper returns a pointer it made: not ours
                        out += [] if LOCAL_POINTER in out else [LOCAL_POINTER]
                        continue
                    out += [r for r in self.roots(bound.get(p), seen) if r not in out]
                return out
        return []

    @staticmethod
    def pointer_cast(c: ast.Call) -> ast.expr | None:
        """What ``c`` casts to a pointer (``tl.cast(x, tl.pointer_type(..))``, ``x.to(p.dtype)``,
        ``tl.int_to_ptr(x)``), or None when it is no such cast."""
        func, name = c.func, _last(c.func)
        if isinstance(func, ast.Attribute) and name == "to" and not _is_tl(func, ("to",)):
            return func.value if _is_pointer_type(_arg(c, 0, "dtype")) else None
        if name == "cast" and _is_pointer_type(_arg(c, 1, "dtype")):
            return _arg(c, 0, "input")
        if name == "int_to_ptr":
            return _arg(c, 0, "input")
        return None

    @staticmethod
    def element_index(e: ast.Subscript) -> ast.expr | None:
        """The index of ``e`` when it picks one element (``t[i]``, ``t[0]``), not a slice or a
        broadcast (``p[:, None]``) of a tensor; None otherwise."""
        index = e.slice
        if isinstance(index, (ast.Slice, ast.Tuple)) or (isinstance(index, ast.Constant) and index.value is None):
            return None
        if isinstance(index, ast.Constant) and not _int_literal(index):
            return None
        return index if isinstance(index, (ast.Name, ast.Constant, ast.UnaryOp)) else None

    def mark_indexed(self, e: ast.Subscript) -> None:
        """``e.value`` (a parameter) is a tuple; its length is bounded by the index: a literal, or
        the bound of the ``for i in tl.static_range(N)`` loop the index runs over."""
        if not (isinstance(e.value, ast.Name) and e.value.id in self.uses):
            return
        use = self.uses[e.value.id]
        use.indexed = True
        index = self.element_index(e)
        bound: tuple[Any, ...] = ()
        if _int_literal(index):
            value = index.value if isinstance(index, ast.Constant) else -index.operand.value  # type: ignore[union-attr]
            bound = (value + 1,) if value >= 0 else ()
        elif isinstance(index, ast.Name):
            bound = self.loop_bounds.get(index.id, ())
        use.length = tuple(dict.fromkeys(use.length + bound))

    def mark_pointer(self, e: ast.AST | None, use: Use) -> None:
        """The parameter ``e`` is built on is a pointer with ``use``: the one declared a pointer,
        else the first candidate that is no constexpr (``ptr + offset`` puts it first)."""
        cands = [r for r in self.roots(e) if r not in self.constexpr]
        if not cands:
            return
        chosen = next((r for r in cands if r in self.declared_ptr), cands[0])
        if chosen == LOCAL_POINTER:
            return
        use = Use(**{**use.__dict__, "pointer": True})
        self.uses[chosen].merge(use)

    def deps_loads(self, e: ast.AST, seen: set[str]) -> list[ast.Call]:
        """The ``tl.load`` calls whose result ``e`` is computed from."""
        out: list[ast.Call] = []
        for n in ast.walk(e):
            if isinstance(n, ast.Call) and _is_tl(n.func, ("load",)):
                out.append(n)
            elif isinstance(n, ast.Name) and n.id not in seen and n.id in self.assigns:
                seen.add(n.id)
                for v in self.assigns[n.id]:
                    out += self.deps_loads(v, seen)
        return out

    # -- the walk ---------------------------------------------------------------------------

    def run(self) -> Summary:
        for n in ast.walk(self.node):
            if isinstance(n, ast.Name) and n.id in self.uses and isinstance(n.ctx, ast.Load):
                self.uses[n.id].used = True
            if isinstance(n, ast.Call):
                self.call(n)
            elif isinstance(n, ast.Subscript) and self.element_index(n) is not None:
                self.mark_indexed(n)
            elif isinstance(n, ast.Compare):
                self.compare(n)
            elif isinstance(n, ast.BinOp):
                names = [x.id for x in ast.walk(n.right) if isinstance(x, ast.Name) and x.id in self.uses]
                if isinstance(n.op, (ast.Div, ast.FloorDiv, ast.Mod)):
                    for p in names:
                        self.uses[p].divisor = True
                for side in (n.left, n.right):
                    if isinstance(side, ast.Name) and side.id in self.uses:
                        self.uses[side.id].arith = True
            if isinstance(n, ast.If):
                self.early_exit(n)
            if isinstance(n, (ast.If, ast.IfExp, ast.While)) or (isinstance(n, ast.UnaryOp)
                                                                    and isinstance(n.op, ast.Not)):
                test = n.operand if isinstance(n, ast.UnaryOp) else n.test
                tests = test.values if isinstance(test, ast.BoolOp) else [test]
                for t in tests:
                    t = t.operand if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not) else t
                    if isinstance(t, ast.Name) and t.id in self.uses:
                        self.uses[t.id].condition = True
            elif isinstance(n, ast.For) and isinstance(n.iter, ast.Call):
                for a in n.iter.args:
                    for x in ast.walk(a):
                        if isinstance(x, ast.Name) and x.id in self.uses:
                            self.uses[x.id].loop_bound = True
        returns: list[str] = []
        for n in ast.walk(self.node):
            if isinstance(n, ast.Return) and n.value is not None:
                returns += [r for r in self.roots(n.value) if r not in returns]
        if any(r != LOCAL_POINTER for r in returns):  # a translation: the result is the parameter's pointer moved
            returns = [r for r in returns if r != LOCAL_POINTER]
        return Summary(self.params, self.uses, returns)

    def call(self, c: ast.Call) -> None:
        func = c.func
        if isinstance(func, ast.Name) and func.id in self.uses:
            self.uses[func.id].called = True
            self.uses[func.id].arity += (len(c.args) + len(c.keywords),)
        name = _last(func)
        if name == "to" and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.value.id in self.uses and c.args and any(
                k.arg == "bitcast" and isinstance(k.value, ast.Constant) and k.value.value for k in c.keywords):
            bits = _dtype_bits(c.args[0])  # a value bitcast to a 64-bit type is 64 bits wide
            self.uses[func.value.id].bits = max(self.uses[func.value.id].bits, bits)
        for d in self.dtype_args(c):
            if isinstance(d, ast.Name) and d.id in self.uses:
                use = self.uses[d.id]
                use.called = use.dtype = True
                use.bitcast = use.bitcast or (name == "to" and any(
                    k.arg == "bitcast" and isinstance(k.value, ast.Constant) and k.value.value for k in c.keywords))
        if isinstance(func, ast.Attribute) and name in DESCRIPTOR_METHODS and not _is_tl(func, MEMORY_OPS) \
                and isinstance(func.value, ast.Name) and func.value.id in self.uses \
                and func.value.id not in self.assigns:
            # ``a_desc.load([m, k])``: a tensor descriptor, of rank the offsets' count
            offsets = _arg(c, 0, "offsets")
            rank = len(offsets.elts) if isinstance(offsets, (ast.List, ast.Tuple)) else 1
            use = self.uses[func.value.id]
            use.descriptor = max(use.descriptor, rank)
            return
        for k in c.keywords:  # tl.make_block_ptr(block_shape=(BLOCK_M, BLOCK_K)): a shape
            if k.arg in ("block_shape", "shape") and not _is_tl(func, ("make_block_ptr",)) or k.arg == "block_shape":
                for x in ast.walk(k.value):
                    if isinstance(x, ast.Name) and x.id in self.uses:
                        self.uses[x.id].shape = True
        if _is_tl(func, ("make_tensor_descriptor",)):  # its base is a pointer; the descriptor is made here
            self.mark_pointer(_arg(c, 0, "base"), Use())
            return
        if _is_tl(func, MEMORY_OPS):
            atomic = name.startswith("atomic")
            value = _arg(c, 1, "value", "val", "cmp")
            self.mark_pointer(_arg(c, 0, "pointer", "ptr"), Use(atomic=atomic, int_data=atomic or _int_literal(value)))
            return
        if _is_tl(func, ("arange",)) or (_is_tl(func, _SHAPE_CALLS) and c.args):
            shape_args = c.args if name == "arange" else c.args[:1]
            for a in shape_args:
                for x in ast.walk(a):
                    if isinstance(x, ast.Name) and x.id in self.uses:
                        self.uses[x.id].shape = True
            return
        source = self.pointer_cast(c)
        if source is not None:  # the words loaded to build a pointer are addresses
            for load in self.deps_loads(source, set()):
                self.mark_pointer(_arg(load, 0, "pointer"), Use(table=True))
            return
        found = self.helper(func)
        if found is None:
            self.builtin_call(c)
            return
        _, summary = found
        bound = self.bind_call(c, summary.params)
        for p, expr in bound.items():
            use = summary.uses.get(p)
            if use is None:
                continue
            if use.pointer:
                # compared with the callee's parameter q: with what the call gives for q
                given = [bound.get(q) for q in use.compared_to]
                mine = tuple(g.id for g in given if isinstance(g, ast.Name) and g.id in self.uses)
                use = Use(**{**use.__dict__, "compared_to": mine,
                             "int_data": use.int_data or any(_int_literal(g) for g in given)})
                self.mark_pointer(expr, use)
            elif isinstance(expr, ast.Name) and expr.id in self.uses:
                self.uses[expr.id].merge(use)

    @staticmethod
    def dtype_args(c: ast.Call) -> list[ast.expr]:
        """The arguments of ``c`` that are dtypes: ``dtype=``, ``x.to(D)``, ``tl.cast(x, D)``,
        ``tl.full(shape, value, D)``, ``tl.zeros(shape, D)``."""
        out = [k.value for k in c.keywords if k.arg == "dtype"]
        name = _last(c.func)
        if isinstance(c.func, ast.Attribute) and name == "to" and not _is_tl(c.func, ("to",)) and c.args:
            out.append(c.args[0])
        elif _is_tl(c.func, ("cast",)) and len(c.args) > 1:
            out.append(c.args[1])
        elif _is_tl(c.func, ("full",)) and len(c.args) > 2:
            out.append(c.args[2])
        elif _is_tl(c.func, ("zeros", "ones", "empty")) and len(c.args) > 1:
            out.append(c.args[1])
        return out

    def loads_of(self, side: ast.AST) -> list[ast.Call]:
        """The ``tl.load`` calls ``side`` is (a call, or a local assigned from them)."""
        if isinstance(side, ast.Call) and _is_tl(side.func, ("load",)):
            return [side]
        return self.loaded.get(side.id, []) if isinstance(side, ast.Name) else []

    def builtin_call(self, c: ast.Call) -> None:
        """A Triton builtin (``@core.extern``, a library stand-in's ``ld``/``st``/``atomic_cas``)
        whose first parameter is a pointer: its argument is one."""
        import inspect

        parts = _dotted(c.func).split(".")
        obj: Any = self.globals.get(parts[0])
        for p in parts[1:]:
            obj = getattr(obj, p, None)
        from litmus.lint.stubs import Stub

        if isinstance(obj, Stub):  # an empty stub compiles as nothing: its arguments need only compile
            for a in [*c.args, *(k.value for k in c.keywords)]:
                if isinstance(a, ast.Name) and a.id in self.uses:
                    self.uses[a.id].stub_arg = True
            return
        if obj is None or not getattr(obj, "__triton_builtin__", False) or not c.args:
            return
        try:
            first = next(iter(inspect.signature(obj).parameters), "")
        except (TypeError, ValueError):
            return
        if first in ("ptr", "pointer", "dest", "sig_addr", "barrier_ptr"):
            name = parts[-1]
            atomic = "atomic" in name or name.startswith("red")
            self.mark_pointer(c.args[0], Use(atomic=atomic, int_data=atomic or name.startswith(("st", "ld"))))

    def early_exit(self, n: ast.If) -> None:
        """``if P == 0: return``: the literal at which parameter ``P`` skips the rest of the
        function (a value that compiles the rest is another one)."""
        test = n.test
        if not (n.body and isinstance(n.body[-1], ast.Return) and isinstance(test, ast.Compare)
                and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
            return
        sides = [test.left, test.comparators[0]]
        literal = next((x for x in sides if _int_literal(x)), None)
        name = next((x for x in sides if isinstance(x, ast.Name) and x.id in self.uses), None)
        if literal is not None and name is not None and isinstance(literal, ast.Constant):
            self.uses[name.id].exits = literal.value

    def compare(self, n: ast.Compare) -> None:
        sides = [n.left, *n.comparators]
        literal = next((s for s in sides if isinstance(s, ast.Constant)), None)
        if literal is None and all(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in n.ops):
            for s in sides:
                if isinstance(s, ast.Name) and s.id in self.uses:
                    self.uses[s.id].size = True
        # a loaded value compared with a parameter: an int literal given for it makes the memory an int flag
        params = tuple(s.id for s in sides if isinstance(s, ast.Name) and s.id in self.uses and s.id not in self.loaded)
        if params:
            for s in sides:
                for load in self.loads_of(s):
                    self.mark_pointer(_arg(load, 0, "pointer"), Use(compared_to=params))
        if literal is None:
            return
        for s in sides:
            if isinstance(s, ast.Name) and s.id in self.uses and self.uses[s.id].compared is None:
                self.uses[s.id].compared = literal.value
            if _int_literal(literal):
                for load in self.loads_of(s):
                    self.mark_pointer(_arg(load, 0, "pointer"), Use(int_data=True))


def summarize(fn: Any, cache: dict[int, Summary] | None = None, depth: int = 0) -> Summary:
    """The uses of jitted ``fn``'s parameters (helpers it calls are summarised too, once)."""
    cache = {} if cache is None else cache
    key = id(fn)
    if key in cache:
        return cache[key]
    node = function_def(fn)
    raw = getattr(fn, "fn", fn)
    if node is None:
        params = [p.name for p in getattr(fn, "params", [])]
        cache[key] = Summary(params, {p: Use() for p in params})
        return cache[key]
    cache[key] = Summary([a.arg for a in node.args.args], {})  # a recursive call sees no uses
    summary = _Analyzer(node, getattr(raw, "__globals__", {}), cache, depth).run()
    cache[key] = summary
    return summary
