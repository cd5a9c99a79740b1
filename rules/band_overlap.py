"""Two declared bands overlap.

What it does: flags every pair of bands of the layout that share a port, unless
one is declared `within` the other (a carve-out) or they are declared
`shares_with` each other (services that never run together).
Why: two services given the same ports by the layout itself will collide as
soon as both run on one node.
Example (fails): `gym: {range: 5000-5999}` and `sandbox: {range: 5500-6999}`.
Fix: none; move one band, or declare the relation.
"""
from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from portlint.model import Layout
from portlint.problem import Problem, at_band

CODE = "PL201"
NAME = "band-overlap"
NEEDS_LAYOUT = True


def check(layout: Layout) -> Iterator[Problem]:
    for first, second in combinations(layout.bands, 2):
        if first.overlaps(second) and not layout.related(first.name, second.name):
            yield at_band(
                layout.config_path, second, CODE,
                f"band {second.name} ({second.low}-{second.high}) overlaps band {first.name} "
                f"({first.low}-{first.high}); declare within/shares_with if intended",
            )
