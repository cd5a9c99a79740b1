"""Markdown extractor: `NAME=N` inside inline code spans and GFM table cells.

The blocks are markdown-it-py's: CommonMark with GFM tables, and mdit-py-plugins'
colon fences for MyST (`:::{tip}`). It says which lines are paragraphs and headings,
table rows, fenced or indented code, or raw HTML, as CommonMark nests them in lists
and block quotes. Within those lines this module reads the file's bytes, so every span
is a byte span even after non-ASCII text: code spans and HTML comments of a paragraph
or heading, the cells of a table row, the comments of an HTML block (only their
`<!-- portlint: ignore[...] -->` suppressions count). Only the block rules run: the
inline parse, which would find code spans without saying where, is switched off.

MyST directives (Sphinx docs): a fence whose info string is a directive in braces
(```` ```{note} ````, `{list-table}`, `{admonition} Title`), and any colon fence
(`:::{tip}`, Docusaurus' `:::note`), holds Markdown, which is read as a document of its
own (its leading `:option: value` lines aside), at its own lines; code directives
(`{code-block}`, `{code}`, `{literalinclude}`, `{eval-rst}`...) stay code like any fence.

One leniency, on purpose: a line holding only an HTML comment does not end a table
(GFM ends it there), so that a suppression placed between two rows still sees the row
below it as a row. Containers nested deeper than markdown-it's limit (20) are not read.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from portlint.model.extraction import Extraction, Suppression
from portlint.model.naming import NameFilter, role_of
from portlint.model.records import replace
from portlint.model.sites import Site
from portlint.model.source import Source
from portlint.speed.switch import fast
from portlint.stages.extract import prose, suppression_in

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

# NAME=N, NAME="N": an identifier (dotted, for Hydra-style overrides such as
# `cluster.master_port=1400`) or a long option; group 3 is the digits only.
_TOKEN = re.compile(
    rb"(?<![A-Za-z0-9_.-])"
    rb"(--[A-Za-z0-9][A-Za-z0-9_-]*|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"
    rb"=([\"']?)([0-9]+)\2(?![A-Za-z0-9_]|\.[0-9])"
)
_DIRECTIVE = re.compile(r"[ \t]*\{([A-Za-z][A-Za-z0-9_:.-]*)\}")
_DIRECTIVE_OPTION = re.compile(rb":[A-Za-z][A-Za-z0-9_-]*:(?:[ \t]|$)")
# Directives whose body is code, raw markup or data, not Markdown.
_CODE_DIRECTIVES = frozenset(
    "code-block code sourcecode code-cell literalinclude eval-rst raw math mermaid graphviz csv-table "
    "include parsed-literal".split()
)
_INLINE_MARK = re.compile(rb"[\\`<]")
_FENCE_CHARS = re.compile(rb"[ \t>]*(`{3,}|~{3,}|:{3,})[ \t]*")

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


def extract(source: Source, names: NameFilter) -> Extraction:
    """The sites and suppressions of the file; where the fast path `markdown` is taken, only a
    file whose bytes can hold one is parsed."""
    if not fast("markdown"):
        return read(source, names)
    data = source.data
    if b"`" not in data and b"|" not in data and b"<!--" not in data and not any(c in data for c in b"0123456789"):
        return Extraction()  # no code span, table, comment or number: nothing to find
    if not (b"<!--" in data and b"portlint" in data) and not _may_state(source, names):
        return Extraction()  # no suppression, and no line writes a wanted name and a number: nothing to find
    return read(source, names)


def read(source: Source, names: NameFilter) -> Extraction:
    """The sites and suppressions of the whole file (what `extract` gives once its byte tests let a file through)."""
    reader = _Reader(source, names)
    lines = reader.lines
    text = source.text[1:] if source.text.startswith("\ufeff") else source.text  # a BOM is not indentation
    reader.document([(line.start, line.end) for line in lines], _plain(text))
    return Extraction(tuple(reader.sites), tuple(reader.suppressions))


@cache
def _parser() -> MarkdownIt:
    """markdown-it-py's block parser: CommonMark, GFM tables, colon fences. Imported when a file
    is first read whole, which the byte tests spare most files: its import costs more than most
    files' reading (docs/performance.md)."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.colon_fence import colon_fence_plugin

    parser = MarkdownIt("commonmark").enable("table").use(colon_fence_plugin)
    # Code spans are found on the bytes: no inline parse. A setext heading reads as the paragraph
    # it underlines, a link reference definition as a paragraph: the same lines either way.
    parser.disable(["inline", "text_join", "lheading", "reference"], ignoreInvalid=True)
    return parser


