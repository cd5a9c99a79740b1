"""The check stage: the selected rules over the layout, then what the config and the files say
of their problems (per-file ignores, suppression comments), then the judges of those
suppressions (PL002), then the paths asked for.

The rules are modules of the registry (portlint.rules), which sits above the stages: the
engine resolves them into a `Selection` and hands it here.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, NamedTuple

from portlint.config import baseline as baselines
from portlint.config.baseline import Baseline, Entry
from portlint.model.extraction import Suppression
from portlint.model.files import FileState
from portlint.model.frozen import FrozenCheck
from portlint.model.globs import files_match
from portlint.model.layout import Layout

if TYPE_CHECKING:  # the problems' records are imported by the rules, not before a check's pool forks
    from portlint.model.problems import Problem, Rule


class Selection(NamedTuple):
    """The rules a check runs, and what --select and --ignore asked for."""

    select: tuple[str, ...]  # codes or prefixes; empty: every rule
    ignore: tuple[str, ...]
    registry: Mapping[str, ModuleType]  # every check rule by code
    declared: bool  # the config declares bands: the rules that need a layout can run
    describe: Callable[[ModuleType], Rule]  # a rule as problems name it
    rules: tuple[ModuleType, ...] = ()  # `check(layout)`
    judges: tuple[ModuleType, ...] = ()  # `judge(...)`: over the suppressions the rules used (PL002)
    beyond: tuple[ModuleType, ...] = ()  # `beyond_selection(layout)`: reported whatever --select and the paths say

    def enabled(self, code: str) -> bool:
        """The rule runs here: chosen, and able to (a rule that needs a layout needs bands)."""
        rule = self.registry.get(code)
        if rule is None:
            return True  # an unknown code in a suppression: PL002 reports it
        if rule.NEEDS_LAYOUT and not self.declared:
            return False
        return self.selected(code)

    def selected(self, code: str) -> bool:
        """Chosen by --select/--ignore, whether or not the rule can run here."""
        if self.select and not matches_any(code, self.select):
            return False
        return not matches_any(code, self.ignore)


def selection(registry: ModuleType, select: tuple[str, ...], ignore: tuple[str, ...], declared: bool) -> Selection:
    """The rules of the registry (portlint.rules: CHECKS, JUDGES, ALL, BY_CODE, describe) this check runs."""
    chosen = Selection(select, ignore, registry.BY_CODE, declared, registry.describe)
    return chosen._replace(
        rules=tuple(rule for rule in registry.CHECKS if chosen.enabled(rule.CODE)),
        judges=tuple(rule for rule in registry.JUDGES if chosen.enabled(rule.CODE)),
        beyond=tuple(rule for rule in registry.ALL if hasattr(rule, "beyond_selection") and not matches_any(rule.CODE, ignore)),
    )


def check(layout: Layout, files: Mapping[str, FileState], chosen: Selection,
          per_file_ignores: Iterable[tuple[str, tuple[str, ...]]], paths: tuple[str, ...],
          baseline: Baseline | None = None, data_of: Callable[[str], bytes | None] = lambda path: None) -> list[Problem]:
    """The problems of the layout, sorted: the rules', less those a per-file ignore or a comment
    covers, plus the judges' over the comments; only those in `paths` (and the files paired
    with them) when paths are given; less those the baseline sets aside (`data_of`: a problem's
    file as checked, for its fingerprint), plus what the rules report beyond the selection."""
    ignores = tuple(per_file_ignores)
    problems = [p for rule in chosen.rules for p in named(chosen, rule, rule.check(layout))]
    problems = [p for p in problems if not _ignored_for_file(p, ignores)]
    kept, used = suppressed(problems, files)
    suppressions = [(f.path, s) for f in files.values() for s in f.extraction.suppressions]
    for judge in chosen.judges:  # rules over the suppressions the others used (PL002)
        found = judge.judge(layout, suppressions, used, chosen.enabled, chosen.selected, lambda p: files[p].data)
        kept += named(chosen, judge, found)
    if paths:
        partners = _partners(layout.frozen)
        kept = [p for p in kept if any(_under(path, paths) for path in (p.path, *partners.get(p.path, ())))]
    if baseline is not None:
        kept = set_aside(kept, baseline, chosen, paths, data_of).kept
    for rule in chosen.beyond:
        kept += named(chosen, rule, rule.beyond_selection(layout))
    return sorted(kept)


class Aside(NamedTuple):
    """What a baseline made of a check's problems."""

    kept: list[Problem]  # the problems no entry sets aside, and PL002 for the entries that set aside none
    used: list[Entry]  # the entries that set aside a problem
    unjudged: list[Entry]  # the entries of rules that did not run, or of paths not reported: left as they are


