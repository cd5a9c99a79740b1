"""Problems as LSP diagnostics: each on the exact span of its literal, and on every other literal
it names (the other side of an overlap, the source a frozen copy drifted from, the code a doc
disagrees with), so that it shows in whichever of those files is open, and goes away from all
of them at once.

A problem names its sites (`Problem.sites`); its own position is the first place, the other
sites' spans the rest. Where a problem has no site at its position (a parse error, a band in
the config), its line and column are converted, and it spans the word there. Messages carry
file names and values from the repository: control characters are escaped as the text
reporter escapes them (`portlint.report.printable`).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from lsprotocol import types

from portlint.model.problems import Problem
from portlint.report import printable
from portlint.server.positions import Lines

SOURCE = "portlint"
RULE_PAGE = "_generated/rules/{code}.html"  # where the docs site (scripts/docs.py) puts a rule's page
WARNINGS = frozenset(("PL002", "PL003"))  # portlint's own housekeeping: unused suppressions, unused config


class Place(NamedTuple):
    path: str
    range: types.Range


class Placed(NamedTuple):
    """A problem and the places it shows at: its own first, then the other literals it names."""

    problem: Problem
    places: tuple[Place, ...]


# What `placed` worked out of a problem: the lines of the files it names and its places.
Memo = dict[tuple[object, ...], tuple[tuple["Lines | None", ...], tuple[Place, ...]]]


def placed(problems: Iterable[Problem], lines_of: Callable[[str], Lines | None],
           earlier: Memo | None = None, kept: Memo | None = None) -> list[Placed]:
    """Every problem with its places (a problem with no file, "" or ".": none). `earlier`: what
    the previous call worked out, taken for a problem at the same spans of files whose lines
    are the same objects (the same bytes: an edit of one file places that file's problems only);
    `kept` receives this call's."""
    found = []
    for problem in problems:
        key = (problem.path, problem.line, problem.column, problem.end_line, problem.end_column,
               tuple((s.path, s.start, s.end) for s in problem.sites))
        paths = sorted({problem.path, *(s.path for s in problem.sites)} - {"", "."})
        lines = tuple(lines_of(path) for path in paths)
        hit = earlier.get(key) if earlier is not None else None
        if hit is not None and len(hit[0]) == len(lines) and all(a is b for a, b in zip(hit[0], lines)):
            places = hit[1]
        else:
            spans = _spans(problem, lines_of)
            places = tuple(Place(path, _range(lines, start, end)) for path, lines, start, end in spans)
        if kept is not None:
            kept[key] = (lines, places)
        found.append(Placed(problem, places))
    return found


def _spans(problem: Problem, lines_of: Callable[[str], Lines | None]) -> list[tuple[str, Lines | None, int, int]]:
    """(path, its lines, start, end) of each place: byte offsets, or (lines None) a 1-based line
    and column when the file cannot be read."""
    spans: list[tuple[str, Lines | None, int, int]] = []
    seen: set[tuple[str, int, int]] = set()
    own = next((s for s in problem.sites if (s.path, s.line, s.column) == (problem.path, problem.line, problem.column)), None)
    if problem.path not in ("", "."):
        lines = lines_of(problem.path)
        if own is not None:
            start, end = own.start, own.end
        elif lines is None:
            start, end = problem.line, problem.column
        else:
            start = lines.at(problem.line, problem.column)
            later = (problem.end_line, problem.end_column) > (problem.line, problem.column)
            end = lines.at(problem.end_line, problem.end_column) if later else lines.word_end(start)
        spans.append((problem.path, lines, start, end))
        seen.add((problem.path, start, end))
    for site in problem.sites:
        if (site.path, site.start, site.end) in seen:
            continue
        seen.add((site.path, site.start, site.end))
        spans.append((site.path, lines_of(site.path), site.start, site.end))
    return spans


def _range(lines: Lines | None, start: int, end: int) -> types.Range:
    if lines is None:  # (line, column) of a file that cannot be read
        at = types.Position(max(start - 1, 0), max(end - 1, 0))
        return types.Range(at, at)
    first, last = lines.position(start), lines.position(max(start, end))
    return types.Range(types.Position(*first), types.Position(*last))


def diagnostics(found: Iterable[Placed], uri_of: Callable[[str], str], docs_url: str) -> dict[str, list[types.Diagnostic]]:
    """The diagnostics of each path that has some: a problem at each of its places."""
    by_path: dict[str, list[types.Diagnostic]] = {}
    for item in found:
        for index, place in enumerate(item.places):
            by_path.setdefault(place.path, []).append(diagnostic(item, index, uri_of, docs_url))
    return by_path


def diagnostic(item: Placed, index: int, uri_of: Callable[[str], str], docs_url: str) -> types.Diagnostic:
    """The problem as shown at its `index`th place: at its own, linking the other places; at
    another, saying where it is reported and linking there (one link each: an overlap of many
    literals stays as large as its places)."""
    problem, own, place = item.problem, item.places[0], item.places[index]
    if index == 0:
        related = [types.DiagnosticRelatedInformation(types.Location(uri_of(other.path), other.range), "also about this")
                   for other in item.places[1:]]
    else:
        related = [types.DiagnosticRelatedInformation(types.Location(uri_of(own.path), own.range), "reported here")]
    message = problem.message if index == 0 else f"{own.path}:{problem.line}: {problem.message}"
    warning = problem.code in WARNINGS
    return types.Diagnostic(
        range=place.range,
        message=printable(message),
        severity=types.DiagnosticSeverity.Warning if warning else types.DiagnosticSeverity.Error,
        code=problem.code,
        code_description=types.CodeDescription(href=docs_url + RULE_PAGE.format(code=problem.code)),
        source=SOURCE,
        tags=[types.DiagnosticTag.Unnecessary] if warning else None,
        related_information=related or None,
    )


def broken(message: str, lines: Lines | None, line: int, column: int) -> types.Diagnostic:
    """A config that cannot be used, shown on its file: at the entry it names, else its top."""
    if lines is None or line < 1:
        where = types.Range(types.Position(0, 0), types.Position(0, 0))
    else:
        start = lines.at(line, max(column, 1))
        end = lines.word_end(start)
        where = _range(lines, start, end)
    return types.Diagnostic(range=where, message=printable(message), severity=types.DiagnosticSeverity.Error, source=SOURCE)
