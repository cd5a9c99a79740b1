"""Code analyses the code-pattern rules read: sockets released before their port is handed on
(PL601/PL602, sockets/) and listeners started per iteration on one fixed port (PL604, rendezvous.py).

Both run on the `ast` tree the Python extractor built, once per file, and describe what they find
as plain records (model.extraction: `PortHandOff`, `RepeatedStart`) that the extraction carries to
the rules, which judge them and word the problems.
"""
from __future__ import annotations

import ast

from portlint.analysis import rendezvous, sockets
from portlint.model.extraction import Facts


def worth_reading(data: bytes) -> bool:
    """Python whose bytes can hold a shape one of the analyses finds (the test before any parse)."""
    return sockets.uses_sockets(data) or rendezvous.worth_reading(data)


def facts(data: bytes, tree: ast.Module) -> Facts:
    """What the analyses find in one parsed Python file, and the summaries it exports."""
    found = sockets.analyse(data, tree) if sockets.uses_sockets(data) else Facts()
    starts, launchers, waiters = rendezvous.read(data, tree)
    return Facts(found.handoffs, starts, found.exports, launchers, waiters)
