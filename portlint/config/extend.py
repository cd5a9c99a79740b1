"""A config file with what it inherits: `extend: PATH`, ruff's way of sharing a config.

The path is relative to the file that writes it and must lead to a file inside the
repository's work tree (a shared config of a monorepo, even above the folder the config
roots the run at); one that leads outside it, or back to a file
of the chain, is an error naming the `extend` key. Every file is checked against the
schema on its own (an error names the file that holds it), then the chain is merged,
the inherited file first: a key this file sets replaces the inherited one, except
`bands`, merged by band name (a band written here replaces the inherited band of that
name). Rule selection is not merged but layered (portlint/config/selection.py): each
file's `select`/`extend_select`/`ignore` apply in turn, as ruff applies them.

Inherited entries have no position in this file; they are placed at its `extend` key,
which is where a problem about them (PL003, a band's overlap) points.

ruff's hyphenated spellings `extend-select` and `per-file-ignores` are read as
`extend_select` and `per_file_ignores`; a file that writes both spellings of one key is
an error.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from portlint.config.build import check_codes
from portlint.config.errors import ConfigError, Invalid, key_path, quoted
from portlint.config.locate import absolute, git_root, inside, shown
from portlint.config.positions import Key
from portlint.config.read import Document, read
from portlint.config.schema import validate
from portlint.config.selection import Selection

ALIASES = {"extend-select": "extend_select", "per-file-ignores": "per_file_ignores"}
SELECTION_KEYS = ("select", "extend_select", "ignore")


class Chain(NamedTuple):
    document: Document  # the merged data (without the inherited files' selection) and its positions
    files: tuple[Path, ...]  # the config file, then each file it extends, in order
    layers: tuple[Selection, ...]  # the inherited files' selections, the farthest first
    origins: dict[Key, tuple[Path, tuple[str, ...]]]  # an inherited entry -> its file and that file's prefix


def read_chain(path: Path, root: Path) -> Chain:
    """`path`'s config with every file it extends, merged; each inside the git work tree of
    `root` (or `root` itself, outside git)."""
    root = git_root(root) or root
    files: list[Path] = []
    documents: list[Document] = []
    current: Path | None = absolute(path)
    while current is not None:
        document = _normalised(current, read(current))
        files.append(current)
        documents.append(document)
        current = _extended(current, document, root, files)
    merged = documents[0]
    for document in documents[1:]:  # the nearest first: what it sets, the farther ones do not
        merged, _ = _over(merged, document)
    layers = tuple(_selection(document.data) for document in reversed(documents[1:]))
    return Chain(merged, tuple(files), layers, _origins(files, documents))


def _normalised(path: Path, document: Document) -> Document:
    """ruff's spellings as portlint's; the schema checked, an error naming this file."""
    data = document.data
    if not isinstance(data, dict):
        return document  # build() says what is wrong at the top level
    try:
        for alias, key in ALIASES.items():
            if alias in data and key in data:
                raise Invalid((alias,), f'expected one of "{key}" or "{alias}", got both')
        validate(data)
        check_codes(data)
    except Invalid as problem:
        raise ConfigError(shown(path), key_path((*document.prefix, *problem.keys)), problem.message) from None
    return document._replace(data=canonical(data), positions={
        (ALIASES.get(str(k[0]), k[0]), *k[1:]) if k else k: v for k, v in document.positions.items()
    })


def canonical(data: dict[str, Any]) -> dict[str, Any]:
    """ruff's spellings of keys as portlint's (`extend-select`: `extend_select`)."""
    if not any(alias in data for alias in ALIASES):
        return data
    return {ALIASES.get(key, key): value for key, value in data.items()}


def _extended(path: Path, document: Document, root: Path, seen: list[Path]) -> Path | None:
    """The file `path` extends, resolved and checked; None when it extends none."""
    data = document.data
    if not isinstance(data, dict) or "extend" not in data:
        return None
    written = data["extend"]
    where = (shown(path), key_path((*document.prefix, "extend")))
    target = absolute(path.parent / written)
    if not inside(root, target):
        raise ConfigError(*where, f"expected a config file inside the work tree ({root}), got {quoted(written)}")
    if not target.is_file():
        raise ConfigError(*where, f"no such config file: {quoted(written)}")
    if any(target.resolve() == file.resolve() for file in seen):
        cycle = " -> ".join(shown(file) for file in (*seen, target))
        raise ConfigError(*where, f"expected no cycle, got {cycle}")
    return target


def _over(child: Document, base: Document) -> tuple[Document, set[Key]]:
    """`child` laid over `base`, and the top-level entries (and bands) taken from `base`;
    those are placed at the child's `extend` key."""
    data = dict(child.data) if isinstance(child.data, dict) else child.data
    if not isinstance(data, dict) or not isinstance(base.data, dict):
        return child, set()
    inherited: set[Key] = set()
    for key, value in base.data.items():
        if key in ("extend", *SELECTION_KEYS):
            continue
        if key == "bands" and isinstance(value, dict) and isinstance(data.get("bands"), dict):
            bands = dict(value)
            bands.update(data["bands"])
            inherited |= {("bands", name) for name in value if name not in data["bands"]}
            data["bands"] = bands
        elif key not in data:
            data[key] = value
            inherited.add((key,))
    at = child.positions.get(("extend",), (1, 1))
    positions = dict(child.positions)
    for key in base.positions:
        if any(key[:len(entry)] == entry for entry in inherited):
            positions[key] = at
    return child._replace(data=data, positions=positions), inherited


def _selection(data: Any) -> Selection:
    if not isinstance(data, dict):
        return Selection()
    select = data.get("select")
    return Selection(
        None if select is None else tuple(select), tuple(data.get("extend_select", ())), tuple(data.get("ignore", ())),
    )


def _origins(files: list[Path], documents: list[Document]) -> dict[Key, tuple[Path, tuple[str, ...]]]:
    """Each inherited top-level entry (and band) -> the file that wrote it, nearest first."""
    origins: dict[Key, tuple[Path, tuple[str, ...]]] = {}
    own = documents[0].data if isinstance(documents[0].data, dict) else {}
    for file, document in zip(files[1:], documents[1:]):
        data = document.data if isinstance(document.data, dict) else {}
        for key, value in data.items():
            if key in ("extend", *SELECTION_KEYS):
                continue
            if key == "bands" and isinstance(value, dict):
                for name in value:
                    if name not in own.get("bands", {}):
                        origins.setdefault(("bands", name), (file, document.prefix))
            elif key not in own:
                origins.setdefault((key,), (file, document.prefix))
    return origins
