"""The rules, one module each, registered here explicitly (no import side effects).

Two families. `portlint check`'s rules (ALL, PL codes): a rule module has CODE,
NAME, NEEDS_LAYOUT, a docstring (the user documentation `portlint rule CODE`
prints) and `check(layout) -> Iterator[Problem]`. `portlint host`'s rules (HOST,
H codes, portlint/rules/host_*.py): CODE, NAME, the docstring and
`check(targets, kernel) -> Iterator[Problem]` (portlint/stages/layout/targets.py).
A rule reads the facts of the layout it names in NEEDS (see portlint.stages.layout.build.FACTS).
A rule with `judge(layout, suppressions, used, enabled, data_of)` instead of
`check` runs after the others, over the suppressions they used (PL002).
"""
from __future__ import annotations

from types import ModuleType

from portlint.model.problems import Rule
from portlint.rules import (
    band_overlap,
    derived_collision,
    doc_drift,
    ephemeral_fallback,
    ephemeral_overlap,
    frozen_drift,
    frozen_missing,
    host_ephemeral_overlap,
    host_port_in_use,
    host_reserved_gap,
    implicit_tool_default,
    invalid_port,
    layout_drift,
    parse_error,
    per_cell_rendezvous,
    privileged_port,
    site_overlap,
    toctou_probe,
    unbound_port,
    unused_config,
    unused_suppression,
    window_overflow,
)

ALL: tuple[ModuleType, ...] = (
    parse_error,
    unused_suppression,
    unused_config,
    ephemeral_overlap,
    invalid_port,
    privileged_port,
    band_overlap,
    site_overlap,
    window_overflow,
    derived_collision,
    layout_drift,
    unbound_port,
    frozen_drift,
    frozen_missing,
    doc_drift,
    toctou_probe,
    ephemeral_fallback,
    implicit_tool_default,
    per_cell_rendezvous,
)
HOST: tuple[ModuleType, ...] = (host_ephemeral_overlap, host_reserved_gap, host_port_in_use)
DOCUMENTED: dict[str, ModuleType] = {rule.CODE: rule for rule in (*ALL, *HOST)}  # what `portlint rule` prints
CHECKS: tuple[ModuleType, ...] = tuple(rule for rule in ALL if not hasattr(rule, "judge"))
JUDGES: tuple[ModuleType, ...] = tuple(rule for rule in ALL if hasattr(rule, "judge"))
BY_CODE: dict[str, ModuleType] = {rule.CODE: rule for rule in ALL}


def describe(rule: ModuleType) -> Rule:
    """A rule module as problems and reports name it."""
    return Rule(rule.CODE, rule.NAME, (rule.__doc__ or "").strip())


CATALOGUE: tuple[Rule, ...] = tuple(describe(rule) for rule in ALL)  # `portlint check`'s rules, in order
HOST_CATALOGUE: tuple[Rule, ...] = tuple(describe(rule) for rule in HOST)  # `portlint host`'s


def summary(rule: ModuleType) -> str:
    """The first line of a rule's documentation."""
    return (rule.__doc__ or "").strip().splitlines()[0]
