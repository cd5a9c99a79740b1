"""Bands inferred from the sites a zero-config scan finds, for `portlint init`.

A band describes a service. Sites are grouped by what their names say:
`cluster.master_port_range_low` and `DEFAULT_MASTER_PORT_RANGE_LOW` both say
"master", `env.gym.port_range_low` says "gym" (its own words say nothing, its parent
key does). Where a group's sites write several values, they are one service that
disagrees only where one definition holds two of them (a YAML key two configs fill
in, a config key and the code default it feeds, one module's two defaults): each
value is then a band pinned to its files, `shares_with` the others, under a one-line
comment for a person to decide. Otherwise they are separate services (the `--port`
of each of several servers' packages), and so are the copies of one definition in
folders apart (`local/` and `standalone/`, each deployment with its own config and
script): each its own band, named after what encloses it (keys, class, folders),
never numbered after a file. Single ports a step or two apart
(`NODE_MANAGER_PORT=1301`, `OBJECT_MANAGER_PORT=1303`, and the head's `+ 1` beside
each) become one band with named `ports:`; scan starts that agree
(`start_port=7000`, `base_port = ... else 7000`) share one band. A band the docs
state wider than the code writes it takes the docs' extent, when that takes in no
other band's port. A selector whose last part says nothing (`port`, `server.port`)
is pinned to its files.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from portlint.config.locate import CONFIG_NAMES
from portlint.model.ports import BASE, HIGH, LOW, is_port
from portlint.model.ports import span as shown_span
from portlint.model.records import Struct, field, replace
from portlint.model.sites import Range, Site, ranges_and_singles
from portlint.stages.layout.services import UnionFind, same_service, service_words

CLUSTER_GAP = 2  # single ports at most this far apart form one band (odd worker / even head ports)
_FILLER = frozenset("port ports range low high min max lo hi lower upper default start base begin first".split())
_SCOPE_FILLER = frozenset("init main call new self cls setup run".split())  # `BaseModel.__init__.port`: BaseModel
# Words of enclosing keys, scopes, files and folders that say nothing of what a port serves.
_CONTEXT_FILLER = _SCOPE_FILLER | frozenset(
    "config configs cfg conf settings options opts args kwargs params spec template values src lib libs pkg "
    "python experimental infra internal core common utils util cli scripts tools examples example app "
    "launch launcher entrypoint entrypoints constants defaults".split()
)
_INDEX = re.compile(r"\[(\d+)\]")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[^A-Za-z0-9]+")


class Group(Struct):
    """Sites whose names say the same thing."""

    name: str
    generic: bool  # named after its file: the name alone (`port`, `base_port`) says nothing
    ranges: list[Range] = field(default_factory=list)
    singles: list[Site] = field(default_factory=list)
    pinned: frozenset[str] = frozenset()  # names that write other values elsewhere: they need `files:`

    @property
    def sites(self) -> list[Site]:
        return [s for r in self.ranges for s in (r.low, r.high)] + self.singles


class Proposal(Struct, frozen=True):
    """One band of the starter config."""

    name: str
    low: int
    high: int
    sites: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (name, files); files only for generic names
    ports: tuple[tuple[str, int], ...] = ()
    found_in: tuple[str, ...] = ()
    others: tuple[str, ...] = ()  # values a minority writes: PL301 will report them
    groups: tuple[str, ...] = ()  # the group names it holds
    mentioned: tuple[str, ...] = ()  # docs that name it
    documented: tuple[str, ...] = ()  # docs that state its extent, when they widened it
    within: str = ""
    shares_with: tuple[str, ...] = ()  # the other bands one disagreeing service was split into
    disagreement: str = ""  # what the production sites of that service write, for a person to decide
    unsure: bool = False  # names that share no word, taken for one service: a person may split it
    anchor: Site | None = None  # its first site: what encloses it tells it from a band of the same name


def infer_bands(sites: Iterable[Site]) -> list[Proposal]:
    """One proposal per range or port group found, ordered by port."""
    sites = [s for s in sites if is_port(s.value) and not is_config(s.path)]
    code = [s for s in sites if not s.is_doc]
    ranges, singles = ranges_and_singles(s for s in code if not s.derived)
    groups: dict[str, Group] = {}
    items: list[Range | Site] = [*ranges, *singles]
    for item in items:
        site = item.low if isinstance(item, Range) else item
        name, generic = group_name(site)
        group = groups.setdefault(name, Group(name, generic))
        if isinstance(item, Range):
            group.ranges.append(item)
        else:
            group.singles.append(item)
    proposals = [*_range_bands(groups.values()), *_single_bands(groups.values(), (s for s in code if s.derived))]
    proposals = list(_unique_names(sorted(proposals, key=lambda p: (p.low, p.high, p.name))))
    proposals = _carve_outs(_widened_by_docs(proposals, [s for s in sites if s.is_doc]))
    return sorted(disagreements(proposals), key=lambda p: (p.low, p.high, p.name))


def disagreements(proposals: list[Proposal]) -> list[Proposal]:
    """Bands split from one group of names because its sites write different values: each
    `shares_with` the others (one service, not a collision) and names what each writes. (Run
    again once bands are left out, so that no band names one that is not there.)"""
    by_group: dict[str, list[Proposal]] = defaultdict(list)
    for proposal in proposals:
        for group in proposal.groups:
            by_group[group].append(proposal)
    result = []
    for proposal in proposals:
        family = list({id(p): p for group in proposal.groups for p in by_group[group]}.values())
        family.sort(key=lambda p: (p.low, p.high, p.name))
        if len(family) > 1:
            said = ", ".join(f"{p.name} {shown_span(p.low, p.high)} ({_files(len(p.found_in))})" for p in family[:_SAID])
            said += f" (+{len(family) - _SAID} more)" if len(family) > _SAID else ""
            proposal = replace(proposal, shares_with=tuple(p.name for p in family if p is not proposal),
                               disagreement=said if proposal is family[0] else "")
        else:
            proposal = replace(proposal, shares_with=(), disagreement="")
        result.append(proposal)
    return result


_SAID = 4  # bands named in a disagreement's one line; the rest are counted


def _files(count: int) -> str:
    return f"{count} file{'s' if count != 1 else ''}"


def group_name(site: Site) -> tuple[str, bool]:
    """A band name from a site's name: its words without port/range/low/high/default, else its parent key's."""
    head, _, leaf = site.name.lstrip("-").rpartition(".")
    words = _words(leaf)
    if words:
        return "-".join(words), False
    for part in reversed(head.split(".") if head else []):
        words = [w for w in _words(part) if w not in _SCOPE_FILLER]
        if words:
            return "-".join(words), False
    path = Path(site.path)
    stem = [w for w in _words(path.stem, keep=True) if w not in _CONTEXT_FILLER]
    place = stem or next((words for part in reversed(path.parent.parts)
                          if (words := [w for w in _words(part) if w not in _CONTEXT_FILLER])), [])
    return "-".join([*place, *_words(leaf, keep=True)]), True


def says_nothing(name: str) -> bool:
    """A name whose last part says nothing of what it serves (`port`, `--port`, `server.port`): a
    selector of it is pinned to the files it was learned from, so that a band learned from an
    example config never claims another service's `port` (a library's own CLI default)."""
    return not _words(_INDEX.sub("", name).lstrip("-").rsplit(".", 1)[-1])


def _words(text: str, keep: bool = False) -> list[str]:
    text = _CAMEL.sub("_", _INDEX.sub(r"_\1", text))
    found = [w.lower() for w in _SEPARATORS.split(text) if w]
    return found if keep else [w for w in found if w not in _FILLER]


def is_config(path: str) -> bool:
    """portlint's own config files: their numbers are a layout, not sites."""
    return path.rsplit("/", 1)[-1] in CONFIG_NAMES[:2]


