"""Byte offsets <-> 1-based line and character column, for one file."""
from __future__ import annotations

import re
from bisect import bisect_right
from functools import cached_property

from portlint.speed.needles import of_last


@of_last
def line_starts(data: bytes) -> list[int]:
    """The byte offset where each line starts (after each newline), the first at 0: not to be
    changed by the caller. The ends of `re`'s matches of the newlines: cheaper than summing the
    lengths of the lines `split` gives, or a Python loop over `find`. Those of the last bytes
    asked about are kept: the extractor, the command reader and the code analyses each ask for
    them of the same module."""
    return [0, *map(_END, _NEWLINE.finditer(data))]


_NEWLINE = re.compile(b"\n")
_END = re.Match.end


class Source:
    """A file's bytes and its decoded text, with position arithmetic between them.

    Parsers report character indices (ruamel.yaml) or UTF-8 byte columns (ast);
    sites and edits use byte offsets. This is the one place that converts.
    """

    def __init__(self, path: str, data: bytes) -> None:
        self.path = path
        self.data = data
        self.text = data.decode("utf-8")
        self.ascii = len(self.text) == len(data)
        self._char_starts: list[int] | None = None  # character index of each line start, when needed

    @cached_property
    def line_starts(self) -> list[int]:
        """Where each line starts, worked out when first asked for: most files give nothing, and
        need no position (~5% of the per-file stage's time)."""
        return line_starts(self.data)

    def line_of(self, offset: int) -> int:
        """1-based line of a byte offset."""
        return bisect_right(self.line_starts, offset)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, character column) of a byte offset."""
        line = self.line_of(offset)
        start = self.line_starts[line - 1]
        if self.ascii:
            return line, offset - start + 1
        return line, len(self.data[start:offset].decode("utf-8", "replace")) + 1

    def byte_offset(self, char_index: int) -> int:
        """Byte offset of a character index into `text` (encodes one line, not the file)."""
        if self.ascii:
            return char_index
        if self._char_starts is None:
            self._char_starts = [0, *(match.end() for match in re.finditer("\n", self.text))]
        line = bisect_right(self._char_starts, char_index) - 1
        start = self._char_starts[line]
        return self.line_starts[line] + len(self.text[start:char_index].encode("utf-8"))

    def char_offset(self, line0: int, char_column0: int) -> int:
        """Byte offset of a 0-based line and 0-based character column."""
        start = self.line_starts[line0]
        if self.ascii:
            return start + char_column0
        end = self.line_starts[line0 + 1] if line0 + 1 < len(self.line_starts) else len(self.data)
        line_text = self.data[start:end].decode("utf-8")
        return start + len(line_text[:char_column0].encode("utf-8"))

    def line_offset(self, line: int, byte_column: int) -> int:
        """Byte offset of a 1-based line and 0-based byte column."""
        return self.line_starts[line - 1] + byte_column

    def line_bytes(self, line: int) -> bytes:
        start = self.line_starts[line - 1]
        end = self.line_starts[line] if line < len(self.line_starts) else len(self.data)
        return self.data[start:end]
