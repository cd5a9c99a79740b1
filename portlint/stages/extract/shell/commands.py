"""Command grouping: the shell lexer's words gathered into simple commands.

Operators (`;`, `&&`, `|`, newlines, `(`...`)`), redirections (heredocs announced,
`<(...)` read in place), arrays and arithmetic commands end or skip words the
way bash groups them. Every simple command is kept as a `Command` (words with
quotes removed, expansions as written) for the code-pattern rules (PL603), and
handed to `_analyze`, which the site reader (sites.py) defines. A heredoc body is
often a script written for later (ray.sub writes its worker script so): its
commands are read too, best effort, though never its sites.
"""
from __future__ import annotations

import re
from abc import abstractmethod
from typing import NamedTuple

from portlint.analysis.scripts import WRAPPERS
from portlint.model.sites import Command
from portlint.model.source import Source
from portlint.stages.extract.shell.lexer import (
    DQ,
    LIT,
    OPERATORS,
    WORD_END,
    Heredoc,
    Lexer,
    Part,
    ScanError,
    Word,
    rest,
)

_REDIRECTIONS = ("<<<", "<<-", "<<", "<>", "<&", "<(", "<", ">>", ">&", ">|", ">(", ">", "&>>", "&>")
RESERVED = frozenset("if then else elif do while until ! { time".split())
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
_BOM = "\xef\xbb\xbf"  # the UTF-8 BOM, as Latin-1 characters
_ESCAPED = re.compile(r"\\(.)", re.S)
_DQ_ESCAPED = re.compile(r"\\\r?\n|\\([$`\"\\])")
_DOUBLED_BACKSLASH_NEWLINE = re.compile(r"\\\\(\r?\n)")
_CLOSERS = frozenset("fi done esac }".split())
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_:.-]*")  # a function's name as bash takes it
_CONTAINER_TOOLS = frozenset(("docker", "podman", "nerdctl"))
_HOST_NETWORK = frozenset(("--network=host", "--net=host"))
_ENTERING = _CONTAINER_TOOLS | {"kubectl", "docker-compose"} | WRAPPERS  # what may start a command `in_container` runs


def _may_enter(first: str) -> bool:
    """The cheap test before `in_container`: the command's first word is a container tool or a wrapper."""
    return first.rsplit("/", 1)[-1] in _ENTERING


def in_container(words: tuple[str, ...]) -> bool:
    """Whether the command runs what follows in a container's own network namespace: `docker exec`
    (the container's network is not written here: portlint reports less), `docker run` without
    `--network host`, `docker compose exec`/`run`, `kubectl exec` (a pod's)."""
    at = 0
    while at < len(words) and words[at] in WRAPPERS:
        at += 1
    program = words[at].rsplit("/", 1)[-1] if at < len(words) else ""
    rest = words[at + 1:]
    if program == "kubectl":
        return "exec" in rest[:3]
    if program == "docker-compose" or program in _CONTAINER_TOOLS and rest[:1] == ("compose",):
        return bool({"exec", "run"} & set(rest[:3]))
    if program not in _CONTAINER_TOOLS or not rest or rest[0] not in ("exec", "run"):
        return False
    if rest[0] == "exec":
        return True
    joined = [f"{a}={b}" for a, b in zip(rest, rest[1:]) if a in ("--network", "--net")]
    return not _HOST_NETWORK & {*rest, *joined}


class Loop(NamedTuple):
    kind: str  # "while", "until" or "for"
    line: int
    variable: str  # a `for` loop's


class Placed(NamedTuple):
    """A simple command, the loops around it (outermost first) and whether it runs in the background."""

    offset: int
    command: Command
    loops: tuple[Loop, ...]
    background: bool
    function: str = ""  # the function whose body holds it (`name() { ...; }`): it runs where it is called


class _Command:
    """The words of the simple command being read, and the nesting a `$(...)` needs to find its `)`."""

    __slots__ = ("words", "depth", "cases")

    def __init__(self) -> None:
        self.words: list[Word] = []
        self.depth = 0  # open `(` subshells
        self.cases = 0  # open `case` statements: their patterns end with a bare `)`

    def closes(self) -> bool:
        return self.depth == 0 and self.cases == 0


