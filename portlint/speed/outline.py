"""Only the statements worth parsing: a Python module with its cold statements blanked.

`ast.parse` is most of what reading Python costs, yet a file that mentions a port
mentions it in a few statements (on the corpus, 7-10% of the bytes of the Python
files the prefilter keeps). The site finder and the command reader skip every
statement none of whose lines is hot, so parsing those statements is wasted.

`outline` is a tokenizer of what decides where statements are: strings, comments,
brackets, line continuations and newlines. It gives every logical line with its
indentation, and so the statements as Python nests them. `sparse` then returns the
module with every cold statement blanked to empty lines (a body left empty gets a
`pass`), so that the lines and columns of what remains are those of the file and
`ast.parse` of it gives the same nodes for every hot statement.

It is sound or it declines: `sparse` returns None, and the caller parses the whole
file, wherever this tokenizer could disagree with Python's:
  - Python 3.10 (its `re` has no possessive quantifiers, which keep the scan linear);
  - on Python 3.12 and later, an f-string (a t-string on 3.14) whose replacement
    fields this tokenizer cannot read as Python does (`_fields_as_before`);
  - conflict markers (an unresolved merge, which PL001 reports at its line);
  - a NUL byte (not Python source);
  - a lone CR, a form feed or a tab in an indentation (Python counts lines and
    columns differently there);
  - a string that does not end, a stray backslash, brackets that do not balance, a
    dedent to a level that was never opened, decorators that decorate nothing.
Whatever the blanked text, a caller that gets a SyntaxError from it parses the whole
file (and so reports what Python reports). An error in a cold statement alone goes
unreported, as in a file the prefilter skips.

`sparse_at` outlines a module only up to the first top-level statement after the last
line it keeps, and blanks the rest whole; there it looks only for a string that does
not end, a stray backslash or brackets that do not balance (`_sound`, under a third of
the cost). In a real repository's Python much of what is parsed so lies past that statement.
"""
from __future__ import annotations

import bisect
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any, NamedTuple


def _but(excluded: bytes) -> bytes:
    """`[^excluded]` spelled as the ranges of bytes it holds. sre keeps such a class as a bitmap,
    one test a byte; a negated one takes two or more (here 1.6 against 2.8 ns a byte, 5 for
    `[^'\\]`), and runs of such bytes are most of what the scans below read."""
    ranges: list[list[int]] = []
    for byte in range(256):
        if byte in excluded:
            continue
        if ranges and ranges[-1][1] == byte - 1:
            ranges[-1][1] = byte
        else:
            ranges.append([byte, byte])
    return b"[" + b"".join(b"\\x%02x-\\x%02x" % (low, high) for low, high in ranges) + b"]"


def _not(excluded: bytes) -> bytes:
    """`[^excluded]` as such: slower to read than `_but`'s, but compiled in a fraction of the time
    (for what is rarely read)."""
    return b"[^" + b"".join(b"\\x%02x" % byte for byte in excluded) + b"]"


def _strings(other_than: Callable[[bytes], bytes]) -> tuple[bytes, bytes]:
    """A string on one line, and any string (triple-quoted ones may hold newlines), each class
    of bytes in them spelled by `other_than`. (`%s`: such a class.)"""
    one_line = (
        rb"'%s*+(?:\\.%s*+)*+'" % ((other_than(b"'\\\n"),) * 2) + rb'|"%s*+(?:\\.%s*+)*+"' % ((other_than(b'"\\\n'),) * 2)
    )
    return one_line, (
        rb"'''%s*+(?:(?:\\.|'(?!''))%s*+)*+'''" % ((other_than(b"'\\"),) * 2)
        + rb'|"""%s*+(?:(?:\\.|"(?!""))%s*+)*+"""|' % ((other_than(b'"\\'),) * 2) + one_line
    )


