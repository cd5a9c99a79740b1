"""Markdown extractor: `NAME=N` inside inline code spans and GFM table cells.

A small line-based scanner for the CommonMark/GFM structure that matters here:
fenced code blocks are skipped, HTML comments are skipped except
for `<!-- portlint: ignore[...] -->` suppressions, paragraphs are scanned for
code spans, and table rows are split into cells. It works on the file's bytes,
so every span is a byte span even after non-ASCII text, and it never raises.

MyST directives (Sphinx docs): a fence whose info string is a directive in
braces (```` ```{note} ````, `{list-table}`, `{admonition} Title`, and the colon
fence `:::{tip}`) holds Markdown, which is scanned like the rest of the file
(its leading `:option: value` lines aside); code directives (`{code-block}`,
`{code}`, `{literalinclude}`, `{eval-rst}`...) stay skipped like any fence.

Deliberate leniencies, because list and quote containers are only approximated:
a fence or an HTML comment is recognised at any indentation (nested list items
indent them past CommonMark's 3 spaces), indented code blocks are not skipped,
and a line holding only an HTML comment does not end a table (a suppression
placed between two rows must still see the row below it as a row).
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from portlint.model.extraction import Extraction, Suppression
from portlint.model.naming import NameFilter, role_of
from portlint.model.records import replace
from portlint.model.sites import Site
from portlint.model.source import Source
from portlint.stages.extract import prose, suppression_in

# NAME=N, NAME="N": an identifier (dotted, for Hydra-style overrides such as
# `cluster.master_port=1400`) or a long option; group 3 is the digits only.
_TOKEN = re.compile(
    rb"(?<![A-Za-z0-9_.-])"
    rb"(--[A-Za-z0-9][A-Za-z0-9_-]*|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"
    rb"=([\"']?)([0-9]+)\2(?![A-Za-z0-9_]|\.[0-9])"
)
_FENCE_OPEN = re.compile(rb"(`{3,}|~{3,}|:{3,}(?=\{))(.*)", re.DOTALL)
_DIRECTIVE = re.compile(rb"[ \t]*\{([A-Za-z][A-Za-z0-9_:.-]*)\}")
_DIRECTIVE_OPTION = re.compile(rb":[A-Za-z][A-Za-z0-9_-]*:(?:[ \t]|$)")
# Directives whose body is code, raw markup or data, not Markdown.
_CODE_DIRECTIVES = frozenset(
    b"code-block code sourcecode code-cell literalinclude eval-rst raw math mermaid graphviz csv-table "
    b"include parsed-literal".split()
)
_HEADING = re.compile(rb"#{1,6}(?:[ \t]|$)")
_LIST_ITEM = re.compile(rb"(?:[-+*]|[0-9]{1,9}[.)])(?:[ \t]|$)")
_DELIMITER_CELL = re.compile(rb"[ \t]*:?-+:?[ \t]*")
_INLINE_MARK = re.compile(rb"[\\`<]")

_BACKSLASH, _BACKTICK, _PIPE, _GT, _TAB = (ord(c) for c in "\\`|>\t")
_BLANK_OR_QUOTE = b" \t>"
_BLANKS = re.compile(rb"[ \t]*")
_CODE_SPAN, _HTML_COMMENT = "code", "comment"
_UNLIMITED = 1 << 30


class _Line(NamedTuple):
    start: int  # byte offset of the line's first byte
    end: int  # byte offset of its end, before "\n" or "\r\n"
    depth: int  # block-quote depth: how many `>` markers open it
    content: int  # byte offset after those markers
    indent: int  # indentation width after the markers
    text: int  # byte offset of the first non-blank byte after the markers (`end` if blank)


class _Fence(NamedTuple):
    char: int
    length: int
    indent: int
    depth: int  # block-quote depth of the opening line
    markdown: bool = False  # a MyST directive whose body is Markdown


def extract(source: Source, names: NameFilter) -> Extraction:
    data = source.data
    if b"`" not in data and b"|" not in data and b"<!--" not in data and not any(c in data for c in b"0123456789"):
        return Extraction()  # no code span, table, comment or number: nothing to find
    if b"<!--" not in data and not _may_state(source, names):
        return Extraction()  # no line writes a wanted name and a number: no site, whatever the structure
    scanner = _Scanner(source, names)
    scanner.scan()
    return Extraction(tuple(scanner.sites), tuple(scanner.suppressions))


def _may_state(source: Source, names: NameFilter) -> bool:
    """Whether a line of the file writes a number and, where the prefilter finds a port-like or
    selected name, a `NAME=N` token of a wanted name or a wanted name a prose statement would
    be about. Every site of a Markdown file is on one line that does (a token, inside a code
    span or a cell; a table row or a prose line stating a range), so where none does the file
    holds no site whatever its structure, and the scan is skipped (AReaL's two 300 KB CLI
    references, each a table of every option, write one such name: 14 ms each, for nothing).
    Only what the scan would find with the line's whole text is asked: a code span, a cell or
    a line inside block-quote markers is part of it, and no name or token crosses their edges."""
    from portlint.stages.prefilter import prefilter

    data = source.data
    asked = set()
    for hit in prefilter(names.selector_names).hits(data):
        start = data.rfind(b"\n", 0, hit) + 1
        if start in asked:
            continue
        asked.add(start)
        end = data.find(b"\n", hit)
        end = len(data) if end == -1 else end
        if prose.DIGIT.search(data, start, end) is None:
            continue
        if any(names.wants(token.group(1).decode("ascii")) for token in _TOKEN.finditer(data, start, end)):
            return True
        if next(prose.mentioned_names(data[start:end].decode("utf-8", "replace"), names), None) is not None:
            return True
    return False


def _split_lines(data: bytes) -> list[_Line]:
    lines: list[_Line] = []
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0  # a BOM is not indentation
    while True:
        newline = data.find(b"\n", start)
        stop = len(data) if newline == -1 else newline
        end = stop - 1 if stop > start and data[stop - 1] == ord("\r") else stop
        if start == end or data[start] not in _BLANK_OR_QUOTE:  # most lines: no quote, no indent
            lines.append(_Line(start, end, 0, start, 0, start))
        else:
            indent, text = _indent(data, start, end)
            if text < end and data[text] == _GT:  # a block quote: its markers, then what it holds
                depth, content = _unquote(data, start, end, _UNLIMITED)
                indent, text = _indent(data, content, end)
                lines.append(_Line(start, end, depth, content, indent, text))
            else:  # indented (code in a fence, a list's continuation): what _unquote would say
                lines.append(_Line(start, end, 0, start, indent, text))
        if newline == -1:
            return lines
        start = newline + 1


def _unquote(data: bytes, pos: int, end: int, limit: int) -> tuple[int, int]:
    """(block-quote depth, offset after up to `limit` `>` markers) of one line."""
    depth = 0
    while depth < limit:
        _, marker = _indent(data, pos, end)
        if marker >= end or data[marker] != _GT:
            break
        depth, pos = depth + 1, marker + 1
        if pos < end and data[pos] in b" \t":
            pos += 1
    return depth, pos


def _indent(data: bytes, pos: int, end: int) -> tuple[int, int]:
    """(indentation width with tab stops of 4, offset of the first non-blank byte)."""
    blank = _BLANKS.match(data, pos, end)
    assert blank is not None  # `[ \t]*` matches everywhere
    stop = blank.end()
    if data.find(b"\t", pos, stop) == -1:
        return stop - pos, stop  # spaces only: one byte, one column
    width = 0
    for at in range(pos, stop):
        width = width + 4 - width % 4 if data[at] == _TAB else width + 1
    return width, stop


def _run_length(data: bytes, pos: int, end: int, char: int) -> int:
    run = pos
    while run < end and data[run] == char:
        run += 1
    return run - pos


def _closing_run(data: bytes, pos: int, end: int, length: int) -> int:
    """Offset of the next backtick run of exactly `length`, or -1 (CommonMark code spans)."""
    while (found := data.find(b"`", pos, end)) != -1:
        run = _run_length(data, found, end, _BACKTICK)
        if run == length:
            return found
        pos = found + run
    return -1


def _comment_end(data: bytes, pos: int, end: int) -> int:
    """End offset of the HTML comment opening at `pos`; `<!-->` and `<!--->` are complete."""
    close = data.find(b"-->", pos + 2, end)
    return -1 if close == -1 else close + 3


def _inline(data: bytes, start: int, end: int) -> Iterator[tuple[str, int, int]]:
    """Code span contents and HTML comments of one paragraph or cell, left to right."""
    # Openers known to have no closer further on are not searched again: keeps this linear.
    unclosed: set[int] = set()
    comments_close = True
    pos = start
    while (mark := _INLINE_MARK.search(data, pos, end)) is not None:
        at = mark.start()
        if data[at] == _BACKSLASH:
            pos = at + 2  # an escaped backtick or `<` opens nothing
        elif data[at] == _BACKTICK:
            run = _run_length(data, at, end, _BACKTICK)
            close = -1 if run in unclosed else _closing_run(data, at + run, end, run)
            if close == -1:
                unclosed.add(run)
                pos = at + run
            else:
                yield _CODE_SPAN, at + run, close
                pos = close + run
        elif comments_close and data.startswith(b"<!--", at, end):
            close = _comment_end(data, at, end)
            comments_close = close != -1
            if close != -1:
                yield _HTML_COMMENT, at, close
            pos = max(close, at + 1)
        else:
            pos = at + 1


def _cells(data: bytes, start: int, end: int) -> list[tuple[int, int]]:
    """Byte spans of a table row's cells: split at unescaped `|`, outer pipes dropped."""
    while start < end and data[start] in b" \t":
        start += 1
    while end > start and data[end - 1] in b" \t":
        end -= 1
    if start < end and data[start] == _PIPE:
        start += 1
    if end > start and data[end - 1] == _PIPE and data[end - 2 : end - 1] != b"\\":
        end -= 1
    spans, cell, pos = [], start, start
    if data.find(b"\\", start, end) == -1:  # no escape: every `|` splits (found by `find`, not byte by byte)
        while (pos := data.find(b"|", pos, end)) != -1:
            spans.append((cell, pos))
            cell = pos = pos + 1
        spans.append((cell, end))
        return spans
    while pos < end:
        if data[pos] == _PIPE:
            spans.append((cell, pos))
            cell = pos + 1
        pos += 2 if data[pos] == _BACKSLASH else 1
    spans.append((cell, end))
    return spans


