"""A port that cannot be bound as written.

What it does: flags a port outside 1–65535, a range whose low end is above its
high end, and port 0 as a range bound or where a band a person declared expects
a fixed port. Any other single port 0 is not reported: asking the kernel for a
port and holding the socket it gives is a design (PL602 reports the broken form,
a port bound, closed and handed on), and a band `portlint init` inferred
(`inferred: true`) is a guess, not a declaration. Test-like paths
(`test_paths:`) are not checked: a test writes a bad port to see it refused.
Why: a range from or to 0 is not a range of fixed ports; values above 65535 and
reversed ranges fail at startup.
Example (fails): `MIN_WORKER_PORT=2999` with `MAX_WORKER_PORT=2000`.
Fix: none; the right value is a human decision.
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.binding import ranges_and_singles
from portlint.model import Layout
from portlint.problem import Problem

CODE = "PL102"
NAME = "invalid-port"
NEEDS_LAYOUT = False
NEEDS: frozenset[str] = frozenset()  # sites, bands and failures only

_MAX_PORT = 65535


def check(layout: Layout) -> Iterator[Problem]:
    sites = [site for site in layout.code_sites if not layout.in_tests(site)]
    ranges, _ = ranges_and_singles(sites)
    bounds = {id(site) for pair in ranges for site in (pair.low, pair.high)}
    for site in sites:
        if site.value > _MAX_PORT:
            yield Problem.at(site, CODE, f"{site.name}={site.value} is not a port (1-{_MAX_PORT})")
        elif site.value == 0 and (id(site) in bounds or _confirmed(layout, site.band)):
            yield Problem.at(site, CODE, f"{site.name}=0 lets the kernel pick an ephemeral port where a fixed port is expected")
    for pair in ranges:
        if pair.low.value > pair.high.value:
            yield Problem.at(
                pair.low, CODE,
                f"range {pair.low.name}={pair.low.value} is above {pair.high.name}={pair.high.value}",
            )


def _confirmed(layout: Layout, name: str) -> bool:
    band = layout.band(name) if name else None
    return band is not None and not band.inferred