# What a statement boundary cannot hide in, taken whole: a comment, a string, a line continuation.
# Each starts with a byte of its own. Every loop is unrolled: a run of other bytes, then at each
# step one such thing and the run after it (sre's cost is mostly per step: a step for each run as
# well as for each thing took a fifth longer).
_ONE_LINE_STRING, _STRING = _strings(_but)  # the first also a string inside an f-string's field
_COMMENT = rb"\#" + _but(b"\r\n") + rb"*+"
_TAKEN = _COMMENT + b"|" + _STRING + rb"|\\\r?\n"
_OTHERS = _but(b"'\"#\\\n()[]{}") + b"*+"  # starting none of them, no newline, no bracket
_OTHERS_OR_NEWLINES = _but(b"'\"#\\()[]{}") + b"*+"


def _brackets(levels: int) -> bytes:
    """Balanced brackets nested up to `levels` deep, newlines inside them included: one match
    for a whole call, however many lines it takes. Brackets nested deeper are counted one by one,
    and so is a bracket around another that holds a comment or a line continuation (rare there,
    as are strings, whose classes there are `_not`'s: faster to compile). A string is read inside
    brackets as outside them (else `'''` could be read as `''` and `'`). A bracket of one kind may
    close another's: where a logical line ends depends only on how many are open, which is all
    the events count too."""
    inner = b""
    for level in range(levels):
        taken = _TAKEN if level == levels - 1 else _strings(_not)[1]
        if inner:
            taken = inner + b"|" + taken
        inner = rb"[(\[{]" + _OTHERS_OR_NEWLINES + rb"(?:(?:" + taken + rb")" + _OTHERS_OR_NEWLINES + rb")*+[)\]}]"
    return inner


_BRACKETS = _brackets(3)

# One match per event that can end or start a logical line: everything up to a newline (group 1;
# then the blank and comment-only lines after it, and the next line's indentation, group 2), an
# opening or closing bracket that `_BRACKETS` does not take whole, what this tokenizer does not
# take (an unterminated string, a stray backslash), or the end of the file. Never
# backtracks: every alternative is possessive. (Brackets three deep taken whole: faster than one
# deep and about as fast as four, while the scans compile sooner than with four.)
_EVENT = (
    rb"(?s)" + _OTHERS + rb"(?:(?:" + _BRACKETS + b"|" + _TAKEN + rb")" + _OTHERS + rb")*+"
    rb"(?:(\n)(?:[ \t]*+(?:" + _COMMENT + rb")?\r?\n)*+([ \t]*+)|([(\[{])|([)\]}])|(['\"\\])|(\Z))"
)
_LEADING = rb"(?:[ \t]*+(?:" + _COMMENT + rb")?\r?\n)*+([ \t]*+)"
# The same reading with newlines taken as any other byte: one match per bracket that `_BRACKETS`
# does not take whole, for the rest of a module whose lines are not outlined (`_sound`).
_TAIL_EVENT = (
    rb"(?s)" + _OTHERS_OR_NEWLINES + rb"(?:(?:" + _BRACKETS + b"|" + _TAKEN + rb")" + _OTHERS_OR_NEWLINES + rb")*+"
    rb"(?:([(\[{])|([)\]}])|(['\"\\])|\Z)"
)
_CLAUSES = (b"else", b"elif", b"except", b"finally")
_CLAUSE_FIRST = frozenset(word[0] for word in _CLAUSES)  # a clause's first byte: most statements have none
_AT = ord("@")
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_FUNCTION = re.compile(rb"(?:async[ \t]+)?def[ \t(\\]")
_DEF = re.compile(rb"def[ \t(\\]")  # literal first: the search skips from one `def` to the next
_CLASS = re.compile(rb"class[ \t(:\\]")
_FUNCTION_NAME = re.compile(rb"(?:async[ \t]+)?def[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*[(\[]")
# Since Python 3.12 (PEP 701) a replacement field of an f-string is read as code: it may hold the
# string's own quote, a comment, a backslash, a newline. The events above read an f-string as
# 3.11 does, from its quote to the next one. Where every field of that span closes inside it and
# holds a comment or a backslash only inside a string of its own, Python reads the string to the
# same quote (`_fields_as_before`); elsewhere the module is parsed whole. (3.14's t-strings too.)
_TEMPLATE_LETTERS = b"fFtT" if sys.version_info >= (3, 14) else b"fF"
_FIELDS_ARE_CODE = sys.version_info >= (3, 12)
_OPEN_FIELD, _CLOSE_FIELD, _BANG, _COLON = b"{}!:"
_CLOSING = {ord("("): ord(")"), ord("["): ord("]"), ord("{"): ord("}")}
_LONE_CR = re.compile(rb"\r(?!\n)")
_CONFLICT = re.compile(rb"^(?:<{7}|>{7})(?:[ \t\r\n]|$)", re.MULTILINE)

