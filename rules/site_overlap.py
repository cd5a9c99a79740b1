"""Ports written in the files collide across bands.

What it does: collects every range (a low site paired with its high sibling in
the same file and scope) and every single port written in configs, scripts and
code, and flags two that share a port while belonging to different bands or,
unbound, carrying different names. The same range written under the same name
in twenty files is one thing, reported once at most.
Why: two services whose written ports overlap bind the same port on one node:
EADDRINUSE at startup.
Example (fails): `generation.port_range_low/high: 3000/4999` and
`DEFAULT_GYM_PORT_RANGE_LOW/HIGH = 4500/5999` in different bands.
Fix: none; decide which service moves (then PL301 fixes bound sites).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from portlint.binding import identity, ranges_and_singles
from portlint.model import Layout, Site
from portlint.naming import range_stem
from portlint.problem import Problem

CODE = "PL202"
NAME = "site-overlap"
NEEDS_LAYOUT = False

_MAX_PORT = 65535


@dataclass(frozen=True)
class _Written:
    """One range or port, at the first place it is written."""

    identity: str
    low: int
    high: int
    site: Site
    label: str


def check(layout: Layout) -> Iterator[Problem]:
    written = sorted(_written(layout), key=lambda w: (w.low, w.high, w.site.path, w.site.line))
    active: list[_Written] = []
    for current in written:
        active = [w for w in active if w.high >= current.low]
        for other in active:
            if other.identity != current.identity and not _allowed(layout, other, current):
                yield _problem(other, current)
        active.append(current)


def _written(layout: Layout) -> Iterator[_Written]:
    ranges, singles = ranges_and_singles(s for s in layout.code_sites if not s.derived)
    first: dict[tuple[str, int, int], _Written] = {}
    candidates = [
        (r.low, r.low.value, r.high.value, f"{range_stem(r.low.name)} {r.low.value}-{r.high.value}")
        for r in ranges
    ]
    candidates += [(s, s.value, s.value, f"{s.name}={s.value}") for s in singles]
    for site, low, high, label in sorted(candidates, key=lambda c: (c[0].path, c[0].line, c[0].column)):
        if 0 < low <= high <= _MAX_PORT:
            first.setdefault((identity(site), low, high), _Written(identity(site), low, high, site, label))
    return iter(first.values())


def _allowed(layout: Layout, a: _Written, b: _Written) -> bool:
    return bool(a.site.band and b.site.band and layout.related(a.site.band, b.site.band))


def _problem(a: _Written, b: _Written) -> Problem:
    earlier, later = sorted((a, b), key=lambda w: (w.site.path, w.site.line, w.site.column))
    where = f"{earlier.site.path}:{earlier.site.line}"
    return Problem.at(later.site, CODE, f"{_describe(later)} overlaps {_describe(earlier)} at {where}")


def _describe(written: _Written) -> str:
    band = f" (band {written.site.band})" if written.site.band else ""
    return written.label + band