def _plain(text: str) -> str:
    """The text as markdown-it reads it, one line per line of the file: it takes a lone CR for a line end."""
    return text.replace("\r\n", "\n").replace("\r", " ") if "\r" in text else text


def _may_state(source: Source, names: NameFilter) -> bool:
    """Whether a line of the file writes a number and, where the prefilter finds a port-like or
    selected name, a `NAME=N` token of a wanted name or a wanted name a prose statement would
    be about. Every site of a Markdown file is on one line that does (a token, inside a code
    span or a cell; a table row or a prose line stating a range), so where none does the file
    holds no site whatever its structure, and the scan is skipped (a large CLI reference, a
    table of every option, may write one such name: its scan would find nothing).
    Only what the scan would find with the line's whole text is asked: a code span, a cell or
    a line inside block-quote markers is part of it, and no name or token crosses their edges.
    A line inside a code fence the scan skips does not count either, where the fences are
    plain enough to be sure of (`_code_fenced`): a usage page's shell examples."""
    from portlint.stages.prefilter import prefilter

    data = source.data
    asked = set()
    fenced: frozenset[int] | None = None  # computed once a line that may state something is found
    for hit in prefilter(names.selector_names).hits(data):
        start = data.rfind(b"\n", 0, hit) + 1
        if start in asked:
            continue
        asked.add(start)
        end = data.find(b"\n", hit)
        end = len(data) if end == -1 else end
        if prose.DIGIT.search(data, start, end) is None:
            continue
        if any(names.wants(token.group(1).decode("ascii")) for token in _TOKEN.finditer(data, start, end)) or \
                next(prose.mentioned_names(data[start:end].decode("utf-8", "replace"), names), None) is not None:
            if fenced is None:
                fenced = _code_fenced(data)
            if start not in fenced:
                return True
    return False


_FENCE_LIKE = re.compile(rb"([ \t]*)(`{3,}|~{3,})([^\n]*)")
_HTML_UNSURE = re.compile(rb"<(?:\?|!\[CDATA\[|![A-Za-z]|(?i:script|pre|style|textarea)(?:[ \t>]|$))")