if sys.version_info >= (3, 11):
    _EVENTS: re.Pattern[bytes] | None = re.compile(_EVENT)
    _LEAD: re.Pattern[bytes] | None = re.compile(_LEADING)
else:  # pragma: no cover - no possessive quantifiers before 3.11
    _EVENTS = _LEAD = None


@cache
def _tail() -> re.Pattern[bytes]:
    """`_TAIL_EVENT`, compiled when `_sound` first reads it (only from 3.11 on, as `outline`
    declines before): a check none of whose modules is outlined only in part never does, and
    the pattern takes each process that outlines a noticeable time to compile."""
    return re.compile(_TAIL_EVENT)


class _FStrings(NamedTuple):
    """What reads f-strings as 3.12+ does (`_fields_as_before`), compiled when first asked for:
    never on 3.11, where an f-string is read as the events read it (a cost of each process)."""

    fstring: Any  # where an f-string opens: its prefix and quote (an RE2 pattern)
    string: re.Pattern[bytes]  # a string as `_EVENTS` reads one
    literal: re.Pattern[bytes]  # between fields: text, and `{{` / `}}`
    plain: re.Pattern[bytes]  # text and plain fields, to the body's end
    # In a field: a step of its expression (group 1: a bracket that opens, 2: one that closes, 3: `:`
    # or `!`, 4: what a field may not hold before 3.12: a comment, a backslash, a quote that ends no string).
    step: re.Pattern[bytes]


@cache
def _fstrings() -> _FStrings:
    import re2

    from portlint.speed.needles import re2_options

    return _FStrings(
        # No identifier character before the prefix (`\b`, RE2's word boundary, is ASCII's), the
        # prefix, a quote. Finding these was most of `_fields_as_before`'s time: RE2 takes a fraction
        # of `re`'s, with the same matches, where `re`'s pattern opened with the prefix's letters so
        # as to skip to them (with its lookbehind first it took longer still).
        re2.compile(rb"\b(?:[" + _TEMPLATE_LETTERS + rb"][rR]?|[rR][" + _TEMPLATE_LETTERS + rb"])['\"]", re2_options()),
        re.compile(rb"(?s)" + _STRING),
        re.compile(rb"(?:[^{}]++|\{\{|\}\})*+"),
        # An expression with no bracket, quote, comment, backslash, `=`, `!` or `:`, then a conversion
        # and a spec without fields of its own. `_field_end` reads each to the same `}`; most f-strings
        # hold only those (on 3.13 reading every field one step at a time was most of the
        # tokenizer's time).
        re.compile(rb"(?:[^{}]++|\{\{|\}\}|\{[^{}()\[\]'\"#\\:!=]*+(?:![rsa])?+(?::[^{}]*+)?+\})*+"),
        re.compile(rb"(?s)[^{}()\[\]'\"#\\:!]++|!=|" + _ONE_LINE_STRING + rb"|([(\[{])|([)\]}])|([:!])|(.)"),
    )


class Outline:
    """The logical lines of a module: where each starts (its first byte after the indentation),
    how far it is indented, and where it ends (the offset of its newline, or the end)."""

    def __init__(self, starts: list[int], indents: list[int], ends: list[int], levels: bytes, stop: int) -> None:
        self.starts = starts
        self.indents = indents
        self.ends = ends
        self.levels = levels  # the indents as bytes, searched for a body's end (`body_end`)
        self.stop = stop  # where the lines outlined end: the end, or a line `outline` was asked to stop at

    def body_end(self, line: int, stop: int, indent: int) -> int:
        """The first logical line from `line` (before `stop`) indented no deeper than `indent`,
        else `stop`: where the body that `line` is in ends. One search of the indents' bytes
        (a step per line in Python was a third of `sparse`)."""
        found = _shallower(indent).search(self.levels, line, stop)
        return stop if found is None else found.start()


