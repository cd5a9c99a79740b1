"""The documents of a YAML stream, found by their markers, and the stream with some of them blanked.

A YAML stream of many documents (a release's manifest: every CRD, deployment and config map of
a project in one file) is composed document by document, and most of its documents may hold
nothing a reader wants. `documents` finds where each starts from the markers alone: a line
that starts with `---` or `...` followed by a blank or its end is a marker wherever it is (YAML
1.2, 9.1.4: no scalar may hold one), so the split needs no parser. `blanked` gives the stream
with chosen documents turned into blanks, every character but line breaks a space: what is
left composes to the same nodes at the same indices, lines and columns.

Unsure, `documents` says so (None): a directive (`%YAML`, `%TAG` belong to the document after
them), a byte order mark past the start, a line break other than LF or CRLF (YAML also breaks
lines at a lone CR, NEL, LS and PS, which this split does not see).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

_LONE_CR = re.compile(r"\r(?!\n)")
_BREAKS = "\ufeff\x85\u2028\u2029"  # what YAML reads as a line break (or a BOM) that this split does not
_BLANKS = str.maketrans({chr(code): " " for code in range(128) if chr(code) not in "\r\n"})


def documents(text: str) -> list[tuple[int, int]] | None:
    """(start, end) of what each document of `text` holds, in order: the first from the start,
    each other from after the three characters of the marker of its marker line, up to the next
    marker line, or past its three dots where that marker is `...` (a stream left with `...`
    after blanks alone does not parse); None where the split may not be the parser's. (Blanked,
    a `---` stays: a document that ends in a scalar keeping its trailing line breaks, `|+`,
    would otherwise take the blanks of the next.)"""
    if not text.isascii() and any(char in text for char in _BREAKS):
        return None
    if text.startswith("%") or "\n%" in text or "\r" in text and _LONE_CR.search(text) is not None:
        return None
    markers = sorted((at, marker == "...") for marker in ("---", "...") for at in _lines_starting(text, marker))
    starts = [*([] if markers and markers[0][0] == 0 else [0]), *(at + 3 for at, _ in markers)]
    ends = [at + 3 * ends_document for at, ends_document in markers if at]
    return list(zip(starts, [*ends, len(text)]))


def _lines_starting(text: str, marker: str) -> list[int]:
    """Where the lines that are `marker` (then a blank or their end) start."""
    found = [0] if text.startswith(marker) and text[3:4] in ("", " ", "\t", "\r", "\n") else []
    at = text.find("\n" + marker)
    while at != -1:
        if text[at + 4:at + 5] in ("", " ", "\t", "\r", "\n"):
            found.append(at + 1)
        at = text.find("\n" + marker, at + 4)
    return found


def blanked(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """`text` with every character of the (sorted, disjoint) spans but CR and LF made a space."""
    pieces = []
    at = 0
    for start, end in spans:
        pieces.append(text[at:start])
        cold = text[start:end]
        if cold.isascii():
            pieces.append(cold.translate(_BLANKS))
        else:
            pieces.append("\n".join(" " * len(line.rstrip("\r")) + "\r" * line.endswith("\r") for line in cold.split("\n")))
        at = end
    pieces.append(text[at:])
    return "".join(pieces)