def _code_fenced(data: bytes) -> frozenset[int]:
    """The lines (by their first byte) surely inside a code fence the scan skips, by a plain
    reading of the fences opened by ```` ``` ```` or `~~~` at most three spaces in; empty where
    the document holds anything that reading is not sure of: a fence in a block quote, deeper in,
    after a tab, right below a table row or in raw HTML, a colon fence, a fence in a list item
    left by a shallower line, a lone CR. Only whether to parse at all rests on it: a file with
    a line that may state something outside these lines is parsed whole (the fast path
    `markdown`; its plain way parses every file the byte tests keep)."""
    if data.count(b"\r") != data.count(b"\r\n"):
        return frozenset()  # markdown-it reads a lone CR as a line end
    fenced: set[int] = set()
    fence: tuple[bytes, int, int, bool] | None = None  # (marker, length, indent, a directive's body)
    html_end: bytes | None = None  # raw HTML: the text that ends it (b"" a blank line)
    previous = b""
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    while start <= len(data):
        newline = data.find(b"\n", start)
        stop = len(data) if newline == -1 else newline
        line = data[start:stop].removesuffix(b"\r")
        like = _FENCE_LIKE.match(line)
        stripped = line.lstrip(b" ")
        indent = len(line) - len(stripped)
        if like is not None and (b"\t" in like.group(1) or len(like.group(1)) > 3):
            return frozenset()  # deeper than the plain reading follows
        if stripped.startswith((b">", b":::")) and (b"```" in line or b"~~~" in line or stripped.startswith(b":::")):
            return frozenset()
        if fence is not None:
            marker, length, opened_at, directive = fence
            if stripped and indent < opened_at:
                return frozenset()  # a list item's fence, its item left: markdown-it closes it there
            if like is not None and like.group(2)[:1] == marker and len(like.group(2)) >= length and not like.group(3).strip():
                fence = None
            elif not directive:
                fenced.add(start)
        elif html_end is not None:
            if like is not None:
                return frozenset()
            if html_end == b"" and not line.strip() or html_end and html_end in line:
                html_end = None
        elif like is not None:
            info = like.group(3)
            if like.group(2)[:1] == b"`" and b"`" in info:
                pass  # no fence: an info string of a backtick fence holds no backtick
            elif b"|" in previous:
                return frozenset()  # right below what may be a table row
            else:
                fence = (like.group(2)[:1], len(like.group(2)), indent, info.strip().startswith(b"{"))
        elif stripped.startswith(b"<") and indent <= 3:
            if _HTML_UNSURE.match(stripped):
                return frozenset()
            html_end = b"-->" if stripped.startswith(b"<!--") else b""
            if html_end and html_end in stripped[4:]:
                html_end = None
        previous = line if line.strip() else b""
        if newline == -1:
            break
        start = newline + 1
    return frozenset(fenced)


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