@cache
def _shallower(indent: int) -> re.Pattern[bytes]:
    """A byte of an indentation no deeper than `indent`."""
    return re.compile(b"[\\x00-\\x%02x]" % indent)


def outline(data: bytes, until: int | None = None) -> Outline | None:
    """The module's logical lines, or None where this tokenizer cannot be sure of them.

    With `until`, only those before the first line that starts at or after that offset, unindented,
    and goes on no statement before it (a clause, `else:`; a decorated definition): the statements
    from there on start after `until` (Outline.stop). Of the rest, only what would make the whole
    outline None is looked for (`_sound`): not how its lines nest."""
    if _EVENTS is None or _LEAD is None or b"\0" in data or b"\x0c" in data or (b"\r" in data and _LONE_CR.search(data)):
        return None
    if _FIELDS_ARE_CODE and not _fields_as_before(data):
        return None
    if (b"<<<<<<<" in data or b">>>>>>>" in data) and _CONFLICT.search(data):
        return None  # a merge left unresolved: Python's error, at its line, is the finding
    first = _LEAD.match(data)
    assert first is not None  # every part of the pattern may be empty
    starts, indents, ends = [first.end()], [first.end(1) - first.start(1)], []
    depth = 0
    size = len(data)
    stop = size
    if until is None:
        until = size
    for event in _EVENTS.finditer(data, first.end()):
        kind = event.lastindex
        if kind == 2:  # a newline (group 1), then the next content line's indentation (group 2)
            if depth == 0:
                ends.append(event.start(1))
                start = event.end()
                indent = start - event.start(2)  # (group 2 ends the match)
                if (start >= until and not indent and start < size and data[starts[-1]] != _AT
                        and not _clause(data, start)):  # (what follows a decorator is its statement)
                    stop = start
                    break
                starts.append(start)
                indents.append(indent)
        elif kind == 3:
            depth += 1
        elif kind == 4:
            depth -= 1
            if depth < 0:
                return None
        elif kind == 5:  # an unterminated string or a stray backslash
            return None
        else:  # 6: the end (without it, a last line with no newline would match from inside itself)
            break
    if depth or (stop < size and not _sound(data, stop)):
        return None
    if stop == size:
        ends.append(size)
        if starts[-1] >= size or data.startswith(b"#", starts[-1]):  # only blank or comment lines after the last
            del starts[-1], indents[-1], ends[-1]
    if b"\t" in data and any(b"\t" in data[start - indent:start] for start, indent in zip(starts, indents) if indent):
        return None
    try:
        levels = bytes(indents)
    except ValueError:
        return None  # indented deeper than a byte counts (Outline.levels)
    return Outline(starts, indents, ends, levels, stop)


def _sound(data: bytes, at: int) -> bool:
    """From `at` (where a logical line starts) to the end, what `outline` would find wrong were
    it to outline those lines too: a string that does not end, a stray backslash, brackets that do
    not balance. (At under a third of the cost: a match per bracket that `_BRACKETS` does not
    take whole, not per line.)"""
    depth = 0
    for event in _tail().finditer(data, at):
        kind = event.lastindex
        if kind is None:  # the end
            break
        if kind == 3:  # a string that does not end, a stray backslash
            return False
        depth += 1 if kind == 1 else -1
        if depth < 0:
            return False
    return depth == 0


def _fields_as_before(data: bytes) -> bool:
    """Every f-string of the module ends where Python 3.11 would end it (see _fstrings): each of
    its fields closes before that quote, with no comment or backslash outside a nested string.
    Also asked of `f"` inside a comment or another string: a false no only costs a whole parse."""
    patterns = _fstrings()
    for found in patterns.fstring.finditer(data):
        quote = found.end() - 1
        string = patterns.string.match(data, quote)
        if string is None:
            continue  # no string that ends starts here: the outline declines if one does (kind 5)
        side = 3 if data.startswith(data[quote:quote + 1] * 3, quote) else 1
        if not _body_as_before(data, quote + side, string.end() - side):
            return False
    return True


