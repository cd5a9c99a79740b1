"""A port or range reaches the kernel's ephemeral range.

What it does: flags every site whose port (or whose range's high end, or the
last port of a run written from a base: `[BASE + i for i in range(4)]`,
`list(range(40000, 40008))`) is at or above `ephemeral_floor`, and every band a person declared that reaches it (a
band `portlint init` inferred is reported at its sites, where a suppression
can go).
{whose-port}
A client's default counts as dialled where every read of it provably ends at
the far end of a connection (`f"{host}:{port}"` to a gRPC client, `connect`, an
HTTP URL; `portlint.analysis.destinations`).
Why: the kernel hands ports from that range to outgoing connections (32768–60999
on stock Linux, from 9000 on some GB200 nodes). A service that probes such a
port, releases it and binds it later loses the race at scale: EADDRINUSE at
startup, intermittently, on big clusters only.
Example (fails, floor 9000): `cluster.master_port_range_high: 25000`
Use instead: `cluster.master_port_range_high: 1999`, the band moved below the floor
(`range: 1400-1999`); `portlint --fix` then rewrites the sites bound to it.
Options: `ephemeral_floor` (a number, or `auto` for this host's range), `test_paths`.
Fix: via the layout: move the band below the floor, then PL301 rewrites bound sites.
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model.layout import Layout
from portlint.model.ports import MAX_PORT
from portlint.model.problems import Problem, at_band
from portlint.rules.common.docs import expand
from portlint.stages.layout.ownership import ownership

__doc__ = expand(__doc__)

CODE = "PL101"
NAME = "ephemeral-overlap"
NEEDS_LAYOUT = False
NEEDS = frozenset({"code_files"})  # where a parameter's default goes (portlint.analysis.destinations)



def check(layout: Layout) -> Iterator[Problem]:
    floor = layout.ephemeral_floor
    for band in layout.bands:
        if band.high >= floor and not band.inferred:  # an inferred band describes its sites: they are reported
            yield at_band(
                layout.config_path, band, CODE,
                f"band {band.name} ({band.span}) reaches the ephemeral range ({floor}+)",
            )
    owners = ownership(layout)
    for site in layout.code_sites:
        if floor <= site.top and site.value <= MAX_PORT and owners.ours(site):
            what = f"{site.name} = {site.derived} = {site.value}" if site.derived else f"{site.name}={site.value}"
            what += f"-{site.top}" if site.extent else ""
            yield Problem.at(site, CODE, f"{what} reaches the ephemeral range ({floor}+)")
