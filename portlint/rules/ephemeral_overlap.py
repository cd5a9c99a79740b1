"""A port or range reaches the kernel's ephemeral range.

What it does: flags every site whose port (or whose range's high end) is at or
above `ephemeral_floor`, and every declared band that reaches it. Not checked:
test-like paths (`test_paths:`: a test restates a default or binds in-process),
and a pod's own Kubernetes ports (`containerPort`, a Service's `port`/`targetPort`:
they state what the image listens on, inside the pod's network namespace), and a
client's default for the server it dials: a parameter default whose every read
provably ends at the far end of a connection (`f"{host}:{port}"` to a gRPC client,
`connect`, an HTTP URL; `portlint.analysis.destinations`): the port is that server's, and
this repository listens on nothing there.
Nor the bounds of a range over every port (`port_min=1, port_max=65535`: a firewall
rule's "any port"), which names no port anything listens on.
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
from portlint.stages.layout.services import POD, kubernetes

CODE = "PL101"
NAME = "ephemeral-overlap"
NEEDS_LAYOUT = False
NEEDS = frozenset({"code_files"})  # where a parameter's default goes (portlint.analysis.destinations)



def check(layout: Layout) -> Iterator[Problem]:
    floor = layout.ephemeral_floor
    for band in layout.bands:
        if band.high >= floor:
            yield at_band(
                layout.config_path, band, CODE,
                f"band {band.name} ({band.span}) reaches the ephemeral range ({floor}+)",
            )
    for site in layout.code_sites:
        if layout.in_tests(site) or kubernetes(site) == POD or layout.any_port(site):
            continue
        if floor <= site.value <= MAX_PORT and not layout.destinations.connect_only(site):
            what = f"{site.name} = {site.derived} = {site.value}" if site.derived else f"{site.name}={site.value}"
            yield Problem.at(site, CODE, f"{what} reaches the ephemeral range ({floor}+)")