def _only_comments(data: bytes, pos: int, end: int) -> bool:
    """True when `data[pos:end]` holds nothing but blanks and closed HTML comments."""
    while True:
        while pos < end and data[pos] in b" \t":
            pos += 1
        if pos >= end:
            return True
        close = _comment_end(data, pos, end) if data.startswith(b"<!--", pos, end) else -1
        if close == -1:
            return False
        pos = close


class _Scanner:
    """Walks a document block by block, collecting sites and suppressions."""

    def __init__(self, source: Source, names: NameFilter) -> None:
        self.source = source
        self.data = source.data
        self.names = names
        self.lines = _split_lines(source.data)
        self.sites: list[Site] = []
        self.suppressions: list[Suppression] = []
        self.next_content: list[int] | None = None
        self.limit = len(self.lines)  # blocks end here: the end of the file or of a directive's body

    # -- line classification -------------------------------------------------

    def blank(self, index: int) -> bool:
        return self.lines[index].text == self.lines[index].end

    def opens_comment(self, index: int) -> bool:
        line = self.lines[index]
        return self.data.startswith(b"<!--", line.text, line.end)

    def comment_only(self, index: int) -> bool:
        line = self.lines[index]
        return self.opens_comment(index) and _only_comments(self.data, line.text, line.end)

    def heading(self, index: int) -> bool:
        line = self.lines[index]
        return _HEADING.match(self.data, line.text, line.end) is not None

    def fence_opener(self, index: int) -> _Fence | None:
        line = self.lines[index]
        match = _FENCE_OPEN.match(self.data, line.text, line.end)
        if match is None:
            return None
        char = self.data[line.text]
        if char == _BACKTICK and b"`" in match.group(2):
            return None
        directive = _DIRECTIVE.match(match.group(2))
        markdown = directive is not None and directive.group(1).lower() not in _CODE_DIRECTIVES
        return _Fence(char, len(match.group(1)), line.indent, line.depth, markdown)

    def starts_block(self, index: int) -> bool:
        """A line that ends a paragraph or table: fence, HTML comment, heading, list item."""
        line = self.lines[index]
        return bool(
            self.opens_comment(index)
            or self.heading(index)
            or _LIST_ITEM.match(self.data, line.text, line.end)
            or self.fence_opener(index) is not None
        )

    def delimiter_cells(self, index: int) -> int:
        """Number of cells when the line is a GFM delimiter row like `|---|:--:|`, else 0."""
        line = self.lines[index]
        text = self.data[line.text : line.end]
        if b"|" not in text or b"-" not in text:
            return 0
        cells = _cells(self.data, line.content, line.end)
        if all(_DELIMITER_CELL.fullmatch(self.data, start, end) for start, end in cells):
            return len(cells)
        return 0

    def table_start(self, index: int) -> bool:
        """A header row: followed by a delimiter row of as many cells, in the same quote."""
        if index + 1 >= self.limit or self.lines[index].depth != self.lines[index + 1].depth:
            return False
        cells = self.delimiter_cells(index + 1)
        if not cells or self.starts_block(index):
            return False
        line = self.lines[index]
        return len(_cells(self.data, line.content, line.end)) == cells

    # -- block extents (each returns the index after the block's last line) ---

    def fence_stop(self, index: int, fence: _Fence) -> int:
        return self.fence_body(index, fence)[1]

    def fence_body(self, index: int, fence: _Fence) -> tuple[int, int]:
        """(index after the fence's body, index after the whole fence)."""
        data = self.data
        for later in range(index + 1, self.limit):
            line = self.lines[later]
            if fence.depth == 0 and line.depth == 0:  # no quote here or there: as _split_lines measured it
                indent, pos = line.indent, line.text
            else:
                depth, pos = _unquote(data, line.start, line.end, fence.depth)
                if depth < fence.depth:
                    return later, later  # the block quote holding the fence ended
                indent, pos = _indent(data, pos, line.end)
            run = _run_length(data, pos, line.end, fence.char)
            rest = data[pos + run : line.end]
            if run >= fence.length and indent <= fence.indent + 3 and not rest.strip():
                return later, later + 1
        return self.limit, self.limit  # an unclosed fence runs to the end of the file

    def html_stop(self, index: int) -> int:
        """An HTML block opened by `<!--` ends on the first line holding `-->`."""
        for later in range(index, self.limit):
            start = self.lines[index].text + 2 if later == index else self.lines[later].start
            if self.data.find(b"-->", start, self.lines[later].end) != -1:
                return later + 1
        return self.limit

    def table_stop(self, index: int) -> int:
        depth, later = self.lines[index].depth, index + 2
        while later < self.limit and not self.blank(later):
            if self.lines[later].depth != depth:
                break
            if self.starts_block(later) and not self.comment_only(later):
                break
            later += 1
        return later

    def text_stop(self, index: int) -> int:
        if self.heading(index):
            return index + 1
        later = index + 1
        while later < self.limit and not (
            self.blank(later) or self.starts_block(later) or self.table_start(later)
        ):
            later += 1
        return later

    # -- scanning --------------------------------------------------------------

    def scan(self, index: int = 0) -> None:
        while index < self.limit:
            if self.blank(index):
                index += 1
            elif (fence := self.fence_opener(index)) is not None:
                index = self.scan_fence(index, fence)
            elif self.opens_comment(index):
                index = self.scan_html(index)
            elif self.table_start(index):
                index = self.scan_table(index)
            else:
                index = self.scan_text(index)

    def scan_fence(self, index: int, fence: _Fence) -> int:
        """Skip a code fence; scan the body of a MyST directive that holds Markdown."""
        body_stop, stop = self.fence_body(index, fence)
        if fence.markdown:
            body = index + 1
            while body < body_stop and _DIRECTIVE_OPTION.match(self.data, self.lines[body].text, self.lines[body].end):
                body += 1  # `:header-rows: 1`: the directive's options
            saved, self.limit = self.limit, body_stop
            try:
                self.scan(body)
            finally:
                self.limit = saved
        return stop

    def scan_html(self, index: int) -> int:
        stop = self.html_stop(index)
        self.scan_comments(self.lines[index].text, self.lines[stop - 1].end)
        return stop

    def scan_comments(self, pos: int, end: int) -> None:
        """Raw HTML: only its comments count, for their suppressions."""
        while (start := self.data.find(b"<!--", pos, end)) != -1:
            pos = _comment_end(self.data, start, end)
            if pos == -1:
                return  # unclosed: raw HTML to the end, no comment
            self.comment(start, pos)

    def scan_table(self, index: int) -> int:
        stop = self.table_stop(index)
        for row in range(index, stop):
            if row == index + 1:
                continue  # the delimiter row
            line = self.lines[row]
            if self.comment_only(row):
                self.scan_comments(line.text, line.end)  # a `|` inside it splits no cell
                continue
            data, content, end = self.data, line.content, line.end
            if data.find(b"=", content, end) != -1 or data.find(b"<!--", content, end) != -1:
                for cell_start, cell_end in _cells(data, content, end):  # cells give `NAME=N` and comments only
                    self.scan_cell(cell_start, cell_end)
            self.statements(content, end, ranges_only=False)
        return stop

    def scan_cell(self, start: int, end: int) -> None:
        """A whole cell is searched, code spans included, except its HTML comments."""
        pos = start
        for kind, span_start, span_end in _inline(self.data, start, end):
            if kind == _HTML_COMMENT:
                self.tokens(pos, span_start)
                self.comment(span_start, span_end)
                pos = span_end
        self.tokens(pos, end)

    def scan_text(self, index: int) -> int:
        """A paragraph or heading: only its code spans are searched."""
        stop = self.text_stop(index)
        start, end = self.lines[index].start, self.lines[stop - 1].end
        if prose.DIGIT.search(self.data, start, end) is None and self.data.find(b"<!--", start, end) == -1:
            return stop  # most prose: no number a statement or a code span could give, no comment
        for line in self.lines[index:stop]:
            self.statements(line.content, line.end, ranges_only=True)
        for kind, span_start, span_end in _inline(self.data, start, end):
            if kind == _CODE_SPAN:
                self.tokens(span_start, span_end)
            else:
                self.comment(span_start, span_end)
        return stop

    def statements(self, start: int, end: int, ranges_only: bool) -> None:
        """A table row or prose line that states a band's range (PL501)."""
        self.sites += prose.statements(self.source, start, end, "markdown", self.names, ranges_only)

    def tokens(self, start: int, end: int) -> None:
        chunk = self.data[start:end]
        if b"=" not in chunk:
            return
        for match in _TOKEN.finditer(chunk):
            name = match.group(1).decode("ascii")
            if self.names.wants(name):
                self.sites.append(self.site(name, start + match.start(3), start + match.end(3)))

    def site(self, name: str, start: int, end: int) -> Site:
        line, column = self.source.position(start)
        end_line, end_column = self.source.position(end)
        return Site(
            path=self.source.path,
            line=line,
            column=column,
            start=start,
            end=end,
            kind="markdown",
            name=name,
            value=int(self.data[start:end]),
            role=role_of(name),
            scope="",
            end_line=end_line,
            end_column=end_column,
        )

    # -- suppressions ------------------------------------------------------------

    def comment(self, start: int, end: int) -> None:
        text = self.data[start:end].decode("utf-8", "replace")
        line, column = self.source.position(start)
        found = suppression_in(text, line, column, start, end)
        if found is not None:
            self.suppressions.append(replace(found, line=self.target_line(start, end)))

    def target_line(self, start: int, end: int) -> int:
        """The comment's own line, or, when it stands alone, the next line with content."""
        first = self.source.line_of(start) - 1
        last = self.source.line_of(max(start, end - 1)) - 1
        alone = _only_comments(self.data, self.lines[first].content, start) and _only_comments(
            self.data, end, self.lines[last].end
        )
        if not alone:
            return first + 1
        following = self.content_after(last)
        return first + 1 if following == -1 else following + 1

    def content_after(self, index: int) -> int:
        """Index of the first line after `index` with more than blanks and comments, or -1."""
        if self.next_content is None:  # one backward pass, shared by every suppression
            self.next_content = [-1] * (len(self.lines) + 1)
            for later in range(len(self.lines) - 1, -1, -1):
                skip = self.blank(later) or self.comment_only(later)
                self.next_content[later] = self.next_content[later + 1] if skip else later
        return self.next_content[index + 1]
