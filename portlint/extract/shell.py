"""Shell / sbatch extractor: a hand-written scanner for bash-compatible scripts.

The scanner reads a script once, delimiting words the way bash does for what a
port site needs (quotes, `${...}`, `$(...)`, `$((...))`, backticks, comments,
heredocs, line continuations), groups them into simple commands, and reads
sites off each command: assignments (`VAR=N`, also after `export`/`local`/
`declare`...), `${VAR:-N}` defaults, long options (`--name=N`, `--name N`) and
arithmetic (`$((${VAR} + 1))`, a *derived* site evaluated at the end).
After a word that runs Python (`python`, `python3 -m`, `torchrun`, `deepspeed`,
`uv run`, `accelerate launch`), a Hydra/OmegaConf override `key.path=N` (also
`+key.path=N`, `++key.path=N`) is a site of kind `yaml` named by its dotted
path: it sets that key of the YAML config the program loads.

It works on the bytes decoded as Latin-1, so a character index is a byte
offset; no byte of a UTF-8 multi-byte character is ASCII, so no delimiter is
ever found inside one. Scripts inside `$(...)`, backticks, the string of
`bash -c "..."` (also after `srun ...`) and the one quoted command string of
`ssh [options] host "..."` are scanned as commands too, in place, so their
positions are the file's; heredoc bodies never are.

Every simple command is also kept as a `Command` (words with quotes removed,
expansions as written) for the code-pattern rules (PL603). A heredoc body is
often a script written for later (ray.sub writes its worker script so): its
commands are read too, best effort, though never its sites.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import NamedTuple

from portlint.extract import Extraction, Suppression, prose, suppression_in
from portlint.model import Command, Site
from portlint.naming import NameFilter, role_of
from portlint.source import Source

# Kinds of word parts. Literal kinds span their text without quotes; the others
# span the whole expansion (`${...}`, `$((...))`, `$(...)`, `$NAME`).
LIT, SQ, DQ, PARAM, VAR, ARITH, SUBST = "lit", "sq", "dq", "param", "var", "arith", "subst"
_LITERALS = frozenset((LIT, SQ, DQ))

_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NAME_CHARS = _NAME_START | frozenset("0123456789")
_SPECIAL_PARAMS = frozenset("@*#?$!-0123456789")
_EXPANSION_START = _NAME_START | _SPECIAL_PARAMS | frozenset("{(")
_OPERATORS = frozenset(";&|()<>")
_WORD_END = _OPERATORS | frozenset(" \t\r\n")
_WORD_SPECIAL = _WORD_END | frozenset("\\'\"$`")
_DQ_SPECIAL = frozenset('"\\$`')
_PARAM_SPECIAL = frozenset("}'\"\\$`")
_REDIRECTIONS = ("<<<", "<<-", "<<", "<>", "<&", "<(", "<", ">>", ">&", ">|", ">(", ">", "&>>", "&>")
_DEFAULT_OPS = (":-", ":=", "-", "=")
_RESERVED = frozenset("if then else elif do while until ! { time".split())
_DECLARATIONS = frozenset("export local readonly declare typeset".split())
_SHELLS = frozenset("bash sh dash ksh zsh".split())
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
_OPTION = re.compile(r"(--[A-Za-z0-9][A-Za-z0-9_.-]*)(=|$)")
_OVERRIDE = re.compile(r"\+{0,2}([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)+)=")
# Words that run a Python program taking Hydra/OmegaConf overrides; a second word when the first is a launcher.
_PYTHON_RUNNERS = re.compile(r"python[0-9.]*|torchrun|deepspeed")
_PYTHON_LAUNCHERS = {"uv": "run", "accelerate": "launch"}
_PRINTERS = frozenset(("echo", "printf", ":"))
_SHELL_C = re.compile(r"-[A-Za-z]*c")
_SSH_OPTIONS_WITH_ARGUMENT = frozenset("BbcDEeFIiJLlmOopQRSWw")
# No port has more digits; the cap also keeps int() away from huge literals.
_MAX_DIGITS = 18
_MAX_VALUE = 1 << 63
_BOM = "\xef\xbb\xbf"  # the UTF-8 BOM, as Latin-1 characters
_ESCAPED = re.compile(r"\\(.)", re.S)
_DQ_ESCAPED = re.compile(r"\\\r?\n|\\([$`\"\\])")
_DOUBLED_BACKSLASH_NEWLINE = re.compile(r"\\\\(\r?\n)")
_CLOSERS = frozenset("fi done esac }".split())


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


class _Heredoc(NamedTuple):
    delimiter: str
    strip_tabs: bool  # `<<-`: the closing line may start with tabs
    offset: int  # where `<<` is
    op: str
    quoted: bool = False  # `<<'EOF'`: a literal body, no expansions or escapes


class _ScanError(Exception):
    """Something opened and never closed: `what` it was, and where it opened."""

    def __init__(self, what: str, offset: int) -> None:
        super().__init__(what)
        self.what = what
        self.offset = offset


class _Command:
    """The words of the simple command being read, and the nesting a `$(...)` needs to find its `)`."""

    __slots__ = ("words", "depth", "cases")

    def __init__(self) -> None:
        self.words: list[Word] = []
        self.depth = 0  # open `(` subshells
        self.cases = 0  # open `case` statements: their patterns end with a bare `)`

    def closes(self) -> bool:
        return self.depth == 0 and self.cases == 0


def extract(source: Source, names: NameFilter) -> Extraction:
    """Sites and suppression comments of one shell script; a scan failure sets `error`."""
    scanner = _Scanner(source, names)
    error, line, column = "", 1, 1
    try:
        scanner.scan()
    except _ScanError as failure:
        line, column = source.position(failure.offset)
        error = f"unterminated {failure.what} started at line {line}"
    except RecursionError:
        error = "expansions nested too deep to scan"
    commands = tuple(command for _, command in sorted(scanner.commands, key=lambda found: found[0]))
    return Extraction(scanner.sites(), tuple(scanner.suppressions), error, line, column, commands)


class _Scanner:
    def __init__(self, source: Source, names: NameFilter) -> None:
        self.source = source
        self.names = names
        self.s = source.data.decode("latin-1")
        self.limit = len(self.s)
        self.inline = False  # inside `bash -c "..."`: its comments are not the file's comments
        self.heredocs: list[_Heredoc] = []  # announced on the current line, bodies not read yet
        self.literals: dict[tuple[int, int], Site] = {}
        self.values: dict[str, list[tuple[int, int]]] = {}  # variable -> (offset, value) of every literal
        self.arithmetic: dict[tuple[int, int], str] = {}  # span of `$((...))` -> what it is the value of
        self.suppressions: list[Suppression] = []
        self.doc_sites: list[Site] = []  # layout statements in comments (PL501)
        self.wanted: dict[str, bool] = {}
        self.commands: list[tuple[int, Command]] = []  # (offset, command)
        self.commands_only = False  # inside a heredoc body: its commands, but no sites

    def scan(self) -> None:
        self._commands(3 if self.s.startswith(_BOM) else 0)
        if self.heredocs:
            raise self._unterminated(self.heredocs[0])

    def sites(self) -> tuple[Site, ...]:
        found = [*self.literals.values(), *self._derived_sites(), *self.doc_sites]
        return tuple(sorted(found, key=lambda site: (site.start, site.end)))

    # --- commands -----------------------------------------------------------

    def _commands(self, i: int, opener: tuple[str, int] | None = None) -> int:
        """Read commands from `i`; after an opener (`$(`, `<(`), stop at its `)` and return its index."""
        s = self.s
        command = _Command()
        while i < self.limit:
            c = s[i]
            if c in " \t\r":
                i += 1
            elif c == "\n":
                self._end(command)
                i = self._heredoc_bodies(i + 1)
            elif c == "#":
                i = self._comment(i)
            elif c == ")" and opener is not None and command.closes():
                self._end(command)
                return i
            elif c in _OPERATORS:
                i = self._operator(i, command)
            elif c == "\\" and self._continuation(i):
                i += self._continuation(i)
            else:
                word, i = self._word(i)
                self._add_word(command, word)
        if opener is not None:
            raise _ScanError(*opener)
        self._end(command)
        return i

    def _add_word(self, command: _Command, word: Word) -> None:
        words = command.words
        if word.end - word.start == 4 and (not words or self._text(words[-1]) in _RESERVED):
            text = self._text(word)
            if text == "case":
                command.cases += 1
            elif text == "esac" and command.cases:
                command.cases -= 1
        words.append(word)

    def _end(self, command: _Command) -> None:
        if command.words:
            self._record(command.words)
            self._analyze(command.words)
            command.words = []

    def _operator(self, i: int, command: _Command) -> int:
        c = self.s[i]
        if c in "<>" or self.s.startswith("&>", i, self.limit):
            return self._redirect(i, command.words)
        if c == "(":
            return self._open_paren(i, command)
        self._end(command)
        if c == ")":
            command.depth = max(command.depth - 1, 0)
        return i + 1

    def _open_paren(self, i: int, command: _Command) -> int:
        words = command.words
        if words and words[-1].end == i and self.s[i - 1] == "=":
            return self._array(i)
        if self.s.startswith("((", i, self.limit) and (not words or self._text(words[-1]) == "for"):
            end = self._arithmetic_end(i + 2)
            if end is not None and end > 0:  # an arithmetic command `(( ... ))`, no site
                return end
        self._end(command)
        command.depth += 1
        return i + 1

    def _array(self, i: int) -> int:
        """Skip the elements of `NAME=(...)`; they are no sites."""
        s, j = self.s, i + 1
        while j < self.limit:
            c = s[j]
            if c == ")":
                return j + 1
            if c == "#":
                j = self._comment(j)
            elif c in _WORD_END:
                j += 1
            else:
                j = self._word(j)[1]
        raise _ScanError("array (", i)

    def _redirect(self, i: int, words: list[Word]) -> int:
        s, limit = self.s, self.limit
        op = next(o for o in _REDIRECTIONS if s.startswith(o, i, limit))
        if words and words[-1].end == i and self._is_io_number(words[-1]):
            words.pop()  # the `2` of `2>&1`
        j = i + len(op)
        if op in ("<(", ">("):
            return self._commands(j, ("process substitution", i)) + 1
        while j < limit and s[j] in " \t":
            j += 1
        if j >= limit or s[j] in _WORD_END:
            return j
        word, j = self._word(j)
        if op in ("<<", "<<-"):
            quoted = any(p.kind != LIT or "\\" in self.s[p.start:p.end] for p in word.parts)
            self.heredocs.append(_Heredoc(self._delimiter(word), op == "<<-", i, op, quoted))
        return j

    def _is_io_number(self, word: Word) -> bool:
        return len(word.parts) == 1 and word.parts[0].kind == LIT and self._digits(word.parts[0])

    def _continuation(self, i: int) -> int:
        """Length of a backslash-newline at `i` (CRLF too), else 0."""
        if self.s.startswith("\n", i + 1, self.limit):
            return 2
        return 3 if self.s.startswith("\r\n", i + 1, self.limit) else 0

    # --- comments and heredocs ------------------------------------------------

    def _comment(self, i: int) -> int:
        """Skip a comment to the end of its line; collect its suppression."""
        s = self.s
        end = s.find("\n", i, self.limit)
        end = self.limit if end < 0 else end
        stop = end - 1 if s[end - 1] == "\r" else end  # the span stops before CRLF
        if not self.inline:
            text = self.source.data[i:stop].decode("utf-8", "replace")
            line, column = self.source.position(i)
            found = suppression_in(text, line, column, i, stop)
            if found is not None:
                self.suppressions.append(found)
            self.doc_sites += prose.statements(self.source, i, stop, "comment", self.names)
        return end

    def _heredoc_bodies(self, i: int) -> int:
        pending, self.heredocs = self.heredocs, []
        for heredoc in pending:
            i = self._heredoc_body(i, heredoc)
        return i

    def _heredoc_body(self, i: int, heredoc: _Heredoc) -> int:
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

    def _unterminated(self, heredoc: _Heredoc) -> _ScanError:
        delimiter = heredoc.delimiter.encode("latin-1").decode("utf-8", "replace")
        return _ScanError(f"heredoc {heredoc.op}{delimiter}", heredoc.offset)

    # --- words ----------------------------------------------------------------

    def _word(self, i: int) -> tuple[Word, int]:
        s, limit = self.s, self.limit
        parts: list[Part] = []
        start = lit = i
        while i < limit:
            c = s[i]
            if c not in _WORD_SPECIAL:
                i += 1
            elif c in _WORD_END:
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
            raise _ScanError("single quote", i)
        if end > i + 1:
            parts.append(Part(SQ, i + 1, end))
        return end + 1

    def _ansi_quoted(self, i: int, parts: list[Part]) -> int:
        """`$'...'`, where a backslash escapes the next character."""
        s, j = self.s, i + 2
        while j < self.limit and s[j] != "'":
            j += 2 if s[j] == "\\" else 1
        if j >= self.limit:
            raise _ScanError("$' quote", i)
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
        raise _ScanError("double quote", i)

    def _backtick(self, i: int, parts: list[Part]) -> int:
        s, j = self.s, i + 1
        while j < self.limit and s[j] != "`":
            j += 2 if s[j] == "\\" else 1
        if j >= self.limit:
            raise _ScanError("backtick", i)
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
        if after in _NAME_START:
            while j < self.limit and s[j] in _NAME_CHARS:
                j += 1
        parts.append(Part(VAR, i, j, s[i + 1:j]))
        return j

    def _parenthesized(self, i: int, parts: list[Part]) -> int:
        """`$((...))` arithmetic, or `$(...)` command substitution (also `$( (subshell) )`)."""
        if self.s.startswith("((", i + 1, self.limit):
            end = self._arithmetic_end(i + 3)
            if end == -1:
                raise _ScanError("$((", i)
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
        while k < limit and s[k] in _NAME_CHARS:
            k += 1
        if k == j and k < limit and s[k] in _SPECIAL_PARAMS:
            k += 1
        plain = not prefixed and k > j and (s[j] in _NAME_START or s[j:k].isdigit())  # `${1:-8000}` too
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
        raise _ScanError("${", opener)

    def _nested(self, start: int, end: int, inline: bool) -> None:
        """Scan text already delimited (backticks, `bash -c` strings) as commands, best effort.

        bash parses it again only when it runs it, so a failure inside is not the file's.
        """
        saved = self.limit, self.heredocs, self.inline
        self.limit, self.heredocs, self.inline = end, [], inline or self.inline
        try:
            self._commands(start)
        except _ScanError:
            pass
        finally:
            self.limit, self.heredocs, self.inline = saved

    def _heredoc_script(self, start: int, end: int, quoted: bool) -> None:
        """The commands of a heredoc body, read as the script it writes (never its sites).

        In an unquoted body `\\\\` writes one backslash, so `\\\\<newline>` continues
        a line of the written script: it is read as ` \\<newline>`, of the same
        length, so offsets stay the file's.
        """
        body = self.s[start:end]
        script = body if quoted else _DOUBLED_BACKSLASH_NEWLINE.sub(r" \\\1", body)
        saved = self.s, self.commands_only
        if script != body:
            self.s = self.s[:start] + script + self.s[end:]
        self.commands_only = True
        try:
            self._nested(start, end, inline=True)
        finally:
            self.s, self.commands_only = saved

    def _record(self, words: list[Word]) -> None:
        """Keep a simple command for the code-pattern rules: assignments in front apart."""
        k = 0
        while k < len(words) and (self._text(words[k]) in _RESERVED or self._text(words[k]) in _CLOSERS):
            k += 1
        if k == len(words):
            return
        start, assignments = words[k].start, []
        while k < len(words) and (assignment := self._assignment(words[k])) is not None:
            assignments.append((assignment[0], self._unquoted(assignment[1])))
            k += 1
        line, column = self.source.position(start)
        end_line, end_column = self.source.position(words[-1].end)
        words_text = tuple(self._unquoted(word.parts) for word in words[k:])
        command = Command(self.source.path, line, column, words_text, tuple(assignments), end_line, end_column)
        self.commands.append((start, command))

    def _unquoted(self, parts: tuple[Part, ...]) -> str:
        """A word as the command receives it, quotes and escapes removed, expansions as written."""
        pieces = []
        for part in parts:
            text = self.s[part.start:part.end]
            if part.kind in (LIT, DQ) and "\\" in text:
                text = (_ESCAPED if part.kind == LIT else _DQ_ESCAPED).sub(lambda m: m.group(1) or "", text)
            pieces.append(text)
        text = "".join(pieces)
        return text if text.isascii() else text.encode("latin-1").decode("utf-8", "replace")

    # --- sites of one command --------------------------------------------------

    def _analyze(self, words: list[Word]) -> None:
        k = 0
        while k < len(words) and self._text(words[k]) in _RESERVED:
            k += 1
        k = self._assignments(words, k, skip_options=False)
        command = self._text(words[k]) if k < len(words) else ""
        if command in _DECLARATIONS:
            k = self._declared(words, k + 1)
        elif command == "env":
            k = self._assignments(words, k + 1, skip_options=True)
        self._arguments(words, k)

    def _assignments(self, words: list[Word], k: int, skip_options: bool) -> int:
        """Read assignment words from `k` (past `-x` options when asked); return where they stop."""
        while k < len(words):
            assignment = self._assignment(words[k])
            if assignment is not None:
                self._value(*assignment)
            elif not (skip_options and self._text(words[k]).startswith(("-", "+"))):
                return k
            k += 1
        return k

    def _declared(self, words: list[Word], k: int) -> int:
        """The words after `export`, `local`, `declare -x`...: every assignment among them counts."""
        for word in words[k:]:
            assignment = self._assignment(word)
            if assignment is not None:
                self._value(*assignment)
            else:
                self._loose(word.parts)
        return len(words)

    def _arguments(self, words: list[Word], k: int) -> None:
        script = self._inline_script(words, k)
        python = self._python_runner(words, k)
        while k < len(words):
            word = words[k]
            option = self._option(word) if k != script else None
            override = self._override(word) if python < k and option is None else None
            if k == script:
                self._inline(word)
            elif override is not None:
                self._value(*override, kind="yaml")
            elif option is None:
                self._loose(word.parts)
            elif option[1] is not None:
                self._value(option[0], option[1])
            elif k + 1 < len(words) and self._is_value(words[k + 1]):
                k += 1
                self._value(option[0], words[k].parts)
            k += 1

    def _inline_script(self, words: list[Word], k: int) -> int:
        """Index of the script word of `bash -c "..."` (also `sh -lc` ...) or `ssh host "..."`, else -1."""
        if k < len(words) and self._text(words[k]).rsplit("/", 1)[-1] == "ssh":
            return self._ssh_script(words, k + 1)
        for shell in range(k, len(words) - 2):
            if self._text(words[shell]).rsplit("/", 1)[-1] not in _SHELLS:
                continue
            for flag in range(shell + 1, len(words) - 1):
                text = self._text(words[flag])
                if _SHELL_C.fullmatch(text):
                    return flag + 1
                if not text.startswith("-"):
                    break
            return -1
        return -1

    def _ssh_script(self, words: list[Word], k: int) -> int:
        """Index of the command of `ssh [options] host "command"` when it is one word, else -1.

        ssh joins the words after the host into the remote command; one quoted word is a script.
        """
        while k < len(words):
            text = self._text(words[k])
            if text == "--":
                k += 1
                break
            if not text.startswith("-") or len(text) == 1:
                break
            k += 2 if len(text) == 2 and text[1] in _SSH_OPTIONS_WITH_ARGUMENT else 1
        return k + 1 if k + 2 == len(words) else -1

    def _python_runner(self, words: list[Word], k: int) -> int:
        """Index of the word that runs Python (`python`, `uv run`...), or len(words) when none does."""
        if k < len(words) and self._text(words[k]) in _PRINTERS:
            return len(words)  # `echo python x.port=1` prints the words, runs nothing
        for i in range(k, len(words)):
            text = self._text(words[i]).rsplit("/", 1)[-1]
            if _PYTHON_RUNNERS.fullmatch(text):
                return i
            launched = _PYTHON_LAUNCHERS.get(text)
            if launched and i + 1 < len(words) and self._text(words[i + 1]) == launched:
                return i + 1
        return len(words)

    def _override(self, word: Word) -> tuple[str, tuple[Part, ...]] | None:
        """`key.path=value` (also `+`/`++` in front, quoted or not) -> (key.path, value parts)."""
        if not word.parts or word.parts[0].kind not in _LITERALS:
            return None
        first = word.parts[0]
        match = _OVERRIDE.match(self.s, first.start, first.end)
        return None if match is None else (match.group(1), _rest(word.parts, match.end()))

    def _inline(self, word: Word) -> None:
        text = self._text(word)
        if len(text) >= 2 and text[0] in "\"'" and text[-1] == text[0]:
            self._nested(word.start + 1, word.end - 1, inline=True)
        else:
            self._loose(word.parts)

    def _assignment(self, word: Word) -> tuple[str, tuple[Part, ...]] | None:
        if not word.parts or word.parts[0].kind != LIT:
            return None
        first = word.parts[0]
        match = _ASSIGNMENT.match(self.s, first.start, first.end)
        return None if match is None else (match.group(1), _rest(word.parts, match.end()))

    def _option(self, word: Word) -> tuple[str, tuple[Part, ...] | None] | None:
        """`--name=value` -> (name, value parts); a lone `--name` -> (name, None)."""
        if not word.parts or word.parts[0].kind not in (LIT, DQ):
            return None
        first = word.parts[0]
        match = _OPTION.match(self.s, first.start, first.end)
        if match is None:
            return None
        if match.group(2):
            return match.group(1), _rest(word.parts, match.end())
        return (match.group(1), None) if len(word.parts) == 1 else None

    def _is_value(self, word: Word) -> bool:
        """Whether a word after `--name` is its value: digits, `${VAR:-N}` or `$((...))`."""
        if len(word.parts) != 1:
            return False
        part = word.parts[0]
        if part.kind in _LITERALS:
            return self._digits(part)
        return part.kind == ARITH or self._default_chain(part) is not None

    def _value(self, owner: str, parts: tuple[Part, ...], kind: str = "shell") -> None:
        """The sites of a value assigned to a variable, given to a `--option` or to a key (`kind` yaml)."""
        if len(parts) != 1:
            self._loose(parts)
            return
        part = parts[0]
        chain = self._default_chain(part)
        if part.kind in _LITERALS:
            if self._digits(part):
                self._literal(owner, part, (), kind)
        elif part.kind == ARITH:
            self._arithmetic(part, owner)
        elif chain is not None and owner.startswith("--"):
            names = (*chain[1], owner)
            self._literal(names[0], chain[0], names[1:])
        elif chain is not None:
            aliases = tuple(dict.fromkeys(name for name in chain[1] if name != owner))
            self._literal(owner, chain[0], aliases, kind)
        else:
            self._loose(parts)

    def _loose(self, parts: tuple[Part, ...]) -> None:
        """Sites anywhere in a word: `${VAR:-N}` defaults and arithmetic."""
        for part in parts:
            if part.kind == ARITH:
                self._arithmetic(part, "")
            elif part.kind == PARAM:
                chain = self._default_chain(part)
                if chain is not None and chain[1]:
                    self._literal(chain[1][0], chain[0], chain[1][1:])
                else:
                    self._loose(part.inner)

    def _default_chain(self, part: Part) -> tuple[Part, tuple[str, ...]] | None:
        """For `${A:-N}` the digits of N and ("A",); for `${A:-${B:-N}}` ("A", "B").

        A positional parameter (`${1:-N}`) has a default but no name to give.
        """
        if part.kind != PARAM or not part.name or len(part.inner) != 1:
            return None
        inner = part.inner[0]
        own = (part.name,) if part.name[0] in _NAME_START else ()
        if inner.kind in _LITERALS:
            return (inner, own) if self._digits(inner) else None
        chain = self._default_chain(inner)
        return None if chain is None else (chain[0], (*own, *chain[1]))

    # --- sites ------------------------------------------------------------------

    def _literal(self, name: str, digits: Part, aliases: tuple[str, ...], kind: str = "shell") -> None:
        if self.commands_only:
            return
        value = int(self.s[digits.start:digits.end])
        for variable in (name, *aliases):
            if not variable.startswith("-") and "." not in variable:
                self.values.setdefault(variable, []).append((digits.start, value))
        if not any(self._wants(n) for n in (name, *aliases)):
            return
        key = (digits.start, digits.end)
        known = self.literals.get(key)
        if known is None or len(aliases) > len(known.aliases):
            self.literals[key] = self._site(name, digits.start, digits.end, value, aliases=aliases, kind=kind)

    def _arithmetic(self, part: Part, owner: str) -> None:
        if self.commands_only:
            return
        key = (part.start, part.end)
        if owner or key not in self.arithmetic:
            self.arithmetic[key] = owner

    def _derived_sites(self) -> list[Site]:
        kept = {name for site in self.literals.values() for name in site.names}
        sites = []
        for (start, end), owner in self.arithmetic.items():
            result = _evaluate(self.s[start + 3:end - 2], partial(self._value_before, offset=start))
            if result is None:
                continue
            value, text, variables = result
            name = owner or text
            if self._wants(name) or not kept.isdisjoint(variables):
                sites.append(self._site(name, start, end, value, derived=text))
        return sites

    def _value_before(self, name: str, offset: int) -> int | None:
        """The variable's last literal value before `offset`, else its first one in the file."""
        entries = self.values.get(name)
        if not entries:
            return None
        earlier = [entry for entry in entries if entry[0] < offset]
        return max(earlier)[1] if earlier else min(entries)[1]

    def _site(
        self, name: str, start: int, end: int, value: int, *,
        aliases: tuple[str, ...] = (), derived: str = "", kind: str = "shell",
    ) -> Site:
        line, column = self.source.position(start)
        end_line, end_column = self.source.position(end)
        scope = name.rsplit(".", 1)[0] if kind == "yaml" else ""  # a key's parent, as in a YAML file
        return Site(
            self.source.path, line, column, start, end, kind, name, value, role_of(name),
            aliases=aliases, scope=scope, derived=derived, end_line=end_line, end_column=end_column,
        )

    def _wants(self, name: str) -> bool:
        wanted = self.wanted.get(name)
        if wanted is None:
            wanted = self.wanted[name] = self.names.wants(name)
        return wanted

    def _digits(self, part: Part) -> bool:
        text = self.s[part.start:part.end]
        return len(text) <= _MAX_DIGITS and text.isdigit() and text.isascii()

    def _text(self, word: Word) -> str:
        return self.s[word.start:word.end]


