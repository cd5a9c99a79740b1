"""PL202 is near-linear in the sites of one port: services are joined by what their members share
(an identity, a band, a name's leaf, words, a manifest entry) and collisions counted per value and
by bisection, never by comparing every pair. The pairwise comparison stays here as the reference
the grouping is checked against on random layouts.

An adversarial campaign (issue 39) found one port written under 2,000 names took ~27 s.
"""
from __future__ import annotations

import random
import time
from typing import Any

import pytest

from portlint.model.layout import Band, Layout
from portlint.model.sites import Site
from portlint.rules import site_overlap
from portlint.stages.layout.services import UnionFind, same_service

BUDGET = 2.0  # seconds


def _site(path: str, name: str, value: int, kind: str = "shell", line: int = 1, **more: Any) -> Site:
    return Site(path, line, 1, 0, len(str(value)), kind, name, value, **more)


@pytest.mark.slow
def test_ten_thousand_sites_of_one_port_are_checked_in_well_under_ten_seconds() -> None:
    """Every pair of sites went through the same-service test: 2,000 names of one port took ~27 s."""
    sites = tuple(
        _site(f"svc{i % 50}/run.sh", name, 8000, line=i + 1)
        for i, name in enumerate([f"SERVICE{i}_PORT" for i in range(5_000)] + [f"S{i}_APP_PORT" for i in range(5_000)])
    )
    layout = Layout(32768, sites=sites)
    began = time.perf_counter()
    [problem] = site_overlap.check(layout)
    assert time.perf_counter() - began < BUDGET * 2
    assert problem.message.startswith("port 8000 written by ")


def _pairwise_services(layout: Layout, group: list[Any]) -> list[list[Any]]:
    """PL202's services as it found them before: every pair of members compared (the reference)."""
    declared, position = site_overlap._declared, site_overlap._position

    def one_service(a: Any, b: Any) -> bool:
        if a.identity == b.identity:
            return True
        if declared(layout, a) and declared(layout, b):
            return layout.related(a.site.band, b.site.band)
        return any(same_service(x, y) for x in a.sites for y in b.sites)

    def collide(a: Any, b: Any) -> bool:
        if not (a.low <= b.high and b.low <= a.high):
            return False
        if a.low != a.high or b.low != b.high:
            return True
        if declared(layout, a) or declared(layout, b):
            return True
        return bool({site_overlap._together(s) for s in a.sites} & {site_overlap._together(s) for s in b.sites})

    classes = UnionFind(len(group))
    for i, a in enumerate(group):
        for j in range(i + 1, len(group)):
            if one_service(a, group[j]):
                classes.union(i, j)
    colliding = {
        root for i, a in enumerate(group) for j in range(i + 1, len(group))
        if classes.find(i) != classes.find(j) and collide(a, group[j])
        for root in (classes.find(i), classes.find(j))
    }
    by_root: dict[int, list[Any]] = {}
    for index, member in enumerate(group):
        if classes.find(index) in colliding:
            by_root.setdefault(classes.find(index), []).append(member)
    services = [sorted(members, key=lambda w: position(w.site)) for members in by_root.values()]
    return sorted(services, key=lambda members: position(members[0].site))


_NAMES = [
    "VLLM_PORT", "vllm_port", "METRICS_PORT", "metrics.port", "MCP_PORT", "MCP_TRANSPORT_PORT", "port", "--port",
    "SANDBOX_PORT", "sandbox_server_port", "server.port", "grafana.port", "prometheus.port", "a.b.c.d.e.f.g.h.i.j.k_port",
    "spec.ports[0].nodePort", "thanosService.nodePort", "thanosServiceExternal.nodePort", "hostPort",
    "MASTER_PORT_RANGE_LOW", "MASTER_PORT_RANGE_HIGH", "gym_port_low", "gym_port_high", "RAY_PORT",
    # node-level ports written in Python for a pod (the Kubernetes client's models: `Site.pod`)
    "node_port", "host_port",
]
_BANDS = (
    Band("engine", 7000, 8999, shares_with=("router",)), Band("router", 8000, 8099),
    Band("dash", 8000, 8000, within="engine"), Band("guess", 8000, 8100, inferred=True), Band("alone", 8000, 8010),
)


def _random_layout(rng: random.Random) -> Layout:
    sites = []
    for line in range(1, rng.randint(2, 14)):
        name = rng.choice(_NAMES)
        kind = "yaml" if "." in name or "Port" in name else rng.choice(["shell", "python"])
        high = name.endswith(("HIGH", "high"))
        value = rng.choice([8000, 8001, 8005]) + (50 if high else 0)
        sites.append(_site(
            rng.choice(["a.yaml", "b.sh", "c.py", "tests/t.py", "k/svc.yaml"]), name, value, kind, line,
            role="high" if high else "low" if name.endswith(("LOW", "low")) else "port",
            scope=rng.choice(["", "Server", "spec"]), band=rng.choice(["", "", "engine", "router", "dash", "guess", "alone"]),
            aliases=tuple(rng.sample(["SERVER_PORT", "ROUTER_PORT", "Sandbox.__init__.port"], rng.randint(0, 1))),
            pod=kind == "python" and rng.random() < 0.3,
        ))
    return Layout(32768, _BANDS, tuple(sites), declared=True)


def test_pl202_groups_services_as_comparing_every_pair_did() -> None:
    rng = random.Random(39)
    compared = 0
    for _ in range(3000):
        layout = _random_layout(rng)
        for scoped in site_overlap._scopes(layout, site_overlap._written(layout)):
            for group in site_overlap._overlapping(scoped):
                expected = _pairwise_services(layout, group)
                assert site_overlap._services(layout, group) == expected, layout
                compared += len(expected) > 1
    assert compared > 300  # the layouts collide often enough to say something
