"""The one way bytes change: a fix's edits, spliced into a file's bytes where they do not overlap."""
from __future__ import annotations

from collections.abc import Iterable

from portlint.model.edits import Edit, Fix


class OverlappingEdits(ValueError):
    pass


def apply(source: bytes, edits: Iterable[Edit]) -> bytes:
    """Replace each edit's span; every byte outside the spans is kept as it was."""
    ordered = sorted(edits)
    pieces, cursor = [], 0
    for edit in ordered:
        if edit.start < cursor or edit.end < edit.start or edit.end > len(source):
            raise OverlappingEdits(f"edit {edit.start}-{edit.end} overlaps another or leaves the file")
        pieces += [source[cursor:edit.start], edit.text]
        cursor = edit.end
    pieces.append(source[cursor:])
    return b"".join(pieces)


def compatible(fixes: Iterable[Fix]) -> list[Fix]:
    """The fixes, in order, that can be applied together: a fix overlapping an earlier one waits."""
    taken: list[Edit] = []
    chosen = []
    for fix in fixes:
        if any(e.start < t.end and t.start < e.end or e == t for e in fix.edits for t in taken):
            continue
        taken += fix.edits
        chosen.append(fix)
    return chosen