def _split(group: Group) -> list[tuple[Group, tuple[int, int], tuple[str, ...]]]:
    """What a group writes: the value most of its sites write, with the rest as drift for PL301; or,
    when no value has a majority, one pinned sub-group per value (two things that share a name)."""
    items: list[Range | Site] = [*group.ranges] or [*group.singles]
    counts = Counter(_span(item) for item in items)
    ranked = counts.most_common()  # stable: on a tie, the first written comes first
    if len(ranked) == 1:  # sites that disagree are split, never outvoted: today's values all pass
        return [(group, ranked[0][0], ())]
    spans_of: dict[str, set[tuple[int, int]]] = defaultdict(set)
    for item in items:
        for site in (item.low, item.high) if isinstance(item, Range) else (item,):
            spans_of[site.name].add(_span(item))
    shared = frozenset(name for name, spans in spans_of.items() if len(spans) > 1)
    parts: list[tuple[Group, tuple[int, int], tuple[str, ...]]] = []
    for index, span in enumerate(counts):
        ranges = [r for r in group.ranges if _span(r) == span]
        singles = [s for s in group.singles if _span(s) == span or (group.ranges and index == 0)]
        parts.append((Group(group.name, group.generic, ranges, singles, pinned=shared), span, ()))
    parts = _told_apart(parts)
    if len(parts) == 1:
        return [(parts[0][0], parts[0][1], ())]
    if _one_definition(part for part, _, _ in parts):
        return parts  # one service whose sites disagree: a person decides (`disagreements`)
    return _services(group, parts)