class _Reader:
    """Reads a document (the file, or a directive's body) block by block, collecting sites and suppressions."""

    def __init__(self, source: Source, names: NameFilter) -> None:
        self.source = source
        self.data = source.data
        self.names = names
        self.lines = _split_lines(source.data)
        self.sites: list[Site] = []
        self.suppressions: list[Suppression] = []
        self.next_content: list[int] | None = None

    def document(self, spans: list[tuple[int, int]], text: str) -> None:
        """Read a document whose line i is the file's bytes `spans[i]` and whose text is `text`."""
        tokens = _parser().parse(text)
        table_end = -1  # the line after the last table's rows (and the comment lines after them)
        for token in tokens:
            if token.map is None:
                continue
            first, stop = token.map
            kind = token.type
            if kind == "tr_open":
                self.row(*spans[first])
            elif kind == "table_open":
                table_end = stop
            elif kind == "html_block":
                if first == table_end and all(self.comment_only(*spans[i]) for i in range(first, stop)):
                    table_end = stop  # comment lines between rows: the table goes on below them
                self.comments(spans[first][0], spans[stop - 1][1])
            elif kind in ("paragraph_open", "heading_open"):
                if first == table_end:  # rows below a comment line: still the table's
                    while first < stop and b"|" in self.data[slice(*spans[first])]:
                        self.row(*spans[first])
                        first += 1
                if first < stop:
                    self.text(spans[first:stop])
            elif kind in ("fence", "colon_fence"):
                self.directive(token, spans[first:stop])

    # -- blocks ------------------------------------------------------------------------

    def text(self, spans: list[tuple[int, int]]) -> None:
        """A paragraph or heading: its code spans and comments, and the ranges its lines state."""
        data, start, end = self.data, spans[0][0], spans[-1][1]
        if prose.DIGIT.search(data, start, end) is None and data.find(b"<!--", start, end) == -1:
            return  # most prose: no number a statement or a code span could give, no comment
        for line_start, line_end in spans:
            self.statements(_unquote(data, line_start, line_end, _UNLIMITED)[1], line_end, ranges_only=True)
        for kind, span_start, span_end in _inline(data, start, end):
            if kind == _CODE_SPAN:
                self.tokens(span_start, span_end)
            else:
                self.comment(span_start, span_end)

    def row(self, start: int, end: int) -> None:
        """A table row: `NAME=N` and comments in its cells, and the range it states."""
        data = self.data
        content = _unquote(data, start, end, _UNLIMITED)[1]
        if self.comment_only(start, end):
            self.comments(content, end)  # a `|` inside it splits no cell
            return
        if data.find(b"=", content, end) != -1 or data.find(b"<!--", content, end) != -1:
            for cell_start, cell_end in _cells(data, content, end):  # cells give `NAME=N` and comments only
                self.cell(cell_start, cell_end)
        self.statements(content, end, ranges_only=False)

    def cell(self, start: int, end: int) -> None:
        """A whole cell is searched, code spans included, except its HTML comments."""
        pos = start
        for kind, span_start, span_end in _inline(self.data, start, end):
            if kind == _HTML_COMMENT:
                self.tokens(pos, span_start)
                self.comment(span_start, span_end)
                pos = span_end
        self.tokens(pos, end)

    def directive(self, token: Any, spans: list[tuple[int, int]]) -> None:
        """A fence: code, skipped; a MyST directive holding Markdown, or any colon fence (`:::{tip}`,
        Docusaurus' `:::note`) but a code directive, read as a document of its own."""
        directive = _DIRECTIVE.match(token.info)
        name = directive.group(1) if directive is not None else token.info.split(maxsplit=1)[0] if token.info.strip() else ""
        markdown = directive is not None or token.type == "colon_fence"
        if not markdown or name.lower() in _CODE_DIRECTIVES or not spans:
            return
        data = self.data
        opening = _FENCE_CHARS.match(data, *spans[0])
        indent = 0 if opening is None else len(data[spans[0][0]:opening.start(1)].rsplit(b">", 1)[-1])
        depth = data[spans[0][0]:opening.start(1)].count(b">") if opening is not None else 0
        body = spans[1:]
        if body and _closes(data, body[-1], token.markup):
            body = body[:-1]
        stripped = [_dedent(data, start, end, depth, indent) for start, end in body]
        while stripped and _DIRECTIVE_OPTION.match(data, *stripped[0]):
            stripped = stripped[1:]  # `:header-rows: 1`: the directive's options
        if stripped:
            text = "\n".join(_plain(data[start:end].decode("utf-8", "replace")) for start, end in stripped)
            self.document(stripped, text)

    def comments(self, pos: int, end: int) -> None:
        """Raw HTML: only its comments count, for their suppressions."""
        while (start := self.data.find(b"<!--", pos, end)) != -1:
            pos = _comment_end(self.data, start, end)
            if pos == -1:
                return  # unclosed: raw HTML to the end, no comment
            self.comment(start, pos)

    def comment_only(self, start: int, end: int) -> bool:
        content = _indent(self.data, _unquote(self.data, start, end, _UNLIMITED)[1], end)[1]
        return self.data.startswith(b"<!--", content, end) and _only_comments(self.data, content, end)

    # -- sites -------------------------------------------------------------------------

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
                passed = prose.passed_as_argument(chunk[:match.start(3)].decode("utf-8", "replace").rstrip("\"'"))
                self.sites.append(self.site(name, start + match.start(3), start + match.end(3), passed))

    def site(self, name: str, start: int, end: int, passed: bool = False) -> Site:
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
            passed=passed,
        )

    # -- suppressions --------------------------------------------------------------------

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
                line = self.lines[later]
                skip = line.text == line.end or self.comment_only(line.start, line.end)
                self.next_content[later] = self.next_content[later + 1] if skip else later
        return self.next_content[index + 1]


def _closes(data: bytes, span: tuple[int, int], markup: str) -> bool:
    """Whether a fence's last line is its closing fence (an unclosed fence runs to its container's end)."""
    match = _FENCE_CHARS.fullmatch(data, *span)
    return match is not None and match.group(1)[:1] == markup[:1].encode() and len(match.group(1)) >= len(markup)


def _dedent(data: bytes, start: int, end: int, depth: int, indent: int) -> tuple[int, int]:
    """A directive body's line without its container's prefix: `depth` block-quote markers, then up
    to `indent` columns of blanks (as CommonMark strips a fence's indentation from its content)."""
    if depth:
        start = _unquote(data, start, end, depth)[1]
    blank = _BLANKS.match(data, start, min(end, start + indent))
    return (blank.end() if blank is not None else start), end
