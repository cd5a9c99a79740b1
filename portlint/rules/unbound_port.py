"""A port literal that no band of the declared layout claims.

What it does: when a person declared bands, flags every port site in configs,
scripts and code that no band's selectors (or `ports:` names) bind. A layout
whose every band `portlint init` inferred (`inferred: true`) is a description of
what the repository writes, not a decision about where ports go: a port it left
out lies outside no chosen lane, and is not reported.
Why: an unclaimed port is outside the checked invariant: nothing keeps it in
its lane when the layout changes.
Port 0 asks the kernel for a free port: there is nothing for a band to claim.
{whose-port}
Nor a port below 1024 whose name does not say it listens (a well-known port of
a server elsewhere: a DNS egress rule's 53, a probe to 8.8.8.8:80).
Example (fails): `metrics_port: 9400` when no band lists `metrics_port`.
Use instead: a band that claims it, `metrics: {port: 9400, sites: [metrics_port]}`.
Options: `bands.<name>.sites` and `ports`, `test_paths`.
Fix: none; add a selector to the right band, or suppress with `# portlint: ignore[PL302]`.
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model.layout import Layout
from portlint.model.problems import Problem
from portlint.rules.common.docs import expand
from portlint.stages.layout.ownership import ownership
from portlint.stages.layout.services import somebody_elses

__doc__ = expand(__doc__)

CODE = "PL302"
NAME = "unbound-port"
NEEDS_LAYOUT = True
NEEDS = frozenset({"code_files"})  # where a parameter's default goes (portlint.analysis.destinations)


def check(layout: Layout) -> Iterator[Problem]:
    if not layout.decided:  # a layout `portlint init` inferred decides no lane a port is outside of
        return
    owners = ownership(layout)
    for site in layout.code_sites:
        if site.band or site.derived or site.value == 0 or somebody_elses(site) or not owners.ours(site):
            continue
        yield Problem.at(site, CODE, f"{site.name}={site.value} is not claimed by any band of the layout")