def _told_apart(parts: list[tuple[Group, tuple[int, int], tuple[str, ...]]]
                ) -> list[tuple[Group, tuple[int, int], tuple[str, ...]]]:
    """The parts a config can tell apart: a selector names sites by name and files, so values
    written under one name in one file (two servers' `--port` in one script, a prefiller's and a
    decoder's) cannot be two bands, nor one band without calling one of them drift: neither is
    described (a person who knows which is which can)."""
    places = [{(site.name, site.path) for site in part.sites} for part, _, _ in parts]
    shared = {i for i, mine in enumerate(places) for j, other in enumerate(places) if i != j and mine & other}
    return [part for index, part in enumerate(parts) if index not in shared]


def _one_definition(parts: Iterable[Group]) -> bool:
    """Two parts hold one definition (`_definition`), sites of two kinds (a config key and the code
    default it feeds, a script's option and the parser's), or code of one file (a module's two
    defaults for its service): one service that disagrees. (A YAML file holds many services' keys.)
    Two parts that each hold their own copy of a definition in folders apart (`_apart`) are
    two deployments, each with its value: not a disagreement."""
    found = [(
        {_definition(site) for site in part.sites}, {site.kind for site in part.sites},
        {(site.path, _program(site)) for site in part.sites if site.kind != "yaml"},
        {PurePosixPath(site.path).parent for site in part.sites},
    ) for part in parts]
    return any(
        (first[0] & second[0] or len(first[1] | second[1]) > 1 or first[2] & second[2])
        and not (first[0] & second[0] and _apart(first[3], second[3]))
        for index, first in enumerate(found) for second in found[index + 1:]
    )


def _apart(first: set[PurePosixPath], second: set[PurePosixPath]) -> bool:
    """No folder of one set is, holds, or is held by a folder of the other (`local/` and
    `standalone/`, each with its own config and script): separate deployments of the repository.
    A file at the root holds everything, and is apart from nothing."""
    return not any(a == b or a in b.parents or b in a.parents for a in first for b in second)


def _definition(site: Site) -> tuple[str, str, str]:
    """What a site defines: a YAML key path (one field of a config schema, whichever file fills it
    in; `ports[0]` and `ports[1]` are two entries); in code and scripts its name, and where its own
    name says nothing (`--port`, `GatewayConfig.port`) the folder that defines it, else its
    top-level package (`--port` of two servers' `__main__.py`, `server_port` of a library and of a
    demo app, are two things)."""
    if site.kind == "yaml":
        return site.kind, site.name, ""
    name = _INDEX.sub("", site.name).lstrip("-")
    leaf = name.rsplit(".", 1)[-1]
    folders = site.path.split("/")[:-1]
    where = "/".join(folders) if not _words(leaf) else folders[0] if folders else ""
    return site.kind, leaf, f"{where} {_program(site)}".rstrip()


def _program(site: Site) -> str:
    """The program a script's option is given to (`vllm serve`, `lmcache_server`): two programs'
    `--port` in one script are two services' ports."""
    return site.scope if site.kind == "shell" and site.name.startswith("--") else ""


