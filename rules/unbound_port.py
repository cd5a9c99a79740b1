"""A port literal that no band of the declared layout claims.

What it does: when the config declares bands, flags every port site in configs,
scripts and code that no band's selectors (or `ports:` names) bind.
Why: an unclaimed port is outside the checked invariant: nothing keeps it in
its lane when the layout changes.
Port 0 asks the kernel for a free port: there is nothing for a band to claim.
Example (fails): `metrics_port: 9400` when no band lists `metrics_port`.
Fix: none; add a selector to the right band, or suppress with `# portlint: ignore[PL302]`.
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model import Layout
from portlint.problem import Problem

CODE = "PL302"
NAME = "unbound-port"
NEEDS_LAYOUT = True


def check(layout: Layout) -> Iterator[Problem]:
    if not layout.declared:
        return
    for site in layout.code_sites:
        if not site.band and not site.derived and site.value != 0:
            yield Problem.at(site, CODE, f"{site.name}={site.value} is not claimed by any band of the layout")
