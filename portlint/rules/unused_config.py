"""A config entry that matches nothing, so it checks nothing.

What it does: reports, at its line in the config file (YAML, `portlint.toml` or
`[tool.portlint]` in `pyproject.toml`), a site selector or a `ports:` name that
matches no site of the repository (with the closest site name, when one is
close), a band no site is bound to, a `frozen:` entry whose `copies` glob
matches no YAML file, `include`/`exclude` patterns that leave a kind of file the
config asks for (YAML, shell, Python, Markdown) with no file to check although
the repository has such files (`include: ["**/*.yml"]` where the files are
`*.yaml`), and a `--select` whose rules cannot run: PL103, PL201, PL203, PL301,
PL302 and PL501 need a declared layout, PL401 and PL402 a `frozen:` entry.
That last one is reported whatever `--select` says (the selection is what is
wrong), at the config's `bands` key, or at `.` when there is no config file;
`--ignore PL003` silences it like every other.
Why: each of these passes silently otherwise: a mistyped selector binds nothing
and `All checks passed!` hides that the band is checked against no file at all.
Example (fails): `sites: [MASTER_PORT_RANGE_LO]` where the code says `MASTER_PORT_RANGE_LOW`.
Use instead: `sites: [MASTER_PORT_RANGE_LOW]`.
Options: `bands`, `frozen`, `include`, `exclude`, `select`.
Fix: none; correct the entry, or remove it. Suppression comments do not apply to
the config file: `--ignore PL003` or `per_file_ignores` on the config's path do.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from portlint.config.suggest import did_you_mean
from portlint.model.globs import files_match
from portlint.model.layout import Band, Layout, Selector
from portlint.model.problems import Problem
from portlint.model.selectors import bare, suffixes
from portlint.model.sites import Site

if TYPE_CHECKING:  # built by portlint/stages/layout/usage.py, read here
    from portlint.config.positions import Key
    from portlint.model.usage import Dropped, Usage

CODE = "PL003"
NAME = "unused-config"
NEEDS_LAYOUT = False
NEEDS = frozenset({"usage"})


def check(layout: Layout) -> Iterator[Problem]:
    usage = layout.usage
    if usage is None:
        return
    yield from _selectors(layout, usage)
    for index, glob in usage.unmatched_copies:
        yield _at(usage, ("frozen", index, "copies"), f'frozen copies glob "{glob}" matches no YAML file')
    for dropped in usage.dropped:
        yield _at(usage, dropped.key, f'{dropped.by} "{dropped.pattern}" leaves no {dropped.kind} file to check: {_detail(dropped)}')


def beyond_selection(layout: Layout) -> Iterator[Problem]:
    """What the engine reports whatever --select and the paths say (only --ignore drops it)."""
    return idle_selections(layout)


def idle_selections(layout: Layout) -> Iterator[Problem]:
    """`--select` items that check nothing; reported whatever the selection (the engine calls it)."""
    usage = layout.usage
    if usage is None:
        return
    for idle in usage.idle:
        reasons = []
        if idle.need_layout:
            where = f"{usage.config_path} declares no bands" if usage.config_path else "no config file was found"
            reasons.append(f"{_rules(idle.need_layout)} a declared layout (bands:), and {where}")
        if idle.need_frozen:
            reasons.append(f"{_rules(idle.need_frozen)} a frozen: entry, and there is none")
        key = ("bands",) if idle.need_layout else ("frozen",)
        yield _at(usage, key, f"--select {idle.item} checks nothing: {'; '.join(reasons)}")


def _rules(codes: tuple[str, ...]) -> str:
    return f"{codes[0]} needs" if len(codes) == 1 else f"{', '.join(codes)} need"


def _detail(dropped: Dropped) -> str:
    if dropped.count == 1:
        files = f"the repository's only {dropped.kind} file ({dropped.example})"
        return f"it drops {files}" if dropped.by == "exclude" else f"it does not match {files}"
    files = f"{dropped.count} {dropped.kind} files of the repository (such as {dropped.example})"
    return f"it drops all {files}" if dropped.by == "exclude" else f"it matches none of the {files}"


def _selectors(layout: Layout, usage: Usage) -> Iterator[Problem]:
    by_suffix: dict[str, list[Site]] = defaultdict(list)
    for site in layout.sites:
        for name in dict.fromkeys(bare(n) for n in site.names):
            for suffix in suffixes(name):
                by_suffix[suffix].append(site)
    bound = {site.band for site in layout.sites if site.band}
    for band in layout.bands:
        unmatched = 0
        for index, selector in enumerate(band.sites):
            named = by_suffix.get(bare(selector.name), [])
            if any(_selects(band, selector, site) for site in named):
                continue
            unmatched += 1
            where: tuple[str | int, ...] = ("bands", band.name, "sites", index)
            if (*where, "name") in usage.positions:
                where = (*where, "name")
            message = f"site selector {selector.name} of band {band.name} matches no site"
            if named:
                elsewhere = len({id(site) for site in named})
                message += f": no site of that name is in its files or of its kind ({elsewhere} elsewhere)"
            else:
                message += _closest(selector.name, layout)
            yield _at(usage, where, message)
        for port_name, _ in band.ports:
            if any(files_match(band.files, site.path) for site in by_suffix.get(bare(port_name), [])):
                continue
            unmatched += 1
            message = f"port name {port_name} of band {band.name} matches no site" + _closest(port_name, layout)
            yield _at(usage, ("bands", band.name, "ports", port_name), message)
        if band.name in bound or (unmatched and unmatched == len(band.sites) + len(band.ports)):
            continue  # bound, or every name of it was just reported
        yield _at(usage, ("bands", band.name), f"band {band.name} has no site: {_why_empty(layout, band, by_suffix)}")


def _why_empty(layout: Layout, band: Band, by_suffix: Mapping[str, list[Site]]) -> str:
    if not band.sites and not band.ports:
        return "it names no sites and no ports"
    claimed = sorted({
        site.band for selector in band.sites for site in by_suffix.get(bare(selector.name), [])
        if _selects(band, selector, site) and site.band
    } | {
        site.band for name, _ in band.ports for site in by_suffix.get(bare(name), [])
        if files_match(band.files, site.path) and site.band
    })
    if claimed:
        return f"the sites it names are bound to {', '.join(f'band {name}' for name in claimed)}, declared first"
    return "the sites it names are not bound to it"  # pragma: no cover - a site a selector selects is bound


def _selects(band: Band, selector: Selector, site: Site) -> bool:
    return (
        files_match(band.files, site.path) and files_match(selector.files, site.path)
        and (not selector.kind or selector.kind == site.kind)
    )


def _closest(name: str, layout: Layout) -> str:
    names = sorted({n for site in layout.sites for n in site.names})
    return did_you_mean(name, names, cutoff=0.8)


def _at(usage: Usage, key: Key, message: str) -> Problem:
    """A problem at the entry's position, else at its nearest enclosing entry that has one."""
    line, column = 1, 1
    for depth in range(len(key), 0, -1):
        if key[:depth] in usage.positions:
            line, column = usage.positions[key[:depth]]
            break
    return Problem(usage.config_path or ".", line, column, CODE, message, None, line, column)  # ".": --config KEY=VALUE

