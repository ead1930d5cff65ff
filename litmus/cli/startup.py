"""Ctrl-C while the command line's modules load (click, torch, triton can take seconds): one line,
no traceback.  Light on purpose: it imports nothing but the standard library, so that the
handler is in place before anything heavy loads."""

from __future__ import annotations

import os
import signal
import threading
from typing import Any


def _interrupted_at_startup(signum: int, frame: Any) -> None:
    os.write(2, b"interrupted while starting; nothing was run\n")
    os._exit(130)


def set_sigint(handler: Any) -> Any:
    """Install a SIGINT handler (main thread only); the previous one, or None."""
    if threading.current_thread() is not threading.main_thread():
        return None
    try:
        return signal.signal(signal.SIGINT, handler)
    except (ValueError, OSError):
        return None


def begin() -> Any:
    """Install the start-up handler; what :func:`end` restores."""
    return set_sigint(_interrupted_at_startup)


def end(previous: Any) -> None:
    """Restore the handler :func:`begin` replaced, once every command is loaded."""
    if previous is not None:
        set_sigint(previous)
