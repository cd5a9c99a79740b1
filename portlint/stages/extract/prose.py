"""Layout statements in prose: a comment or doc line that names a port and states its range.

`#   1400-1999    Master address / TCPStore (cluster.master_port_range_low/high)`
states the range 1400–1999 for two names. Each number of the first range the
line states becomes a doc site (kind `comment`, or the doc's kind) named after
the names the line mentions, so binding gives it a band and PL501 compares it
with the layout. The span handed in is one comment or one doc line, already
delimited by its file's parser; the patterns below only read that prose.

Ranges: `A-B`, `A–B`, `A..B` (inclusive), `[A, B)` (half-open: B is one past
the high end), `A+` (open-ended: only the low end), or a single port `A`.

A single port written as an option's value on a command line the line shows
(`#   python serve.py --port 8000`, or a comment line going on with the command the
comment above it ends with a backslash) is marked `passed`: the example chooses it,
it does not say what the default is (`passed_as_argument`).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from portlint.model.naming import NameFilter, role_of
from portlint.model.ports import HIGH, LOW, MAX_PORT
from portlint.model.sites import Site
from portlint.model.source import Source

_NAME = re.compile(
    r"(?<![\w.$/-])(--[A-Za-z][\w-]*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)"
    r"(?:/(high|HIGH|max|MAX|hi|HI))?"
)
_PAIRED = re.compile(r"(low|LOW|min|MIN|lo|LO)$")
_NUMBER = r"([1-9]\d{0,4})"
_RANGES = (
    ("half-open", re.compile(rf"\[\s*{_NUMBER}\s*,\s*{_NUMBER}\s*\)")),
    ("range", re.compile(rf"(?<![\w.=:/'\"-]){_NUMBER}\s*(?:-|–|—|\.\.)\s*{_NUMBER}(?![\w.]|-\d)")),
    ("open", re.compile(rf"(?<![\w.=:/'\"-]){_NUMBER}\+")),
    ("single", re.compile(rf"(?<![\w.=:/'\"-]){_NUMBER}(?![\w.+]|\s*(?:-|–|—|\.\.)\s*\d|-\w)")),
)
DIGIT = re.compile(rb"[0-9]")  # what a statement needs, tested before anything else is
_PORT_WORD = re.compile(rb"(?i)port")  # in every port-like name (naming.is_port_name: the word "port")
_NEAR_WORDS = 3
_CLAUSE_END = re.compile(r"[;!?]|\.(?:\s|$)")
_WORD = re.compile(r"[^\W\d_][\w-]*")


def statements(
    source: Source, start: int, end: int, kind: str, names: NameFilter, ranges_only: bool = False,
) -> Iterator[Site]:
    """Doc sites for the first range a prose span states, when it names a wanted name.

    `ranges_only` (running prose, as opposed to a table row or a comment) ignores
    lone numbers: prose mentions ports in passing ("the head uses the next one, 1302").
    """
    if DIGIT.search(source.data, start, end) is None:
        return
    if not names.selector_names and _PORT_WORD.search(source.data, start, end) is None:
        return  # without selectors only a port-like name is wanted, and none is written here
    text = source.data[start:end].decode("utf-8", "replace")
    mentioned = list(mentioned_names(text, names))
    if not mentioned:
        return
    found = _first_range(text, ranges_only, lambda start: _of_another_option(text[:start], mentioned))
    if found is None:
        return
    shape, numbers = found
    if shape == "single" and _former(text, numbers[0][0], numbers[0][1]):
        return
    if ranges_only:  # running prose: only a name stated next to the range is what it describes
        mentioned = _beside(text, mentioned, numbers[0][0], numbers[-1][1])
        if not mentioned:
            return
    roles = _roles(shape, len(numbers), mentioned[0])
    before = text[:numbers[0][0]]
    passed = shape == "single" and (passed_as_argument(before) or kind == "comment" and _continues_a_command(
        source.data, start) and _OPTION_BEFORE.search(before) is not None)
    for (char_start, char_end, value), (role, offset) in zip(numbers, roles):
        if value > MAX_PORT:
            return
        byte_start = start + len(text[:char_start].encode())
        byte_end = byte_start + (char_end - char_start)
        yield _site(source, kind, mentioned, value, role, offset, byte_start, byte_end, passed)


_OPTION_BEFORE = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*(?:[ \t]*=[ \t]*|[ \t]+)[\"']?$")
_COMMAND_START = re.compile(r"[;!?(|`]|\.(?:\s|$)|^\s*(?:#+|//|<!--)")


def passed_as_argument(before: str) -> bool:
    """The number right after `before` is an option's value on a command line the text shows:
    `before` ends with a long option (`--port `, `--port=`) and, in the same clause (after the
    last `;`, `(`, `|`, backtick or sentence end, and the comment's `#`), a word stands before
    that option: the program or an argument before it (`python serve.py --port`, `bash run.sh
    --port=`). An option that opens its clause (`# --port 8000  the API server`, a table's cell)
    or follows a label (`Default: --port 8000`) states a value, it is no example."""
    option = _OPTION_BEFORE.search(before)
    if option is None:
        return False
    clause = before[:option.start()]
    ends = list(_COMMAND_START.finditer(clause))
    clause = clause[ends[-1].end():] if ends else clause
    words = clause.split()
    return bool(words) and not words[-1].endswith(":")


def _of_another_option(before: str, mentioned: list[str]) -> bool:
    """The number is the value of an option the prose does not name as a port (`--workers 2` in
    `python serve.py --api-port=8100 --workers 2`): it states nothing about the names mentioned."""
    option = _OPTION_BEFORE.search(before)
    return option is not None and option.group().split("=", 1)[0].strip().strip("\"'") not in mentioned


def _continues_a_command(data: bytes, start: int) -> bool:
    """The comment at `start` goes on with a command line the comment above it began: that line
    ends with a backslash (`#   python serve.py \\`, then `#     --port 8000`)."""
    line = data.rfind(b"\n", 0, start) + 1
    if line == 0:
        return False
    above = data[data.rfind(b"\n", 0, line - 1) + 1:line - 1].rstrip(b" \t\r")
    return above.endswith(b"\\") and b"#" in above


def mentioned_names(text: str, names: NameFilter) -> Iterator[str]:
    """The wanted names a span of prose writes (each once, in order): the names a statement of it is about."""
    seen = set()
    for match in _NAME.finditer(text):
        name, high = match.group(1), match.group(2)
        forms = [name]
        if high and _PAIRED.search(name):
            forms.append(_PAIRED.sub(high, name))
        for form in forms:
            if form not in seen and ("_" in form or "." in form or "-" in form) and names.wants(form):
                seen.add(form)
                yield form


def _former(text: str, start: int, end: int) -> bool:
    """The prose names the number as what the port is not, or no longer, is: "from 22 to
    DEFAULT_DOCKER_PORT" (a change away from it), "not legacy 6379", "instead of 8000"."""
    before = [word.lower() for word in _WORD.findall(text[:start])[-2:]]
    after = text[end:].lstrip()
    if before[-1:] == ["from"] and after[:3].lower() == "to " and not after[3:].lstrip()[:1].isdigit():
        return True
    return bool(_FORMER.intersection(before[-1:])) or before in (["instead", "of"], ["rather", "than"])


_FORMER = frozenset(("not", "legacy", "old", "formerly", "previously", "was", "deprecated"))


def _beside(text: str, mentioned: list[str], first: int, last: int) -> list[str]:
    """The names written in the range's own clause, at most `_NEAR_WORDS` words away.

    "workers 2000–2999 (MIN_WORKER_PORT)" states the workers' range; "a range of
    ports above `MASTER_PORT` for Ray internal services (typically 10002-19999)"
    states nothing about MASTER_PORT.
    """
    near, implied = [], []
    for name in mentioned:
        written = list(re.finditer(rf"(?<![\w.$/-]){re.escape(name)}(?!\w)", text))
        if not written:  # the high end of `name_low/high`: beside the range when its low end is
            implied.append(name)
        for match in written:
            gap = text[match.end():first] if match.end() <= first else text[last:match.start()]
            if not _CLAUSE_END.search(gap) and len(_WORD.findall(gap)) <= _NEAR_WORDS:
                near.append(name)
                break
    return near + implied if near else []


def _first_range(text: str, ranges_only: bool, foreign: Callable[[int], bool]) -> tuple[str, list[tuple[int, int, int]]] | None:
    """The earliest range-like statement: its shape and (start, end, value) of each number. A
    lone number `foreign` says belongs to something else (another option's value) is passed over."""
    best = None
    for shape, pattern in _RANGES[:-1] if ranges_only else _RANGES:
        match = next((m for m in pattern.finditer(text) if shape != "single" or not foreign(m.start())), None)
        if match and (best is None or match.start() < best[1].start()):
            best = (shape, match)
    if best is None:
        return None
    shape, match = best
    numbers = [(match.start(g), match.end(g), int(match.group(g))) for g in range(1, (match.lastindex or 0) + 1)]
    if len(numbers) == 2 and numbers[0][2] > numbers[1][2]:
        return None  # "2024-01"-like text, not a port range
    return shape, numbers


def _roles(shape: str, count: int, name: str) -> list[tuple[str, int]]:
    """(role, offset) per number; the open end of `[A, B)` states high + 1."""
    if shape == "half-open":
        return [(LOW, 0), (HIGH, 1)]
    if shape == "range":
        return [(LOW, 0), (HIGH, 0)]
    if shape == "open":
        return [(LOW, 0)]
    return [(role_of(name), 0)] * count


def _site(source: Source, kind: str, mentioned: list[str], value: int, role: str, offset: int,
          start: int, end: int, passed: bool) -> Site:
    line, column = source.position(start)
    end_line, end_column = source.position(end)
    return Site(
        source.path, line, column, start, end, kind, mentioned[0], value,
        role=role, aliases=tuple(mentioned[1:]), scope=f"statement:{line}", derived="",
        end_line=end_line, end_column=end_column, offset=offset, passed=passed,
    )
