"""Extractors: one module per source kind, each `extract(source, names) -> Extraction`.

An extractor finds sites and suppression comments; it never decides whether
something is wrong. A file that does not parse gives an Extraction with `error`
set (reported as PL001), never an exception.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from portlint.model import Command, Site
from portlint.records import Struct

if TYPE_CHECKING:
    from portlint.analysis.sockets import Facts

_SUPPRESSION = re.compile(r"portlint:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")


class Suppression(Struct, frozen=True):
    """`portlint: ignore` or `portlint: ignore[PL101,PL301]` inside one comment."""

    line: int
    column: int
    codes: tuple[str, ...]  # empty: every code
    start: int  # byte span of the whole comment, for PL002's fix
    end: int


class Extraction(Struct, frozen=True):
    sites: tuple[Site, ...] = ()
    suppressions: tuple[Suppression, ...] = ()
    error: str = ""
    error_line: int = 1
    error_column: int = 1
    commands: tuple[Command, ...] = ()
    sockets: Facts | None = None  # Python: what the code analyses found, plain data
    note: str = ""  # the file is skipped, not broken: why (a template that is YAML only once rendered)


def suppression_in(comment: str, line: int, column: int, start: int, end: int) -> Suppression | None:
    """The suppression a comment's text carries, if any.

    `comment` is the text of one comment as the file's parser delimited it;
    `start`/`end` are that comment's byte span.
    """
    match = _SUPPRESSION.search(comment)
    if match is None:
        return None
    codes = tuple(c.strip().upper() for c in (match.group(1) or "").split(",") if c.strip())
    return Suppression(line, column, codes, start, end)
