"""Which written ports are one service: the reasoning PL202 and `portlint init` share.

A port is often written under several names: the env var that feeds a
parameter default, the CLI flag that restates it, the Kubernetes Service that
forwards to the container. Those are one value flowing, not two services
colliding. Two sites that write one value are taken as one service when

- they answer to one name (a shared leaf name, a shell fallback chain's aliases
  `${A_PORT:-${B_PORT:-8080}}`, a Python name passed on as an argument or default,
  the env var feeding a parameter default, the other branch of `x.port if c else 8000`);
- the words that say what each is for are one a subset of the other
  (`MCP_PORT` and `MCP_TRANSPORT_PORT`; `TOOLKIT_SANDBOX_PORT`, `sandbox_port`
  and `app.run(port=...)` in `sandbox_server.py`); a site
  whose own name says nothing (`port`) speaks through its enclosing key,
  class or function, else its file;
- they are node-level Kubernetes ports (a Service's `nodePort`, a `hostPort`)
  of one manifest entry, or under keys whose enclosing words say the same thing
  (`thanosService.nodePort`, `thanosServiceExternal.nodePort`). `nodePort`
  itself names no service: the same key in two manifests is two Services.

A pod's own ports (`containerPort`, a Service's `port`/`targetPort`, probe and
annotation ports, Helm values under a `service` key, and whatever the extractor saw
written for a pod that keeps its own network namespace: a container's keys, a Helm
chart's values, the Kubernetes client's models: `Site.pod`) live in the pod's network
namespace or behind the Service's own address: they cannot collide with a
port of another pod or process, so they are not compared at all; nor are kind's
`extraPortMappings`, which forward to the node port a Service binds.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath

from portlint.model.records import structs
from portlint.model.sites import Site

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[^A-Za-z0-9]+")
_INDEX = re.compile(r"\[\d+\]")
# Words that say nothing about which service a port is for.
_FILLER = frozenset(
    "port ports range low high min max lo hi lower upper default defaults start base begin first "
    "num number current local".split()
)
# Words of enclosing keys, scopes and files that say nothing either.
_CONTEXT_FILLER = _FILLER | frozenset(
    "init main self cls args kwargs config configs cfg conf settings options opts params param "
    "spec template metadata containers container env values value get set run call new setup "
    "service services utils util common py yaml yml sh".split()
)
_POD_KEYS = frozenset(("containerport", "targetport", "serviceport"))
_NODE_KEYS = frozenset(("nodeport", "hostport"))
_PROBES = frozenset(("httpget", "tcpsocket", "grpc"))

POD = "pod"
NODE = "node"


def words(text: str, filler: frozenset[str] = _FILLER) -> list[str]:
    """The lower-case words of one name part, without filler and bare numbers."""
    text = _CAMEL.sub("_", _INDEX.sub("", text))
    return [w for w in (w.lower() for w in _SEPARATORS.split(text) if w) if w not in filler and not w.isdigit()]


def service_words(site: Site, name: str = "") -> frozenset[str]:
    """What a site's name (or one of its aliases) says it is for: its leaf's words, else the nearest
    enclosing part's, else (for the site's own name) its scope's or its file's."""
    name = name or site.name
    parts = name.lstrip("-").split(".")
    leaf = words(parts[-1])
    if leaf:
        return frozenset(leaf)
    context = list(reversed(parts[:-1]))
    if name == site.name:
        path = PurePosixPath(site.path)
        context += [*reversed(site.scope.split(".") if site.scope else []), path.stem, *reversed(path.parent.parts)]
    for part in context:
        found = words(part, _CONTEXT_FILLER)
        if found:
            return frozenset(found)
    return frozenset()


def context_words(site: Site) -> frozenset[str]:
    """The words of the nearest enclosing key, class or function that says something, else of its file."""
    return service_words(structs.replace(site, name=site.name.rsplit(".", 1)[0] + ".port"
                                             if "." in site.name else "port"))


def kubernetes(site: Site) -> str:
    """POD for a port that lives inside a pod or behind a Service's own address, NODE for one
    bound on every node or host, "" for anything else."""
    if site.kind not in ("yaml", "python") or site.kind == "python" and not site.pod:
        return ""
    parts = [_INDEX.sub("", part) for part in site.name.split(".")]
    leaf = parts[-1].lower()
    parent = parts[-2].lower() if len(parts) > 1 else ""
    if "extraPortMappings[" in site.name:
        return POD  # kind forwards a host port to the node port a Service binds: that Service's
    if leaf.replace("_", "") in _NODE_KEYS:
        return NODE
    if site.pod:
        return POD  # the extractor saw it written for a pod (a container, a chart's values, a client model)
    if leaf in _POD_KEYS or leaf.startswith("targetport") or leaf == "prometheus.io/port" or site.name.endswith("/port"):
        return POD
    if parent in _PROBES or parent.endswith("service"):
        return POD
    if leaf == "port" and re.search(r"(^|\.)(ports|backendRefs)\[\d+\]\.port$", site.name):
        return POD
    return ""


def same_service(a: Site, b: Site) -> bool:
    """Two sites the same value is written at are one service (see the module's rules)."""
    if kubernetes(a) == NODE and kubernetes(b) == NODE:  # `nodePort` in two manifests: two Services
        if (a.path, a.scope) == (b.path, b.scope):
            return True
        words_a, words_b = context_words(a), context_words(b)  # `thanosService`, `thanosServiceExternal`
        return bool(words_a and words_b) and (words_a <= words_b or words_b <= words_a)
    for name_a in a.names:
        for name_b in b.names:
            leaf = leaf_name(name_a)
            if leaf == leaf_name(name_b) and words(leaf):  # `sandbox_port` twice; a bare `port` says nothing
                return True
            words_a, words_b = service_words(a, name_a), service_words(b, name_b)
            if words_a and words_b and (words_a <= words_b or words_b <= words_a):
                return True
    return False


def identity(site: Site) -> str:
    """`binding.identity`, except that a node-level Kubernetes port is its manifest's own:
    `nodePort` is every Service's key, not one service's name."""
    from portlint.stages.layout.bind import identity as named

    if not site.band and kubernetes(site) == NODE:
        return f"k8s:{site.path}:{site.scope}"
    return named(site)


def leaf_name(name: str) -> str:
    """A name's last part as a leaf compares: no index, no leading dashes, `-` as `_`, lower case."""
    return _INDEX.sub("", name).rsplit(".", 1)[-1].lstrip("-").replace("-", "_").lower()


class UnionFind:
    """Classes of items joined pairwise."""

    def __init__(self, count: int) -> None:
        self.parent = list(range(count))

    def find(self, item: int) -> int:
        while self.parent[item] != item:
            self.parent[item] = self.parent[self.parent[item]]
            item = self.parent[item]
        return item

    def union(self, a: int, b: int) -> None:
        root_a, root_b = self.find(a), self.find(b)
        if root_a != root_b:
            self.parent[max(root_a, root_b)] = min(root_a, root_b)


def somebody_elses(site: Site) -> bool:
    """A port below 1024 whose name does not say it listens (`listen_port`, `--bind-port`): a
    well-known port of a server elsewhere (a DNS egress rule's 53, a probe to 8.8.8.8:80)."""
    return 0 < site.value < 1024 and not {"listen", "bind"} & set(words(site.name.rsplit(".", 1)[-1]))