def _services(group: Group, parts: list[tuple[Group, tuple[int, int], tuple[str, ...]]]
              ) -> list[tuple[Group, tuple[int, int], tuple[str, ...]]]:
    """Parts of one name that no definition shares are separate services: each a band of its own,
    named after what serves it (its enclosing keys, class, folders: the fewest that tell it from
    the others). Parts that nothing tells apart (two entries of one list in one manifest) keep one
    name, as the ports of one thing; one whose name and context say nothing at all is left out."""
    contexts = [_contexts(part.sites[0]) for part, _, _ in parts]
    names = _telling(contexts)
    base = [] if group.generic else group.name.split("-")
    found = []
    for (part, span, others), name, context in zip(parts, names, contexts):
        if name is None:
            name = _named(context, len(context)) or ()
        if not name and not base:
            continue  # nothing says what it serves
        words = [*name, *(w for w in base if w not in name)]
        found.append((Group("-".join(words), part.generic, part.ranges, part.singles, pinned=part.pinned), span, others))
    return found


def _telling(contexts: list[list[list[str]]]) -> list[tuple[str, ...] | None]:
    """For each context (levels of words, nearest first), the words of the fewest nearest levels
    that no other context's words of as many or fewer levels equal; None where none do."""
    depth = [1] * len(contexts)
    while True:
        names = [_named(contexts[i], depth[i]) for i in range(len(contexts))]
        clashing = {i for i, name in enumerate(names) if name is not None and names.count(name) > 1}
        if not clashing:
            return names
        for i in clashing:
            depth[i] += 1


def _named(levels: list[list[str]], depth: int) -> tuple[str, ...] | None:
    """The words of the `depth` nearest levels of context, outermost first; None past the last."""
    if depth > len(levels):
        return None
    return tuple(w for level in reversed(levels[:depth]) for w in level)


def _contexts(site: Site) -> list[list[str]]:
    """What encloses a site, nearest first, each level's telling words: its parent keys (YAML), its
    class (Python: a function says what uses a port, not what serves it), then its folders (not
    the file: a file says where, not what)."""
    program = [w for w in _words(_program(site)) if w not in _CONTEXT_FILLER]  # a script option's program first
    levels: list[list[str]] = [program] if program else []
    head = _INDEX.sub("", site.name).lstrip("-").rpartition(".")[0]
    scopes = head.split(".") if site.kind == "yaml" and head else \
        [part for part in (site.scope.split(".") if site.scope else []) if part[:1].isupper()]  # classes, not functions
    for part in [*reversed(scopes), *reversed(site.path.split("/")[:-1])]:
        words = [w for w in _words(part) if w not in _CONTEXT_FILLER]
        if words and words not in levels:
            levels.append(words)
    return levels


def _span(item: Range | Site) -> tuple[int, int]:
    if isinstance(item, Range):
        return min(item.low.value, item.high.value), max(item.low.value, item.high.value)
    return item.value, item.value


def _range_bands(groups: Iterable[Group]) -> Iterator[Proposal]:
    """A band per range; groups that write the very same range (`workers.port_range_*` in YAML,
    `DEFAULT_WORKER_PORT_RANGE_*` in Python) are one band written in two vocabularies."""
    by_range: dict[tuple[int, int], list[tuple[Group, tuple[str, ...]]]] = defaultdict(list)
    for group in groups:
        if group.ranges:
            for part, span, others in _split(group):
                by_range[span].append((part, others))
    for (low, high), members in by_range.items():
        members.sort(key=lambda item: (item[0].generic, -len(item[0].ranges), item[0].name))
        minority = list(dict.fromkeys(other for _, written in members for other in written))
        yield _proposal(members[0][0].name, low, high, [group for group, _ in members], others=minority)


class Port(NamedTuple):
    """A single port to place: named groups that write it, or a derived port (`$((X + 1))`) with none."""

    value: int
    groups: tuple[Group, ...] = ()
    others: tuple[str, ...] = ()
    label: str = ""  # the words the groups of one service share
    unsure: bool = False  # names with no word in common, joined because they write this port only apart

    @property
    def name(self) -> str:
        return self.label or (self.groups[0].name if self.groups else "")

    @property
    def generic(self) -> bool:
        """Its selectors need `files:`, which `ports:` names cannot have: it stays a band of its own."""
        return any(group.generic or group.pinned or any(map(says_nothing, _names(group))) for group in self.groups)