def _rest(parts: tuple[Part, ...], offset: int) -> tuple[Part, ...]:
    """The parts after `offset`, which lies inside the first part."""
    first = parts[0]
    if offset < first.end:
        return (first._replace(start=offset), *parts[1:])
    return parts[1:]


# --- arithmetic -------------------------------------------------------------------


class _Unsupported(Exception):
    """Arithmetic beyond + - * and parentheses over integers and known variables."""


def _evaluate(expression: str, lookup: Callable[[str], int | None]) -> tuple[int, str, frozenset[str]] | None:
    """(value, normalized text, variables) of `$((expression))`, or None when it cannot be computed."""
    tokens = _arithmetic_tokens(expression.replace("\\\r\n", " ").replace("\\\n", " "))
    if not tokens:
        return None
    arithmetic = _Arithmetic(tokens, lookup)
    try:
        value, text = arithmetic.parse()
    except (_Unsupported, RecursionError):  # RecursionError: thousands of nested parentheses
        return None
    return value, text, frozenset(arithmetic.variables)


def _arithmetic_tokens(text: str) -> list[str] | None:
    """Operators, integers and variable names (`$NAME`, `${NAME}` and bare `NAME` alike)."""
    tokens: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c in "+-*()":
            tokens.append(c)
            i += 1
            continue
        braced = text.startswith("${", i)
        j = start = i + (2 if braced else 1 if c == "$" else 0)
        while j < n and text[j] in _NAME_CHARS:
            j += 1
        if j == start or (c == "$" and text[start] not in _NAME_START):
            return None
        if braced and not text.startswith("}", j):
            return None
        tokens.append(text[start:j])
        i = j + 1 if braced else j
    return tokens