class CommandReader(Lexer):
    """Reads the script's simple commands; each one's sites are `_analyze`'s."""

    def __init__(self, source: Source) -> None:
        super().__init__(source)
        self.commands: list[tuple[int, Command]] = []  # (offset, command)
        self.commands_only = False  # inside a heredoc body: its commands, but no sites
        # For PL604: the loops open around each command (kind, line, variable), and whether `&` put it
        # in the background, in the order the commands are read.
        self.loops: list[Loop] = []
        self.placed: list[Placed] = []
        self._background = False
        # The `{ ... }` groups open around the command: each the function it is the body of, or "".
        self.braces: list[str] = []
        self._defining = ""  # `name()` was just read: the `{` that follows opens its body
        self.containers = 0  # inside the script string of a command run in a container (`docker exec c bash -c "..."`)

    @abstractmethod
    def _analyze(self, words: list[Word]) -> None:
        """Read the sites of one simple command."""

    def scan(self) -> None:
        self._commands(3 if self.s.startswith(_BOM) else 0)
        if self.heredocs:
            raise self._unterminated(self.heredocs[0])

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
            elif c in OPERATORS:
                i = self._operator(i, command)
            elif c == "\\" and self._continuation(i):
                i += self._continuation(i)
            else:
                word, i = self._word(i)
                self._add_word(command, word)
        if opener is not None:
            raise ScanError(*opener)
        self._end(command)
        return i

    def _add_word(self, command: _Command, word: Word) -> None:
        words = command.words
        if word.end - word.start == 4 and (not words or self._text(words[-1]) in RESERVED):
            text = self._text(word)
            if text == "case":
                command.cases += 1
            elif text == "esac" and command.cases:
                command.cases -= 1
        words.append(word)

    def _end(self, command: _Command) -> None:
        if command.words:
            self._loop_words(command.words)
            self._record(command.words)
            self._analyze(command.words)
            command.words = []
        self._background = False

    def _loop_words(self, words: list[Word]) -> None:
        """Open or close loops by the reserved words a command starts with (`while`, `for x in`, `done`),
        and the `{ ... }` groups (a function's body, after `name()` or `function name`)."""
        defining, self._defining = self._defining, ""
        if len(words) >= 2 and self._text(words[0]) == "function" and self._text(words[-1]) == "{":
            defining = self._text(words[1]).removesuffix("()")  # `function name {`
            words = words[-1:]
        for k, word in enumerate(words):
            text = self._text(word)
            if text == "{":
                self.braces.append(defining)
                defining = ""
            elif text == "}":
                if self.braces:
                    self.braces.pop()
            elif text in ("while", "until"):
                self.loops.append(Loop(text, self.source.position(word.start)[0], ""))
            elif text in ("for", "select"):
                variable = self._text(words[k + 1]) if k + 1 < len(words) else ""
                self.loops.append(Loop("for", self.source.position(word.start)[0], variable))
                return
            elif text == "done":
                if self.loops:
                    self.loops.pop()
            elif text not in RESERVED and text not in _CLOSERS:
                return

    def _operator(self, i: int, command: _Command) -> int:
        c = self.s[i]
        if c in "<>" or self.s.startswith("&>", i, self.limit):
            return self._redirect(i, command.words)
        if c == "(":
            return self._open_paren(i, command)
        if c == "&" and not self.s.startswith("&", i + 1) and not (i and self.s[i - 1] in "&|>"):
            self._background = True  # `cmd &`: it runs on while the script goes on
        self._end(command)
        if c == ")":
            command.depth = max(command.depth - 1, 0)
        return i + 1

    def _open_paren(self, i: int, command: _Command) -> int:
        words = command.words
        if words and words[-1].end == i and self.s[i - 1] == "=":
            return self._array(i)
        defining = self._defines(i, words)
        if self.s.startswith("((", i, self.limit) and (not words or self._text(words[-1]) == "for"):
            end = self._arithmetic_end(i + 2)
            if end is not None and end > 0:  # an arithmetic command `(( ... ))`, no site
                return end
        if defining:
            command.words = []  # a definition, not a run of the function
        self._end(command)
        if defining:
            self._defining = defining
        command.depth += 1
        return i + 1

    def _defines(self, i: int, words: list[Word]) -> str:
        """The function `name()` (or `function name()`) defines, where the `(` at `i` is its `()`; else ""."""
        if not 1 <= len(words) <= 2 or len(words) == 2 and self._text(words[0]) != "function":
            return ""
        name = self._text(words[-1])
        j = i + 1
        while j < self.limit and self.s[j] in " \t":
            j += 1
        return name if self.s.startswith(")", j, self.limit) and _NAME.fullmatch(name) else ""

    def _array(self, i: int) -> int:
        """Skip the elements of `NAME=(...)`; they are no sites."""
        s, j = self.s, i + 1
        while j < self.limit:
            c = s[j]
            if c == ")":
                return j + 1
            if c == "#":
                j = self._comment(j)
            elif c in WORD_END:
                j += 1
            else:
                j = self._word(j)[1]
        raise ScanError("array (", i)

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
        if j >= limit or s[j] in WORD_END:
            return j
        word, j = self._word(j)
        if op in ("<<", "<<-"):
            quoted = any(p.kind != LIT or "\\" in self.s[p.start:p.end] for p in word.parts)
            self.heredocs.append(Heredoc(self._delimiter(word), op == "<<-", i, op, quoted))
        return j

    def _is_io_number(self, word: Word) -> bool:
        return len(word.parts) == 1 and word.parts[0].kind == LIT and self._digits(word.parts[0])

    def _heredoc_script(self, start: int, end: int, quoted: bool) -> None:
        """The commands of a heredoc body, read as the script it writes (never its sites).

        In an unquoted body `\\\\` writes one backslash, so `\\\\<newline>` continues
        a line of the written script: it is read as ` \\<newline>`, of the same
        length, so offsets stay the file's.
        """
        body = self.s[start:end]
        script = body if quoted else _DOUBLED_BACKSLASH_NEWLINE.sub(r" \\\1", body)
        saved = self.s, self.commands_only, self.loops, self.braces
        if script != body:
            self.s = self.s[:start] + script + self.s[end:]
        self.commands_only, self.loops, self.braces = True, list(self.loops), list(self.braces)
        try:
            self._nested(start, end, inline=True)
        finally:  # a loop or group the body opens is the written script's (or its Python's), never this one's
            self.s, self.commands_only, self.loops, self.braces = saved

    def _record(self, words: list[Word]) -> None:
        """Keep a simple command for the code-pattern rules: assignments in front apart."""
        k = 0
        while k < len(words) and (self._text(words[k]) in RESERVED or self._text(words[k]) in _CLOSERS):
            k += 1
        if k == len(words) or self._text(words[k]) == "function" and self.braces and self._text(words[-1]) == "{":
            return  # nothing run, or the head of a definition (`function name {`)
        start, assignments = words[k].start, []
        while k < len(words) and (assignment := self._assignment(words[k])) is not None:
            assignments.append((assignment[0], self._unquoted(assignment[1])))
            k += 1
        line, column = self.source.position(start)
        end_line, end_column = self.source.position(words[-1].end)
        words_text = tuple(self._unquoted(word.parts) for word in words[k:])
        command = Command(self.source.path, line, column, words_text, tuple(assignments), end_line, end_column,
                          pod_network=self.containers > 0 or bool(words_text) and _may_enter(words_text[0]) and in_container(words_text))
        self.commands.append((start, command))
        function = next((name for name in reversed(self.braces) if name), "")
        self.placed.append(Placed(start, command, tuple(self.loops), self._background, function))

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


    def _assignment(self, word: Word) -> tuple[str, tuple[Part, ...]] | None:
        if not word.parts or word.parts[0].kind != LIT:
            return None
        first = word.parts[0]
        match = _ASSIGNMENT.match(self.s, first.start, first.end)
        return None if match is None else (match.group(1), rest(word.parts, match.end()))

