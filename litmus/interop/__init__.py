"""PTX ``.litmus`` files (the Dat3M ``litmus/PTX`` format) <-> :mod:`litmus.ir`.

- :func:`read_litmus` / :func:`parse_litmus`: a file or text -> :class:`~litmus.ir.LitmusTest`.
- :func:`write_litmus`: any test -> ``.litmus`` text (spins become loops; homes and the
  variant travel in the description and the header).
- :func:`normalize_for_roundtrip`: clear what a round trip cannot keep, for comparisons.
- :func:`corpus_dir`, :func:`load_corpus`: the shared PTX corpus with its verdicts;
  :func:`dat3m_dir`, :data:`DAT3M_LISTS`: Dat3M's whole PTX corpus and its verdict lists.

Nothing here imports torch or triton.
"""

from litmus.interop.corpus import (
    CORPUS_ENV,
    DAT3M_ENV,
    DAT3M_LISTS,
    corpus_dir,
    dat3m_dir,
    expectation,
    load_corpus,
    read_expected,
)
from litmus.interop.normalize import normalize_for_roundtrip
from litmus.interop.reader import parse_litmus, read_litmus
from litmus.interop.writer import write_litmus

__all__ = [
    "CORPUS_ENV",
    "DAT3M_ENV",
    "DAT3M_LISTS",
    "corpus_dir",
    "dat3m_dir",
    "expectation",
    "load_corpus",
    "normalize_for_roundtrip",
    "parse_litmus",
    "read_expected",
    "read_litmus",
    "write_litmus",
]
