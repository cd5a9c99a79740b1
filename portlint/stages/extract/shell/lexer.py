"""The shell lexer: words as bash delimits them, for what a port site needs.

A word is split into parts (literal runs, quoted strings, `${...}`, `$NAME`,
`$((...))`, `$(...)` and backticks); comments and heredoc bodies are found and
skipped. The text is the file's bytes decoded as Latin-1, so an index is a byte
offset, and no byte of a UTF-8 multi-byte character is ever taken for a delimiter.

A `$(...)`, a backtick or a heredoc body holds commands: the lexer finds where it
ends by reading them, which the command reader (commands.py) does; a comment's
text is the site reader's (sites.py). Those are the three abstract methods below.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import NamedTuple

from portlint.model.source import Source

# Kinds of word parts. Literal kinds span their text without quotes; the others
# span the whole expansion (`${...}`, `$((...))`, `$(...)`, `$NAME`).
LIT, SQ, DQ, PARAM, VAR, ARITH, SUBST = "lit", "sq", "dq", "param", "var", "arith", "subst"
LITERALS = frozenset((LIT, SQ, DQ))

NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
NAME_CHARS = NAME_START | frozenset("0123456789")
_SPECIAL_PARAMS = frozenset("@*#?$!-0123456789")
_EXPANSION_START = NAME_START | _SPECIAL_PARAMS | frozenset("{(")
OPERATORS = frozenset(";&|()<>")
WORD_END = OPERATORS | frozenset(" \t\r\n")
_WORD_SPECIAL = WORD_END | frozenset("\\'\"$`")
_DQ_SPECIAL = frozenset('"\\$`')
_PARAM_SPECIAL = frozenset("}'\"\\$`")
_DEFAULT_OPS = (":-", ":=", "-", "=")

# No port has more digits; the cap also keeps int() away from huge literals.
MAX_DIGITS = 18


class Part(NamedTuple):
    """One piece of a word: a literal run, a quoted string or an expansion."""

    kind: str
    start: int
    end: int
    name: str = ""  # PARAM / VAR: the variable ("" when not a plain name)
    inner: tuple[Part, ...] = ()  # PARAM with a default (`:-`, `-`, `:=`, `=`): the default word


class Word(NamedTuple):
    start: int
    end: int
    parts: tuple[Part, ...]


class Heredoc(NamedTuple):
    delimiter: str
    strip_tabs: bool  # `<<-`: the closing line may start with tabs
    offset: int  # where `<<` is
    op: str
    quoted: bool = False  # `<<'EOF'`: a literal body, no expansions or escapes


class ScanError(Exception):
    """Something opened and never closed: `what` it was, and where it opened."""

    def __init__(self, what: str, offset: int) -> None:
        super().__init__(what)
        self.what = what
        self.offset = offset


class Lexer(ABC):
    """The text being scanned and the lexer's state; subclasses read commands and sites off its words."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.s = source.data.decode("latin-1")
        self.limit = len(self.s)
        self.inline = False  # inside `bash -c "..."`: its comments are not the file's comments
        self.heredocs: list[Heredoc] = []  # announced on the current line, bodies not read yet

    @abstractmethod
    def _commands(self, i: int, opener: tuple[str, int] | None = None) -> int:
        """Read commands from `i`; after an opener (`$(`, `<(`), stop at its `)` and return its index."""

    @abstractmethod
    def _heredoc_script(self, start: int, end: int, quoted: bool) -> None:
        """Read the heredoc body `start:end` as the script it writes."""

    @abstractmethod
    def _read_comment(self, start: int, stop: int) -> None:
        """Take what the file's comment `start:stop` says (suppressions, layout statements)."""

    def _continuation(self, i: int) -> int:
        """Length of a backslash-newline at `i` (CRLF too), else 0."""
        if self.s.startswith("\n", i + 1, self.limit):
            return 2
        return 3 if self.s.startswith("\r\n", i + 1, self.limit) else 0

    # --- comments and heredocs ------------------------------------------------

    def _comment(self, i: int) -> int:
        """Skip a comment to the end of its line; the file's own comments are read (`_read_comment`)."""
        s = self.s
        end = s.find("\n", i, self.limit)
        end = self.limit if end < 0 else end
        stop = end - 1 if s[end - 1] == "\r" else end  # the span stops before CRLF
        if not self.inline:
            self._read_comment(i, stop)
        return end

    def _heredoc_bodies(self, i: int) -> int:
        pending, self.heredocs = self.heredocs, []
        for heredoc in pending:
            i = self._heredoc_body(i, heredoc)
        return i

    def _heredoc_body(self, i: int, heredoc: Heredoc) -> int:
        """Skip a body up to the line that is exactly the delimiter; return the offset after it."""
        s, limit, body = self.s, self.limit, i
        while i < limit:
            newline = s.find("\n", i, limit)
            stop = limit if newline < 0 else newline
            line = s[i:stop].removesuffix("\r")
            if (line.lstrip("\t") if heredoc.strip_tabs else line) == heredoc.delimiter:
                self._heredoc_script(body, i, heredoc.quoted)
                return min(stop + 1, limit)
            i = stop + 1
        raise self._unterminated(heredoc)

    def _delimiter(self, word: Word) -> str:
        """The heredoc delimiter as bash compares it: quotes and backslashes removed."""
        pieces = []
        for part in word.parts:
            text = self.s[part.start:part.end]
            pieces.append(text.replace("\\", "") if part.kind in (LIT, DQ) else text)
        return "".join(pieces)

    def _unterminated(self, heredoc: Heredoc) -> ScanError:
        delimiter = heredoc.delimiter.encode("latin-1").decode("utf-8", "replace")
        return ScanError(f"heredoc {heredoc.op}{delimiter}", heredoc.offset)

    # --- words ----------------------------------------------------------------

    def _word(self, i: int) -> tuple[Word, int]:
        s, limit = self.s, self.limit
        parts: list[Part] = []
        start = lit = i
        while i < limit:
            c = s[i]
            if c not in _WORD_SPECIAL:
                i += 1
            elif c in WORD_END:
                break
            elif c == "\\":
                skip = self._continuation(i)
                if not skip:
                    i += 2
                    continue
                if lit < i:  # a continuation splits the literal: `80\<newline>80` is no number to edit
                    parts.append(Part(LIT, lit, i))
                i = lit = i + skip
            elif c == "$" and not self._expands(i, False):
                i += 1
            else:
                if lit < i:
                    parts.append(Part(LIT, lit, i))
                i = lit = self._quote_or_expansion(i, parts, False)
        i = min(i, limit)
        if lit < i:
            parts.append(Part(LIT, lit, i))
        return Word(start, i, tuple(parts)), i

    def _quote_or_expansion(self, i: int, parts: list[Part], quoted: bool) -> int:
        c = self.s[i]
        if c == "'":
            return self._single_quoted(i, parts)
        if c == '"':
            return self._double_quoted(i, parts)
        if c == "`":
            return self._backtick(i, parts)
        return self._dollar(i, parts, quoted)

    def _expands(self, i: int, quoted: bool) -> bool:
        """Whether the `$` at `i` starts an expansion (else it is a literal `$`)."""
        if i + 1 >= self.limit:
            return False
        after = self.s[i + 1]
        if after in "'\"":
            return not quoted
        return after in _EXPANSION_START

    def _single_quoted(self, i: int, parts: list[Part]) -> int:
        end = self.s.find("'", i + 1, self.limit)
        if end < 0:
            raise ScanError("single quote", i)
        if end > i + 1:
            parts.append(Part(SQ, i + 1, end))
        return end + 1

    def _ansi_quoted(self, i: int, parts: list[Part]) -> int:
        """`$'...'`, where a backslash escapes the next character."""
        s, j = self.s, i + 2
        while j < self.limit and s[j] != "'":
            j += 2 if s[j] == "\\" else 1
        if j >= self.limit:
            raise ScanError("$' quote", i)
        if j > i + 2:
            parts.append(Part(SQ, i + 2, j))
        return j + 1

    def _double_quoted(self, i: int, parts: list[Part]) -> int:
        s, limit = self.s, self.limit
        j = lit = i + 1
        while j < limit:
            c = s[j]
            if c not in _DQ_SPECIAL:
                j += 1
            elif c == '"':
                if lit < j:
                    parts.append(Part(DQ, lit, j))
                return j + 1
            elif c == "\\":
                j += 2
            elif c == "$" and not self._expands(j, True):
                j += 1
            else:
                if lit < j:
                    parts.append(Part(DQ, lit, j))
                j = lit = self._quote_or_expansion(j, parts, True)
        raise ScanError("double quote", i)

    def _backtick(self, i: int, parts: list[Part]) -> int:
        s, j = self.s, i + 1
        while j < self.limit and s[j] != "`":
            j += 2 if s[j] == "\\" else 1
        if j >= self.limit:
            raise ScanError("backtick", i)
        self._nested(i + 1, j, inline=False)
        parts.append(Part(SUBST, i, j + 1))
        return j + 1

    def _dollar(self, i: int, parts: list[Part], quoted: bool) -> int:
        s, after = self.s, self.s[i + 1]
        if after == "(":
            return self._parenthesized(i, parts)
        if after == "{":
            return self._param(i, parts, quoted)
        if after == "'":
            return self._ansi_quoted(i, parts)
        if after == '"':
            return self._double_quoted(i + 1, parts)
        j = i + 2
        if after in NAME_START:
            while j < self.limit and s[j] in NAME_CHARS:
                j += 1
        parts.append(Part(VAR, i, j, s[i + 1:j]))
        return j

    def _parenthesized(self, i: int, parts: list[Part]) -> int:
        """`$((...))` arithmetic, or `$(...)` command substitution (also `$( (subshell) )`)."""
        if self.s.startswith("((", i + 1, self.limit):
            end = self._arithmetic_end(i + 3)
            if end == -1:
                raise ScanError("$((", i)
            if end is not None:
                parts.append(Part(ARITH, i, end))
                return end
        end = self._commands(i + 2, ("$(", i)) + 1
        parts.append(Part(SUBST, i, end))
        return end

    def _arithmetic_end(self, j: int) -> int | None:
        """Offset after the `))` closing arithmetic whose text starts at `j`.

        None when a `)` closes it alone (it was `$( (...) )` after all), -1 at end of input.
        """
        s, depth = self.s, 0
        while j < self.limit:
            c = s[j]
            if c == "(":
                depth += 1
            elif c == ")" and depth:
                depth -= 1
            elif c == ")":
                return j + 2 if s.startswith(")", j + 1, self.limit) else None
            j += 1
        return -1

    def _param(self, i: int, parts: list[Part], quoted: bool) -> int:
        """`${...}`; for `${NAME:-word}` (and `-`, `:=`, `=`) the default word's parts are kept."""
        s, limit = self.s, self.limit
        j = i + 2
        prefixed = j < limit and s[j] in "#!" and not s.startswith("}", j + 1, limit)
        k = j = j + 1 if prefixed else j
        while k < limit and s[k] in NAME_CHARS:
            k += 1
        if k == j and k < limit and s[k] in _SPECIAL_PARAMS:
            k += 1
        plain = not prefixed and k > j and (s[j] in NAME_START or s[j:k].isdigit())  # `${1:-8000}` too
        op = next((o for o in _DEFAULT_OPS if s.startswith(o, k, limit)), "") if plain else ""
        inner, end = self._param_body(k + len(op), quoted, i)
        parts.append(Part(PARAM, i, end, s[j:k] if op else "", tuple(inner) if op else ()))
        return end

    def _param_body(self, j: int, quoted: bool, opener: int) -> tuple[list[Part], int]:
        s, limit = self.s, self.limit
        parts: list[Part] = []
        lit = j
        while j < limit:
            c = s[j]
            if c not in _PARAM_SPECIAL:
                j += 1
            elif c == "\\":
                j += 2
            elif (c == "$" and not self._expands(j, quoted)) or (c == "'" and quoted):
                j += 1  # a literal `$`; inside "${...}" a single quote is literal too
            else:
                if lit < j:
                    parts.append(Part(LIT, lit, j))
                if c == "}":
                    return parts, j + 1
                j = lit = self._quote_or_expansion(j, parts, quoted)
        raise ScanError("${", opener)

    def _nested(self, start: int, end: int, inline: bool) -> None:
        """Scan text already delimited (backticks, `bash -c` strings) as commands, best effort.

        bash parses it again only when it runs it, so a failure inside is not the file's.
        """
        saved = self.limit, self.heredocs, self.inline
        self.limit, self.heredocs, self.inline = end, [], inline or self.inline
        try:
            self._commands(start)
        except ScanError:
            pass
        finally:
            self.limit, self.heredocs, self.inline = saved

    def _digits(self, part: Part) -> bool:
        text = self.s[part.start:part.end]
        return len(text) <= MAX_DIGITS and text.isdigit() and text.isascii()

    def _text(self, word: Word) -> str:
        return self.s[word.start:word.end]


def rest(parts: tuple[Part, ...], offset: int) -> tuple[Part, ...]:
    """The parts after `offset`, which lies inside the first part."""
    first = parts[0]
    if offset < first.end:
        return (first._replace(start=offset), *parts[1:])
    return parts[1:]

