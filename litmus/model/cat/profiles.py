"""What the checker needs from a model that a cat file does not say: the profiles.

A cat file states axioms over ``co`` and ``sync_fence`` as if they were given; the checker
*chooses* them per execution (:class:`~litmus.model.relations.ChosenOrder`: which pairs each
orders, what it must contain), and it takes flags that enable its pruning (``Model.coherent``,
``acyclic_rf_dep``) and say whether the model gives proxies a meaning (``proxies``; a model
without refuses tests with proxies, with a located error).  A profile supplies these, keyed by
the built-in model whose cat file it fits, written in cat syntax over the *file's* names (so
``morally-strong`` and ``cause`` are the file's own); each mirrors the built-in model's
settings (``litmus/model/ptx.py``, ``litmus/model/ptx75.py``).  The pruning flags are sound
only for a file whose axioms imply what they assume (named below), as Dat3M's two PTX files do.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OrderSpec:
    """A relation the checker chooses per execution (a ``ChosenOrder``), in cat text."""

    name: str  # the checker's name of the relation (the cat's co is co, sync_fence is sf)
    pairs: str  # the pairs it orders one way or the other
    must: str | None = None  # what it contains in every consistent execution (prunes early)
    init_first: bool = False  # initial writes first


@dataclass(frozen=True)
class Profile:
    """The checker's settings for the cat files of one built-in model."""

    name: str  # the built-in model (litmus.model.MODELS)
    orders: tuple[OrderSpec, ...]
    coherent: str | None  # Model.coherent, in cat text
    proxies: bool
    acyclic_rf_dep: bool


_SF = OrderSpec("sf", "[F & SC]; morally-strong; [F & SC]")

PROFILES: dict[str, Profile] = {
    # ptx-v6.0.cat.  co: morally strong same-location writes, ordered one way or the other
    # (Coherence2), partial otherwise; it contains causality between writes (Coherence) and
    # po-loc between writes (SC-per-Location).  coherent: the RMW and CoRW/CoWR/CoRR/CoWW
    # consequences of Coherence, Atomicity and Causality.  acyclic_rf_dep: No-Thin-Air.
    "ptx": Profile(
        "ptx",
        (_SF, OrderSpec("co", "([W]; morally-strong; [W]) & loc",
                        "(([W]; cause; [W]) & loc) | ([W]; po-loc; [W])", init_first=True)),
        coherent="morally-strong", proxies=False, acyclic_rf_dep=True),
    # ptx-v7.5.cat: the same, without SC-per-Location (the file has none), and with proxies
    "ptx75": Profile(
        "ptx75",
        (_SF, OrderSpec("co", "([W]; morally-strong; [W]) & loc", "([W]; cause; [W]) & loc", init_first=True)),
        coherent="morally-strong", proxies=True, acyclic_rf_dep=True),
}
"""Built-in model name -> the settings a cat file of that model gets."""

PROXY_NAMES = frozenset({"GEN", "TEX", "SUR", "CON", "ALIAS", "ASYNC", "vloc"})
"""Base names only a model with proxies uses."""


def infer_profile(bases_used: set[str]) -> str:
    """The profile of a cat file that names none: ``ptx75`` if it refers to a proxy set or
    ``vloc`` (it gives proxies a meaning), else ``ptx``."""
    return "ptx75" if bases_used & PROXY_NAMES else "ptx"
