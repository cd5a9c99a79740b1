"""A key or file present on one side of a frozen pair is missing on the other.

What it does: reports, at the frozen copy, a key path the source has (parents
merged in) and the copy lacks, a key path the copy has and the source lacks,
and a copy none of whose source templates exists. With `compare: ports` only
port key paths count.
Why: a copy that lost a key tests less than it claims; a copy whose source was
renamed or deleted is no longer a copy of anything.
Example (fails): the source gained `env.sandbox.port_range_low`; the copy was not updated.
Use instead: the copy gains `env.sandbox.port_range_low` with the source's value.
Options: `frozen` (`copies`, `source`, `compare`).
Fix: none; add or remove the key by hand (its value then follows PL401).
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model.frozen import FrozenCheck, Tree
from portlint.model.layout import Layout
from portlint.model.problems import Problem

CODE = "PL402"
NAME = "frozen-missing"
NEEDS_LAYOUT = False
NEEDS = frozenset({"frozen"})


def check(layout: Layout) -> Iterator[Problem]:
    for pair in layout.frozen:
        if not pair.pair.source:
            tried = ", ".join(pair.pair.tried)
            yield Problem(pair.pair.copy, 1, 1, CODE, f"frozen copy has no source: none of {tried} exists")
        elif pair.copy is not None and pair.source is not None:
            yield from _missing(pair)


def _missing(pair: FrozenCheck) -> Iterator[Problem]:
    copy, source = pair.copy, pair.source
    assert copy is not None and source is not None
    for key in sorted(pair.compared):
        if key in source.scalars and key not in copy.scalars and not _covered(copy, key):
            line, column = _nearest(copy, key)
            yield Problem(pair.pair.copy, line, column, CODE, f"{key} is in the source {pair.pair.source} but missing from this copy")
        elif key in copy.scalars and key not in source.scalars and not _covered(source, key):
            mine = copy.scalars[key]
            yield Problem(mine.path, mine.line, mine.column, CODE, f"{key} is in this copy but not in the source {pair.pair.source}")


def _covered(tree: Tree, key: str) -> bool:
    """A key whose parent is a scalar on the other side differs in shape, not by a missing key."""
    return any(prefix in tree.scalars for prefix in _prefixes(key))


def _prefixes(key: str) -> list[str]:
    cuts = [i for i, c in enumerate(key) if c in ".["]
    return [key[:i] for i in cuts]


def _nearest(tree: Tree, key: str) -> tuple[int, int]:
    """Where the missing key would go: its nearest parent present in the copy."""
    for prefix in reversed(_prefixes(key)):
        if prefix in tree.collections:
            return tree.collections[prefix]
    return 1, 1