def _body_as_before(data: bytes, at: int, end: int) -> bool:
    """An f-string's body, data[at:end], whose every field closes before `end` as 3.11 and 3.12
    both read it. Most bodies hold only plain fields (`_FStrings.plain`: one match); the others are
    read field by field."""
    patterns = _fstrings()
    if patterns.plain.match(data, at, end).end() == end:  # type: ignore[union-attr]
        return True
    while (at := patterns.literal.match(data, at, end).end()) < end:  # type: ignore[union-attr]
        if data[at] != _OPEN_FIELD or (at := _field_end(data, at + 1, end, spec=True)) < 0:
            return False  # a `}` alone, or a field read otherwise since 3.12
    return True


def _field_end(data: bytes, at: int, end: int, spec: bool) -> int:
    """Where the field whose expression starts at `at` ends (after its `}`), or -1 when it
    does not close before `end` as 3.11 and 3.12 both read it. `spec`: its format spec may
    hold fields of its own (one level, as Python allows)."""
    steps = _fstrings().step
    brackets: list[int] = []
    while at < end:
        step = steps.match(data, at, end)
        assert step is not None  # `.` takes any byte
        at = step.end()
        if step.lastindex == 1:
            brackets.append(_CLOSING[data[step.start()]])
        elif step.lastindex == 2:
            if brackets and brackets[-1] == data[step.start()]:
                brackets.pop()
            elif brackets or data[step.start()] != _CLOSE_FIELD:
                return -1
            else:
                return at
        elif step.lastindex == 4:
            return -1
        elif step.lastindex == 3:
            byte = data[step.start()]
            if brackets:
                continue  # `:` and `!` inside brackets: a slice, a dict, a lambda
            if byte == _BANG:
                if not (at < end and data[at] in b"rsa"):
                    return -1
                at += 1
                if at < end and data[at] == _CLOSE_FIELD:
                    return at + 1
                if not (at < end and data[at] == _COLON):
                    return -1
                at += 1
            return _spec_end(data, at, end, spec)
    return -1


def _spec_end(data: bytes, at: int, end: int, fields: bool) -> int:
    """Where a format spec starting at `at` ends (after its field's `}`), or -1."""
    while at < end:
        byte = data[at]
        if byte == _CLOSE_FIELD:
            return at + 1
        if byte == _OPEN_FIELD:
            if not fields or (at := _field_end(data, at + 1, end, spec=False)) < 0:
                return -1
        else:
            at += 1
    return -1


def _clause(data: bytes, at: int) -> bool:
    """`else`, `elif`, `except` or `finally` starts here: the statement before goes on."""
    for word in _CLAUSES:
        if data.startswith(word, at):
            after = data[at + len(word):at + len(word) + 1]
            return not after or after[0] not in _WORD
    return False


def definitions(data: bytes, lines: Outline) -> list[tuple[str, int, int]]:
    """Every function definition of the module, at any depth: its name ("" where it is not plain
    ASCII on the `def` line), the offset of its first line (its first decorator's) and its end.
    (Found by one search for `def` over the bytes, each kept where a logical line starts: a
    match tried at every logical line's start cost several times as much.)"""
    found = []
    starts, indents, ends = lines.starts, lines.indents, lines.ends
    count = len(starts)
    for candidate in _DEF.finditer(data):
        head = before = candidate.start()
        while before and data[before - 1] in b" \t":
            before -= 1
        if before < head and data.endswith(b"async", 0, before):
            head = before - 5  # `async def`: the statement starts there
        i = bisect.bisect_left(starts, head)
        if i == count or starts[i] != head:
            continue  # inside a line: a string, a comment, `undef (`
        first = first_decorator(data, lines, i)
        last = lines.body_end(i + 1, count, indents[i])
        match = _FUNCTION_NAME.match(data, starts[i])
        name = match.group(1).decode() if match is not None else ""
        found.append((name, starts[first] - indents[first], ends[last - 1]))
    return found


