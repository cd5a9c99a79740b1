"""Whose port a site is: the one fact PL101, PL102, PL103, PL202, PL302 and `portlint init` read.

A value is this repository's port only where the repository binds or serves it, or hands
it to something that does. Every site is taken for one unless the evidence the extractors
and the code analyses gathered says it is something else:

- TEST: written in test scope (`test_paths:`, a value given to a mock or a fake): a scope of
  its own, compared with its own file only;
- POD: bound inside a container's own network namespace, whatever key holds it: a Kubernetes
  pod's (a container's keys, a Service's `port`/`targetPort`, a Helm chart's values, the
  Kubernetes client's models: `portlint.stages.layout.services.kubernetes`), a compose service's
  without `network_mode: host` (its keys but the host side of `ports:`, and every file it mounts
  through `volumes:`: `Layout.in_container`): no host's layout holds it;
- ANY_PORT: a bound of a range over every port (`port_min=1, port_max=65535`), a firewall's
  "any port";
- FIREWALL: a cloud firewall or security-group rule's port (`FromPort`/`ToPort`, a key or scope
  naming a firewall, a security group, an ingress or egress rule): it opens a port, binds none;
- EXCLUSIVE_END: a range's exclusive end, one past its last port (`max_port = 65536`, or a
  high bound the code reads as the stop of `range(low, high)`: `portlint.analysis.destinations`);
- DIALLED: a value the repository only dials, the far end of its connections (a peer's host
  written beside it in its mapping, `{host: redis-master, port: 6379}`; a name that says so,
  `remote_port`, `upstream.port`, unless a listener's address is written beside it; a default
  every read of which ends at a connection: `portlint.analysis.destinations`): that server's
  port, wherever it runs.

A site with no such evidence is the repository's; where the evidence says a site may be
something else (a file of Kubernetes objects, a name that says it is remote), it is taken for
that: portlint reports less, not more. The fact is computed once per layout, for each site on
first ask, cheapest evidence first (the code analyses parse a module only for a site the rest
left open).
"""
from __future__ import annotations

from portlint.model.layout import Layout
from portlint.model.naming import words as leaf_words
from portlint.model.ports import HIGH, LOCAL, MAX_PORT, REMOTE
from portlint.model.sites import Site
from portlint.stages.layout.services import POD as K8S_POD
from portlint.stages.layout.services import kubernetes, words

OURS = ""
TEST = "test"
POD = "pod"
ANY_PORT = "any port"
FIREWALL = "firewall"
EXCLUSIVE_END = "exclusive end"
DIALLED = "dialled"

# Words of a key, a scope or a name that say it holds a firewall or security-group rule.
_FIREWALL_WORDS = frozenset(("firewall", "firewalls", "securitygroup", "securitygroups", "ippermissions"))
_RULE_DIRECTIONS = frozenset(("ingress", "egress", "inbound", "outbound"))
_RULE_WORDS = frozenset(("rule", "rules", "allow", "allowed", "permission", "permissions"))
_RULE_BOUNDS = frozenset(("fromport", "toport"))  # AWS's `FromPort`/`ToPort`, Terraform's `from_port`/`to_port`
_END_WORDS = frozenset(("end", "stop", "limit"))
_FAR_END = frozenset(("remote", "upstream", "destination", "dest", "target", "peer"))
_KEY = "_portlint_ownership"


class Ownership:
    """Each site's owner, computed on first ask (see the module)."""

    def __init__(self, layout: Layout, kept: dict[int, tuple[Site, str]] | None = None) -> None:
        self.layout = layout
        self.known: dict[int, str] = {}
        self.kept = kept  # verdicts of earlier layouts of the same run (`carry`)

    def of(self, site: Site) -> str:
        """OURS, or what the site is instead."""
        found = self.known.get(id(site))
        if found is None:
            kept = self.kept.get(id(site)) if self.kept is not None else None
            found = kept[1] if kept is not None and kept[0] is site else self._judge(site)
            self.known[id(site)] = found
            if self.kept is not None:
                self.kept[id(site)] = (site, found)
        return found

    def ours(self, site: Site) -> bool:
        return self.of(site) == OURS

    def _judge(self, site: Site) -> str:
        layout = self.layout
        if layout.in_tests(site):
            return TEST
        if kubernetes(site) == K8S_POD or layout.in_container(site.path):
            return POD
        if layout.any_port(site):
            return ANY_PORT
        if firewall(site):
            return FIREWALL
        said = layout.destinations.exclusive_end(site)
        if said or said is None and exclusive_end(site):
            return EXCLUSIVE_END
        if site.host == REMOTE or dialled(site) and site.host != LOCAL or layout.destinations.connect_only(site):
            return DIALLED
        return OURS


def ownership(layout: Layout) -> Ownership:
    """The layout's one Ownership (kept on the layout: every rule of a run asks the same one)."""
    found = layout.__dict__.get(_KEY)
    if found is None:
        found = layout.__dict__[_KEY] = Ownership(layout)
    return found


def carry(layout: Layout, kept: dict[int, tuple[Site, str]]) -> None:
    """Give the layout an Ownership that takes the verdicts `kept` from earlier layouts of the run
    for the very same sites (a site object is the same only while its file's extraction is: see
    `portlint.stages.layout.build.Carried`), and keeps its own there."""
    layout.__dict__[_KEY] = Ownership(layout, kept)


def firewall(site: Site) -> bool:
    """A rule of a firewall or a security group: the words of the site's keys, name or scope say so."""
    parts = [*(site.scope.split(".") if site.scope else ()), *site.name.lstrip("-").split(".")]
    split = [words(part, frozenset()) for part in parts]
    single = {word for part in split for word in part}
    paired = {a + b for part in split for a, b in zip(part, part[1:])}  # `security_group`, `SecurityGroup`
    if (single | paired) & _FIREWALL_WORDS or "".join(leaf_words(site.name)) in _RULE_BOUNDS:
        return True
    return bool(single & _RULE_DIRECTIONS and single & _RULE_WORDS)


def dialled(site: Site) -> bool:
    """A port its own name says is the far end of a connection: `remote_port`, `upstream.port`,
    `dest_port`, `target_port` (what a forward dials), `peer_port` (of a server elsewhere,
    whatever this repository runs)."""
    parts = site.name.lstrip("-").split(".")
    said = {word for part in parts[-2:] for word in words(part, frozenset())}
    return bool(said & _FAR_END)


def exclusive_end(site: Site) -> bool:
    """One past the last port, as a range's end: 65536 under a name that says it ends a range
    (unless the code reads it as the last port)."""
    said = set(leaf_words(site.name))
    return site.value == MAX_PORT + 1 and (site.role == HIGH or bool(said & _END_WORDS))
