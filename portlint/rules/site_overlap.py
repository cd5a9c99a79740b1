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
{whose-port}
A free-port scan that only fills a setting where it is unset
(`int(os.environ.get("MASTER_PORT") or find_free_port(min_port=2000, max_port=30000))`,
`os.environ["MASTER_PORT"] = str(find_free_port(...))`, `port = os.getenv("MASTER_PORT")`
then `if port is None: port = find_free_port()`; the called function's own
defaults too, in this module or one it imports) is that setting's alternative: never in force beside the
value a launcher sets (`MASTER_PORT=29400`), so the two do not collide with each
other; both still collide with every other service.
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

from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from itertools import combinations
from typing import NamedTuple

from portlint.model.layout import Layout
from portlint.model.ports import MAX_PORT
from portlint.model.problems import Problem
from portlint.model.records import Struct, field
from portlint.model.sites import Site
from portlint.rules.common.docs import expand
from portlint.stages.layout.ownership import OURS, TEST, ownership
from portlint.stages.layout.services import (
    NODE,
    POD,
    UnionFind,
    context_words,
    identity,
    kubernetes,
    leaf_name,
    service_words,
    words,
)

__doc__ = expand(__doc__)

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
    members, and the services, in file order), keeping the services of every colliding pair.

    Both are found by what members share (an identity, a band, a name, words, a port), never by
    comparing every pair: a port written under thousands of names took minutes."""
    classes = _joined(layout, group)
    colliding = _colliding(layout, group, classes)
    by_root: dict[int, list[_Written]] = {}
    for index, member in enumerate(group):
        if classes.find(index) in colliding:
            by_root.setdefault(classes.find(index), []).append(member)
    services = [sorted(members, key=lambda w: _position(w.site)) for members in by_root.values()]
    return sorted(services, key=lambda members: _position(members[0].site))


# -- one service: what joins two members ---------------------------------------------------
# Two members are one service when they have one identity; when both are bound to declared
# bands, when those bands are related (and only then); otherwise when a site of each is
# `same_service`: for two node-level Kubernetes ports, one manifest entry or words of their
# keys one a subset of the other; for any other pair, a name's leaf (a fallback's setting,
# `Site.fills`, counts as one), or the words of a name one a subset of the other's. Each of those is a key the members share (a word set and each
# of its subsets present), and the members holding a key are joined where a pair of them may
# be: never two declared ones, and never two node-level ports by a name.
_MAX_WORDS = 8  # a word set of more (no name written by hand) is joined to the same words only


class _Kind(NamedTuple):
    declared: bool
    node: bool


def _by_names(a: _Kind, b: _Kind) -> bool:
    """Two sites of these kinds may be one service by a name or words (`same_service`'s names)."""
    return not (a.declared and b.declared) and not (a.node and b.node)


def _by_manifest(a: _Kind, b: _Kind) -> bool:
    """Two node-level ports of these kinds may be one service by their manifest entry or key words."""
    return not (a.declared and b.declared)


Holders = dict[_Kind, list[int]]  # the members holding one key, by the kind of their site


class _Joiner:
    """Joins the members holding keys, each kind of each key's holders joined at most once."""

    def __init__(self, classes: UnionFind) -> None:
        self.classes = classes
        self.joined: dict[tuple[int, _Kind], int] = {}

    def pair(self, a: Holders, b: Holders, may: Callable[[_Kind, _Kind], bool]) -> None:
        """Join the holders of key `a` with those of key `b` (`a` itself: among them) where `may`."""
        for kind_a, members_a in a.items():
            for kind_b, members_b in b.items():
                if may(kind_a, kind_b):
                    self.classes.union(self._one(members_a, kind_a), self._one(members_b, kind_b))

    def _one(self, members: list[int], kind: _Kind) -> int:
        """A member of these holders, all of them joined (they share a partner who may join each)."""
        key = (id(members), kind)
        if key not in self.joined:
            for other in members[1:]:
                self.classes.union(members[0], other)
            self.joined[key] = members[0]
        return self.joined[key]


def _joined(layout: Layout, group: list[_Written]) -> UnionFind:
    classes = UnionFind(len(group))
    declared = [_declared(layout, w) for w in group]
    by_identity: dict[str, list[int]] = defaultdict(list)
    by_band: dict[str, list[int]] = defaultdict(list)
    names: dict[tuple[str, object], Holders] = defaultdict(lambda: defaultdict(list))
    manifests: dict[tuple[str, object], Holders] = defaultdict(lambda: defaultdict(list))
    for index, member in enumerate(group):
        by_identity[member.identity].append(index)
        if declared[index]:
            by_band[member.site.band].append(index)
        for site in member.sites:
            node = kubernetes(site) == NODE
            kind = _Kind(declared[index], node)
            for name in site.names:
                leaf = leaf_name(name)
                if words(leaf):
                    _hold(names[("leaf", leaf)], kind, index)
                found = service_words(site, name)
                if found:
                    _hold(names[("words", found)], kind, index)
            fills = layout.fills(site)
            if fills:  # a scan that fills a setting where it is unset: that setting's alternative
                _hold(names[("leaf", leaf_name(fills))], kind, index)
            if node:
                _hold(manifests[("entry", (site.path, site.scope))], kind, index)
                found = context_words(site)
                if found:
                    _hold(manifests[("words", found)], kind, index)
    for members in by_identity.values():
        for other in members[1:]:
            classes.union(members[0], other)
    bands = list(by_band)
    for i, band_a in enumerate(bands):
        for band_b in bands[i:]:
            if layout.related(band_a, band_b):
                for other in (*by_band[band_a], *by_band[band_b]):
                    classes.union(by_band[band_a][0], other)
    joiner = _Joiner(classes)
    for keys, may in ((names, _by_names), (manifests, _by_manifest)):
        for key, holders in keys.items():
            joiner.pair(holders, holders, may)
            if key[0] == "words":
                for subset in _subsets(key[1]):  # type: ignore[arg-type]
                    if ("words", subset) in keys:
                        joiner.pair(holders, keys[("words", subset)], may)
    return classes


def _hold(holders: Holders, kind: _Kind, index: int) -> None:
    if not holders[kind] or holders[kind][-1] != index:
        holders[kind].append(index)


def _subsets(found: frozenset[str]) -> Iterator[frozenset[str]]:
    """Every non-empty proper subset of a word set (none of one over _MAX_WORDS words)."""
    if len(found) > _MAX_WORDS:
        return
    ordered = sorted(found)
    for size in range(1, len(ordered)):
        for chosen in combinations(ordered, size):
            yield frozenset(chosen)


# -- colliding services --------------------------------------------------------------------
def _colliding(layout: Layout, group: list[_Written], classes: UnionFind) -> set[int]:
    """The services (their classes' roots) of the group with a member that collides with a member
    of another service: writings that overlap and say they meet. A range claims its whole block;
    a single port meets another in one file (one launcher, one config) or where a person declared
    the band of one of them. Two defaults that happen to agree in different files (or Python
    classes) are not that: the commonest such pair is one value restated under another name, the
    rest run on different hosts or never together."""
    roots = [classes.find(index) for index in range(len(group))]
    colliding = _meeting_ranges(group, roots)
    singles: dict[int, list[int]] = defaultdict(list)
    for index, member in enumerate(group):
        if member.low == member.high:
            singles[member.low].append(index)
    for members in singles.values():
        if len({roots[i] for i in members}) < 2:
            continue
        if any(_declared(layout, group[i]) for i in members):
            colliding.update(roots[i] for i in members)  # it meets every other service's port
            continue
        together: dict[tuple[str, str], set[int]] = defaultdict(set)
        for index in members:
            for site in group[index].sites:
                together[_together(site)].add(roots[index])
        for services in together.values():
            if len(services) > 1:
                colliding.update(services)
    return colliding


def _meeting_ranges(group: list[_Written], roots: list[int]) -> set[int]:
    """The roots of members that overlap a range of another service, and of ranges that overlap
    a member of another service: counted by bisection over the bounds (all, and each service's)."""
    ranges = [i for i, member in enumerate(group) if member.low != member.high]
    if not ranges:
        return set()
    every = _Bounds(range(len(group)), group)
    spanning = _Bounds(ranges, group)
    own: dict[int, list[int]] = defaultdict(list)
    for index in range(len(group)):
        own[roots[index]].append(index)
    spans = set(ranges)
    own_bounds = {root: _Bounds(members, group) for root, members in own.items()}
    own_ranges = {root: _Bounds([i for i in members if i in spans], group) for root, members in own.items()}
    found = set()
    for index, member in enumerate(group):
        root = roots[index]
        if spanning.overlapping(member) > own_ranges[root].overlapping(member):
            found.add(root)  # a range of another service overlaps it
        elif member.low != member.high and every.overlapping(member) > own_bounds[root].overlapping(member):
            found.add(root)  # a range that overlaps a member of another service
    return found


class _Bounds:
    """The bounds of some members, sorted: how many of them overlap a range, by bisection."""

    def __init__(self, indices: Iterable[int], group: list[_Written]) -> None:
        members = [group[i] for i in indices]
        self.lows = sorted(w.low for w in members)
        self.highs = sorted(w.high for w in members)

    def overlapping(self, member: _Written) -> int:
        """Those with low <= member.high and high >= member.low: all but those wholly on one side."""
        below = bisect_left(self.highs, member.low)
        above = len(self.lows) - bisect_right(self.lows, member.high)
        return len(self.lows) - below - above


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