def enclosing_classes(data: bytes, lines: Outline, offsets: Iterable[int]) -> set[int]:
    """Where the class statements around the statements starting at `offsets` start (the start
    of their first line, a decorator's where they have one), however deep. The header around a
    line is the last line before it indented less: a search of the indents' bytes for each
    shallower indent there is (a step per line in Python, back through a class of a hundred
    methods for each of them, was a cost of each large module the socket analysis keeps)."""
    starts, indents, levels = lines.starts, lines.indents, lines.levels
    heads = [start - indent for start, indent in zip(starts, indents)]
    present = sorted(set(levels))
    marks = [bytes((level,)) for level in present]  # each indent there is, as a byte of `levels`
    found = set()
    for offset in offsets:
        i = bisect.bisect_left(heads, offset)
        indent = indents[i] if i < len(heads) else 0
        while indent > 0:
            i = max((levels.rfind(mark, 0, i) for mark in marks[:bisect.bisect_left(present, indent)]), default=-1)
            if i < 0:
                break
            indent = indents[i]
            if _CLASS.match(data, starts[i]) is not None:
                found.add(heads[first_decorator(data, lines, i)])
    return found


def first_decorator(data: bytes, lines: Outline, line: int) -> int:
    """The logical line where the statement at logical line `line` starts: its first decorator's."""
    starts, indents = lines.starts, lines.indents
    while line > 0 and indents[line - 1] == indents[line] and data[starts[line - 1]] == _AT:
        line -= 1
    return line


def decorated(data: bytes, lines: Outline, line: int) -> int:
    """The logical line from `line` past its decorators: what they decorate (the last line at most)."""
    starts = lines.starts
    while data[starts[line]] == _AT and line + 1 < len(starts):
        line += 1
    return line


def module_code(data: bytes, lines: Outline) -> list[int]:
    """Where the module's own statements start: its top-level logical lines but definitions,
    classes and their decorators."""
    return [start for start, indent in zip(lines.starts, lines.indents)
            if indent == 0 and data[start] != _AT and _FUNCTION.match(data, start) is None and _CLASS.match(data, start) is None]


def sparse(data: bytes, hot_lines: Sequence[int], line_starts: Sequence[int], lines: Outline | None = None,
           whole: Sequence[int] = (), whole_lines: Sequence[int] = ()) -> bytes | None:
    """The module with every statement that holds no hot line blanked, or None (parse it whole).

    `hot_lines` are sorted 1-based line numbers; `line_starts` the offset of each line. A
    statement holds a line when the line lies from its first decorator to its last line
    (comment lines inside it included, as a node's line span includes them). `lines`: the module's
    `outline`, when the caller has it. `whole`: the offsets where functions start (their first
    line's) that are kept with every statement in them (and so are hot); `whole_lines`: sorted
    lines whose top-level statements are kept so.
    """
    hot = [line_starts[line - 1] for line in hot_lines if 0 < line <= len(line_starts)]
    kept = [line_starts[line - 1] for line in whole_lines if 0 < line <= len(line_starts)]
    return sparse_at(data, hot, lines, whole, kept)


def sparse_at(data: bytes, hot: Sequence[int], lines: Outline | None = None, whole: Sequence[int] = (),
              kept: Sequence[int] = ()) -> bytes | None:
    """`sparse` of the hot lines and the lines of kept top-level statements given by the offsets
    where they start (sorted). Without the module's outline, only the lines up to the first
    top-level statement after the last of those are outlined: the rest is blanked whole (often
    much of the bytes of the files parsed so)."""
    if kept or whole:
        hot = sorted({*hot, *kept, *whole})
    if lines is None:
        lines = outline(data, until=hot[-1] + 1 if hot else 0)
    if lines is None:
        return None
    blanks: list[tuple[int, int, int]] = []  # (from, to, indentation of the `pass` it needs, or -1)
    try:
        _Blanker(data, lines, list(hot), blanks, whole, list(kept)).block(0, len(lines.starts), 0)
    except _Unsure:
        return None
    if lines.stop < len(data):
        blanks.append((lines.stop, len(data), -1))
    if not blanks:
        return data
    blanks.sort()
    pieces = []
    at = 0
    for start, end, indent in blanks:
        pieces.append(data[at:start])
        if indent >= 0:
            pieces.append(b" " * indent + b"pass")
        pieces.append(b"\n" * data.count(b"\n", start, end))
        at = end
    pieces.append(data[at:])
    return b"".join(pieces)


