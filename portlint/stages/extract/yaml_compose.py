"""Docker compose files: which keys are written for a container that keeps its own network
namespace, and which of the repository's files such a container mounts.

A compose service runs in a network namespace of its own unless it sets `network_mode: host`:
what it binds (the container side of `ports:`, `expose:`, the ports of its `environment:`,
`command:`, `healthcheck:` and labels) is bound inside that namespace, as a Kubernetes pod's is;
only the host side of a publication (`"8080:80"`: 8080) is a port of the host. A file a service
mounts from the repository through `volumes:` (`./configs/proxy.yaml:/etc/proxy/proxy.yaml`,
relative to the compose file) is read inside the container: the ports it binds are the
container's too. A mount of the compose file's own folder or above (`.:/app`, the code a
development container works on) is not taken for one: that code runs on hosts as well.

A compose file is known by its shape: a top-level `services:` mapping whose entries are
mappings, one of them at least with an `image:` or a `build:`.
"""
from __future__ import annotations

import posixpath
from typing import Any, NamedTuple

_SERVICE_KEYS = frozenset(("image", "build"))
_PUBLISHED = "ports"  # the one key of a service whose values are (partly) the host's


class Service(NamedTuple):
    """One compose service: its key path, whether it shares the host's network, what it mounts."""

    path: str  # `services.<name>`
    host_network: bool
    mounts: tuple[str, ...]  # the sources of its bind mounts, as written


def services(roots: list[Any]) -> tuple[Service, ...]:
    """The services of every document that is a compose file (none for any other YAML)."""
    found: list[Service] = []
    for root in roots:
        entries = _value(root, "services")
        if entries is None or entries.id != "mapping":
            continue
        declared = [(key.value, value) for key, value in entries.value if key.id == "scalar" and value.id == "mapping"]
        if not any(_value(value, key) is not None for _, value in declared for key in _SERVICE_KEYS):
            continue
        for name, value in declared:
            mode = _value(value, "network_mode")
            host = mode is not None and mode.id == "scalar" and str(mode.value).strip().lower() == "host"
            found.append(Service(f"services.{name}", host, _mounts(_value(value, "volumes"))))
    return tuple(found)


def contained(path: str, inside: tuple[str, ...]) -> bool:
    """Whether a key path is written for one of the services `inside` (their key paths), on the
    container's side: anything of the service but the host side of its `ports:`."""
    for service in inside:
        if path == service or path.startswith(service + "."):
            return not path.startswith(f"{service}.{_PUBLISHED}")
    return False


def mounted(compose_path: str, found: tuple[Service, ...]) -> tuple[str, ...]:
    """The repository paths (files or folders) that services keeping their own network namespace
    mount: each bind mount's source resolved from the compose file's folder, where it stays
    inside the repository and below that folder."""
    folder = posixpath.dirname(compose_path)
    paths: list[str] = []
    for service in found:
        if service.host_network:
            continue
        for source in service.mounts:
            if not source.startswith(".") or any(c in source for c in "$%{}"):
                continue  # a named volume, an absolute host path, a variable
            resolved = posixpath.normpath(posixpath.join(folder, source))
            if resolved.startswith(folder + "/") if folder else resolved != "." and resolved.split("/")[0] != "..":
                paths.append(resolved)
    return tuple(dict.fromkeys(paths))


def _mounts(volumes: Any) -> tuple[str, ...]:
    """The sources of a service's bind mounts: `SRC:DST[:MODE]`, or `{type: bind, source: SRC}`."""
    if volumes is None or volumes.id != "sequence":
        return ()
    sources = []
    for item in volumes.value:
        if item.id == "scalar":
            source, colon, _ = str(item.value).partition(":")
            if colon:
                sources.append(source.strip())
        elif item.id == "mapping":
            kind, source = _value(item, "type"), _value(item, "source")
            if kind is not None and kind.id == "scalar" and kind.value == "bind" and source is not None \
                    and source.id == "scalar":
                sources.append(str(source.value).strip())
    return tuple(sources)


def _value(mapping: Any, key: str) -> Any:
    if mapping.id != "mapping":
        return None
    return next((v for k, v in mapping.value if k.id == "scalar" and k.value == key), None)
