"""A piecewise port axis for `portlint map`.

Ports 1-65535 on a hundred columns would squash a 12-port band into nothing,
so the axis is cut at every edge the picture draws (band and site bounds, the
privileged ceiling, the ephemeral floor). A stretch that something occupies
gets columns by the logarithm of its size; an empty stretch shrinks to a
break column or a few. When there are more stretches than columns, neighbours share.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

from portlint.model.ports import MAX_PORT, PRIVILEGED_CEILING
from portlint.model.records import Struct

# An empty stretch's share of spare columns, against 1 + log10(ports) for an occupied one:
# enough to leave room for tick labels in a sparse layout, little in a dense one.
GAP_WEIGHT = 0.3


class Column(Struct, frozen=True):
    low: int
    high: int
    gap: bool  # an empty stretch shrunk to one column
    starts: bool  # the first column of its stretch (where a tick label may go)


class Axis(Struct, frozen=True):
    columns: tuple[Column, ...]
    floor: int

    def cells(self, low: int, high: int) -> list[int]:
        """Indices of the columns that ports low..high reach."""
        return [i for i, c in enumerate(self.columns) if c.low <= high and low <= c.high]

    def zone(self, index: int) -> str:
        """`privileged`, `ephemeral` or "" for a column, by where it starts (a column never
        straddles 1024 or the floor unless more stretches than columns forced sharing)."""
        column = self.columns[index]
        if column.high < PRIVILEGED_CEILING:
            return "privileged"
        return "ephemeral" if column.low >= self.floor else ""


def build(ranges: Iterable[tuple[int, int]], floor: int, width: int) -> Axis:
    """An axis `width` columns wide on which every range in `ranges` starts and ends on a column edge."""
    spans = [(max(1, low), min(MAX_PORT, high)) for low, high in ranges if low <= high]
    spans = [(low, high) for low, high in spans if low <= high]
    cuts = {1, PRIVILEGED_CEILING, min(max(floor, 1), MAX_PORT + 1), MAX_PORT + 1}
    for low, high in spans:
        cuts |= {low, high + 1}
    edges = sorted(cuts)
    pieces = [(a, b - 1) for a, b in zip(edges, edges[1:])]
    occupied = [any(low <= b and a <= high for low, high in spans) for a, b in pieces]
    if len(pieces) > width:
        return Axis(_shared(pieces, occupied, width), floor)
    widths = _widths(pieces, occupied, width)
    columns = []
    for (a, b), used, count in zip(pieces, occupied, widths):
        columns += _split(a, b, not used, count)
    return Axis(tuple(columns), floor)


def _widths(pieces: list[tuple[int, int]], occupied: list[bool], width: int) -> list[int]:
    """One column each, and the rest shared by weight: log size, or GAP_WEIGHT (largest remainder)."""
    weights = [1 + math.log10(b - a + 1) if used else GAP_WEIGHT for (a, b), used in zip(pieces, occupied)]
    total = sum(weights)
    extra = width - len(pieces)
    if total == 0:
        weights, total = [1.0] * len(pieces), float(len(pieces))
    shares = [extra * w / total for w in weights]
    widths = [1 + int(share) for share in shares]
    left = width - sum(widths)
    by_remainder = sorted(range(len(pieces)), key=lambda i: (-(shares[i] - int(shares[i])), i))
    for i in by_remainder[:left]:
        widths[i] += 1
    return widths


def _split(low: int, high: int, gap: bool, count: int) -> list[Column]:
    size = high - low + 1
    if size < count:  # fewer ports than columns: every column stands for the whole stretch
        return [Column(low, high, gap, i == 0) for i in range(count)]
    return [
        Column(low + size * i // count, low + size * (i + 1) // count - 1, gap, i == 0)
        for i in range(count)
    ]


def _shared(pieces: list[tuple[int, int]], occupied: list[bool], width: int) -> tuple[Column, ...]:
    """More stretches than columns: consecutive stretches share a column."""
    groups: list[list[int]] = [[] for _ in range(width)]
    for i in range(len(pieces)):
        groups[i * width // len(pieces)].append(i)
    return tuple(
        Column(pieces[g[0]][0], pieces[g[-1]][1], not any(occupied[i] for i in g), True)
        for g in groups if g
    )
