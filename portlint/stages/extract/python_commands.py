"""Shell commands written as Python strings (`cmd = f"ray start --head --port={port}"`), for PL603.

Only strings that are plainly commands are read: the value of a name that says
so (`cmd`, `ray_start_cmd`, `launch_script`), an argument of `subprocess.*` /
`os.system` / `os.popen`, or what a function named so returns. Prose that
merely mentions a tool (`"set up the cluster with `ray start --head`"`) is not.

The literal's text is rebuilt from its source (implicit concatenation of
adjacent literals included) and scanned with the shell scanner. A placeholder
of an f-string becomes the string constant its name was last assigned in the
enclosing function or module (`ports = "--node-manager-port=12345 ..."`), else
an unknown expansion (`${__}`). Commands keep the file's positions: exact
where the text is the literal's own characters, at the placeholder otherwise.
A literal with a backslash escape, a bytes literal or non-ASCII text is left
alone (its characters would not map one to one).
"""
from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from portlint.analysis.tree import (
    FUNCTIONS,
    Nesting,
    Visitor,
    dotted,
    identifier_span,
    searchable,
    spelled_at,
    statement_holds_hot,
)
from portlint.model.naming import NameFilter, words
from portlint.model.records import structs
from portlint.model.sites import Command
from portlint.model.source import Source
from portlint.speed.needles import holds_folded, of_last
from portlint.speed.outline import Outline

_COMMAND_WORDS = frozenset(("cmd", "cmds", "command", "commands", "script", "cmdline"))
_RUNNERS = frozenset(
    "subprocess.run subprocess.call subprocess.check_call subprocess.check_output subprocess.Popen "
    "os.system os.popen asyncio.create_subprocess_shell".split()
)
_LITERAL = re.compile(r"([rRuUfF]{0,2})('''|\"\"\"|'|\")")
_BETWEEN = re.compile(r"(?:[ \t\r\n]|\\\r?\n|#[^\n]*)*")
_UNKNOWN = "${__}"

OffsetOf = Callable[[int, int], int]  # ast's (line, column) -> byte offset in the file
Constant = Callable[[str], "str | None"]  # a name -> the string constant it holds, if any


class _Piece(NamedTuple):
    """A run of the rebuilt text: `text` came from the `span` bytes at file offset `at`
    (exact: one character per byte)."""

    text: str
    at: int
    exact: bool
    span: int = 0


def commands(source: Source, tree: ast.AST, offset_of: OffsetOf, hot: list[int]) -> tuple[Command, ...]:
    """The commands of a module; `hot`: its `hot_lines`."""
    finder = _Finder(source, offset_of, hot)
    finder.visit(tree)
    return tuple(sorted(finder.found, key=lambda command: (command.line, command.column)))


# What a statement that reads a command must spell, as a whole identifier (`searchable`: as
# Python reads it): a name with a command word (`ray_start_cmd`, `launchScript`: what
# `_assigned` reads; "cmd" is in "cmds" and "cmdline"), or a part of a runner's name. A
# `return` reads one in a function named so, whose `def` spells the name. Identifiers are
# found by these bytes in them, in any case; "description" or "system_prompt" holds none.
_RUNNER_PARTS = frozenset(("subprocess", "system", "popen", "create_subprocess_shell"))  # one of each of _RUNNERS
_COMMAND_STEMS = ("cmd", "command", "script")  # in every command word
# Each in portlint.speed.needles.FOLDED too, whose one pass says which a file holds in any case.
_HOT_BYTES = tuple(word.encode() for word in (*_COMMAND_STEMS, "subprocess", "system", "popen"))


def hot_lines(data: bytes) -> list[int]:
    """The lines (1-based, as ast counts them) that spell an identifier a command is read by:
    a name with a command word, a part of a runner's name. Where there is none, no line's start
    is worked out (about half the files that mention a tool)."""
    found = _spellings(data)
    if not found:
        return []
    starts = searchable(data)[1]
    return sorted({bisect.bisect_right(starts, first) for first, _, _ in found})