def _single_bands(groups: Iterable[Group], derived: Iterable[Site]) -> Iterator[Proposal]:
    """Single ports; ports a step or two apart (and derived ports beside them) form one band with `ports:`."""
    ports = [*_one_service([*_starts(groups), *_ports(groups)]), *(Port(value) for value in {s.value for s in derived})]
    for cluster in _clusters(sorted(ports, key=lambda port: (port.value, port.name))):
        named = [port for port in cluster if port.groups]
        if not named:
            continue  # derived ports only: their bases are elsewhere
        if len(named) == 1:
            port = named[0]
            proposal = _proposal(port.name, port.value, port.value, list(port.groups), others=port.others)
            yield replace(proposal, unsure=port.unsure)
            continue
        values = [port.value for port in cluster]
        listed = tuple((name, port.value) for port in named for group in port.groups for name in _names(group))
        leading = {port.name.split("-")[0] for port in named}
        name = leading.pop() if len(leading) == 1 else f"{named[0].name}-group"
        yield _proposal(name, min(values), max(values), [g for port in named for g in port.groups], ports=listed)


def _starts(groups: Iterable[Group]) -> Iterator[Port]:
    """Scan starts with no written end (`start_port=7000`): those that agree on a value are one port."""
    by_value: dict[int, list[Group]] = defaultdict(list)
    for group in groups:
        if not group.ranges and all(s.role in (LOW, BASE) for s in group.singles):
            for part, (value, _), _ in _split(group):
                by_value[value].append(part)
    for value, members in by_value.items():
        members.sort(key=lambda g: (g.generic, not any(s.role == LOW for s in g.singles), -len(g.singles), g.name))
        yield Port(value, tuple(members))


def _ports(groups: Iterable[Group]) -> Iterator[Port]:
    for group in groups:
        if not group.ranges and not all(s.role in (LOW, BASE) for s in group.singles):
            for part, (value, _), others in _split(group):
                yield Port(value, (part,), others)


def _one_service(ports: list[Port]) -> list[Port]:
    """Ports of one value written under names that are one service (`portlint.stages.layout.services`: the env
    var feeding a default, a client's default for its server) are one port: one band, named from
    the words their names share. So are names that write one value in different files (or Python
    classes) of one folder (a server's `--port` and its client's default, beside it): one value
    restated, not two services. Names that only happen to write one value in different folders
    (`--port` of a gateway, `model_service_port` of a runner), or in one file, stay two bands: a
    band describes a service, not a number."""
    classes = UnionFind(len(ports))
    for i, a in enumerate(ports):
        for j in range(i + 1, len(ports)):
            b = ports[j]
            sites_a = [s for g in a.groups for s in g.singles]
            sites_b = [s for g in b.groups for s in g.singles]
            if a.value == b.value and (
                any(same_service(x, y) for x in sites_a for y in sites_b)
                or not {_together(s) for s in sites_a} & {_together(s) for s in sites_b}
                and {_folder(s) for s in sites_a} == {_folder(s) for s in sites_b}
            ):
                classes.union(i, j)
    members: dict[int, list[Port]] = defaultdict(list)
    for index, port in enumerate(ports):
        members[classes.find(index)].append(port)
    merged = []
    for family in members.values():
        if len(family) == 1:
            merged.append(family[0])
            continue
        groups = tuple(g for port in family for g in port.groups)
        shared = set.intersection(*(set(service_words(s)) for g in groups for s in g.singles))
        first = [w for s in groups[0].singles for w in _words(s.name.rsplit(".", 1)[-1])] or groups[0].name.split("-")
        label = "-".join(dict.fromkeys(w for w in first if w in shared))
        merged.append(Port(family[0].value, groups, tuple(o for port in family for o in port.others),
                           label or groups[0].name, unsure=not label))
    return merged


def _folder(site: Site) -> str:
    return site.path.rpartition("/")[0]


def _together(site: Site) -> tuple[str, str]:
    return site.path, site.scope if site.kind == "python" else ""


def _clusters(ports: list[Port]) -> Iterator[list[Port]]:
    """Runs of ports at most CLUSTER_GAP apart. A generic name stays alone (its selector needs `files:`),
    and so does a second name on a port already taken: two bands, so that PL201 reports the collision."""
    run: list[Port] = []
    for port in ports:
        named = [p for p in run if p.groups]
        apart = bool(run) and port.value - run[-1].value > CLUSTER_GAP
        alone = bool(port.groups) and (port.generic or any(p.generic or p.value == port.value for p in named))
        if apart or (alone and named):
            yield run
            run = []
        run.append(port)
    if run:
        yield run


