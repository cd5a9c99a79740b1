"""Ports as numbers: what a port is, how messages write one or a range, and the roles a
site's name gives it."""
from __future__ import annotations

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
