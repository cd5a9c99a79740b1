"""Frozen copies: which file mirrors which, and every scalar of both, by key path.

A copy is compared with its source after the source's parents (a top-level
`defaults:` naming files, OmegaConf/Hydra style) are merged in, child winning,
so a key the copy spells out and the source inherits is neither missing nor
different. Each file's own tree is the per-file stage's (portlint.stages.extract.yaml_tree).
"""
from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable

from portlint.model.frozen import Flat, FrozenCheck, FrozenPair, InheritanceError, Tree
from portlint.model.globs import files_match
from portlint.model.layout import FrozenSpec
from portlint.stages.extract import yaml_tree


def pairs(spec_list: Iterable[FrozenSpec], listed: Iterable[str], exists: Callable[[str], bool]) -> list[FrozenPair]:
    """Each file matching a spec's `copies` glob, paired with its first existing source."""
    found = []
    listed = list(listed)
    for spec in spec_list:
        prefix = _literal_prefix(spec.copies)
        for copy in listed:
            if not copy.startswith(prefix) or not files_match((spec.copies,), copy):
                continue
            tried = tuple(posixpath.normpath(c) for c in spec.candidates(copy))
            source = next((c for c in tried if c != copy and exists(c)), "")
            found.append(FrozenPair(copy, source, spec, tried))
    return found


def _literal_prefix(glob: str) -> str:
    """The directories a copies glob names literally (`tests/unit/` of `tests/unit/*.yaml`):
    a cheap test before the glob itself, which runs once per file and entry. A glob
    without an inner slash matches at any depth (gitignore rules): no prefix."""
    if "/" not in glob.rstrip("/"):
        return ""
    head = glob.lstrip("/")
    wild = min((i for i, char in enumerate(head) if char in "*?[\\"), default=len(head))
    return head[: head.rfind("/", 0, wild) + 1]


def tree(
    path: str, read: Callable[[str], bytes | None], chain: tuple[str, ...] = (),
    cache: dict[tuple[str, bytes], Flat] | None = None,
) -> Tree:
    """The merged tree of a YAML file; raises InheritanceError, ValueError (unparsable).

    `cache` keeps each file's flattened tree by content, across pairs and fix rounds.
    """
    if path in chain:
        raise InheritanceError(f"inheritance cycle: {' -> '.join((*chain, path))}")
    data = read(path)
    if data is None:
        raise InheritanceError(f"missing parent: {' -> '.join((*chain, path))}")
    cache = {} if cache is None else cache
    key = (path, data)
    if key not in cache:
        cache[key] = yaml_tree.own(path, data)
    own, parents = cache[key]
    merged = Tree()
    for parent in parents:
        merged = _merge(merged, tree(parent, read, (*chain, path), cache))
    return _merge(merged, own)


def _merge(parent: Tree, child: Tree) -> Tree:
    """Child wins: mappings merge key by key; a child list or scalar replaces what the
    parent had under its key (OmegaConf's merge)."""
    replaced = [key for key in (*child.scalars, *child.sequences) if key]
    scalars = {k: v for k, v in parent.scalars.items() if not _under_any(k, replaced)}
    collections = {k: v for k, v in parent.collections.items() if not _under_any(k, replaced) or k in replaced}
    scalars.update(child.scalars)
    collections.update(child.collections)
    sequences = frozenset(k for k in (*parent.sequences, *child.sequences) if k in collections)
    return Tree(scalars, collections, sequences=sequences, files=(*child.files, *parent.files))


def _under_any(key: str, replaced: list[str]) -> bool:
    return any(key == r or key.startswith(r + ".") or key.startswith(r + "[") for r in replaced)


def check_pair(
    pair: FrozenPair, read: Callable[[str], bytes | None], wants: Callable[[str], bool],
    cache: dict[tuple[str, bytes], Flat] | None = None,
) -> FrozenCheck:
    """Both trees of a pair; raises InheritanceError or ValueError for a broken source chain."""
    if not pair.source:
        return FrozenCheck(pair)
    copy, source = tree(pair.copy, read, (), cache), tree(pair.source, read, (), cache)
    keys = set(copy.scalars) | set(source.scalars)
    if pair.spec.compare == "ports":
        keys = {key for key in keys if wants(key) and _port_like(copy, source, key)}
    return FrozenCheck(pair, copy, source, frozenset(keys))


def _port_like(copy: Tree, source: Tree, key: str) -> bool:
    values = [tree.scalars[key].value for tree in (copy, source) if key in tree.scalars]
    return any(value.isascii() and value.isdigit() for value in values)
