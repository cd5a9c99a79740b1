"""Which names a selector matches: a band's `sites:` entry or `ports:` name against a site's names.

A selector matches a name whole, or a dotted suffix of it at a dot boundary:
`generation.port_range_low` matches `policy.generation.port_range_low`. A long
option's dashes are not part of its name: `--min-worker-port` and
`min-worker-port` name the same option. Every place that matches a selector
(binding, a band's named ports, the name filter of the extractors, PL003's
unmatched selectors) asks this module, so they never disagree.
"""
from __future__ import annotations


def bare(name: str) -> str:
    """The name without a long option's leading `--`."""
    return name[2:] if name.startswith("--") else name


def suffixes(name: str) -> list[str]:
    """What a selector may be to match this name: the bare name and each dotted suffix of it."""
    name = bare(name)
    return [name, *(name[i + 1:] for i, char in enumerate(name) if char == ".")]


def name_matches(selector: str, name: str) -> bool:
    """The selector names this name (whole, or a dotted suffix of it)."""
    selector, name = bare(selector), bare(name)
    return name == selector or name.endswith("." + selector)
