"""Frozen copies: which file mirrors which, and every scalar of both, by key path.

A copy is compared with its source after the source's parents (a top-level
`defaults:` naming files, OmegaConf/Hydra style) are merged in, child winning,
so a key the copy spells out and the source inherits is neither missing nor
different. Aliases and merge keys are expanded, within a budget, so an alias
bomb costs a bounded amount of work.
"""
from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from portlint.model.frozen import Flat, FrozenCheck, FrozenPair, InheritanceError, Scalar, Tree
from portlint.model.globs import files_match
from portlint.model.layout import FrozenSpec
from portlint.model.source import Source

DEFAULTS_KEY = "defaults"
_MERGE_KEY = "<<"
# Nodes visited per file with aliases expanded: a real config has a few thousand;
# an alias bomb stops here (≈0.2 s per side at this size).
_NODE_BUDGET = 50_000


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
        cache[key] = _own(path, data)
    own, parents = cache[key]
    merged = Tree()
    for parent in parents:
        merged = _merge(merged, tree(parent, read, (*chain, path), cache))
    return _merge(merged, own)


def _own(path: str, data: bytes) -> Flat:
    from ruamel.yaml import YAMLError

    from portlint.stages.extract.yaml import compose

    source = Source(path, data)
    bom = 1 if source.text.startswith("\ufeff") else 0  # composed without it, as the extractor does
    try:
        roots = compose(source.text[bom:])
    except YAMLError as error:
        raise ValueError(f"{path}: invalid YAML: {getattr(error, 'problem', None) or error}") from None
    return flat(source, roots, bom)


def flat(source: Source, roots: list[Any], bom: int = 0) -> Flat:
    """A file's own tree from its composed documents (the first document is the config);
    `bom`: 1 when they were composed from the text without its leading BOM."""
    root = roots[0] if roots else None
    return _flatten(source, root, bom), _parents(source.path, root)


def _parents(path: str, root: Any) -> list[str]:
    """The files a top-level `defaults:` names, relative to the file."""
    if root is None or root.id != "mapping":
        return []
    for key, value in root.value:
        if key.id == "scalar" and key.value == DEFAULTS_KEY:
            items = [value] if value.id == "scalar" else value.value if value.id == "sequence" else []
            names = [item.value for item in items if item.id == "scalar" and item.value != "_self_"]
            base = posixpath.dirname(path)
            return [_with_suffix(posixpath.normpath(posixpath.join(base, name))) for name in names]
    return []


def _with_suffix(path: str) -> str:
    return path if path.endswith((".yaml", ".yml")) else path + ".yaml"


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


def _flatten(source: Source, root: Any, bom: int = 0) -> Tree:
    scalars: dict[str, Scalar] = {}
    collections: dict[str, tuple[int, int]] = {}
    sequences = set()
    for key, node in _expanded("", root, (), [_NODE_BUDGET]) if root is not None else ():
        if key == DEFAULTS_KEY or key.startswith((DEFAULTS_KEY + "[", DEFAULTS_KEY + ".")):
            continue  # the parents themselves, not configuration
        if node.id == "scalar":
            scalars[key] = _scalar(source, node, bom)
        else:
            collections[key] = (node.start_mark.line + 1, node.start_mark.column + 1)
            if node.id == "sequence":
                sequences.add(key)
    return Tree(scalars, collections, sequences=frozenset(sequences), files=(source.path,))


def _expanded(path: str, node: Any, ancestors: tuple[int, ...], budget: list[int]) -> Iterator[tuple[str, Any]]:
    """(key path, node) for every node, aliases expanded; a recursive alias is cut."""
    budget[0] -= 1
    if budget[0] < 0 or id(node) in ancestors:
        return
    yield path, node
    if node.id == "scalar":
        return
    inner = (*ancestors, id(node))
    if node.id == "sequence":
        for index, item in enumerate(node.value):
            yield from _expanded(f"{path}[{index}]", item, inner, budget)
        return
    for key, value in _merged_items(node):
        yield from _expanded(f"{path}.{key}" if path else key, value, inner, budget)


def _merged_items(node: Any) -> list[tuple[str, Any]]:
    """A mapping's (key, value) pairs with `<<: *base` merges applied; own keys win."""
    own: dict[str, Any] = {}
    merged: dict[str, Any] = {}
    for key, value in node.value:
        if key.id != "scalar":
            continue
        if key.value == _MERGE_KEY:
            bases = value.value if value.id == "sequence" else [value]
            for base in bases:
                if base.id == "mapping":
                    for k, v in base.value:
                        if k.id == "scalar" and k.value != _MERGE_KEY:
                            merged.setdefault(str(k.value), v)
        else:
            own[str(key.value)] = value
    return list({**merged, **own}.items())


def _scalar(source: Source, node: Any, bom: int = 0) -> Scalar:
    """A scalar's span by its marks' character indices (YAML also breaks lines at a lone CR,
    which Source's lines do not count), after its anchor or tag, inside its quotes."""
    from portlint.stages.extract.yaml import scalar_index

    quote = node.style if node.style in ("'", '"') else ""
    start = source.byte_offset(scalar_index(source.text[bom:], node) + bom + bool(quote))
    end = source.byte_offset(node.end_mark.index + bom - bool(quote))
    line, column = source.position(start)
    return Scalar(source.path, line, column, start, end, node.value, quote)


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
