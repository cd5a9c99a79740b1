"""What `portlint map` draws: one row per band (or, without a layout, per range found), with marks.

A row carries marks (port ranges of a kind: the band itself, a window span,
a part it may share, a value written off its band, an overlap) and the codes of
the problems portlint reports at the band or at its sites. Rendering is
render's business; this module only decides what goes where.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator

from portlint.model.layout import Band, Layout
from portlint.model.ports import span
from portlint.model.problems import Problem
from portlint.model.records import Struct
from portlint.model.sites import Written
from portlint.report import printable
from portlint.stages.layout.bind import identity

# Mark kinds, in drawing order: a later kind wins a cell.
BAND, SITE, WINDOW, SHARED, WRITTEN, OVERFLOW, OVERLAP = (
    "band", "site", "window", "shared", "written", "overflow", "overlap",
)
DRAW_ORDER = (BAND, SITE, WINDOW, SHARED, WRITTEN, OVERFLOW, OVERLAP)
OVERLAP_CODES = ("PL201", "PL202")


class Mark(Struct, frozen=True):
    low: int
    high: int
    kind: str


class Row(Struct, frozen=True):
    key: str  # band:NAME, window:NAME or site:IDENTITY:LOW-HIGH
    label: str
    span: str  # "1400-1999", "8265"
    depth: int  # 1 for a carve-out or a band's windows
    marks: tuple[Mark, ...]
    problems: tuple[Problem, ...]  # reported at the band or at the sites the row stands for
    sites: int  # sites written in the files that the row stands for

    @property
    def codes(self) -> tuple[tuple[str, int], ...]:
        """(code, how many), sorted by code."""
        return tuple(sorted(Counter(p.code for p in self.problems).items()))


class Picture(Struct, frozen=True):
    rows: tuple[Row, ...]
    unplaced: tuple[Problem, ...]  # problems at no band and no drawn site (PL001, PL002, docs)
    declared: bool


def picture(layout: Layout, problems: Iterable[Problem]) -> Picture:
    written = _written(layout)
    keys = {id(w): _row_key(w) for w in written}
    order, labels, depth = _skeleton(layout, written, keys)
    marks: dict[str, list[Mark]] = defaultdict(list)
    for band in layout.bands:
        marks["band:" + band.name] += _band_marks(layout, band)
        if band.window:
            marks["window:" + band.name] += _window_marks(band)
    for w in written:
        marks[keys[id(w)]] += _written_marks(layout, w)
    placed: dict[str, list[Problem]] = defaultdict(list)
    unplaced = []
    at = _places(layout, written, keys)
    for problem in problems:
        key = at.get((problem.path, problem.line, problem.column))
        if key is None:
            unplaced.append(problem)
            continue
        placed[key].append(problem)
        if problem.code in OVERLAP_CODES:
            for row_key, mark in _overlaps(layout, written, keys, problem):
                marks[row_key].append(mark)
    counts = _site_counts(layout, written, keys)
    rows = tuple(
        Row(key, printable(labels[key][0]), labels[key][1], depth.get(key, 0), tuple(marks[key]),
            tuple(placed[key]), counts[key])
        for key in order
    )
    return Picture(rows, tuple(unplaced), bool(layout.bands))


# -- what is written --------------------------------------------------------------


def _written(layout: Layout) -> list[Written]:
    # Computed ports (`$((X + 1))`) follow their operand: like PL202, the map leaves them out (Layout.written).
    return sorted(layout.written, key=lambda w: (w.first.path, w.first.line, w.first.column))


def _row_key(written: Written) -> str:
    if written.first.band:
        return "band:" + written.first.band
    return f"site:{identity(written.first)}:{written.low}-{written.high}"


# -- rows and their order -------------------------------------------------------------


def _skeleton(
    layout: Layout, written: list[Written], keys: dict[int, str],
) -> tuple[list[str], dict[str, tuple[str, str]], dict[str, int]]:
    """Row keys in drawing order, their (label, span), and which are indented."""
    order: list[str] = []
    labels: dict[str, tuple[str, str]] = {}
    depth: dict[str, int] = {}
    names = {band.name for band in layout.bands}
    children: dict[str, list[Band]] = defaultdict(list)
    for band in layout.bands:
        children[band.within if band.within in names else ""].append(band)

    def visit(band: Band, level: int) -> None:
        key = "band:" + band.name
        order.append(key)
        labels[key] = (band.name, band.span)
        depth[key] = level
        if band.window:
            end = band.low + band.window.count * band.window.stride - 1
            order.append("window:" + band.name)
            labels["window:" + band.name] = (f"{band.window.count}×{band.window.stride} windows", span(band.low, end))
            depth["window:" + band.name] = level + 1
        for child in sorted(children[band.name], key=_band_order):
            visit(child, level + 1)

    for band in sorted(children[""], key=_band_order):
        visit(band, 0)
    loose = sorted({keys[id(w)]: w for w in written if not w.first.band}.items(), key=lambda kv: _loose_order(kv[1]))
    for key, w in loose:
        order.append(key)
        labels[key] = (w.name, w.span)
    return order, labels, depth


def _band_order(band: Band) -> tuple[int, int, str]:
    return (band.low, band.high, band.name)


def _loose_order(written: Written) -> tuple[int, int, str]:
    return (written.low, written.high, written.name)


# -- marks ---------------------------------------------------------------------------------


def _band_marks(layout: Layout, band: Band) -> list[Mark]:
    """The band, and the parts it may share: a carve-out inside it, a shares_with partner."""
    marks = [Mark(band.low, band.high, BAND)]
    for other in layout.bands:
        shared = layout.related(band.name, other.name) and band.within != other.name  # not its own parent
        if other is not band and shared and band.overlaps(other):
            marks.append(Mark(max(band.low, other.low), min(band.high, other.high), SHARED))
    return marks


def _window_marks(band: Band) -> list[Mark]:
    assert band.window is not None
    end = band.low + band.window.count * band.window.stride - 1
    marks = [Mark(band.low, min(end, band.high), WINDOW)]
    if end > band.high:
        marks.append(Mark(band.high + 1, end, OVERFLOW))
    return marks


def _written_marks(layout: Layout, written: Written) -> list[Mark]:
    """An unbound range is drawn whole; a bound one only where it leaves its band."""
    band = layout.band(written.first.band) if written.first.band else None
    if band is None:
        return [Mark(written.low, written.high, SITE)]
    return [Mark(low, high, WRITTEN) for low, high in _outside(written.low, written.high, band)]


def _outside(low: int, high: int, band: Band) -> Iterator[tuple[int, int]]:
    if low < band.low:
        yield low, min(high, band.low - 1)
    if high > band.high:
        yield max(low, band.high + 1), high


def _overlaps(
    layout: Layout, written: list[Written], keys: dict[int, str], problem: Problem,
) -> Iterator[tuple[str, Mark]]:
    """The cells a PL201/PL202 problem is about, on both rows involved."""
    if problem.code == "PL201":
        band = layout.band(problem.band) if problem.band else None
        if band is None:
            return
        for other in layout.bands:
            if other is not band and band.overlaps(other) and not layout.related(band.name, other.name):
                mark = Mark(max(band.low, other.low), min(band.high, other.high), OVERLAP)
                yield "band:" + band.name, mark
                yield "band:" + other.name, mark
        return
    here = [w for w in written if (w.first.path, w.first.line, w.first.column) == (problem.path, problem.line, problem.column)]
    group, frontier = {id(w): w for w in here}, list(here)  # PL202 reports a group at its first site
    while frontier:
        current = frontier.pop()
        for candidate in written:
            if id(candidate) not in group and current.low <= candidate.high and candidate.low <= current.high:
                group[id(candidate)] = candidate
                frontier.append(candidate)
    members = list(group.values())
    for index, mine in enumerate(members):
        for theirs in members[index + 1:]:
            if _collide(layout, mine, theirs):
                mark = Mark(max(mine.low, theirs.low), min(mine.high, theirs.high), OVERLAP)
                yield keys[id(mine)], mark
                yield keys[id(theirs)], mark


def _collide(layout: Layout, a: Written, b: Written) -> bool:
    if a is b or a.low > b.high or b.low > a.high or identity(a.first) == identity(b.first):
        return False
    bands = a.first.band, b.first.band
    return not (all(bands) and layout.related(*bands))


# -- where problems land, and how many sites a row stands for ---------------------------------


def _places(layout: Layout, written: list[Written], keys: dict[int, str]) -> dict[tuple[str, int, int], str]:
    at = {}
    for w in written:
        for site in w.sites:
            at[(site.path, site.line, site.column)] = keys[id(w)]
    for site in layout.sites:
        if site.band:
            at.setdefault((site.path, site.line, site.column), "band:" + site.band)
    for band in layout.bands:
        at[(layout.config_path, band.line, band.column)] = "band:" + band.name
    return at


def _site_counts(layout: Layout, written: list[Written], keys: dict[int, str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for site in layout.sites:
        if site.band:
            counts["band:" + site.band] += 1
    for w in written:
        if not w.first.band:
            counts[keys[id(w)]] += len(w.sites)
    return counts
