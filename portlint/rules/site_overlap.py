"""Ports written in the files collide across bands.

What it does: collects every range (a low site paired with its high sibling in
the same file and scope) and every single port written in configs, scripts and
code, joins those that are one service under several names (one name or
declared band, a shell fallback chain, a value passed on, words that say the
same thing: see `portlint.stages.layout.services`), and reports each group of overlapping
ports where two services meet: once, at the group's first site, naming every
member with its place. Services meet where a range overlaps another's port or
range, or two single ports agree in one file (in Python, one class or function),
or where one is in a band a person declared; two defaults that agree elsewhere are not
reported (most are one value restated under another name; the rest run on
different hosts, or are alternative deployments).
Whose port: a value is this repository's port only where the repository
binds or serves it, or hands it to something that does. Not judged: test scope
(`test_paths:`, values given to mocks), a port bound inside a Kubernetes pod's
own network namespace (`containerPort`, a Service's ports, a container's keys,
a Helm chart's values, the Kubernetes client's models), a firewall or
security-group rule's port (a range over every port too), a range's exclusive
end (`max_port = 65536` read as `range(min_port, max_port)`), and a value the
repository only dials (a client's default for the server it connects to).
Where portlint cannot tell, it reports less.
Test-like paths (`test_paths:`) are a scope of their own: a test file's ports
are compared with each other only.
Why: two services whose written ports overlap bind the same port on one node:
EADDRINUSE at startup.
Example (fails): `generation.port_range_low/high: 3000/4999` and
`DEFAULT_GYM_PORT_RANGE_LOW/HIGH = 4500/5999` in different bands.
Use instead: `DEFAULT_GYM_PORT_RANGE_LOW/HIGH = 5000/5999`, clear of generation's 3000-4999.
Options: `bands`, `test_paths`.
Fix: none; decide which service moves (then PL301 fixes bound sites).
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model.layout import Layout
from portlint.model.ports import MAX_PORT
from portlint.model.problems import Problem
from portlint.model.records import Struct, field
from portlint.model.sites import Site
from portlint.stages.layout.ownership import OURS, TEST, ownership
from portlint.stages.layout.services import POD, UnionFind, identity, kubernetes, same_service

CODE = "PL202"
NAME = "site-overlap"
NEEDS_LAYOUT = False
NEEDS = frozenset({"code_files"})  # whose port a site is (portlint.stages.layout.ownership)

_SHOWN = 4  # places named per member; the rest are counted


class _Written(Struct):
    """One range or port under one name, at the first place it is written."""

    identity: str
    low: int
    high: int
    site: Site
    label: str
    sites: list[Site] = field(default_factory=list)
    written: list[Site] = field(default_factory=list)  # every site of every range or port it stands for

    @property
    def place(self) -> str:
        places = list(dict.fromkeys(f"{s.path}:{s.line}" for s in self.sites))
        more = f" (+{len(places) - _SHOWN} more)" if len(places) > _SHOWN else ""
        band = f" (band {self.site.band})" if self.site.band else ""
        return f"{self.label}{band} at {', '.join(places[:_SHOWN])}{more}"


def check(layout: Layout) -> Iterator[Problem]:
    owners = ownership(layout)
    for scoped in _scopes(layout, _written(layout)):
        for group in _overlapping(scoped):
            bound = [w for w in group if all(owners.of(site) in (OURS, TEST) for site in w.written)]
            services = _services(layout, bound) if len(bound) > 1 else []
            if len(services) > 1:
                yield _problem(services)


def _scopes(layout: Layout, written: list[_Written]) -> Iterator[list[_Written]]:
    """Production sites together; a test file's sites with each other only (its ports run in
    one test session; two test files, or a test and the code it tests, do not bind together)."""
    yield [w for w in written if not layout.in_tests(w.site)]
    tests: dict[str, list[_Written]] = {}
    for w in written:
        if layout.in_tests(w.site):
            tests.setdefault(w.site.path, []).append(w)
    yield from tests.values()


def _written(layout: Layout) -> list[_Written]:
    candidates = [
        (w.first, w.low, w.high, f"{w.name} {w.span}" if w.is_range else f"{w.name}={w.span}", w.sites)
        for w in layout.written
        if not w.every_port  # a firewall's "any port": no service's lane
    ]
    first: dict[tuple[str, int, int, str], _Written] = {}
    for site, low, high, label, sites in sorted(candidates, key=lambda c: _position(c[0])):
        if not 0 < low <= high <= MAX_PORT or kubernetes(site) == POD:
            continue
        key = (identity(site), low, high, site.path if layout.in_tests(site) else "")
        if key in first:
            first[key].sites.append(site)
            first[key].written += sites
        else:
            first[key] = _Written(identity(site), low, high, site, label, sites=[site], written=list(sites))
    return list(first.values())


def _overlapping(written: list[_Written]) -> Iterator[list[_Written]]:
    """Runs of ranges and ports that overlap, one another or through a member between them."""
    group: list[_Written] = []
    reach = -1
    for current in sorted(written, key=lambda w: (w.low, w.high, _position(w.site))):
        if group and current.low > reach:
            yield group
            group = []
        group.append(current)
        reach = max(reach, current.high) if len(group) > 1 else current.high
    if group:
        yield group


def _services(layout: Layout, group: list[_Written]) -> list[list[_Written]]:
    """The services of the group that collide: members joined into services (each service's
    members, and the services, in file order), keeping the services of every colliding pair."""
    classes = UnionFind(len(group))
    for i, a in enumerate(group):
        for j in range(i + 1, len(group)):
            if _one_service(layout, a, group[j]):
                classes.union(i, j)
    colliding = {
        root
        for i, a in enumerate(group) for j in range(i + 1, len(group))
        if classes.find(i) != classes.find(j) and _collide(layout, a, group[j])
        for root in (classes.find(i), classes.find(j))
    }
    by_root: dict[int, list[_Written]] = {}
    for index, member in enumerate(group):
        if classes.find(index) in colliding:
            by_root.setdefault(classes.find(index), []).append(member)
    services = [sorted(members, key=lambda w: _position(w.site)) for members in by_root.values()]
    return sorted(services, key=lambda members: _position(members[0].site))


def _one_service(layout: Layout, a: _Written, b: _Written) -> bool:
    if a.identity == b.identity:
        return True
    if _declared(layout, a) and _declared(layout, b):
        return layout.related(a.site.band, b.site.band)
    return any(same_service(x, y) for x in a.sites for y in b.sites)


def _collide(layout: Layout, a: _Written, b: _Written) -> bool:
    """Two services' writings that overlap and say they meet: a range claims its whole block; a
    single port meets another in one file (one launcher, one config) or where a person declared
    the band of one of them. Two defaults that happen to agree in different files (or Python classes) are not that:
    the commonest such pair is one value restated under another name, the rest run on different
    hosts or never together."""
    if not (a.low <= b.high and b.low <= a.high):
        return False
    if a.low != a.high or b.low != b.high:
        return True
    if _declared(layout, a) or _declared(layout, b):
        return True  # a person said what that band's sites are: another name on its port is not it
    return bool({_together(s) for s in a.sites} & {_together(s) for s in b.sites})


def _together(site: Site) -> tuple[str, str]:
    """Where two single ports run together: one script or config file; in Python, one class or
    function (two config classes of one module are often alternative deployments)."""
    return site.path, site.scope if site.kind == "python" else ""


def _declared(layout: Layout, written: _Written) -> bool:
    """Bound to a band a person declared (init's inferred bands say nothing about what is one service)."""
    band = layout.band(written.site.band) if written.site.band else None
    return band is not None and not band.inferred


def _problem(services: list[list[_Written]]) -> Problem:
    members = [w for service in services for w in service]
    low, high = min(w.low for w in members), max(w.high for w in members)
    span = f"port {low}" if low == high else f"ports {low}-{high}"
    first = min(members, key=lambda w: _position(w.site))
    listed = "; ".join(", ".join(w.place for w in service) for service in services)
    about = tuple(site for w in members for site in w.sites)
    return Problem.at(first.site, CODE, f"{span} written by {len(services)} services: {listed}", sites=about)


def _position(site: Site) -> tuple[str, int, int]:
    return site.path, site.line, site.column
