"""Bind sites to bands, and pair range bounds into ranges."""
from __future__ import annotations

import re
from collections.abc import Iterable

from portlint.model.layout import Band, Claims, Layout
from portlint.model.naming import range_stem
from portlint.model.ports import BASE, HIGH, LOW
from portlint.model.records import structs
from portlint.model.sites import Site

_INDEX = re.compile(r"\[\d+\]")


def bind(sites: Iterable[Site], claims: Claims) -> tuple[Site, ...]:
    """Each site with the band that claims it (and the role the band gives it), if any."""
    bound = []
    for site in sites:
        claim = claims.claim(site)
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


