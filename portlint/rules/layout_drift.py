"""A bound site's value differs from the canonical layout.

What it does: for every site a band claims, compares the written value with the
value the layout gives it: a range's low end (or a scan base) is the band's low,
its high end the band's high, a name under the band's `ports:` that port, a
single-port band its port. A site whose layout value is not a single number
(a plain port inside a range band) is flagged only when it leaves the band.
A run of ports written from a base (`[8000 + i for i in range(4)]`) is its base:
it drifts when the base does, and is reported when the run passes the band's end.
Port 0 (the kernel picks) is never reported or rewritten: PL102 judges zeros.
Why: the layout is declared once so that twenty files cannot disagree; a value
that drifted is how a stale port survives a layout change.
Example (fails, band master 1400-1999): `cluster.master_port_range_low: 1500`
Use instead: `cluster.master_port_range_low: 1400` (`portlint --fix` writes it).
Options: `bands` (`range`, `port`, `ports`, `sites`, `inferred`), `test_paths`.
Fix: safe when a person declared the band: rewrites the literal's digits (a
run's base, never its count), keeping its quoting and everything else. On a
band `portlint init` inferred (`inferred: true`, until a person deletes that line) the fix is unsafe: the band is a guess
at what the repository does, and its drift may be the truth. Such a band, learned
from this repository's own ports, says nothing of a port that is not one (a
test's, a pod's, a firewall rule's, a range's exclusive end, a port only
dialled; see PL101's "Whose port"): those are not compared with it.
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model.layout import Layout
from portlint.model.problems import Problem
from portlint.stages.layout.bind import canonical, drift
from portlint.stages.layout.ownership import ownership

CODE = "PL301"
NAME = "layout-drift"
NEEDS_LAYOUT = True
NEEDS = frozenset({"code_files"})  # whose port a site is (portlint.stages.layout.ownership)


def check(layout: Layout) -> Iterator[Problem]:
    owners = ownership(layout)
    for site in layout.code_sites:
        band = layout.band(site.band) if site.band and not site.derived else None
        if band is None or site.value == 0 or (band.inferred and not owners.ours(site)):
            continue
        wanted = drift(layout, site)
        if wanted is not None:
            yield Problem.replacing(
                site, CODE, f"{site.name}={site.value} drifted from the layout: band {band.name} gives {wanted}", wanted,
                safe=not band.inferred,
            )
        elif canonical(site, band) is None and not band.contains(site.value):  # a port of a range band
            yield Problem.at(site, CODE, f"{site.name}={site.value} lies outside band {band.name} ({band.span})")
        elif site.extent and not band.contains(site.top):  # a run of ports from the band's base, past its end
            yield Problem.at(site, CODE, f"{site.name}={site.value}-{site.top} runs past band {band.name} ({band.span})")
