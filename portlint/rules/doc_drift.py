"""A doc disagrees with the layout or with the code it documents.

What it does: checks what docs state about ports. `NAME=N` in Markdown inline
code and table cells: when NAME is bound to a band, N must be the layout's
value; when it is unbound but defined once in the repository's scripts or code
(an sbatch default, a Python constant), N must be that value. A comment (YAML,
shell, Python) or Markdown line that names a band's selector and states a port
or range (`A-B`, `A–B`, `[A, B)`, `A+`) must state the band's range. A
documented `NAME=N` whose NAME nothing in the repository's code defines or
reads is reported too.
Test-like paths (`test_paths:`) are neither docs nor definitions here. A doc
states a band's or a definition's value only where it is not another tool's
documentation: a setting a tool of portlint's table reads (`MASTER_PORT`, read by
torch.distributed; `--dashboard-port`, Ray's) stated at that tool's own default
(`MASTER_PORT=29500` on a page about another trainer's launcher) describes that
tool, not this repository's launcher that sets 40000, and such a name is read
(by the tool) even where no code of the repository mentions it. A band
`portlint init` inferred describes the sites it was learned from: only a doc in
their part of the repository (a folder holding, or held by, one of theirs) is
compared with it.
An example command line (`python serve.py --port 8000` in a comment, inline code
or a table cell) passes that value to the option: it shows how to choose a port,
it does not state the default. It is compared with a band a
person declared, since the layout decided where that service listens and a reader
who copies the example puts it elsewhere (stale or deliberate, a person says which,
and the fix is unsafe). It is not compared with a band `portlint init` inferred nor
with the code's own definition: those say only what the code defaults to, which
the example never claimed to restate. An option that opens its clause
(`# --port 8000  the API server`) or follows a label (`Default: --port 8000`)
states a value, and is compared.
Why: the docs are where people copy ports from; in the real fix behind
portlint, reviewers had to ask for two doc syncs and a stale value survived.
Example (fails, band master 1400-1999): `#   1300-1999  Master address (cluster.master_port_range_low/high)`
Use instead: `#   1400-1999  Master address (cluster.master_port_range_low/high)`
(`portlint --fix --unsafe-fixes` writes it).
Options: `bands`, `test_paths`.
Fix: unsafe (applied with --unsafe-fixes): rewrites the stated numbers in place,
nothing else; a doc may show a different value on purpose, so say
`<!-- portlint: ignore[PL501] -->` there. A name nothing reads has no fix.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import PurePosixPath

from portlint.model.layout import Layout
from portlint.model.ports import HIGH, LOW
from portlint.model.problems import Problem
from portlint.model.records import replace
from portlint.model.sites import Site
from portlint.stages.layout.bind import canonical
from portlint.tables.tool_defaults import documented_defaults, normalized

CODE = "PL501"
NAME = "doc-drift"
NEEDS_LAYOUT = True
NEEDS = frozenset({"unreferenced"})


def check(layout: Layout) -> Iterator[Problem]:
    defined = _definitions(layout)
    for site in layout.sites:
        if not site.is_doc or layout.in_tests(site) or _a_tools_own(site):  # a test's comment is not the docs
            continue
        if site.band:
            yield from _against_layout(layout, site)
        elif site.kind == "markdown" and not site.scope:  # a name a tool reads is read, if not by this code
            unread = site.name in layout.unreferenced and site.name not in documented_defaults()
            yield from _against_code(site, defined.get(site.name, {}), unread)


def _a_tools_own(site: Site) -> bool:
    """A doc line about another tool's setting: a name a tool of portlint's table reads (`MASTER_PORT`,
    torch.distributed's), stated at that tool's own default (29500): that tool's documentation (a page
    on another trainer's launcher), not a description of this repository's band or definition."""
    known = documented_defaults()
    return site.value in (known.get(site.name) or known.get(normalized(site.name.lstrip("-"))) or ())


def _definitions(layout: Layout) -> dict[str, dict[int, Site]]:
    """Each name written in configs, scripts or code -> its distinct values, first site each.

    A test's values (`test_paths`) are the test's own (`{"MASTER_PORT": "12355"}` in a test's
    environment): what a doc describes is what the code outside the tests defines.
    """
    defined: dict[str, dict[int, Site]] = defaultdict(dict)
    for site in layout.code_sites:
        if not site.derived and not layout.in_tests(site):
            for name in site.names:
                defined[name].setdefault(site.value, site)
    return defined


def _against_layout(layout: Layout, site: Site) -> Iterator[Problem]:
    band = layout.band(site.band)
    if band is None or _ambiguous(layout, site) or band.inferred and (site.passed or not _beside(layout, site, band.name)):
        return
    wanted = canonical(site, band)
    if site.scope and site.role in (LOW, HIGH):  # a stated range is the band's range
        wanted = band.low if site.role == LOW else band.high
    if wanted is None or site.value == wanted + site.offset:
        return
    if site.scope:
        end = {LOW: "low end", HIGH: "high end"}.get(site.role, "port")
        message = f"doc states {site.value} as the {end} of band {band.name} ({'/'.join(site.names)}); the layout gives {wanted + site.offset}"
    else:
        message = f"doc states {site.name}={site.value}; band {band.name} gives {wanted}"
    yield Problem.replacing(site, CODE, message, wanted + site.offset, safe=False)


def _beside(layout: Layout, doc: Site, band: str) -> bool:
    """A doc in a folder that holds, or is held by, the folder of a site of the band: the part of
    the repository a band `portlint init` inferred describes (it says what those sites write, and
    nothing of a page elsewhere that shares a name)."""
    where = PurePosixPath(doc.path).parent
    for site in layout.code_sites:
        if site.band == band:
            folder = PurePosixPath(site.path).parent
            if folder == where or folder in where.parents or where in folder.parents:
                return True
    return False


def _ambiguous(layout: Layout, site: Site) -> bool:
    """A line naming ports of two bands states nothing checkable about either."""
    bands = set()
    for name in site.names:
        claim = layout.claims.claim(replace(site, name=name, aliases=()))
        if claim is not None:
            bands.add(claim[0].name)
    return len(bands) > 1


def _against_code(site: Site, values: dict[int, Site], unreferenced: bool) -> Iterator[Problem]:
    if unreferenced:
        yield Problem.at(site, CODE, f"doc describes {site.name}, which nothing in the repository's code defines or reads")
    elif len(values) == 1 and not site.passed:
        (value, where), = values.items()
        if value != site.value:
            message = f"doc states {site.name}={site.value}; {where.path}:{where.line} defines {value}"
            yield Problem.replacing(site, CODE, message, value, safe=False, sites=(site, where))
