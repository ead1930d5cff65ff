"""``load_cat(path) -> Model``: read a cat file (its includes too), translate it, and give it
the checker settings of its profile."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from litmus.errors import LitmusError
from litmus.model.cat.ast import Binary, Call, CatExpr, Include, Name, Statement, Unary
from litmus.model.cat.bases import BASES, POLYMORPHIC
from litmus.model.cat.parser import parse_cat, parse_expr
from litmus.model.cat.profiles import PROFILES, Profile, infer_profile
from litmus.model.cat.translate import Translation
from litmus.model.relations import ChosenOrder, Expr, Model


@dataclass(frozen=True)
class CatModel:
    """A cat file read: its model, the profile it got, its title and every file read."""

    model: Model
    profile: str  # the built-in model whose checker settings it took (PROFILES)
    title: str | None  # the model name the file starts with
    files: tuple[str, ...]  # the file, then each file it includes (transitively), in order


def load_cat(path: str | Path, profile: str | None = None) -> Model:
    """The model ``path`` defines, for :func:`litmus.model.check`.  ``profile`` names the
    built-in model whose checker settings it takes (:data:`~litmus.model.cat.profiles.PROFILES`);
    None: inferred (``ptx75`` for a file that uses proxies, else ``ptx``).  Bad input raises a
    :class:`~litmus.errors.LitmusError` located at ``file:line:column``."""
    return read_cat(path, profile).model


def read_cat(path: str | Path, profile: str | None = None) -> CatModel:
    """:func:`load_cat`, with the profile it chose and the files it read."""
    if profile is not None and profile not in PROFILES:
        raise LitmusError(f"unknown cat profile {profile!r}; choose one of {', '.join(PROFILES)}")
    p = Path(path)
    files: list[str] = []
    title, statements = _read(p, [], files)
    tr = Translation()
    for s in statements:
        tr.statement(s)
    chosen = PROFILES[profile or infer_profile(tr.bases_used)]
    return CatModel(to_model(tr, p, title, chosen), chosen.name, title, tuple(files))


def _read(path: Path, stack: list[Path], files: list[str]) -> tuple[str | None, list[Statement]]:
    """The title and statements of ``path``, each ``include`` replaced by the included file's
    statements (``stack``: the files including this one, to refuse a cycle; ``files``: every
    file read, appended to)."""
    files.append(str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise LitmusError.at(str(path), None, f"cannot read this cat file: {reason}") from None
    cat = parse_cat(text, str(path))
    out: list[Statement] = []
    for s in cat.statements:
        if not isinstance(s, Include):
            out.append(s)
            continue
        target = (path.parent / s.path).resolve()
        chain = stack + [path.resolve()]
        if target in chain:
            cycle = " -> ".join(str(c) for c in chain[chain.index(target):] + [target])
            raise LitmusError.at(s.loc.file, s.loc.line, f"include cycle: {cycle}; drop one of these includes",
                                 s.loc.column)
        if not target.is_file():
            raise LitmusError.at(s.loc.file, s.loc.line, f"include {s.path!r}: no such file {target} "
                                 "(included files are found relative to the including file)", s.loc.column)
        out.extend(_read(target, chain, files)[1])
    return cat.title, out


def to_model(tr: Translation, path: Path, title: str | None, profile: Profile) -> Model:
    """The :class:`Model` of a translated cat file under ``profile``."""
    where = f"{path} (profile {profile.name})"

    def cat(text: str, what: str) -> Expr:
        # the profile's text is over the file's names: say which one the file lacks, not where
        # in the profile's text it is
        node = parse_expr(text, f"<profile {profile.name}>")
        missing = sorted(n for n in _names(node) if n not in tr.env and n not in BASES and n not in POLYMORPHIC)
        if missing:
            raise LitmusError.at(str(path), None, f"the {profile.name} profile's {what} is '{text}', "
                                 f"which needs {', '.join(repr(n) for n in missing)}: define "
                                 f"{'it' if len(missing) == 1 else 'them'} in the cat file, or choose "
                                 f"another profile ({', '.join(PROFILES)})")
        return tr.expr(node)

    orders = tuple(ChosenOrder(o.name, cat(o.pairs, f"{o.name} order"),
                               cat(o.must, f"{o.name} order's must") if o.must else None, o.init_first)
                   for o in profile.orders)
    return Model(
        name=path.name,
        description=f"{title or path.stem} from {where}",
        definitions=tuple(tr.definitions),
        orders=orders,
        axioms=tuple(tr.axioms),
        proxies=profile.proxies,
        acyclic_rf_dep=profile.acyclic_rf_dep,
        coherent=cat(profile.coherent, "coherent relation") if profile.coherent else None,
    )


def _names(node: CatExpr) -> list[str]:
    if isinstance(node, Name):
        return [node.name]
    if isinstance(node, Unary):
        return _names(node.arg)
    if isinstance(node, Binary):
        return _names(node.left) + _names(node.right)
    assert isinstance(node, Call)
    return [n for a in node.args for n in _names(a)]
