"""`portlint host`: the layout against this machine's kernel settings and listeners.

Reads, under the proc root (`/proc`, or a fake one in tests):

* `sys/net/ipv4/ip_local_port_range`: the ephemeral range the kernel takes
  source ports of outgoing connections from;
* `sys/net/ipv4/ip_local_reserved_ports`: ports the kernel never hands out
  as ephemeral (`8265,9000-9099`), so a layout may live inside the range if
  it is reserved;
* `net/tcp` and `net/tcp6`: sockets, of which state 0A is LISTEN.

and reports, at the band's line in the config or at the site in its file:

* H101 ephemeral-overlap: a band (or a range or port written off any band)
  meets the ephemeral range and none of that part is reserved;
* H102 reserved-gap: it meets the ephemeral range and relies on reserved
  ports (some of that part is reserved), but not all of it is;
* H201 port-in-use: a port of a band (or written off any band) is already
  held by a listening socket.
"""
from __future__ import annotations

import ipaddress
import os
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from portlint.binding import ranges_and_singles
from portlint.model import Layout, Site
from portlint.naming import range_stem

PORT_RANGE = "sys/net/ipv4/ip_local_port_range"
RESERVED_PORTS = "sys/net/ipv4/ip_local_reserved_ports"
TCP_TABLES = ("net/tcp", "net/tcp6")
LISTEN = "0A"  # TCP_LISTEN in include/net/tcp_states.h, as /proc/net/tcp prints it

CODES = {"H101": "ephemeral-overlap", "H102": "reserved-gap", "H201": "port-in-use"}


class HostError(Exception):
    """The kernel's settings cannot be read (not Linux, or a wrong --proc-root)."""


@dataclass(frozen=True)
class Kernel:
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


@dataclass(frozen=True, order=True)
class Finding:
    path: str  # repository-relative
    line: int
    column: int
    code: str
    message: str = field(compare=False)


@dataclass(frozen=True)
class Target:
    """A band, or a range or port written in a file outside any band."""

    path: str
    line: int
    column: int
    what: str  # "band engine 7000-8999", "env.gym.port_range_* 25000-25999"
    low: int
    high: int
    carve_outs: tuple[tuple[int, int], ...] = ()  # bands `within` this one: their ports are theirs

    def owns(self, port: int) -> bool:
        return self.low <= port <= self.high and not any(a <= port <= b for a, b in self.carve_outs)


# -- reading the kernel -------------------------------------------------------------------


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
    try:
        reserved = _port_list(reserved_file.read_text(encoding="ascii"))
    except OSError:
        reserved, notes = (), [f"no {reserved_file}: taken as no reserved ports"]
    except ValueError as error:
        raise HostError(f"{reserved_file}: {error}") from None
    listening = []
    for table in TCP_TABLES:
        try:
            listening += _listening(table.rsplit("/", 1)[1], (proc_root / table).read_text(encoding="ascii"))
        except OSError:
            notes.append(f"no {proc_root / table}: its listeners are not checked")
    return Kernel((int(words[0]), int(words[1])), reserved, tuple(sorted(set(listening))), tuple(notes))


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


# -- comparing ------------------------------------------------------------------------------


def compare(layout: Layout, kernel: Kernel) -> list[Finding]:
    findings = []
    for target in targets(layout):
        findings += _ephemeral(target, kernel)
        for port, where in sorted(kernel.listeners(target.low, target.high).items()):
            if target.owns(port):
                    findings.append(_finding(
                    target, "H201", f"port {port} of {target.what} is held by a listening socket ({', '.join(where)})",
                ))
    return sorted(findings)


def targets(layout: Layout) -> list[Target]:
    """Every band, and every range or port written in configs, scripts and code outside its band."""
    found = [
        Target(layout.config_path, band.line, band.column, f"band {band.name} {_span(band.low, band.high)}",
               band.low, band.high, tuple((b.low, b.high) for b in layout.bands if b.within == band.name))
        for band in layout.bands
    ]
    ranges, singles = ranges_and_singles(s for s in layout.code_sites if not s.derived)
    written = [(r.low, range_stem(r.low.name), r.low.value, r.high.value) for r in ranges]
    written += [(s, s.name, s.value, s.value) for s in singles]
    for site, name, low, high in written:
        if not _inside_band(layout, site, low, high):
            found.append(Target(site.path, site.line, site.column, f"{name} {_span(low, high)}", low, high))
    return found


def _inside_band(layout: Layout, site: Site, low: int, high: int) -> bool:
    band = layout.band(site.band) if site.band else None
    return band is not None and band.low <= low and high <= band.high


def _ephemeral(target: Target, kernel: Kernel) -> Iterator[Finding]:
    first, last = kernel.ephemeral
    low, high = max(target.low, first), min(target.high, last)
    if low > high:
        return
    gaps = list(_unreserved(low, high, kernel.reserved))
    if not gaps:
        return  # all reserved: the kernel never hands these out
    where = f"this host's ephemeral range {first}-{last} (net.ipv4.ip_local_port_range)"
    if gaps == [(low, high)]:
        yield _finding(target, "H101", f"{target.what} meets {where}; none of {_span(low, high)} is reserved")
        return
    shown = ", ".join(_span(a, b) for a, b in gaps[:3]) + (", …" if len(gaps) > 3 else "")
    yield _finding(
        target, "H102",
        f"{target.what} relies on net.ipv4.ip_local_reserved_ports inside {where}, but {shown} is not reserved",
    )


def _unreserved(low: int, high: int, reserved: tuple[tuple[int, int], ...]) -> Iterator[tuple[int, int]]:
    start = low
    for r_low, r_high in reserved:
        if r_high < start or r_low > high:
            continue
        if r_low > start:
            yield start, r_low - 1
        start = r_high + 1
    if start <= high:
        yield start, high


def _finding(target: Target, code: str, message: str) -> Finding:
    return Finding(target.path, target.line, target.column, code, message)


def _span(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}-{high}"


# -- output ---------------------------------------------------------------------------------


def render(findings: list[Finding], kernel: Kernel, root: Path, cwd: Path) -> str:
    """`path:line:col: CODE message` a finding, then what was read, as one summary line."""
    lines = [
        f"{Path(os.path.relpath(root / f.path, cwd)).as_posix()}:{f.line}:{f.column}: {f.code} {f.message}"
        for f in findings
    ]
    first, last = kernel.ephemeral
    ports = {port for port, _ in kernel.listening}
    seen = (
        f"ephemeral range {first}-{last}, {kernel.reserved_ports()} reserved port"
        f"{'s' if kernel.reserved_ports() != 1 else ''}, {len(ports)} listening TCP port{'s' if len(ports) != 1 else ''}"
    )
    noun = "problem" if len(findings) == 1 else "problems"
    lines.append(f"Found {len(findings)} host {noun} ({seen})." if findings else f"No host problems ({seen}).")
    return "".join(line + "\n" for line in lines)
