"""Ports as numbers: what a port is, how messages write one or a range, and the roles a
site's name gives it."""
from __future__ import annotations

import re

DOC_KINDS = ("markdown", "comment")  # sites that describe the layout: PL501 checks them, the port rules do not

# TCP and UDP port numbers (0 is not one: it asks the kernel for any free port).
MIN_PORT = 1
MAX_PORT = 65535
PRIVILEGED_CEILING = 1024  # ports below it need root (CAP_NET_BIND_SERVICE) to bind

# Roles of a site, from its name: a single port, the low or high end of a range, or a base
# (the first port of a run: `start_port`, `base_port`).
PORT = "port"
LOW = "low"
HIGH = "high"
BASE = "base"


def is_port(value: int) -> bool:
    return MIN_PORT <= value <= MAX_PORT


def span(low: int, high: int) -> str:
    """How every message writes ports: `8080` for one, `8000-8999` for a range."""
    return str(low) if low == high else f"{low}-{high}"


# The host written beside a port in its mapping (`Site.host`): the address a listener binds
# (a wildcard or a loopback address: this host), or a peer's name or address (a host it dials).
LOCAL = "local"
REMOTE = "remote"
_WILDCARDS = frozenset(("", "0.0.0.0", "::", "::1", "*", "localhost", "ip6-localhost"))
_HOSTNAME = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*")
_NOT_A_HOST = frozenset(("null", "none", "nil", "true", "false", "yes", "no", "on", "off", "auto", "default"))


def host_kind(text: str) -> str:
    """LOCAL for an address a listener binds (empty, a wildcard, loopback, `localhost`, also with a
    port: `:8080`, `0.0.0.0:8080`), REMOTE for a host name or address of a peer (`redis-master`,
    `10.0.0.5`, `http://gateway:8000`), "" where the text does not say (a template, a variable, a
    word that is no host)."""
    text = text.strip()
    if "://" in text:
        from urllib.parse import urlsplit

        text = urlsplit(text).hostname or "" if _URL.fullmatch(text) else "?"
    elif text.startswith("[") and "]" in text:
        text = text[1:text.index("]")]  # `[::1]:8000`
    elif text.count(":") == 1:
        text = text.split(":")[0]  # `host:port`, `:8080` (every address)
    text = text.lower()
    if text in _WILDCARDS or text.startswith("127."):
        return LOCAL
    if text in _NOT_A_HOST or not _HOSTNAME.fullmatch(text):
        return ""
    return REMOTE


_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s$%{}<>]+")
