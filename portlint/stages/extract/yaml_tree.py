"""A YAML file's scalars by key path, and the files its `defaults:` names: a frozen pair's side.

Flattened once per file by the per-file stage (from the documents the YAML
extractor composed) and compared by the layout stage (portlint.stages.layout.frozen).
Aliases and merge keys are expanded, within a budget, so an alias bomb costs a
bounded amount of work.
"""
from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import Any

from portlint.model.frozen import Flat, Scalar, Tree
from portlint.model.source import Source

DEFAULTS_KEY = "defaults"
_MERGE_KEY = "<<"
# Nodes visited per file with aliases expanded: a real config has a few thousand;
# an alias bomb stops here (≈0.2 s per side at this size).
_NODE_BUDGET = 50_000


def own(path: str, data: bytes) -> Flat:
    """A YAML file's own tree, composed from its bytes; raises ValueError where it is not YAML."""
    from ruamel.yaml import YAMLError

    from portlint.stages.extract.yaml import TooDeep, compose

    source = Source(path, data)
    bom = 1 if source.text.startswith("\ufeff") else 0  # composed without it, as the extractor does
    try:
        roots = compose(source.text[bom:])
    except (YAMLError, TooDeep) as error:
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
