"""A band's per-instance windows leave the band, reach the floor, or cross another band.

What it does: for a band with `window: {stride, count}`, works out the windows
`low + i*stride ... low + (i+1)*stride - 1` for every `i < count` and flags the
band at the first window that ends past the band's high end, reaches the
ephemeral range, or takes ports of another band (one not declared `within` it
or sharing with it). The message shows the arithmetic.
Why: the windows are what the engines really bind (one per vLLM/SGLang engine);
a band that looks fine can still hand its eighth engine ports that belong to the
dashboard or to the kernel, and that engine fails to start only when a job is
large enough to need it.
Example (fails): `engine: {range: 7000-7599, window: {stride: 100, count: 8}}`:
window 7 is 7000 + 6×100 = 7600-7699, past 7599.
Use instead: `engine: {range: 7000-7799, window: {stride: 100, count: 8}}`.
Options: `bands.<name>.window`, `ephemeral_floor`.
Fix: none; widen the band, shrink `stride` or `count`, or move the other band.
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model.layout import Band, Layout
from portlint.model.problems import Problem, at_band

CODE = "PL203"
NAME = "window-overflow"
NEEDS_LAYOUT = True
NEEDS: frozenset[str] = frozenset()  # sites, bands and failures only


def check(layout: Layout) -> Iterator[Problem]:
    for band in layout.bands:
        if band.window is None:
            continue
        stride, count = band.window.stride, band.window.count
        for index in range(count):
            low = band.low + index * stride
            high = low + stride - 1
            reasons = _reasons(layout, band, low, high)
            if reasons:
                arithmetic = f"{band.low} + {index}×{stride} = {low}-{high}"
                yield at_band(
                    layout.config_path, band, CODE,
                    f"band {band.name}: window {index + 1} of {count} ({arithmetic}) {' and '.join(reasons)}",
                )
                break


def _reasons(layout: Layout, band: Band, low: int, high: int) -> list[str]:
    reasons = []
    if high > band.high:
        reasons.append(f"ends past the band's high end {band.high}")
    if high >= layout.ephemeral_floor:
        reasons.append(f"reaches the ephemeral range ({layout.ephemeral_floor}+)")
    taken = [
        other for other in layout.bands
        if other.name != band.name and other.low <= high and low <= other.high
        and not layout.related(band.name, other.name)
    ]
    reasons += [f"takes ports of band {other.name} ({other.span})" for other in taken]
    return reasons