class _Blanker:
    def __init__(self, data: bytes, lines: Outline, hot: list[int], blanks: list[tuple[int, int, int]],
                 whole: Sequence[int] = (), whole_lines: list[int] | None = None) -> None:
        self.data = data
        self.lines = lines
        self.starts = starts = lines.starts
        self.indents = indents = lines.indents
        self.ends = lines.ends
        self.hot = hot
        self.blanks = blanks
        self.whole = set(whole)  # offsets of the functions kept with all their statements
        self.whole_lines = whole_lines or []  # sorted offsets of lines whose top-level statements are kept so
        # The logical line each hot offset lies in, or in the blank and comment lines after (-1 before
        # the first): the last whose first line starts at or before it. Sorted, as the offsets are.
        count = len(starts)
        self.hot_lines: list[int] = []
        hot_lines = self.hot_lines
        for at in hot:
            line = bisect.bisect_right(starts, at) - 1  # or the line before, where `at` is in an indentation
            if line + 1 < count and starts[line + 1] - indents[line + 1] <= at:
                line += 1
            hot_lines.append(line)

    def block(self, first: int, stop: int, indent: int) -> None:
        """The statements of logical lines first..stop-1, all at `indent` (a body, or the module).

        Each logical line at `indent` starts a statement, a clause of one or a decorator's line
        (a head). Only the statements that hold a hot line are looked at, from the head before
        each hot line back to where the statement starts and forward to where the next one does
        (searches of the indents' bytes for that byte); between them, each run of cold statements
        is blanked as one (the comment lines between them too: the tree is the same). (Grouping
        every head into statements in a Python loop, where heads outnumber hot statements several
        times, cost half as much again.)"""
        data, starts, levels = self.data, self.starts, self.lines.levels
        if first >= stop:
            return  # no statement (a module of comments)
        if levels[first] != indent or (indent and _shallower(indent - 1).search(levels, first, stop)):
            raise _Unsure  # a dedent to a level never opened, or an indented line after a simple one
        if data[starts[levels.rfind(indent, first, stop)]] == _AT:
            raise _Unsure  # decorators that decorate nothing (whether or not a statement here is hot)
        if first and self._is_match(first - 1):  # `case` clauses are no statements: the parser reads every pattern
            statements = self._every_statement(first, stop, indent)
        else:
            statements = self._hot_statements(first, stop, indent)
            if not statements:  # nothing left: a body keeps its header valid with a `pass`
                self._blank(first, stop - 1, indent if first > 0 else -1)
                return
        run = first  # the first line of the cold statements before this one
        for begin, end in statements:
            if run < begin:
                self._blank(run, begin - 1, -1)
            run = end
            if end == begin + 1 or self._kept_whole(begin, end - 1, top=not first):
                continue  # one logical line (most hot statements: no body to look into), or kept whole
            heads = [begin]
            while (at := levels.find(indent, heads[-1] + 1, end)) != -1:
                heads.append(at)
            heads.append(end)
            parts = [(heads[j], heads[j + 1]) for j in range(len(heads) - 1) if data[starts[heads[j]]] != _AT]
            for header, after in self._without_cold_elifs(parts):
                if after > header + 1:
                    self.block(header + 1, after, self.indents[header + 1])
        if run < stop:
            self._blank(run, stop - 1, -1)

    def _hot_statements(self, first: int, stop: int, indent: int) -> list[tuple[int, int]]:
        """The statements of lines first..stop-1 at `indent` that hold a hot line, in order: the
        line each starts at (its first decorator's) and the line after its last (the next
        statement's first, or `stop`). A statement holds a hot line from the start of its first
        line to the end of its last logical line: not in the comment lines after it."""
        hot, hot_lines, ends, levels = self.hot, self.hot_lines, self.ends, self.lines.levels
        found = []
        h = bisect.bisect_left(hot_lines, first)
        last = bisect.bisect_left(hot_lines, stop, h)
        while h < last:
            head = levels.rfind(indent, first, hot_lines[h] + 1)  # of the statement the hot line is in, or after
            end = self._statement_end(head, stop, indent)
            if hot[h] > ends[end - 1]:
                h += 1  # in the comment lines after the statement
                continue
            found.append((self._statement_start(head, first, indent), end))
            h = bisect.bisect_right(hot, ends[end - 1], h, last)
        return found

    def _every_statement(self, first: int, stop: int, indent: int) -> list[tuple[int, int]]:
        """Every statement of lines first..stop-1 at `indent`, as `_hot_statements` gives them."""
        found = []
        while first < stop:
            end = self._statement_end(first, stop, indent)
            found.append((first, end))
            first = end
        return found

    def _statement_start(self, head: int, first: int, indent: int) -> int:
        """The head where the statement holding head `head` starts: back over the clauses it
        is one of (`else`, ...) and the decorators above, no further than `first`."""
        levels = self.lines.levels
        while head > first:
            before = levels.rfind(indent, first, head)
            if not self._goes_on(before, head):
                break  # a statement starts at `head`
            head = before
        return head

    def _statement_end(self, head: int, stop: int, indent: int) -> int:
        """The head after the statement holding head `head` (the next statement's first), or `stop`."""
        levels = self.lines.levels
        while (after := levels.find(indent, head + 1, stop)) != -1:
            if not self._goes_on(head, after):
                return after
            head = after
        return stop

    def _goes_on(self, head: int, after: int) -> bool:
        """Whether head `after`, the next at the same indent, is of the statement of head `head`:
        it follows a decorator, or it is one of the statement's clauses."""
        data, starts = self.data, self.starts
        return data[starts[head]] == _AT or (data[starts[after]] in _CLAUSE_FIRST and self._is_clause(after))

    def _kept_whole(self, first: int, last: int, top: bool) -> bool:
        line = self.starts[first] - self.indents[first]
        if line in self.whole:
            return True
        if not top or not self.whole_lines or self._is_function(first) or self._is_class(first):
            return False  # the module's own code only: a definition keeps what its own body needs
        at = bisect.bisect_left(self.whole_lines, line)
        return at < len(self.whole_lines) and self.whole_lines[at] <= self.ends[last]

    def _without_cold_elifs(self, parts: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """An `elif` is an `if` of its own (with the clauses after it): blanked when it is cold."""
        for k in range(1, len(parts)):
            header = parts[k][0]
            if self.data.startswith(b"elif", self.starts[header]) and not self._holds_hot(header, parts[-1][1] - 1):
                self._blank(header, parts[-1][1] - 1, -1)
                return parts[:k]
        return parts

    def _is_function(self, line: int) -> bool:
        return _FUNCTION.match(self.data, self._decorated(line)) is not None

    def _is_class(self, line: int) -> bool:
        return _CLASS.match(self.data, self._decorated(line)) is not None

    def _decorated(self, line: int) -> int:
        """Where the statement starting at logical line `line` starts, past its decorators."""
        return self.starts[decorated(self.data, self.lines, line)]

    def _is_match(self, header: int) -> bool:
        at = self.starts[header]
        return self.data.startswith(b"match", at) and self.data[at + 5:at + 6] in (b" ", b"\t", b"(", b"[", b"{", b"\\")

    def _is_clause(self, line: int) -> bool:
        return _clause(self.data, self.starts[line])

    def _holds_hot(self, first: int, last: int) -> bool:
        """A hot line from the start of the first logical line's first line to the end of the last."""
        start = self.starts[first] - self.indents[first]
        at = bisect.bisect_left(self.hot, start)
        return at < len(self.hot) and self.hot[at] <= self.ends[last]

    def _blank(self, first: int, last: int, indent: int) -> None:
        start = self.starts[first] - self.indents[first]
        end = self.ends[last]
        self.blanks.append((start, end, indent))


class _Unsure(Exception):
    """The logical lines do not nest as Python's blocks do."""
