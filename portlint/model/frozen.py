"""Frozen copies as records: a pair (a copy and its source), every scalar of each side by key
path, and what PL401/PL402 compare."""
from __future__ import annotations

from portlint.model.layout import FrozenSpec
from portlint.model.records import Struct, field


class Scalar(Struct, frozen=True):
    """One scalar value at a key path, as written, with where its literal is."""

    path: str  # the file it is written in (a parent, for inherited keys)
    line: int
    column: int
    start: int  # byte span of the value inside its quotes
    end: int
    value: str
    quote: str  # "", "'" or '"'


class Tree(Struct, frozen=True):
    """Every scalar of a file (parents merged in), plus the key paths of its collections."""

    scalars: dict[str, Scalar] = field(default_factory=dict)
    collections: dict[str, tuple[int, int]] = field(default_factory=dict)  # key path -> (line, column)
    sequences: frozenset[str] = frozenset()  # the collections that are lists
    files: tuple[str, ...] = ()  # this file and every parent merged into it


class InheritanceError(Exception):
    """A parent named in `defaults:` is missing or the chain loops; the chain is in the message."""


class FrozenPair(Struct, frozen=True):
    copy: str
    source: str  # "" when no template exists
    spec: FrozenSpec
    tried: tuple[str, ...] = ()  # templates tried, for the missing-source message


Flat = tuple[Tree, list[str]]  # a file's own tree, and the parents it names


class FrozenCheck(Struct, frozen=True):
    """What PL401/PL402 compare: a pair, both trees, and the key paths in scope."""

    pair: FrozenPair
    copy: Tree | None = None
    source: Tree | None = None
    compared: frozenset[str] = frozenset()
