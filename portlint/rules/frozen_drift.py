"""A frozen copy's value differs from its source.

What it does: for every pair declared under `frozen:` (a copy and the first of
its source templates that exists, parents named in the source's `defaults:`
merged in), compares the scalars at the same key path: port sites only with
`compare: ports` (the default), every scalar with `compare: all` (strings,
floats, booleans, null and `${...}` interpolations, compared as written).
Why: a test that compares an example config with its frozen reference copy
fails after a port change, or worse, a stale copy keeps an old layout alive in
the tests; reviewers of the real fix behind portlint still had to ask for them.
Example (fails): `policy.generation.port_range_low: 3000` in the source, `2000` in the copy.
Use instead: `policy.generation.port_range_low: 3000` in the copy too (`portlint --fix` writes it).
Options: `frozen` (`copies`, `source`, `compare`, `inferred`).
Fix: safe: replaces the copy's literal with the source's value, keeping the
copy's quoting, comments and layout; values the copy's quoting cannot hold are left alone.
Unsafe (only with --unsafe-fixes) when the pair or the literal's band was inferred
by `portlint init` (`inferred: true`, until a person deletes it), or either side is 0.
"""
from __future__ import annotations

from collections.abc import Iterator

from portlint.model.edits import Edit, Fix
from portlint.model.frozen import Scalar
from portlint.model.layout import Layout
from portlint.model.problems import Problem
from portlint.model.sites import Site
from portlint.stages.layout.bind import drift

CODE = "PL401"
NAME = "frozen-drift"
NEEDS_LAYOUT = False
NEEDS = frozenset({"frozen"})


def check(layout: Layout) -> Iterator[Problem]:
    drifted = _drifted_from_layout(layout)
    sites: dict[tuple[str, int], Site] = {}  # (path, start) -> the site written there, once a copy drifted
    for pair in layout.frozen:
        if pair.copy is None or pair.source is None:
            continue
        owners: dict[tuple[str, int], str] = {}  # an aliased literal is fixed for its first key only
        for key, scalar in pair.copy.scalars.items():
            owners.setdefault((scalar.path, scalar.start), key)
        for key in sorted(pair.compared):
            mine, theirs = pair.copy.scalars.get(key), pair.source.scalars.get(key)
            if mine is None or theirs is None or _same(mine, theirs) or mine.path != pair.pair.copy:
                continue
            message = f"{key}={mine.value} differs from {theirs.path}:{theirs.line} ({key}={theirs.value})"
            # A source that itself drifted from the layout is PL301's to fix first; the
            # copy then follows the layout, not the stale value.
            stale = (theirs.path, theirs.start) in drifted
            fix = None if stale or owners[(mine.path, mine.start)] != key else _fix(mine, theirs.value)
            if fix is not None and (pair.pair.spec.inferred or _zero(mine.value) or _zero(theirs.value)
                                    or _inferred_band(layout, mine)):
                fix = Fix(fix.edits, safe=False)  # a guessed pair, a 0 the kernel fills, or an unconfirmed band
            if not sites:
                sites = {(site.path, site.start): site for site in layout.sites}
            about = tuple(site for site in (sites.get((mine.path, mine.start)), sites.get((theirs.path, theirs.start))) if site)
            yield Problem(mine.path, mine.line, mine.column, CODE, message, fix, mine.line, mine.column + len(mine.value),
                          sites=about)  # both literals: the copy's and the source's (a port's sites; other scalars have none)


def _drifted_from_layout(layout: Layout) -> set[tuple[str, int]]:
    """(path, start) of every site PL301 rewrites to the layout's value (binding.drift)."""
    return {(site.path, site.start) for site in layout.code_sites if drift(layout, site) is not None}


def _zero(value: str) -> bool:
    return value.isdigit() and int(value) == 0


def _inferred_band(layout: Layout, scalar: Scalar) -> bool:
    """The copy's literal is a site of a band `portlint init` inferred and no person confirmed."""
    for site in layout.code_sites:
        if site.path == scalar.path and site.start == scalar.start and site.band:
            band = layout.band(site.band)
            return band is not None and band.inferred
    return False


def _same(mine: Scalar, theirs: Scalar) -> bool:
    if mine.value.isdigit() and theirs.value.isdigit():
        return int(mine.value) == int(theirs.value)
    return mine.value == theirs.value


def _fix(mine: Scalar, value: str) -> Fix | None:
    """Rewrite only when the copy's literal is plain text and its quoting can hold the new value."""
    if mine.end - mine.start != len(mine.value.encode()):
        return None  # escapes or a folded scalar: the bytes are not the value
    if mine.quote == '"' and ('"' in value or "\\" in value):
        return None
    if mine.quote == "'" and "'" in value:
        return None
    if not mine.quote and not _plain_safe(value, mine.value):
        return None
    return Fix((Edit(mine.start, mine.end, value.encode()),))


def _plain_safe(value: str, old: str) -> bool:
    """Whether `value` written plain reads back as the same text.

    Digits replace digits; text must not start with an indicator or hold a
    comment or mapping marker. The engine re-parses and re-checks every fixed
    file, so a value that still reads differently does not converge and is not written.
    """
    if old.isdigit() or value.isdigit():
        return old.isdigit() and value.isdigit()
    return (
        bool(value) and value == value.strip() and "\n" not in value
        and value[0] not in "-?:,[]{}#&*!|>'\"%@`" and ": " not in value and " #" not in value
    )
