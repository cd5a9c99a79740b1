"""Code analyses the code-pattern rules share: sockets released before their port is used (PL601/PL602,
sockets.py) and process groups or engines started per iteration on one fixed port (PL604, rendezvous.py).

Both run on the `ast` tree the Python extractor built, once per file, and give plain findings
(`Finding`: positions, code, message) that the extraction carries to the rules.
"""
from __future__ import annotations

import ast

from portlint.analysis import rendezvous, sockets


def worth_reading(data: bytes) -> bool:
    """Python whose bytes can hold a shape one of the analyses finds (the test before any parse)."""
    return sockets.uses_sockets(data) or rendezvous.worth_reading(data)


def facts(data: bytes, tree: ast.Module) -> sockets.Facts:
    """Every PL601/PL602/PL604 finding of one parsed Python file, and the summaries it exports."""
    found = sockets.analyse(data, tree) if sockets.uses_sockets(data) else sockets.Facts()
    return sockets.Facts(found.findings + rendezvous.findings(data, tree), found.exports)
