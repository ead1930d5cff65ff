"""What an empty stub module hands out while a user's kernel file is imported for linting
(:mod:`litmus.lint.stubs` installs them; the library stand-ins of :mod:`litmus.lint.libs` use
:class:`Stub` for what their libraries do that no ordering rule reads)."""

from __future__ import annotations

import inspect
import types
from typing import Any, Iterator


class Stub:
    """Whatever an empty stub module hands out: callable (a decorator given a function returns
    it), indexable, with stub attributes, and usable as a base class.  Called inside a kernel
    (Triton calls it as a builtin) it does nothing to memory and returns its first argument,
    or 0 without one (a hint, ``next_power_of_2(n)``, a timer);
    the report names each kernel that calls one, as the linter cannot see what it does."""

    __triton_builtin__ = True
    # what Triton reads to pass ``_semantic`` to a builtin
    signature = inspect.Signature([inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                                   inspect.Parameter("_semantic", inspect.Parameter.KEYWORD_ONLY, default=None),
                                   inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])

    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return f"<stub {self._name}>"

    def __getattr__(self, attr: str) -> "Stub":
        if attr.startswith("__"):
            raise AttributeError(attr)
        return Stub(f"{self._name}.{attr}")

    def __call__(self, *args: Any, _semantic: Any = None, **kwargs: Any) -> Any:
        if _semantic is not None:  # compiled into a kernel: its first argument (a hint, a rounding), or 0
            import triton.language as tl

            return args[0] if args else tl.constexpr(0)
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]  # used as a decorator: leave the function as it is
        return Stub(f"{self._name}()")

    def __getitem__(self, key: Any) -> "Stub":
        return Stub(f"{self._name}[]")

    def __mro_entries__(self, bases: tuple) -> tuple:
        return (object,)

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __bool__(self) -> bool:
        return False


class StubModule(types.ModuleType):
    """An empty stand-in for a module absent here: every attribute is a :class:`Stub`."""

    __litmus_stub__ = True
    __triton_builtin__ = True  # Triton lets a kernel name it (it admits plain modules only)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return Stub(f"{self.__name__}.{attr}")