def _names(group: Group) -> list[str]:
    return list(dict.fromkeys(s.name for s in group.sites))


def _proposal(name: str, low: int, high: int, groups: list[Group], ports: tuple[tuple[str, int], ...] = (),
              others: Iterable[str] = ()) -> Proposal:
    sites = [] if ports else [
        (site_name, tuple(sorted({s.path for s in g.sites if s.name == site_name}))
         if g.generic or site_name in g.pinned or says_nothing(site_name) else ())
        for g in groups for site_name in _names(g)
    ]
    found = tuple(dict.fromkeys(s.path for g in groups for s in sorted(g.sites, key=lambda s: s.path)))
    anchor = min((s for g in groups for s in g.sites), key=lambda s: (s.path, s.line, s.column), default=None)
    return Proposal(name, low, high, tuple(sites), ports, found, tuple(others), tuple(g.name for g in groups),
                    anchor=anchor)


# What the docs say


def _widened_by_docs(proposals: list[Proposal], docs: list[Site]) -> list[Proposal]:
    """A band the docs state wider than the code writes it (`DEFAULT_VLLM_PORT_RANGE_LOW=7000` in code,
    `7000–8999` in the layout table) takes the docs' extent, when that covers every value the code
    writes and overlaps no other band. A doc that disagrees otherwise is left to PL501."""
    stated: dict[str, list[Site]] = defaultdict(list)
    for site in docs:
        stated[group_name(site)[0]].append(site)
    result = list(proposals)
    for index, proposal in enumerate(result):
        said = [s for name in proposal.groups for s in stated.get(name, ())]
        proposal = result[index] = replace(proposal, mentioned=tuple(sorted({s.path for s in said})))
        lows = [s.value for s in said if s.role in (LOW, BASE)]
        highs = [s.value for s in said if s.role == HIGH]
        low, high = min(lows, default=proposal.low), max(highs, default=proposal.high)
        if (low, high) == (proposal.low, proposal.high) or not (low <= proposal.low and proposal.high <= high):
            continue
        wider = replace(proposal, low=low, high=high, documented=proposal.mentioned)
        others = (other for other in result if other is not proposal)
        if all(_may_sit_inside(other, wider) or not _overlap(other, wider) for other in others):
            result[index] = wider
    return result


def _carve_outs(proposals: list[Proposal]) -> list[Proposal]:
    """A single port inside a band the docs widened, named by the same docs, is a carve-out of it
    (`within`), as the docs lay it out. One the docs do not name stays a band of its own: PL201
    reports that it sits inside another band."""
    wide = [p for p in proposals if p.documented]
    return [replace(p, within=_parent(p, wide)) for p in proposals]


def _parent(single: Proposal, wide: list[Proposal]) -> str:
    for band in wide:
        if band is not single and _may_sit_inside(single, band) and set(single.mentioned) & set(band.documented):
            return band.name
    return ""


def _may_sit_inside(single: Proposal, band: Proposal) -> bool:
    return single.low == single.high and not single.ports and band.low <= single.low <= band.high


def _overlap(a: Proposal, b: Proposal) -> bool:
    return a.low <= b.high and b.low <= a.high


def _unique_names(proposals: list[Proposal]) -> Iterator[Proposal]:
    """Bands of one name told apart by what encloses their first site (`gateway` of three services:
    `agent-service-gateway`, `data-service-gateway`...); the values of one service that disagree
    (`disagreements`), and those nothing tells apart, are numbered."""
    by_name: dict[str, list[int]] = defaultdict(list)
    for index, proposal in enumerate(proposals):
        by_name[proposal.name].append(index)
    named = [p.name for p in proposals]
    for name, indices in by_name.items():
        groups = [set(proposals[i].groups) for i in indices]
        if len(indices) > 1 and not any(a & b for n, a in enumerate(groups) for b in groups[n + 1:]):
            told = _telling([_contexts(anchor) if (anchor := proposals[i].anchor) else [] for i in indices])
            for i, words in zip(indices, told):
                if words is not None:
                    named[i] = "-".join([*words, *(w for w in name.split("-") if w not in words)])
    seen: Counter[str] = Counter()
    for proposal, name in zip(proposals, named):
        seen[name] += 1
        yield replace(proposal, name=name if seen[name] == 1 else f"{name}-{seen[name]}")
