"""Argument types from a launch of the kernel in the same file, ``kernel[grid](args...)``:
a torch tensor is a pointer (its ``dtype`` the element type), an int literal or int-valued
expression (``x.stride(0)``, ``x.numel()``) an ``i32``, ``t.data_ptr()`` an ``i64`` address,
and a constexpr parameter takes the literal (or module constant) it is given."""

from __future__ import annotations

import ast
from typing import Any

from litmus.lint.source import parsed

_TORCH_DTYPES = {"float32": "fp32", "float": "fp32", "float16": "fp16", "half": "fp16", "bfloat16": "bf16",
                 "float64": "fp64", "double": "fp64", "int32": "i32", "int": "i32", "int64": "i64", "long": "i64",
                 "int16": "i16", "int8": "i8", "uint8": "u8", "uint32": "u32", "uint64": "u64", "bool": "i1"}
_TENSOR_MAKERS = ("empty", "zeros", "ones", "full", "randn", "rand", "randint", "empty_like", "zeros_like",
                  "ones_like", "full_like", "arange", "tensor", "empty_strided", "as_tensor")
_INT_METHODS = ("stride", "numel", "size", "element_size", "nelement", "dim")
_DEFAULT_ELEM = {"arange": "i64", "randint": "i64"}


def _dtype(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch":
        return _TORCH_DTYPES.get(node.attr)
    return None


class _Scope:
    """Simple assignments of one function (or the module): name -> the expressions it is given."""

    def __init__(self, body: list[ast.stmt], outer: "_Scope | None" = None, params: tuple[str, ...] = (),
                 tensors: tuple[str, ...] = ()):
        self.outer = outer
        self.params = set(params)
        self.tensors = set(tensors)  # parameters annotated torch.Tensor
        self.values: dict[str, list[ast.expr]] = {}
        for stmt in body:
            for n in ast.walk(stmt):
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n not in body:
                    continue
                if isinstance(n, ast.Assign):
                    for t in n.targets:
                        if isinstance(t, ast.Name):
                            self.values.setdefault(t.id, []).append(n.value)
                elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is not None:
                    self.values.setdefault(n.target.id, []).append(n.value)

    def lookup(self, name: str) -> list[ast.expr]:
        if name in self.values:
            return self.values[name]
        return self.outer.lookup(name) if self.outer else []


def _classify(e: ast.AST, scope: _Scope, depth: int = 0) -> tuple[str, Any] | None:
    """``("ptr", elem or None)``, ``("int", bits)``, ``("value", python value)`` or None."""
    if depth > 8:
        return None
    if isinstance(e, ast.Constant) and not isinstance(e.value, (bytes, type(None))):
        return ("value", e.value)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant):
        return ("value", -e.operand.value) if isinstance(e.operand.value, (int, float)) else None
    if isinstance(e, ast.Name):
        if e.id in scope.tensors:
            return ("ptr", None)
        values = scope.lookup(e.id)
        if len(values) == 1:
            return _classify(values[0], scope, depth + 1)
        return None
    if isinstance(e, ast.Subscript):
        base = _classify(e.value, scope, depth + 1)
        if base and base[0] == "ptr":
            return base  # a view of a tensor
        if isinstance(e.value, ast.Attribute) and e.value.attr in ("shape",):
            return ("int", 32)
        return None
    if isinstance(e, ast.Call):
        func = e.func
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and func.value.id == "torch" and func.attr in _TENSOR_MAKERS:
                dtype = next((_dtype(k.value) for k in e.keywords if k.arg == "dtype"), None)
                if dtype is None and func.attr.endswith("_like") and e.args:
                    like = _classify(e.args[0], scope, depth + 1)
                    dtype = like[1] if like and like[0] == "ptr" else None
                return ("ptr", dtype or _DEFAULT_ELEM.get(func.attr, "fp32" if not func.attr.endswith("_like")
                                                          else None))
            if func.attr == "data_ptr":
                return ("int", 64)
            if func.attr in _INT_METHODS:
                return ("int", 32)
            if func.attr in ("to", "view", "contiguous", "clone", "flatten", "reshape", "cuda", "narrow", "select",
                             "int", "float", "long", "half", "bfloat16", "bool"):
                base = _classify(func.value, scope, depth + 1)
                if base is None or base[0] != "ptr":
                    return None
                cast = {"int": "i32", "float": "fp32", "long": "i64", "half": "fp16", "bfloat16": "bf16",
                        "bool": "i1"}.get(func.attr)
                dtype = next((_dtype(a) for a in [*e.args, *(k.value for k in e.keywords)] if _dtype(a)), None)
                return ("ptr", cast or dtype or base[1])
        if isinstance(func, ast.Name) and func.id in ("len", "int") and func.id != "float":
            return ("int", 32)
    return None


def call_site_hints(source: str, kernel: str, params: list[str], constexprs: set[str]) -> dict[str, tuple[Any, str]]:
    """``{param: (type or value, why)}`` from the first ``kernel[grid](...)`` launch in ``source``
    whose arguments say something; ``"*"`` marks a tensor whose dtype the launch does not show."""
    tree = parsed(source)
    if tree is None:
        return {}
    module = _Scope(tree.body)
    scopes: list[tuple[ast.AST, _Scope]] = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = fn.args.args + fn.args.kwonlyargs
            tensors = tuple(a.arg for a in args if a.annotation is not None and "Tensor" in ast.dump(a.annotation))
            scopes.append((fn, _Scope(fn.body, module, tuple(a.arg for a in args), tensors)))
    for fn, scope in [*scopes, (tree, module)]:
        for n in ast.walk(fn):
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript)
                    and isinstance(n.func.value, ast.Name) and n.func.value.id == kernel):
                continue
            bound = {p: a for p, a in zip(params, n.args) if not isinstance(a, ast.Starred)}
            bound.update({k.arg: k.value for k in n.keywords if k.arg in params})
            out: dict[str, tuple[Any, str]] = {}
            for p, expr in bound.items():
                kind = _classify(expr, scope)
                why = f"the launch at line {n.lineno}"
                if kind is None:
                    continue
                if p in constexprs:
                    if kind[0] == "value":
                        out[p] = (kind[1], why)
                elif kind[0] == "ptr":
                    out[p] = (f"*{kind[1]}" if kind[1] else "*", f"{why}: a tensor")
                elif kind[0] == "int":
                    out[p] = ("i64" if kind[1] == 64 else "i32", why)
                elif isinstance(kind[1], bool):
                    out[p] = ("i1", why)
                elif isinstance(kind[1], int):
                    out[p] = ("i64" if abs(kind[1]) >= 2 ** 31 else "i32", why)
                elif isinstance(kind[1], float):
                    out[p] = ("fp32", why)
            if out:
                return out
    return {}
