"""Bind sites to bands, and pair range bounds into ranges."""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from portlint.model.globs import matcher
from portlint.model.layout import Band, Layout, Selector
from portlint.model.naming import range_stem
from portlint.model.ports import BASE, HIGH, LOW
from portlint.model.records import structs
from portlint.model.sites import Site

_INDEX = re.compile(r"\[\d+\]")


def files_match(patterns: tuple[str, ...], path: str) -> bool:
    return not patterns or matcher(patterns)(path)


class _Claims:
    """Every selector and `ports:` name of a layout, indexed by name.

    A site is looked up by its names and their dotted suffixes (what
    `name_matches` accepts) instead of trying every selector of every band.
    """

    def __init__(self, bands: tuple[Band, ...]) -> None:
        self.bands = bands
        self.index: dict[str, list[tuple[tuple[int, int], Band, Selector | None]]] = defaultdict(list)
        for order, band in enumerate(bands):
            for rank, selector in enumerate(band.sites):
                self.index[_bare(selector.name)].append(((order, rank), band, selector))
            for name, _ in band.ports:
                self.index[_bare(name)].append(((order, len(band.sites)), band, None))

    def claim(self, site: Site) -> tuple[Band, str] | None:
        found = [c for name in site.names for suffix in _suffixes(_bare(name)) for c in self.index.get(suffix, ())]
        for _, band, selector in sorted(found, key=lambda c: c[0]):
            if not files_match(band.files, site.path):
                continue
            if selector is None:
                return band, site.role
            if (not selector.kind or selector.kind == site.kind) and files_match(selector.files, site.path):
                return band, selector.role or site.role
        return None


def _bare(name: str) -> str:
    return name[2:] if name.startswith("--") else name


def _suffixes(name: str) -> list[str]:
    return [name, *(name[i + 1:] for i, char in enumerate(name) if char == ".")]


_CLAIMS: dict[int, _Claims] = {}


def band_for(site: Site, bands: tuple[Band, ...]) -> tuple[Band, str] | None:
    """The first band (in declaration order) claiming the site, and the role it gives.

    Within a band its selectors come first, in order, then its `ports:` names.
    """
    claims = _CLAIMS.get(id(bands))
    if claims is None or claims.bands is not bands:
        if len(_CLAIMS) > 64:
            _CLAIMS.clear()
        claims = _CLAIMS[id(bands)] = _Claims(bands)
    return claims.claim(site)


def bind(sites: Iterable[Site], bands: tuple[Band, ...]) -> tuple[Site, ...]:
    bound = []
    for site in sites:
        claim = band_for(site, bands) if bands else None
        if claim is not None:
            band, role = claim
            site = structs.replace(site, band=band.name, role=role)
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


def drift(layout: Layout, site: Site) -> int | None:
    """The value the layout gives `site` where the site drifted from it, else None.

    PL301's decision (it rewrites the site to that value), which PL401 reads too: a
    frozen copy's source that drifted is PL301's to fix first, and the copy then
    follows the layout, not the stale value. A site drifts when it is bound to a
    band, written as a literal (not computed), not 0 (the kernel's pick), and its
    role names one port of the band (`canonical`) other than the one it holds.
    """
    band = layout.band(site.band) if site.band and not site.derived else None
    if band is None or site.value == 0:
        return None
    wanted = canonical(site, band)
    return wanted if wanted is not None and wanted != site.value else None


def identity(site: Site) -> str:
    """What a site stands for: its band or, unbound, its leaf name (case, list indices
    and the low/high word aside), so `servers[0].port`, `port=` and `PORT` are one name."""
    if site.band:
        return site.band
    leaf = _INDEX.sub("", range_stem(site.name)).rsplit(".", 1)[-1]
    return "name:" + leaf.lstrip("-").replace("-", "_").lower()


