"""A port below 1024 without `privileged: true` on its band.

What it does: flags bands a person declared that start below 1024 and sites
bound to a band with a value in 1–1023, unless their band says `privileged: true`
(PL302 reports unbound ones; a band `portlint init` inferred is reported at its sites).
{whose-port}
Why: binding below 1024 needs root or CAP_NET_BIND_SERVICE; a training job
that runs unprivileged dies at startup with EACCES.
Example (fails): `sandbox.nginx_port: 80` bound to a band without `privileged: true`.
Use instead: `sandbox.nginx_port: 6000`, in a band at 1024 or above (or `privileged: true`
on the band, when the service does run as root).
Options: `bands.<name>.privileged`, `test_paths`.
Fix: none; pick a port of 1024 or above, or declare the band privileged.
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model.layout import Layout
from portlint.model.ports import PRIVILEGED_CEILING
from portlint.model.problems import Problem, at_band
from portlint.rules.common.docs import expand
from portlint.stages.layout.ownership import ownership

__doc__ = expand(__doc__)

CODE = "PL103"
NAME = "privileged-port"
NEEDS_LAYOUT = True
NEEDS = frozenset({"code_files"})  # whose port a site is (portlint.stages.layout.ownership)


def check(layout: Layout) -> Iterator[Problem]:
    for band in layout.bands:
        if band.low < PRIVILEGED_CEILING and not band.privileged and not band.inferred:  # its sites say it
            yield at_band(
                layout.config_path, band, CODE,
                f"band {band.name} starts at {band.low}, below {PRIVILEGED_CEILING}, without privileged: true",
            )
    owners = ownership(layout)
    for site in layout.code_sites:
        owner = layout.band(site.band) if site.band else None
        if owner is None or not owners.ours(site):
            continue
        if 0 < site.value < PRIVILEGED_CEILING and not owner.privileged:
            yield Problem.at(site, CODE, f"{site.name}={site.value} is a privileged port (below {PRIVILEGED_CEILING})")
