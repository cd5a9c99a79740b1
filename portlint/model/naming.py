"""What makes a name port-like, and which role its words give it (docs/usage.md, Where sites are found)."""
from __future__ import annotations

import re
from collections.abc import Iterable

from portlint.model.ports import BASE, HIGH, LOW, PORT
from portlint.model.selectors import bare, suffixes

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[^A-Za-z0-9]+")
# Words that make a port-named value a count, an offset, a timing or a version, not a port:
# `NUM_PORTS`, `port_offset`, `port_retries`, `MAX_PORTS_PER_ENGINE`, `PORT_FORWARD_CMD_VERSION`.
_NOT_A_PORT = frozenset(
    "num count n offset stride step size len length timeout retries retry "
    "attempts tries delta width span per interval version".split()
)
_LOW_WORDS = frozenset(("low", "min", "lo", "lower"))
_HIGH_WORDS = frozenset(("high", "max", "hi", "upper"))
_BASE_WORDS = frozenset(("start", "base", "begin", "first"))


def words(name: str) -> list[str]:
    """`policy.generation.port_range_low` -> [..., 'port', 'range', 'low'] of the leaf."""
    leaf = name.rsplit(".", 1)[-1].split("[", 1)[0]
    return [w.lower() for w in _SEPARATORS.split(_CAMEL.sub("_", leaf)) if w]


def is_port_name(name: str) -> bool:
    leaf = words(name)
    return "port" in leaf and not _NOT_A_PORT.intersection(leaf)


def role_of(name: str) -> str:
    leaf = set(words(name))
    if leaf & _LOW_WORDS:
        return LOW
    if leaf & _HIGH_WORDS:
        return HIGH
    if leaf & _BASE_WORDS:
        return BASE
    return PORT


def range_stem(name: str) -> str:
    """The name with its low/high word blanked, so `X_LOW` and `X_HIGH` share a stem."""
    head, _, leaf = name.rpartition(".")
    parts = re.split(r"([^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z]))", leaf)
    stem = "".join("*" if p.lower() in _LOW_WORDS | _HIGH_WORDS else p for p in parts)
    return f"{head}.{stem}" if head else stem


class NameFilter:
    """Decides which names an extractor keeps: port-like ones, and any a selector names."""

    def __init__(self, selector_names: Iterable[str] = ()) -> None:
        self.selector_names = tuple(sorted(set(selector_names)))
        self._selected = frozenset(bare(name) for name in self.selector_names)
        self._cache: dict[str, bool] = {}

    def wants(self, name: str) -> bool:
        known = self._cache.get(name)
        if known is None:
            known = self._cache[name] = is_port_name(name) or self._selects(name)
        return known

    def _selects(self, name: str) -> bool:
        """Whether a selector matches the name (portlint.model.selectors), every selector at once."""
        return not self._selected.isdisjoint(suffixes(name))
