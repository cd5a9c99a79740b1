"""`portlint host`: the layout against this machine's kernel settings and listeners.

What portlint/host/procfs.py reads (the ephemeral range, the reserved ports, the
TCP listeners) is compared with every band, and with every range or port
written in the files outside its band; a finding sits at the band's line in the
config or at the site in its file:

* H101 ephemeral-overlap: it meets the ephemeral range and none of that part
  is reserved;
* H102 reserved-gap: it meets the ephemeral range and relies on reserved
  ports (some of that part is reserved), but not all of it is;
* H201 port-in-use: a port of it is already held by a listening socket.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from portlint.binding import ranges_and_singles
from portlint.host.procfs import Kernel
from portlint.model import Layout, Site
from portlint.naming import range_stem


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


# -- comparing ------------------------------------------------------------------------------


def compare(layout: Layout, kernel: Kernel) -> list[Finding]:
    findings: list[Finding] = []
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
