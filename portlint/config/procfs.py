"""Read the kernel's port settings and TCP listeners from a /proc tree (`/proc`, or a fake one in tests).

* `sys/net/ipv4/ip_local_port_range`: the ephemeral range the kernel takes
  source ports of outgoing connections from;
* `sys/net/ipv4/ip_local_reserved_ports`: ports the kernel never hands out
  as ephemeral (`8265,9000-9099`);
* `net/tcp` and `net/tcp6`: sockets, of which state 0A is LISTEN.

Reading never judges: `portlint/commands/host/check.py` compares what is read with the layout.
"""
from __future__ import annotations

import ipaddress
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

from portlint.model.ports import is_port
from portlint.model.records import Struct

PORT_RANGE = "sys/net/ipv4/ip_local_port_range"
RESERVED_PORTS = "sys/net/ipv4/ip_local_reserved_ports"
TCP_TABLES = ("net/tcp", "net/tcp6")
LISTEN = "0A"  # TCP_LISTEN in include/net/tcp_states.h, as /proc/net/tcp prints it


class HostError(Exception):
    """The kernel's settings cannot be read (not Linux, or a wrong --proc-root)."""


class Kernel(Struct, frozen=True):
    ephemeral: tuple[int, int]
    reserved: tuple[tuple[int, int], ...]  # merged, sorted
    listening: tuple[tuple[int, str], ...]  # (port, "tcp 0.0.0.0:5000"), sorted
    notes: tuple[str, ...] = ()

    def reserved_ports(self) -> int:
        return sum(high - low + 1 for low, high in self.reserved)

    def listeners(self, low: int, high: int) -> dict[int, list[str]]:
        held: dict[int, list[str]] = defaultdict(list)
        for port, where in self.listening:
            if low <= port <= high:
                held[port].append(where)
        return held


def read_kernel(proc_root: Path) -> Kernel:
    source = proc_root / PORT_RANGE
    try:
        words = source.read_text(encoding="ascii").split()
    except (OSError, UnicodeDecodeError):
        raise HostError(f"no {source}: portlint host needs Linux's /proc (use --proc-root)") from None
    if len(words) != 2 or not all(w.isdigit() for w in words):
        raise HostError(f"{source}: expected two port numbers, got {' '.join(words)!r}")
    notes = []
    reserved_file = proc_root / RESERVED_PORTS
    reserved: tuple[tuple[int, int], ...] = ()
    try:
        reserved = _port_list(reserved_file.read_text(encoding="ascii"))
    except OSError:
        notes.append(f"no {reserved_file}: taken as no reserved ports")
    except ValueError as error:  # UnicodeDecodeError is one too
        raise HostError(f"{reserved_file}: {error}") from None
    listening: list[tuple[int, str]] = []
    for table in TCP_TABLES:
        try:
            listening += _listening(table.rsplit("/", 1)[1], (proc_root / table).read_text(encoding="ascii"))
        except (OSError, UnicodeDecodeError):
            notes.append(f"no readable {proc_root / table}: its listeners are not checked")
    return Kernel((int(words[0]), int(words[1])), reserved, tuple(sorted(set(listening))), tuple(notes))


def ephemeral_floor(proc_root: Path) -> tuple[int | None, str]:
    """The first port of the ephemeral range (`ephemeral_floor: auto` in the config), or None and why not.

    Only the first number counts here: the floor is where ephemeral ports begin.
    """
    try:
        text = (proc_root / PORT_RANGE).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return None, "unreadable"
    first = text.split()[:1]
    if first and first[0].isdigit() and is_port(int(first[0])):
        return int(first[0]), ""
    return None, f"holds no port range ({text.strip()!r})"


def _port_list(text: str) -> tuple[tuple[int, int], ...]:
    """`8265,9000-9099` -> ((8265, 8265), (9000, 9099)), merged and sorted."""
    spans = []
    for item in text.replace("\n", ",").split(","):
        item = item.strip()
        if not item:
            continue
        low, _, high = item.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            raise ValueError(f"expected ports and ranges separated by commas, got {item!r}")
        spans.append((int(low), int(high or low)))
    return tuple(_merged(spans))


def _merged(spans: Iterable[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    current = None
    for low, high in sorted(spans):
        if current and low <= current[1] + 1:
            current = (current[0], max(current[1], high))
            continue
        if current:
            yield current
        current = (low, high)
    if current:
        yield current


def _listening(protocol: str, table: str) -> Iterator[tuple[int, str]]:
    """(port, "tcp6 [::]:5000") for every LISTEN row of a /proc/net/tcp{,6} table."""
    for row in table.splitlines()[1:]:
        fields = row.split()
        if len(fields) < 4 or fields[3] != LISTEN:
            continue
        address, _, port = fields[1].partition(":")
        try:
            yield int(port, 16), f"{protocol} {_address(address)}:{int(port, 16)}"
        except ValueError:
            continue


def _address(hex_address: str) -> str:
    """/proc prints an address as 32-bit words in the host's byte order."""
    raw = bytes.fromhex(hex_address)
    if sys.byteorder == "little":
        raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
    if len(raw) == 4:
        return str(ipaddress.IPv4Address(raw))
    return f"[{ipaddress.IPv6Address(raw).compressed}]"
