"""What `portlint host` compares with the machine: every band, and every range or port written
in configs, scripts and code outside its band (the layout's `written`), each at the place a
finding is reported (the band's key in the config, or the site)."""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model.layout import Layout
from portlint.model.problems import Problem
from portlint.model.records import Struct
from portlint.model.sites import Site, Written


class Target(Struct, frozen=True):
    """A band, or a range or port written in a file outside any band."""

    path: str
    line: int
    column: int
    what: str  # "band engine 7000-8999", "env.gym.port_range_* 25000-25999"
    low: int
    high: int
    carve_outs: tuple[tuple[int, int], ...] = ()  # bands `within` this one: their ports are theirs
    band: str = ""  # the band it is, "" for a range or port written outside bands
    sites: tuple[Site, ...] = ()  # the sites it is written at, () for a band

    def owns(self, port: int) -> bool:
        return self.low <= port <= self.high and not any(a <= port <= b for a, b in self.carve_outs)

    def problem(self, code: str, message: str) -> Problem:
        """A problem about this band or these sites, where a reader looks for it."""
        return Problem(self.path, self.line, self.column, code, message, band=self.band, sites=self.sites)


def targets(layout: Layout) -> list[Target]:
    """Every band, and every range or port written in configs, scripts and code outside its band."""
    found = [
        Target(layout.config_path, band.line, band.column, f"band {band.name} {band.span}",
               band.low, band.high, tuple((b.low, b.high) for b in layout.bands if b.within == band.name),
               band=band.name)
        for band in layout.bands
    ]
    for written in layout.written:
        if not _inside_band(layout, written):
            site = written.first
            found.append(Target(site.path, site.line, site.column, f"{written.name} {written.span}",
                                written.low, written.high, sites=written.sites))
    return found


def _inside_band(layout: Layout, written: Written) -> bool:
    band = layout.band(written.first.band) if written.first.band else None
    return band is not None and band.low <= written.low and written.high <= band.high


def ephemeral_part(target: Target, ephemeral: tuple[int, int]) -> tuple[int, int] | None:
    """The part of the target inside the ephemeral range, None when they do not meet."""
    low, high = max(target.low, ephemeral[0]), min(target.high, ephemeral[1])
    return (low, high) if low <= high else None


def unreserved(low: int, high: int, reserved: tuple[tuple[int, int], ...]) -> Iterator[tuple[int, int]]:
    """The runs of low..high that no reserved range covers (`reserved` merged and sorted)."""
    start = low
    for r_low, r_high in reserved:
        if r_high < start or r_low > high:
            continue
        if r_low > start:
            yield start, r_low - 1
        start = r_high + 1
    if start <= high:
        yield start, high


def where_ephemeral(ephemeral: tuple[int, int]) -> str:
    first, last = ephemeral
    return f"this host's ephemeral range {first}-{last} (net.ipv4.ip_local_port_range)"
