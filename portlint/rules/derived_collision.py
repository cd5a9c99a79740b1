"""A port computed in a script (`$((X + 1))`) equals another port, or leaves its band.

What it does: takes every derived site (shell arithmetic over variables with
known defaults: `$((${NODE_MANAGER_PORT} + 1))`, `$((BASE*2+1))`), and flags one
whose value equals another port written in the same file (or falls inside a
range written there), equals a port of the layout (a name under a band's
`ports:`, a single-port band), or, when it is bound (or its base variable is),
lies outside that band. The message shows the computation.
Why: computed ports are how one script runs two roles on one node (ray.sub's
head takes each worker port + 1); nobody writes the result down, so nothing else
checks it, and an off-by-one lands the head's node manager on the worker's
object manager: EADDRINUSE on node 0 only.
Example (fails, ray-mgmt ports {NODE_MANAGER_PORT: 1301, OBJECT_MANAGER_PORT: 1302}):
`--node-manager-port=$((${NODE_MANAGER_PORT} + 1))` gives 1302.
Use instead: ports {NODE_MANAGER_PORT: 1301, OBJECT_MANAGER_PORT: 1303}: the head's
`$((${NODE_MANAGER_PORT} + 1))` is 1302, which nothing else takes.
Options: `bands.<name>.ports`.
Fix: none; change the offset or the layout so the computed ports stay apart.
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator

from portlint.model.layout import Band, Layout
from portlint.model.ports import MAX_PORT, PORT
from portlint.model.problems import Problem
from portlint.model.selectors import name_matches
from portlint.model.sites import Site, Written

CODE = "PL204"
NAME = "derived-collision"
NEEDS_LAYOUT = False
NEEDS: frozenset[str] = frozenset()  # sites, bands and failures only

_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check(layout: Layout) -> Iterator[Problem]:
    by_path: dict[str, list[Site]] = defaultdict(list)
    for site in layout.code_sites:
        by_path[site.path].append(site)
    ranges_in: dict[str, list[Written]] = defaultdict(list)
    for written in layout.written:
        if written.is_range:
            ranges_in[written.first.path].append(written)
    for path, sites in by_path.items():
        derived = [s for s in sites if s.derived and 0 < s.value <= MAX_PORT]
        if not derived:
            continue
        ranges = ranges_in[path]
        for site in derived:
            reason = _collision(site, sites, ranges) or _layout_collision(layout, site) or _leaves_band(layout, site, sites)
            if reason:
                yield Problem.at(site, CODE, f"{_computed(site)} {reason}")


def _computed(site: Site) -> str:
    prefix = "" if site.name == site.derived else f"{site.name} = "
    return f"{prefix}{site.derived} = {site.value}"


def _collision(site: Site, sites: list[Site], ranges: list[Written]) -> str:
    """Another port of the same file with this value (or a range of it around the value)."""
    for other in sites:
        if other is site or other.value != site.value or _same_port(site, other):
            continue
        shown = _computed(other) if other.derived else f"{other.name} = {other.value}"
        return f"collides with {shown} (line {other.line})"
    for pair in ranges:
        if pair.low <= site.value <= pair.high and not _same_port(site, pair.first):
            return f"falls in {pair.name} {pair.span} (line {pair.first.line})"
    return ""


def _same_port(site: Site, other: Site) -> bool:
    """The same port written twice (a shared name, the same computation), or the base it is
    computed from: `$((BASE_PORT + RANK * 10))` is meant to start at BASE_PORT."""
    if site.derived and site.derived == other.derived:
        return True
    if other.role != PORT and not other.derived and not set(other.names).isdisjoint(_VARIABLE.findall(site.derived)):
        return True
    return not set(site.names).isdisjoint(other.names)


def _layout_collision(layout: Layout, site: Site) -> str:
    """A named port or a single-port band of the layout with this value, other than the site's own."""
    for band in layout.bands:
        for name, port in band.ports:
            if port == site.value and not any(name_matches(name, own) for own in site.names):
                return f"collides with {name} = {port} (band {band.name})"
        if band.low == band.high == site.value and band.name != site.band:
            return f"collides with band {band.name} = {band.low}"
    return ""


def _leaves_band(layout: Layout, site: Site, sites: list[Site]) -> str:
    band = _band_of(layout, site, sites)
    if band is None or band.contains(site.value):
        return ""
    return f"leaves band {band.name} ({band.span})"


def _band_of(layout: Layout, site: Site, sites: list[Site]) -> Band | None:
    """The site's own band, else the band of the first variable it is computed from."""
    if site.band:
        return layout.band(site.band)
    for variable in _VARIABLE.findall(site.derived):
        for other in sites:
            if other.band and not other.derived and variable in other.names:
                return layout.band(other.band)
    return None