class _Arithmetic:
    """Recursive descent: sum := product (+|- product)*; product := atom (* atom)*."""

    def __init__(self, tokens: list[str], lookup: Callable[[str], int | None]) -> None:
        self.tokens = tokens
        self.lookup = lookup
        self.pos = 0
        self.variables: set[str] = set()

    def parse(self) -> tuple[int, str]:
        value, text = self._sum()
        if self.pos != len(self.tokens):
            raise _Unsupported
        return value, text

    def _sum(self) -> tuple[int, str]:
        value, text = self._product()
        while self._peek() in ("+", "-"):
            op = self._next()
            right, right_text = self._product()
            value = _bounded(value + right if op == "+" else value - right)
            text = f"{text} {op} {right_text}"
        return value, text

    def _product(self) -> tuple[int, str]:
        value, text = self._atom()
        while self._peek() == "*":
            self._next()
            right, right_text = self._atom()
            value = _bounded(value * right)
            text = f"{text} * {right_text}"
        return value, text

    def _atom(self) -> tuple[int, str]:
        token = self._next()
        if token == "(":
            value, text = self._sum()
            if self._next() != ")":
                raise _Unsupported
            return value, f"({text})"
        if token.isdigit() and len(token) <= _MAX_DIGITS and (token == "0" or token[0] != "0"):
            return int(token), token  # a leading 0 would make bash read it as octal
        if token[0] in _NAME_START:
            known = self.lookup(token)
            if known is None:
                raise _Unsupported
            self.variables.add(token)
            return known, token
        raise _Unsupported

    def _peek(self) -> str:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ""

    def _next(self) -> str:
        token = self._peek()
        if not token:
            raise _Unsupported
        self.pos += 1
        return token


def _bounded(value: int) -> int:
    if abs(value) > _MAX_VALUE:
        raise _Unsupported
    return value
