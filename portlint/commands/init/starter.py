"""`portlint init`: write a starter `.portlint.yaml` inferred from what a zero-config scan finds.

The bands come from `bands`, the frozen pairs from `copies`; this
module writes them as YAML a person can review: comments say where each band was
found and which values disagree with it.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from portlint.commands.init.bands import Proposal, disagreements, infer_bands
from portlint.commands.init.copies import frozen_pairs
from portlint.config.load import load_config
from portlint.config.locate import CONFIG_NAMES, ConfigError, find_config
from portlint.model.layout import Band, Claims, Layout, Selector
from portlint.model.records import Struct, replace
from portlint.model.scope import DEFAULT_TEST_PATHS
from portlint.model.sites import Site
from portlint.report import printable
from portlint.speed.interrupts import held_interrupts
from portlint.stages import write as writer
from portlint.stages.layout.bind import bind, canonical
from portlint.stages.layout.ownership import DIALLED, OURS, Ownership, ownership
from portlint.stages.layout.services import somebody_elses

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./*-]*")
_RESERVED = frozenset("true false null yes no on off y n".split())  # YAML 1.1 would read these


class Starter(Struct, frozen=True):
    floor: int | str
    bands: tuple[Proposal, ...]
    frozen: tuple[tuple[str, str], ...]  # (copy, source)
    undirected: tuple[tuple[str, str], ...]  # near-identical pairs where neither looks like the copy
    test_paths: tuple[str, ...] = DEFAULT_TEST_PATHS  # written when a replaced config declared others


def init(start: Path, floor_override: str | None = None, force: bool = False) -> tuple[Path, Starter]:
    """Scan the repository holding `start` in zero-config mode and write `.portlint.yaml` at its root."""
    zero = load_config(None, start, floor_override)
    target = zero.root / CONFIG_NAMES[0]
    existing = find_config(zero.root)
    if existing is not None and existing.parent == zero.root and not force:
        shown = existing.name if existing.name != "pyproject.toml" else "pyproject.toml [tool.portlint]"
        raise ConfigError(shown, "", "a config already exists; pass --force to replace it with a starter")
    from portlint.engine import Options, session  # the engine imports every rule: only when needed

    zero = replace(zero, test_paths=_test_paths(existing, start))
    current = session(zero, Options())
    files = current.files
    layout = current.layout(files)
    sites = _listened(_teaching(layout), ownership(layout))
    floor = "auto" if (floor_override or "").strip() == "auto" else zero.ephemeral_floor
    frozen, undirected = frozen_pairs(zero)
    proposals = _each_binds(_claiming_what_it_learned(infer_bands(sites), layout, sites), layout.sites)
    starter = Starter(floor, proposals, frozen, undirected, zero.test_paths)
    data = render(starter).encode()
    if target.exists():
        writer.write_atomic(target, data, root=zero.root)
    else:
        with held_interrupts(), open(target, "xb") as handle:  # whole, or not there
            handle.write(data)
    return target, starter


def _test_paths(existing: Path | None, start: Path) -> tuple[str, ...]:
    """The `test_paths` of the config `init --force` replaces (a person's, kept), else the default."""
    if existing is None:
        return DEFAULT_TEST_PATHS
    try:
        return load_config(existing, start).test_paths
    except ConfigError:
        return DEFAULT_TEST_PATHS  # a broken config declares nothing init can keep


def _teaching(layout: Layout) -> list[Site]:
    """The sites init learns bands from: this repository's own ports (`portlint.stages.layout.ownership`:
    not a test's, a pod's, a firewall rule's, a range's exclusive end; a port only dialled is
    `_listened`'s to judge), below 1024 only where a server says it listens (`listen_port`,
    `--bind-port`: a well-known client port is somebody else's server), and the docs that state them.
    The base of a run whose length is not written (`8000 + rank`, `int(job_id) + 15000`,
    `5000 + random.randint(0, 1000)`) is where computed ports start, not a port a band can
    describe: init learns nothing from it."""
    owners = ownership(layout)
    return [
        site for site in layout.sites
        if not somebody_elses(site) and not site.open_run
        and (owners.of(site) in (OURS, DIALLED) if not site.is_doc else not layout.in_tests(site))
    ]


def _listened(sites: list[Site], owners: Ownership) -> list[Site]:
    """The sites without a client's default for a server the repository does not run: a port only
    dialled makes no band. Where another site writes the same value (the server's own `--port`, a
    config restating it), the client's default stays: one service, and its band keeps the client
    in step with the server."""
    dialled = {id(site) for site in sites if not site.is_doc and owners.of(site) == DIALLED}
    listened = {site.value for site in sites if id(site) not in dialled and not site.is_doc}
    return [site for site in sites if id(site) not in dialled or site.value in listened]


def _claiming_what_it_learned(proposals: list[Proposal], layout: Layout, learned: list[Site]) -> list[Proposal]:
    """The bands with each bare selector that would claim a site init did not learn from, where the
    check would call it drift, pinned to the files the band was learned from. Such a site is a value
    init left out on purpose (a well-known port below 1024 whose name does not say it listens, the
    same setting of another deployment, the base of a run): a band that describes the sites it was
    learned from says nothing of it, and a check right after init reports nothing there (PL301). A
    selector pinned already that still claims such a site (one file writes both) is dropped."""
    owners = ownership(layout)
    taught = {id(site) for site in learned}
    strays = [
        site for site in layout.code_sites
        if id(site) not in taught and not site.derived and site.value != 0 and owners.ours(site)
    ]
    kept = list(proposals)
    while strays:
        claims = Claims(tuple(_band(p) for p in kept))
        pinned = False
        for site in strays:
            claim = claims.claim(site)
            if claim is None or not _drifts(replace(site, band=claim[0].name, role=claim[1]), claim[0]):
                continue
            index = next(i for i, p in enumerate(kept) if p.name == claim[0].name)
            proposal = kept[index]
            kept_sites = []
            for name, files in proposal.sites:
                if not _claims(proposal, name, site):
                    kept_sites.append((name, files))
                elif not files:
                    kept_sites.append((name, _learned_in(proposal, name, learned)))
                # else: pinned to its files already, it cannot tell the stray from what it was
                # learned from (one file writes both): it goes, and the band describes less
            sites = tuple(kept_sites)
            pinned = pinned or sites != proposal.sites
            if len(sites) < len(proposal.sites):  # it describes less: where it was found, and how sure
                found = {s.path for s in learned if s.path in proposal.found_in
                         and any(_claims(proposal, name, s) for name, _ in sites)}
                proposal = replace(proposal, found_in=tuple(p for p in proposal.found_in if p in found),
                                   unsure=proposal.unsure and len(sites) > 1)
            kept[index] = replace(proposal, sites=sites)
        if not pinned:
            return kept  # what is left is claimed through `ports:` names, which take no files
    return kept


def _learned_in(proposal: Proposal, name: str, learned: list[Site]) -> tuple[str, ...]:
    """The files of the band's own sites that a selector of `name` claims."""
    files = {site.path for site in learned if site.path in proposal.found_in and _claims(proposal, name, site)}
    return tuple(sorted(files)) or proposal.found_in


def _drifts(site: Site, band: Band) -> bool:
    wanted = canonical(site, band)
    return site.value != wanted if wanted is not None else not band.contains(site.value)


def _claims(proposal: Proposal, name: str, site: Site) -> bool:
    one = Band(proposal.name, proposal.low, proposal.high, sites=(Selector(name),))
    return Claims((one,)).claim(site) is not None


def _each_binds(proposals: list[Proposal], sites: tuple[Site, ...]) -> tuple[Proposal, ...]:
    """The bands that keep a site once the check binds them (the first band declared that claims a
    site takes it): a band whose every site an earlier band claims would be a problem of the config
    itself (PL003), which init never writes."""
    kept = list(proposals)
    while True:
        bound = {site.band for site in bind(sites, Claims(tuple(_band(p) for p in kept)))}
        idle = {p.name for p in kept if p.name not in bound}
        if not idle:
            return tuple(kept)
        kept = disagreements([replace(p, within="" if p.within in idle else p.within) for p in kept if p.name not in idle])


def _band(proposal: Proposal) -> Band:
    """The band the config will declare for a proposal (what the loader builds from its lines)."""
    return Band(
        proposal.name, proposal.low, proposal.high, within=proposal.within, shares_with=proposal.shares_with,
        ports=proposal.ports, sites=tuple(Selector(name, files) for name, files in proposal.sites), inferred=True,
    )


def render(starter: Starter) -> str:
    lines = [
        "# A starter port layout, written by `portlint init` from the ports found in this repository.",
        "# Review it: rename bands, merge or split them, widen ranges to what each service may use,",
        "# then run `portlint`. Reference: `portlint rule --all` and the README's Configuration section.",
        "# Every band says `inferred: true` until a person deletes that line: fixes on an inferred band",
        "# (or frozen pair) are not safe, so `portlint --fix` leaves them to `--unsafe-fixes`.",
        "",
        f"ephemeral_floor: {_scalar(starter.floor)}  # where the kernel's ephemeral ports begin: 32768 on stock Linux;"
        " \"auto\" reads this host's range",
    ]
    if starter.test_paths != DEFAULT_TEST_PATHS:
        lines += ["", "test_paths:  # kept from the config this one replaced: tests, fixtures and mocks (a scope of their own)"]
        lines += [f"  - {_scalar(pattern)}" for pattern in starter.test_paths]
    if starter.bands:
        lines += ["", "bands:"]
        for proposal in starter.bands:
            lines += _band_lines(proposal)
    if starter.frozen:
        lines += ["", "frozen:  # near-identical copies: a copy must keep its source's ports"]
        for copy, source in starter.frozen:
            lines += [f"  - copies: {_scalar(copy)}", f"    source: {_scalar(source)}", "    inferred: true"]
    if starter.undirected:
        lines += ["", "# Near-identical files; if one is a frozen copy of the other, add it under `frozen:`:"]
        lines += [_comment(f"#   {first} ~ {second}") for first, second in starter.undirected]
    return "\n".join(lines) + "\n"


def _band_lines(proposal: Proposal) -> list[str]:
    more = len(proposal.found_in) - 3
    shown = ", ".join(proposal.found_in[:3]) + (f" (+{more} more)" if more > 0 else "")
    lines = [f"  {proposal.name}:"]
    if proposal.unsure:
        lines.insert(0, "  # names that write this port only in different places, taken for one service"
                        " (most are one value restated); split the band if they are not")
    if proposal.disagreement:
        lines.insert(0, _comment(f"  # production sites disagree: {proposal.disagreement}; a person decides which is right"))
    span = f"port: {proposal.low}" if proposal.low == proposal.high and not proposal.ports else \
        f"range: {proposal.low}-{proposal.high}"
    notes = [f"also written: {', '.join(proposal.others)} (PL301 reports those)"] if proposal.others else []
    if proposal.documented:
        notes.append(f"as {', '.join(proposal.documented)} state{'s' if len(proposal.documented) == 1 else ''} it")
    lines.append(f"    {span}" + (_comment(f"  # {'; '.join(notes)}") if notes else ""))
    if proposal.within:
        lines.append(f"    within: {proposal.within}  # a carve-out, as the docs lay it out")
    lines.append(f"    description: {_scalar('found in ' + shown)}")
    lines.append("    inferred: true  # written by portlint init: delete this line once a person has confirmed the band")
    if proposal.shares_with:
        lines.append(f"    shares_with: {_flow(list(proposal.shares_with))}  # one service; see the disagreement above")
    if proposal.low < 1024:
        lines.append("    # below 1024: binding it needs root or CAP_NET_BIND_SERVICE; add `privileged: true` if it has them")
    if proposal.ports:
        lines.append("    ports:")
        lines += [f"      {_scalar(name)}: {value}" for name, value in proposal.ports]
    if proposal.sites:
        lines.append("    sites:")
        for name, files in proposal.sites:
            if files:
                globs = files[0] if len(files) == 1 else list(files)
                lines.append(f"      - {{name: {_scalar(name)}, files: {_flow(globs)}}}")
            else:
                lines.append(f"      - {_scalar(name)}")
    return lines


def _scalar(value: int | str) -> str:
    if isinstance(value, int) or _PLAIN.fullmatch(value) and value.lower() not in _RESERVED:
        return str(value)
    # A JSON string is a YAML double-quoted scalar; the controls JSON leaves as they are (DEL, C1,
    # the line separators, bidirectional overrides: no YAML or terminal wants them raw) are
    # escaped as YAML reads them back (`\x85`, `\u2028`): the same value, on one printable line.
    return printable(json.dumps(value, ensure_ascii=False))


def _comment(text: str) -> str:
    """A comment line built from what the repository holds (its file names, its names): a name
    holding a line break would end the comment and write YAML of its choosing into the config,
    and a control character would reach the terminal of whoever reads it."""
    return printable(text)


def _flow(value: str | list[str]) -> str:
    return _scalar(value) if isinstance(value, str) else "[" + ", ".join(_scalar(v) for v in value) + "]"
