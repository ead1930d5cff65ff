"""A disk cache of compiled pattern files, keyed by file content and the spec code itself.

Parsing and validating YAML with positions costs milliseconds per pattern; the cache turns a
re-read of an unchanged file into one unpickle.  A key covers the file's bytes, the path it
was read under (it is stored in every test) and the source of ``litmus.spec`` and
``litmus.ir``, so any change to the format or the IR misses the cache.  Only files that load
without problems are cached; a corrupt or unreadable entry is ignored.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any


def cache_dir() -> Path:
    """``$LITMUS_CACHE/spec`` or ``~/.cache/litmus/spec``."""
    env = os.environ.get("LITMUS_CACHE")
    return (Path(env) if env else Path.home() / ".cache" / "litmus") / "spec"


@lru_cache(maxsize=1)
def _code_digest() -> bytes:
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for src in sorted(here.glob("*.py")) + [here.parent / "ir.py", here.parent / "condition.py"]:
        h.update(src.name.encode())
        h.update(src.read_bytes())
    return h.digest()


def key(path: str, data: bytes) -> str:
    """The cache key of file ``path`` holding ``data``."""
    h = hashlib.sha256(_code_digest())
    h.update(path.encode())
    h.update(b"\0")
    h.update(data)
    return h.hexdigest()


def get(k: str) -> Any | None:
    """The cached value under ``k``, or None."""
    if os.environ.get("LITMUS_NO_SPEC_CACHE"):
        return None
    try:
        with open(cache_dir() / f"{k}.pkl", "rb") as fh:
            return pickle.load(fh)
    except Exception:  # missing, truncated or from an incompatible build: just re-read
        return None


def put(k: str, value: Any) -> None:
    """Store ``value`` under ``k`` (atomically; failures to write are ignored)."""
    if os.environ.get("LITMUS_NO_SPEC_CACHE"):
        return
    try:
        folder = cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, folder / f"{k}.pkl")
    except Exception:
        pass