def read_lines(data: bytes, line_offsets: list[int], lines: Outline, hot: list[int]) -> list[int]:
    """Of the `hot` lines, those where `_Finder` may read a command: an identifier there is a
    part of a runner's name, the name of a function (after `def`), or may be an assignment's
    target, one that starts its statement or follows `=`, `;` or `:` on its line (brackets
    that open between). Not `self.cmd`, `print(cmd)`, `return cmd` or "a script" in a string,
    nor a continuation line's `cmd="..."` in brackets: a keyword argument, never a target
    (`lines`: the outline, whose logical lines say where statements start). Where the bytes
    are not the lines as Python reads them (a non-ASCII byte, a CR), every hot line."""
    if not data.isascii() or b"\r" in data:
        return hot
    statements = set(lines.starts)
    return sorted({
        bisect.bisect_right(line_offsets, first) for first, end, runner in _spellings(data)
        if runner or _may_be_read(data, first, end, statements)
    })


@of_last
def _spellings(data: bytes) -> list[tuple[int, int, bool]]:
    """Where each identifier a command may be read by starts and ends in the module's `searchable`
    text, and whether it is a part of a runner's name (else a name with a command word). Those
    of the last bytes asked about are kept: read_lines asks again of the bytes hot_lines read.

    In ASCII bytes, only the needles the one pass of portlint.speed.needles finds (in any case) are
    looked for: their text differs from them only in how a line ends, and no needle spans one.
    A non-ASCII line's NFKC form may spell a needle its bytes do not (`ｃｍｄ`): there, every
    needle is. The text of ASCII bytes without a CR is the bytes themselves: no line starts
    are worked out for it."""
    plain = data.isascii()
    needles = [needle for needle in _HOT_BYTES if holds_folded(data, needle)] if plain else _HOT_BYTES
    if not needles:
        return []
    text = data if plain and b"\r" not in data else searchable(data)[0]
    lowered = text.lower()
    judged: dict[bytes, tuple[bool, bool]] = {}
    found = []
    for needle in needles:
        at = lowered.find(needle)
        while at != -1:
            first, end = identifier_span(text, at, at + len(needle))
            name = text[first:end]
            kinds = judged.get(name)
            if kinds is None:
                spelled = name.decode("utf-8", "replace")
                kinds = judged[name] = spelled in _RUNNER_PARTS, _has_command_word(spelled)
            if kinds[0] or kinds[1]:
                found.append((first, end, kinds[0]))
            at = lowered.find(needle, end)
    return found


def _may_be_read(data: bytes, first: int, end: int, statements: set[int]) -> bool:
    """Whether the name data[first:end] may be a function's (after `def`) or an assignment's
    target (read_lines)."""
    line = data.rfind(b"\n", 0, first) + 1
    prefix = data[line:first]
    before = prefix.rstrip(b" \t(")
    if before:  # something on its line before it
        return before[-1:] in (b"=", b";", b":") or (before.endswith(b"def") and before[-4:-3] in (b"", b" ", b"\t"))
    if line + len(prefix) - len(prefix.lstrip(b" \t")) in statements or data.endswith(b"\\\n", 0, line):
        return True  # a statement starts here, or the line before goes on to this one
    return _KEYWORD.match(data, end) is None


_KEYWORD = re.compile(rb"[ \t]*=(?!=)")  # after a name in brackets: a keyword argument or a default


# An f-string placeholder that is a bare name (`{extra}`, `{port!r}`, `{width:>4}`, `{x=}`): the
# only expressions `_Finder._constant` looks up. Matched in the code the reader reads, strings or not.
_PLACEHOLDER = re.compile(rb"\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*[}!:=]")


