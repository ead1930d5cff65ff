"""Errors a person can act on: each names the file, the line (and column) and the fix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NoReturn


@dataclass(frozen=True)
class Problem:
    """One problem found in an input file."""

    file: str
    line: int | None
    column: int | None
    message: str

    def __str__(self) -> str:
        if not self.file and self.line is None:
            return self.message
        where = self.file or "<input>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.message}"


class LitmusError(Exception):
    """An error in user input (a catalog file, a .litmus file, a command-line argument).

    The CLI prints ``str(err)`` and exits with status 2; it never shows a traceback.
    """

    def __init__(self, problems: list[Problem] | Problem | str):
        if isinstance(problems, str):
            problems = [Problem("", None, None, problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    @classmethod
    def at(cls, file: str, line: int | None, message: str, column: int | None = None) -> "LitmusError":
        """One problem at ``file:line[:column]``."""
        return cls(Problem(file, line, column, message))


class UnsupportedError(LitmusError):
    """A construct litmus understands but does not support yet (e.g. PTX proxies)."""


def run_script(main: Callable[[], int | None], name: str) -> NoReturn:
    """Run a script's ``main`` and exit with its status; bad input (a :class:`LitmusError` or an
    ``OSError``) exits with one line, ``name: the error``, instead of a traceback."""
    try:
        raise SystemExit(main())
    except (LitmusError, OSError) as err:
        raise SystemExit(f"{name}: {err}") from None
