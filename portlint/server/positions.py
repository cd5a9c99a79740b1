"""Byte offsets <-> LSP positions, and the text edits that turn one text into another.

portlint works on bytes (a site is a byte span, a fix splices byte spans); an editor counts a
line's characters in the position encoding the client and server agreed on at start-up: UTF-16
code units unless both said otherwise ("utf-8": bytes, "utf-32": code points). LSP's lines end at
`\\n`, `\\r\\n` or a lone `\\r` (portlint's at `\\n` alone: positions from portlint's own lines
and columns are converted through a byte offset). A BOM at the start of a file read from disk is
no character of the editor's text (editors keep it aside), so it counts for nothing there.
"""
from __future__ import annotations

import difflib
import re
from bisect import bisect_right
from typing import NamedTuple

from portlint.model.source import line_starts

UTF16, UTF8, UTF32 = "utf-16", "utf-8", "utf-32"
_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


class Position(NamedTuple):
    line: int  # 0-based
    character: int  # 0-based, in the agreed encoding's units


class Lines:
    """One text's lines as LSP counts them, for offsets <-> positions."""

    def __init__(self, data: bytes, encoding: str = UTF16, bom_hidden: bool = False) -> None:
        self.data = data
        self.encoding = encoding
        self.starts = [0, *(match.end() for match in _LINE_END.finditer(data))]
        self.skip = len(_BOM) if bom_hidden and data.startswith(_BOM) else 0  # bytes before line 0's first character
        self._portlint_starts: list[int] | None = None

    def position(self, offset: int) -> Position:
        """The position of a byte offset (clamped into the text)."""
        offset = max(0, min(offset, len(self.data)))
        line = bisect_right(self.starts, offset) - 1
        start = max(self.starts[line], self.skip if line == 0 else 0)
        return Position(line, units(self.data[start:max(start, offset)], self.encoding))

    def offset(self, line: int, character: int) -> int:
        """The byte offset of a position; a character past the line's end is its end (before
        its line break), a line past the last is the end of the text (as LSP asks)."""
        if line < 0:
            return 0
        if line >= len(self.starts):
            return len(self.data)
        start = self.starts[line] + (self.skip if line == 0 else 0)
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.data)
        text = self.data[start:end]
        ending = _LINE_END.search(text)
        text = text[:ending.start()] if ending else text
        return start + _bytes_of(text, max(0, character), self.encoding)

    def at(self, line: int, column: int) -> int:
        """The byte offset of portlint's 1-based line (ended by `\\n`) and 1-based character column."""
        if self._portlint_starts is None:
            self._portlint_starts = line_starts(self.data)
        starts = self._portlint_starts
        if line < 1:
            return 0
        if line > len(starts):
            return len(self.data)
        start = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.data)
        return start + _bytes_of(self.data[start:end], max(0, column - 1), UTF32)

    def word_end(self, offset: int) -> int:
        """Where the run of non-blank characters at `offset` ends on its line: the extent of a
        problem that names only where it starts (a config key, a file's first character)."""
        end = offset
        while end < len(self.data) and self.data[end:end + 1] not in (b" ", b"\t", b"\r", b"\n", b":", b",", b"="):
            end += 1
        return end


def units(data: bytes, encoding: str) -> int:
    """How many of the encoding's units the UTF-8 bytes take (bytes that are not UTF-8: one each)."""
    if encoding == UTF8:
        return len(data)
    text = decoded(data)
    if encoding == UTF32:
        return len(text)
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def _bytes_of(data: bytes, count: int, encoding: str) -> int:
    """How many bytes of `data` the first `count` units take (a unit inside a character: the
    character's start)."""
    if encoding == UTF8:
        at = min(count, len(data))
        while 0 < at < len(data) and data[at] & 0xC0 == 0x80:  # not inside a character
            at -= 1
        return at
    text = decoded(data)
    taken, length = 0, 0
    for char in text:
        width = 2 if encoding == UTF16 and ord(char) > 0xFFFF else 1
        if taken + width > count:
            break
        taken += width
        length += len(char.encode("utf-8", "surrogatepass"))
    return min(length, len(data))


def decoded(data: bytes) -> str:
    """The text of UTF-8 bytes; a lone surrogate an editor sent (JSON can carry one) is kept as
    the one character it was; bytes that are not UTF-8 at all become U+FFFD (such a file is a
    PL001, and its positions are the editor's guess as much as ours)."""
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace")


class Change(NamedTuple):
    """One replacement of a byte span of the old text."""

    start: int
    end: int
    text: bytes


def changes(before: bytes, after: bytes) -> list[Change]:
    """Small replacements that turn `before` into `after`: the lines that differ (difflib's
    matching of whole lines), each narrowed to the bytes that differ, so an editor keeps its
    cursor, marks and undo steps everywhere else."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    old_starts = [0]
    for line in old:
        old_starts.append(old_starts[-1] + len(line))
    new_starts = [0]
    for line in new:
        new_starts.append(new_starts[-1] + len(line))
    found = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start, end = old_starts[i1], old_starts[i2]
        text = after[new_starts[j1]:new_starts[j2]]
        found.append(_narrowed(before, start, end, text))
    return found


def _narrowed(before: bytes, start: int, end: int, text: bytes) -> Change:
    """The replacement without the bytes it keeps at either end (whole characters only)."""
    old = before[start:end]
    head = 0
    while head < min(len(old), len(text)) and old[head] == text[head]:
        head += 1
    while head > 0 and (head < len(old) and old[head] & 0xC0 == 0x80 or head < len(text) and text[head] & 0xC0 == 0x80):
        head -= 1  # never split a character
    tail = 0
    while tail < min(len(old), len(text)) - head and old[len(old) - 1 - tail] == text[len(text) - 1 - tail]:
        tail += 1
    while tail > 0 and (old[len(old) - tail] & 0xC0 == 0x80 or text[len(text) - tail] & 0xC0 == 0x80):
        tail -= 1
    return Change(start + head, end - tail, text[head:len(text) - tail])