def kept(data: bytes, line_offsets: list[int], lines: Outline, hot: list[int],
         definitions: Sequence[tuple[str, int, int]]) -> tuple[list[int], list[int]]:
    """Besides the `hot` lines, what a sparse tree must keep for `commands` to read what it reads in
    the whole tree: the functions named like a command, whose every statement is read
    (python_outline.definitions: name, first and end offset; kept by their first offsets, and
    so is one whose name it cannot read), and the lines that spell a name a placeholder of the
    code read may look up: the cold statements `_cold` reads assign such a name a constant, or
    another value, and spell it as a target. Only where the lookup can see them: at module level
    (a class body's are its scope's) or in a function around the code that reads the placeholder
    (a function's own are dropped as it ends). The code read is the logical lines that hold a
    hot line (a literal is read from the statement it is in) and those functions. `line_offsets`:
    where each of the module's lines starts."""
    functions = [(first, end) for name, first, end in definitions if _named_like_a_command(name)]
    read = set(functions)
    starts, indents, ends = lines.starts, lines.indents, lines.ends
    for line in hot:
        at = line_offsets[line - 1]
        i = bisect.bisect_right(starts, at)  # the logical line `at` is in starts before its indentation ends
        if i == len(starts) or starts[i] - indents[i] > at:
            i -= 1
        if i >= 0 and at <= ends[i]:  # else a blank or comment line between two statements
            read.add((starts[i] - indents[i], ends[i]))
    readers: dict[bytes, list[int]] = {}  # a placeholder's name -> where the code that reads it starts
    for start, end in read:
        for match in _PLACEHOLDER.finditer(data, start, end):
            readers.setdefault(match.group(1), []).append(start)
    spelling: set[int] = set()
    if readers:
        text, text_starts = searchable(data)  # a name may be written in another form NFKC reads as it
        nesting = Nesting(definitions)
        for name, where in readers.items():
            for at in _assigned_at(text, name):
                line = bisect.bisect_right(text_starts, at)
                function = nesting.innermost(line_offsets[line - 1])
                if function < 0 or any(definitions[function][1] <= start < definitions[function][2] for start in where):
                    spelling.add(line)
    return sorted(spelling), [first for first, _ in functions]


# What may follow the name an assignment's target is (`name = `, `name: str = `, `a = name = `,
# `(name) = `, a line continued by a backslash or in brackets, a comment there): not `==`. (Not
# possessive: Python 3.10's `re` has none, and what follows the blanks never starts with one.)
_TARGET_END = re.compile(rb"[ \t\f]*(?:=(?!=)|[:)\\#\n]|\Z)")


def _assigned_at(text: bytes, name: bytes) -> Iterator[int]:
    """Where a `searchable` text spells `name` as a whole identifier that may be an assignment's
    target: what `_cold` and `_assigned` read a constant from, or forget one by."""
    return (at for at in spelled_at(text, name) if _TARGET_END.match(text, at + len(name)))


def _named_like_a_command(name: str) -> bool:
    """A function every return of which is read: a command word in its name ("": a name
    python_outline.definitions cannot read)."""
    return not name or _has_command_word(name)


def _has_command_word(name: str) -> bool:
    """A name a command is read by (`_assigned`, a function's returns): one of its words is a
    command word."""
    lowered = name.lower()  # every command word holds one of these, as `words` lowers it
    return any(stem in lowered for stem in _COMMAND_STEMS) and not _COMMAND_WORDS.isdisjoint(words(name))


