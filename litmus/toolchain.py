"""The triton versions litmus supports, and whether the installed triton is one of them.

The range has one home: the ``triton`` requirement in ``pyproject.toml``, read here from the
installed package's metadata (or, in a checkout used without installing it, from its
pyproject.toml). Every version inside it audits the catalog clean
(docs/results/audit-triton-versions.md); outside it the audit's verdicts were never checked.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

DIST = "litmus-gpu"

# Said when the range cannot be read: neither installed metadata nor the checkout's pyproject.toml.
UNKNOWN_RANGE = (f"the supported triton range is unknown: package {DIST!r} has no installed metadata and "
                 "no pyproject.toml beside it (install litmus with: pip install -e .)")

# A checkout used without installing it (the GPU machine runs litmus from PYTHONPATH) has no
# metadata, but has the range's home itself.
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def installed_triton() -> str | None:
    """The installed triton's version, or None when triton is not installed."""
    try:
        return importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        return None


def triton_bin() -> Path | None:
    """The directory of the NVIDIA tools (``ptxas``, ``nvdisasm``, ``cuobjdump``) the installed
    triton ships, or None when triton or that directory is missing (triton is not imported)."""
    spec = importlib.util.find_spec("triton")
    for root in (spec.submodule_search_locations or []) if spec else []:
        path = Path(root) / "backends" / "nvidia" / "bin"
        if path.is_dir():
            return path
    return None


def declared_requirements() -> list[str] | None:
    """litmus-gpu's requirements as its metadata lists them; None when it is not installed."""
    try:
        return importlib.metadata.requires(DIST) or []
    except importlib.metadata.PackageNotFoundError:
        return None


def checkout_requirements() -> list[str] | None:
    """The requirements in the pyproject.toml of the checkout this module lies in; None when there
    is none (an installed wheel), it is another project's, or Python has no tomllib (3.10)."""
    try:
        import tomllib
    except ImportError:
        return None
    try:
        project = tomllib.loads(PYPROJECT.read_text()).get("project", {})
    except (OSError, ValueError):
        return None
    if project.get("name") != DIST:
        return None
    return [str(d) for d in project.get("dependencies", [])]


def _triton_specifier(reqs: list[str]) -> SpecifierSet | None:
    for text in reqs:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.name.lower() == "triton" and (req.marker is None or req.marker.evaluate({"extra": ""})):
            return req.specifier
    return None


def supported_range() -> tuple[SpecifierSet | None, str]:
    """The ``triton`` requirement's specifier (extras' requirements left out) and where it was
    read: ``"metadata"``, ``"pyproject.toml"`` (not installed) or ``""`` (unknown, None)."""
    reqs = declared_requirements()
    if reqs is not None:
        spec = _triton_specifier(reqs)
        return (spec, "metadata") if spec is not None else (None, "")
    reqs = checkout_requirements()
    spec = _triton_specifier(reqs) if reqs is not None else None
    return (spec, "pyproject.toml") if spec is not None else (None, "")


def show_range(spec: SpecifierSet) -> str:
    """``spec`` as a person writes it: lower bounds first (``>=3.6,<3.10``, not ``<3.10,>=3.6``)."""
    order = {">=": 0, ">": 0, "~=": 0, "==": 0, "===": 0, "<": 1, "<=": 1, "!=": 2}
    return ",".join(str(s) for s in sorted(spec, key=lambda s: (order.get(s.operator, 3), str(s))))


def _support() -> tuple[str | None, SpecifierSet | None, bool, str]:
    """:func:`triton_support`, and where the range was read (:func:`supported_range`)."""
    installed = installed_triton()
    spec, origin = supported_range()
    if installed is None:
        return None, spec, False, origin
    if spec is None:
        return installed, None, True, origin
    try:
        inside = spec.contains(Version(installed), prereleases=True)
    except InvalidVersion:
        inside = False
    return installed, spec, inside, origin


def triton_support() -> tuple[str | None, SpecifierSet | None, bool]:
    """(installed triton version or None, supported range or None when unknown, whether inside).

    With the range unknown the installed version counts as inside: there is nothing to hold it
    against, and :func:`support_message` says so.
    """
    installed, spec, inside, _ = _support()
    return installed, spec, inside


def support_message() -> tuple[bool, str]:
    """(whether the installed triton is supported, one line saying so; outside: the range and the fix)."""
    installed, spec, inside, origin = _support()
    if spec is None:
        return inside, f"triton {installed}: {UNKNOWN_RANGE}" if installed else f"triton is not installed; {UNKNOWN_RANGE}"
    rng = show_range(spec)
    where = f" (read from pyproject.toml: {DIST} is not installed)" if origin == "pyproject.toml" else ""
    fix = f"fix: pip install 'triton{rng}'"
    if installed is None:
        return False, f"triton is not installed; litmus supports triton{rng}{where} ({fix})"
    if inside:
        return True, f"triton {installed} is inside the supported range {rng}{where}"
    return False, (f"triton {installed} is outside the supported range {rng}{where}: the audit's verdicts "
                   f"were not validated on it ({fix})")
