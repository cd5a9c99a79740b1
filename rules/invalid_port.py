"""A port that cannot be bound as written.

What it does: flags a port outside 1–65535, a range whose low end is above its
high end, and port 0 where a fixed port is expected (a site bound to a band, or
a range bound).
Why: port 0 asks the kernel for an ephemeral port, which is exactly what a fixed
layout exists to avoid; values above 65535 and reversed ranges fail at startup.
Example (fails): `MIN_WORKER_PORT=2999` with `MAX_WORKER_PORT=2000`.
Fix: none; the right value is a human decision.
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.binding import ranges_and_singles
from portlint.model import HIGH, LOW, Layout
from portlint.problem import Problem

CODE = "PL102"
NAME = "invalid-port"
NEEDS_LAYOUT = False

_MAX_PORT = 65535


def check(layout: Layout) -> Iterator[Problem]:
    sites = layout.code_sites
    for site in sites:
        if site.value > _MAX_PORT:
            yield Problem.at(site, CODE, f"{site.name}={site.value} is not a port (1-{_MAX_PORT})")
        elif site.value == 0 and (site.band or site.role in (LOW, HIGH)):
            yield Problem.at(site, CODE, f"{site.name}=0 lets the kernel pick an ephemeral port where a fixed port is expected")
    ranges, _ = ranges_and_singles(sites)
    for pair in ranges:
        if pair.low.value > pair.high.value:
            yield Problem.at(
                pair.low, CODE,
                f"range {pair.low.name}={pair.low.value} is above {pair.high.name}={pair.high.value}",
            )
