"""Bind sites to bands (SPEC §2), and pair range bounds into ranges."""
from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache

from portlint.model import BASE, HIGH, LOW, Band, Range, Selector, Site, name_matches
from portlint.naming import range_stem

_INDEX = re.compile(r"\[\d+\]")


@lru_cache(maxsize=4096)
def _spec(patterns: tuple[str, ...]) -> object:
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(patterns)


def files_match(patterns: tuple[str, ...], path: str) -> bool:
    return not patterns or _spec(patterns).match_file(path)


def _selects(selector: Selector, site: Site) -> bool:
    if selector.kind and selector.kind != site.kind:
        return False
    if not files_match(selector.files, site.path):
        return False
    return any(name_matches(selector.name, name) for name in site.names)


def band_for(site: Site, bands: Iterable[Band]) -> tuple[Band, str] | None:
    """The first band (in declaration order) claiming the site, and the role it gives."""
    for band in bands:
        if not files_match(band.files, site.path):
            continue
        for selector in band.sites:
            if _selects(selector, site):
                return band, selector.role or site.role
        if any(band.port_named(name) is not None for name in site.names):
            return band, site.role
    return None


def bind(sites: Iterable[Site], bands: tuple[Band, ...]) -> tuple[Site, ...]:
    bound = []
    for site in sites:
        claim = band_for(site, bands) if bands else None
        if claim is not None:
            band, role = claim
            site = dataclasses.replace(site, band=band.name, role=role)
        bound.append(site)
    return tuple(bound)


def canonical(site: Site, band: Band) -> int | None:
    """The value the layout gives a bound site, or None when it names no single value."""
    for name in site.names:
        port = band.port_named(name)
        if port is not None:
            return port
    if site.role in (LOW, BASE):
        return band.low
    if site.role == HIGH:
        return band.high
    return band.low if band.low == band.high else None


def identity(site: Site) -> str:
    """What a site stands for: its band or, unbound, its leaf name (case, list indices
    and the low/high word aside), so `servers[0].port`, `port=` and `PORT` are one name."""
    if site.band:
        return site.band
    leaf = _INDEX.sub("", range_stem(site.name)).rsplit(".", 1)[-1]
    return "name:" + leaf.lstrip("-").replace("-", "_").lower()


def ranges_and_singles(sites: Iterable[Site]) -> tuple[list[Range], list[Site]]:
    """Pair each low with its high sibling (same file, scope and stem); the rest stand alone."""
    groups: dict[tuple[str, str, str], list[Site]] = defaultdict(list)
    singles = []
    for site in sites:
        if site.role in (LOW, HIGH) and not site.derived:
            groups[(site.path, site.scope, range_stem(site.name))].append(site)
        else:
            singles.append(site)
    ranges = []
    for members in groups.values():
        lows = [s for s in members if s.role == LOW]
        highs = [s for s in members if s.role == HIGH]
        if len(lows) == 1 and len(highs) == 1:
            ranges.append(Range(lows[0], highs[0]))
        else:
            singles += members
    return ranges, singles

