"""The ``litmus`` command group, and what every command shares: Ctrl-C at start-up and during a
command gives one line, never a traceback (:func:`friendly`), and a located error exits 2."""

from __future__ import annotations

import functools
import os
import signal
import sys
from typing import Any, Callable

import click

from litmus.cli.startup import begin, end, set_sigint
from litmus.errors import LitmusError


class Interrupt:
    """Whether Ctrl-C came: a library that swallows KeyboardInterrupt (some imports do) cannot
    make the command carry on, since :func:`check_interrupt` raises it again."""

    seen = False


def _on_sigint(signum: int, frame: Any) -> None:
    Interrupt.seen = True
    if _in_finalizer(frame):
        # Python prints an exception raised in a __del__ with its traceback and drops it
        _redeliver_soon()
        return
    raise KeyboardInterrupt


def _in_finalizer(frame: Any, depth: int = 64) -> bool:
    """Whether ``frame`` runs inside an object's ``__del__`` (within ``depth`` callers)."""
    while frame is not None and depth > 0:
        if frame.f_code.co_name == "__del__":
            return True
        frame, depth = frame.f_back, depth - 1
    return False


def _redeliver_soon() -> None:
    """Send this process SIGINT again in 50 ms, once the finalizer it landed in has returned."""
    import threading

    timer = threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT))
    timer.daemon = True  # a command that ends first is not held up, nor interrupted at exit
    timer.start()


def exit_interrupted() -> None:
    """Exit 130 after Ctrl-C, certainly: ignore further Ctrl-C, stop child processes that are
    still starting, flush, and leave without the interpreter's shutdown (which could otherwise
    still end the process by SIGINT, status -2, when a Ctrl-C lands while a worker starts)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import multiprocessing

    children = multiprocessing.active_children()
    for child in children:
        child.terminate()
    for child in children:
        child.join(5)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(130)


def check_interrupt() -> None:
    """Raise KeyboardInterrupt if Ctrl-C came (even if something swallowed it)."""
    if Interrupt.seen:
        raise KeyboardInterrupt


def friendly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Print LitmusError as 'file:line: message' lines and exit 2; Ctrl-C prints one line and
    exits 130: never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        Interrupt.seen = False
        before = set_sigint(_on_sigint)
        try:
            return fn(*args, **kwargs)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            exit_interrupted()
        except Exception as err:
            # After a Ctrl-C, any error is its echo: something swallowed the KeyboardInterrupt (a
            # half-done import) or wrapped it (Python raises RuntimeError when it lands in a class
            # body's __set_name__, e.g. while a dataclass is defined).
            if Interrupt.seen:
                click.echo("interrupted", err=True)
                exit_interrupted()
            if not isinstance(err, LitmusError):
                raise
            for problem in err.problems:
                click.echo(f"error: {problem}", err=True)
            sys.exit(2)
        finally:
            if before is not None:
                set_sigint(before)

    return wrapper


class _Group(click.Group):
    """The ``litmus`` group: from the call on until a command's own handler (:func:`friendly`)
    takes over, Ctrl-C gives the start-up line, also while click parses the arguments, where it
    would otherwise print ``Aborted!`` and exit 1."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        before = begin()
        try:
            return super().main(*args, **kwargs)
        finally:
            end(before)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="litmus-gpu")
def main() -> None:
    """Memory-model litmus tests for multi-GPU atomics.

    \b
    A catalog of signalling patterns (message passing, iris's CAS flag spin,
    symm_mem's blockwise barrier, SB, LB, IRIW, ...) in YAML. For each variant:
      litmus model     which outcomes the PTX (and SC) memory model allows
      litmus audit     whether the compiled PTX / AMDGCN carries the ordering asked for
      litmus run       what the hardware (or the CPU interpreter) actually did
      litmus tune      which stress settings make weak behaviour show most
      litmus cost      what each variant's signalling costs, the cheapest correct one marked
      litmus lint      your own Triton kernel's signalling, checked against the model
      litmus report    a results file: verdicts, and the mutation score (--mutation)

    \b
    Start with:
      litmus list                    the catalog, one row per pattern
      litmus show MP                 one pattern and its variants
      litmus model MP --variant '*sys*'
    """
