"""Extractors: one module per source kind, each `extract(source, names) -> Extraction`.

An extractor finds sites and suppression comments; it never decides whether
something is wrong. A file that does not parse gives an Extraction with `error`
set (reported as PL001), never an exception.
"""
from __future__ import annotations

import re

from portlint.model.extraction import Suppression

_SUPPRESSION = re.compile(r"portlint:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")


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