def set_aside(problems: list[Problem], baseline: Baseline, chosen: Selection, paths: tuple[str, ...],
              data_of: Callable[[str], bytes | None]) -> Aside:
    """The baseline laid over the problems (portlint/config/baseline.py): an entry sets aside the
    problem of its fingerprint; an entry of a rule that ran, on a path reported, that sets aside
    none is a PL002 (the PL002 rule's `stale`), so the file does not rot."""
    kept, used = baselines.apply(problems, baseline, data_of)
    judged = [e for e in baseline.entries if chosen.enabled(e.code) and (not paths or _under(e.path, paths))]
    lines = {e.line for e in judged}
    if chosen.enabled("PL002"):
        rule = chosen.registry["PL002"]
        kept += named(chosen, rule, rule.stale(baseline, judged, used))
    return Aside(kept, used, [e for e in baseline.entries if e.line not in lines])


def named(chosen: Selection, rule: ModuleType, problems: Iterable[Problem]) -> list[Problem]:
    """The problems a rule reported, each carrying the rule's name (reports read it there)."""
    described = chosen.describe(rule)
    return [problem.of(described) for problem in problems]


def matches_any(code: str, prefixes: Iterable[str]) -> bool:
    return any(prefix == "ALL" or code.startswith(prefix) for prefix in prefixes)


def suppressed(
    problems: list[Problem], files: Mapping[str, FileState]
) -> tuple[list[Problem], dict[tuple[str, int], set[str]]]:
    """Drop problems an ignore comment on their line covers; remember which codes were used.

    A problem spanning lines (a command continued with `\\`, which takes a comment
    only on its last line) is covered from its first or its last line.
    """
    comments: dict[tuple[str, int], list[Suppression]] = defaultdict(list)
    for state in files.values():
        for suppression in state.extraction.suppressions:
            comments[(state.path, suppression.line)].append(suppression)
    used: dict[tuple[str, int], set[str]] = defaultdict(set)
    kept = []
    for problem in problems:
        keys = [(problem.path, line) for line in dict.fromkeys((problem.line, max(problem.line, problem.end_line)))]
        key = next((k for k in keys if any(not s.codes or problem.code in s.codes for s in comments.get(k, ()))), None)
        if problem.code != "PL001" and key is not None:
            used[key].add(problem.code)
        else:
            kept.append(problem)
    return kept, used


def _ignored_for_file(problem: Problem, per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...]) -> bool:
    return any(
        files_match((pattern,), problem.path) and matches_any(problem.code, codes) for pattern, codes in per_file_ignores
    )


def _under(path: str, wanted: Iterable[str]) -> bool:
    return any(path == p or path.startswith(p.rstrip("/") + "/") or p in ("", ".") for p in wanted)


def _partners(checks: Iterable[FrozenCheck]) -> dict[str, set[str]]:
    """copy <-> source and every parent merged into the source."""
    partners: dict[str, set[str]] = defaultdict(set)
    for check in checks:
        copy = check.pair.copy
        for other in check.source.files if check.source else ():
            partners[copy].add(other)
            partners[other].add(copy)
    return partners