class _Finder(Visitor):
    """The commands of a module. A statement none of whose lines holds a hot word reads no
    command: it is only followed for the string constants it assigns (`_cold`)."""

    def __init__(self, source: Source, offset_of: OffsetOf, hot: list[int]) -> None:
        self.source = source
        self.offset_of = offset_of
        self.hot = hot  # sorted line numbers worth a look
        self.strings: list[dict[str, str]] = [{}]  # per scope: name -> last string constant assigned
        self.functions: list[str] = []
        self.command_functions: list[bool] = []  # per function: named like a command (its returns are read)
        self.found: list[Command] = []

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.stmt) and not (self.functions and self.command_functions[-1]) \
                and not statement_holds_hot(self.hot, node):
            self._cold(node)
            return
        super().visit(node)

    def _cold(self, node: ast.stmt) -> None:
        """A statement that reads no command: the string constants it assigns in this scope
        (a function's own are dropped with it, a class body's stay, as `visit` has them)."""
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self._assigned(target.id, node.value)
        elif isinstance(node, ast.AnnAssign):
            if isinstance(node.target, ast.Name) and node.value is not None:
                self._assigned(node.target.id, node.value)
        elif not isinstance(node, FUNCTIONS):
            for field in node._fields:
                items = getattr(node, field, None)
                for item in items if isinstance(items, list) else ():
                    if isinstance(item, ast.stmt):
                        self._cold(item)
                    elif isinstance(item, (ast.ExceptHandler, ast.match_case)):
                        for statement in item.body:
                            self._cold(statement)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.strings.append({})
        self.functions.append(node.name)
        self.command_functions.append(_named_like_a_command(node.name))
        self.generic_visit(node)
        self.command_functions.pop()
        self.functions.pop()
        self.strings.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self._assigned(target.id, node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if isinstance(node.target, ast.Name) and node.value is not None:
            self._assigned(node.target.id, node.value)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if dotted(node.func) in _RUNNERS and node.args:
            self._read(node.args[0])
        self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None and self.functions and self.command_functions[-1]:
            self._read(node.value)
        self.generic_visit(node)

    def _assigned(self, name: str, value: ast.AST) -> None:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            self.strings[-1][name] = value.value
        else:
            self.strings[-1].pop(name, None)
        if _has_command_word(name):
            self._read(value)

    def _read(self, node: ast.AST) -> None:
        if not isinstance(node, (ast.Constant, ast.JoinedStr)) or node.end_lineno is None:
            return
        if node.end_col_offset is None:
            return
        if isinstance(node, ast.Constant) and not isinstance(node.value, str):
            return
        start = self.offset_of(node.lineno, node.col_offset)
        end = self.offset_of(node.end_lineno, node.end_col_offset)
        pieces = _pieces(self.source.data[start:end].decode("utf-8", "replace"), start, self._constant)
        if pieces:
            self.found += _scanned(self.source, pieces)

    def _constant(self, expression: str) -> str | None:
        for scope in reversed(self.strings):
            if expression in scope:
                return scope[expression]
        return None


def _pieces(segment: str, base: int, constant: Constant) -> list[_Piece] | None:
    """The literal's text as pieces, or None when it is not plain ASCII literals without escapes."""
    if not segment.isascii():
        return None
    pieces: list[_Piece] = []
    i = 0
    while i < len(segment):
        between = _BETWEEN.match(segment, i)
        i = between.end() if between else i
        if i >= len(segment):
            break
        literal = _LITERAL.match(segment, i)
        if literal is None:
            return None
        prefix, quote = literal.group(1).lower(), literal.group(2)
        body = literal.end()
        close = segment.find(quote, body)
        if close < 0 or ("r" not in prefix and "\\" in segment[body:close]):
            return None
        if "f" in prefix:
            pieces += _formatted(segment[body:close], base + body, constant)
        else:
            pieces.append(_Piece(segment[body:close], base + body, True, close - body))
        i = close + len(quote)
    return pieces


def _formatted(body: str, at: int, constant: Constant) -> list[_Piece]:
    """An f-string body: literal runs exact, `{{`/`}}` as one brace, placeholders replaced."""
    pieces: list[_Piece] = []
    i = run = 0
    while i < len(body):
        c = body[i]
        if c in "{}" and body.startswith(c * 2, i):
            pieces += [_Piece(body[run:i], at + run, True, i - run), _Piece(c, at + i, False, 2)]
            i = run = i + 2
        elif c == "{":
            close = _placeholder_end(body, i)
            expression = re.split(r"[!:=]", body[i + 1:close], maxsplit=1)[0].strip()
            value = constant(expression) if expression.isidentifier() else None
            text = value if value is not None and value.isascii() else _UNKNOWN
            pieces += [_Piece(body[run:i], at + run, True, i - run), _Piece(text, at + i, False, close + 1 - i)]
            i = run = close + 1
        else:
            i += 1
    pieces.append(_Piece(body[run:], at + run, True, len(body) - run))
    return [piece for piece in pieces if piece.text]


def _placeholder_end(body: str, i: int) -> int:
    depth = 0
    for j in range(i, len(body)):
        depth += {"{": 1, "}": -1}.get(body[j], 0)
        if depth == 0:
            return j
    return len(body) - 1


def _scanned(source: Source, pieces: list[_Piece]) -> list[Command]:
    from portlint.stages.extract import shell

    text = "".join(piece.text for piece in pieces)
    if "\n" in text or "\r" in text:
        return []  # a multi-line script in a string: its lines are not the file's
    starts, length = [], 0
    for piece in pieces:
        starts.append(length)
        length += len(piece.text)
    scanned = shell.extract(Source(source.path, text.encode("ascii")), NameFilter()).commands

    def offset(column: int, end: bool) -> int:
        """File offset of the character at `column` (1-based) of the text; of its last byte when `end`."""
        index = column - 1
        k = max(j for j, start in enumerate(starts) if start <= index) if index >= 0 else 0
        piece = pieces[k]
        if piece.exact:
            return piece.at + index - starts[k]
        return piece.at + (piece.span - 1 if end else 0)

    found = []
    for command in scanned:
        line, column = source.position(offset(command.column, end=False))
        end_line, end_column = source.position(offset(command.end_column - 1, end=True) + 1)
        found.append(structs.replace(
            command, line=line, column=column, end_line=end_line, end_column=end_column,
        ))
    return found
