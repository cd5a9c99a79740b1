"""A port that cannot be bound as written.

What it does: flags a port outside 1–65535, a range whose low end is above its
high end, and port 0 as a range bound or where a band a person declared expects
a fixed port. Any other single port 0 is not reported: asking the kernel for a
port and holding the socket it gives is a design (PL602 reports the broken form,
a port bound, closed and handed on), and a band `portlint init` inferred
(`inferred: true`) is a guess, not a declaration.
{whose-port}
Why: a range from or to 0 is not a range of fixed ports; values above 65535 and
reversed ranges fail at startup.
Example (fails): `MIN_WORKER_PORT=2999` with `MAX_WORKER_PORT=2000`.
Use instead: `MIN_WORKER_PORT=2000` with `MAX_WORKER_PORT=2999`.
Options: `test_paths`.
Fix: none; the right value is a human decision.
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model.layout import Layout
from portlint.model.ports import MAX_PORT, MIN_PORT, span
from portlint.model.problems import Problem
from portlint.rules.common.docs import expand
from portlint.stages.layout.ownership import ownership

__doc__ = expand(__doc__)

CODE = "PL102"
NAME = "invalid-port"
NEEDS_LAYOUT = False
NEEDS = frozenset({"code_files"})  # whose port a site is (portlint.stages.layout.ownership)


def check(layout: Layout) -> Iterator[Problem]:
    owners = ownership(layout)
    sites = [site for site in layout.code_sites if owners.ours(site)]
    ranges = [w for w in layout.written if w.is_range and all(owners.ours(site) for site in w.sites)]
    bounds = {id(site) for pair in ranges for site in pair.sites}
    for site in sites:
        if site.value > MAX_PORT:
            yield Problem.at(site, CODE, f"{site.name}={site.value} is not a port ({span(MIN_PORT, MAX_PORT)})")
        elif site.value == 0 and (id(site) in bounds or _confirmed(layout, site.band)):
            yield Problem.at(site, CODE, f"{site.name}=0 lets the kernel pick an ephemeral port where a fixed port is expected")
    for pair in ranges:
        low, high = pair.sites
        if low.value > high.value:
            yield Problem.at(low, CODE, f"range {low.name}={low.value} is above {high.name}={high.value}")


def _confirmed(layout: Layout, name: str) -> bool:
    band = layout.band(name) if name else None
    return band is not None and not band.inferred
