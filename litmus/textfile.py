"""Reading one input file as text, bounded and with located errors: what every reader of a
pattern format (YAML, PTX ``.litmus``) does before it parses."""

from __future__ import annotations

from pathlib import Path

from litmus import limits
from litmus.errors import Problem


def read_bounded(path: str | Path, kind: str) -> tuple[bytes, Problem | None]:
    """The bytes of ``path``, or the problem: unreadable, not a file, or over the size limit."""
    file = str(path)
    limit = limits.FILE_BYTES.value
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        return b"", Problem(file, None, None, f"cannot read the file: {e.strerror or e}")
    if len(data) > limit:
        return b"", Problem(file, None, None, f"the file {limits.FILE_BYTES.message('it is larger')}; "
                                              f"is it really a {kind} file?")
    return data, None


def decode_text(data: bytes, file: str, kind: str) -> tuple[str, Problem | None]:
    """``data`` as UTF-8 text, or "not UTF-8 KIND text" with the byte offset (and line) of the
    first bad byte (UTF-16, gzip, images and other binary files end here)."""
    nul = data.find(b"\0")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        bad = data[e.start:e.start + 1].hex()
        return "", Problem(file, line, col, f"not UTF-8 {kind} text: byte 0x{bad} at byte offset {e.start} "
                                            f"cannot be decoded ({e.reason}); save the file as UTF-8 text")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        col = nul - (data.rfind(b"\n", 0, nul) + 1) + 1
        return "", Problem(file, line, col, f"not UTF-8 {kind} text: a NUL byte at byte offset {nul} "
                                            "(a binary file?); save the file as UTF-8 text")
    return text, None
