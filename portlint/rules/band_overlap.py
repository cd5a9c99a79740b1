"""Two declared bands overlap.

What it does: groups the bands of the layout that share ports (directly or
through a band between them), leaving out pairs declared `within` one another
(a carve-out) or `shares_with` each other (services that never run together),
and reports each group once, at its first declared band, naming every member
with its line. A band whose sites all sit in test-like paths (`test_paths:`)
is compared with test bands only. Two bands `portlint init` inferred (`inferred:
true`) describe the sites they were learned from: their overlap is reported at
the first site of one that lies in the other beyond the ports the other's sites
write (a band the docs widened), in the code where a suppression can go; where
the written ports themselves collide, PL202 reports them.
Why: two services given the same ports by the layout itself will collide as
soon as both run on one node.
Example (fails): `gym: {range: 5000-5999}` and `sandbox: {range: 5500-6999}`.
Use instead: `sandbox: {range: 6000-6999}`, or `shares_with: [gym]` on one of them
when the two never run together.
Options: `bands.<name>.within`, `bands.<name>.shares_with`, `test_paths`.
Fix: none; move one band, or declare the relation.
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model.layout import Band, Layout
from portlint.model.problems import Problem, at_band
from portlint.model.sites import Site
from portlint.stages.layout.services import UnionFind

CODE = "PL201"
NAME = "band-overlap"
NEEDS_LAYOUT = True
NEEDS: frozenset[str] = frozenset()  # sites, bands and failures only


def check(layout: Layout) -> Iterator[Problem]:
    bands = list(layout.bands)
    tests = _test_bands(layout)
    groups = UnionFind(len(bands))
    colliding: set[int] = set()
    inferred: list[tuple[Band, Band]] = []
    for i, first in enumerate(bands):
        for j in range(i + 1, len(bands)):
            second = bands[j]
            if first.overlaps(second) and not layout.related(first.name, second.name) \
                    and (first.name in tests) == (second.name in tests):
                if first.inferred and second.inferred:
                    inferred.append((first, second))
                    continue
                groups.union(i, j)
                colliding.update((i, j))
    yield from _at_sites(layout, inferred)
    members: dict[int, list[Band]] = {}
    for index in sorted(colliding):
        members.setdefault(groups.find(index), []).append(bands[index])
    for group in members.values():
        listed = ", ".join(f"{b.name} ({b.span}, line {b.line})" for b in group)
        yield at_band(
            layout.config_path, group[0], CODE,
            f"{len(group)} bands overlap: {listed}; declare within/shares_with if intended",
        )


def _at_sites(layout: Layout, pairs: list[tuple[Band, Band]]) -> Iterator[Problem]:
    """Two inferred bands that overlap, at the first site of one that lies in the other beyond the
    ports the other's sites write (a band the docs widened): the code holds the hazard, and a
    suppression can go there. Where the written ports themselves collide, PL202 reports them."""
    bound: dict[str, list[Site]] = {}
    for site in layout.code_sites:
        if site.band and not site.derived:
            bound.setdefault(site.band, []).append(site)
    for pair in pairs:
        for band, other in (pair, pair[::-1]):
            written = [s.value for s in bound.get(other.name, ())]
            inside = [
                s for s in bound.get(band.name, ())
                if other.contains(s.value) and not (written and min(written) <= s.value <= max(written))
            ]
            if inside:
                site = min(inside, key=lambda s: (s.path, s.line, s.column))
                yield Problem.at(
                    site, CODE,
                    f"{site.name}={site.value} (band {band.name}) lies in band {other.name} ({other.span}), beyond "
                    f"the ports its sites write; declare within/shares_with if intended",
                )
                break


def _test_bands(layout: Layout) -> set[str]:
    """Bands every bound site of which is in test scope (a test-like path, a value given to a mock)."""
    sites: dict[str, list[Site]] = {}
    for site in layout.code_sites:
        if site.band:
            sites.setdefault(site.band, []).append(site)
    return {band for band, bound in sites.items() if all(layout.in_tests(site) for site in bound)}
