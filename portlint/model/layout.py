"""The layout: bands and their selectors as the config declares them, and the whole picture
a rule sees (the bands plus every site found)."""
from __future__ import annotations

from collections import defaultdict
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

from portlint.model.extraction import CodeFile
from portlint.model.globs import files_match
from portlint.model.naming import range_stem
from portlint.model.ports import span
from portlint.model.records import Struct, field
from portlint.model.scope import DEFAULT_TEST_PATHS, in_tests, mocked
from portlint.model.selectors import bare, name_matches, suffixes
from portlint.model.sites import Command, Failure, Site, Written, ranges_and_singles

if TYPE_CHECKING:
    from portlint.model.frozen import FrozenCheck
    from portlint.model.usage import Usage


class Destinations(Protocol):
    """Where a Python value goes (portlint.analysis.destinations implements it)."""

    def connect_only(self, site: Site) -> bool:
        """True when the value only reaches the far end of a connection: a port this repository dials."""
        ...

    def exclusive_end(self, site: Site) -> bool | None:
        """True when the code reads the value as the stop of a range (`range(low, high)`): one past its
        last port; False when it reads it as the last port; None when it does not tell."""
        ...


class _Nowhere:
    """No code was read: no value is proven to be only dialled, or a range's exclusive end."""

    def connect_only(self, site: Site) -> bool:
        return False

    def exclusive_end(self, site: Site) -> bool | None:
        return None


NOWHERE = _Nowhere()

class Selector(Struct, frozen=True):
    """Binds sites to a band: a name plus optional file glob, kind and role."""

    name: str
    files: tuple[str, ...] = ()
    kind: str = ""
    role: str = ""



class Window(Struct, frozen=True):
    stride: int
    count: int



class FrozenSpec(Struct, frozen=True):
    """Files matching `copies` mirror a source: the first template that exists.

    Templates take `{name}` (the copy's file name) and `{stem}` (without suffix).
    """

    copies: str
    sources: tuple[str, ...]
    compare: str = "ports"  # ports | all
    inferred: bool = False  # guessed by `portlint init` and not yet confirmed by a person: no safe fixes

    def candidates(self, copy: str) -> tuple[str, ...]:
        name = copy.rsplit("/", 1)[-1]
        stem = name.rsplit(".", 1)[0] if "." in name else name
        return tuple(template.format(name=name, stem=stem) for template in self.sources)



class Band(Struct, frozen=True):
    """A named, inclusive port range of the canonical layout."""

    name: str
    low: int
    high: int
    description: str = ""
    within: str = ""
    shares_with: tuple[str, ...] = ()
    ports: tuple[tuple[str, int], ...] = ()
    window: Window | None = None
    files: tuple[str, ...] = ()
    sites: tuple[Selector, ...] = ()
    privileged: bool = False
    inferred: bool = False  # written by `portlint init` and not yet confirmed by a person: no safe fixes
    line: int = 1  # where the band is declared in the config file
    column: int = 1

    def port_named(self, name: str) -> int | None:
        for port_name, port in self.ports:
            if name_matches(port_name, name):
                return port
        return None

    @property
    def span(self) -> str:
        """`8080` or `8000-8999` (see `span`)."""
        return span(self.low, self.high)

    def contains(self, port: int) -> bool:
        return self.low <= port <= self.high

    def overlaps(self, other: Band) -> bool:
        return self.low <= other.high and other.low <= self.high



class Layout(Struct, frozen=True, dict=True):  # dict: room for its cached properties
    """The whole picture a rule sees: the declared layout plus every site found."""

    ephemeral_floor: int
    bands: tuple[Band, ...] = ()
    sites: tuple[Site, ...] = ()
    failures: tuple[Failure, ...] = ()
    commands: tuple[Command, ...] = ()
    code_files: tuple[CodeFile, ...] = ()
    frozen: tuple[FrozenCheck, ...] = ()
    unreferenced: frozenset[str] = frozenset()  # names docs describe that no code file mentions
    config_path: str = ""  # path of the config as shown in problems, "" in zero-config
    declared: bool = False  # a config file declares the layout
    usage: Usage | None = None  # what the config's entries matched (PL003)
    test_paths: tuple[str, ...] = DEFAULT_TEST_PATHS  # test-like paths (portlint.model.scope)
    # Where the code files' parameter defaults go (PL101, PL302): the analysis the layout stage
    # hands over when a rule reads code files, which parses each module once, on first ask.
    destinations: Destinations = field(default_factory=lambda: NOWHERE)
    # Files and folders a container that keeps its own network namespace mounts (a compose
    # service's bind mounts): what they bind is bound inside it (portlint.stages.layout.ownership).
    mounted: frozenset[str] = frozenset()
    # Functions of other modules called to fill a setting where it is unset, as (path, function,
    # setting): their defaults are that setting's fallback, as `Site.fills` says within one module.
    fallbacks: tuple[tuple[str, str, str], ...] = ()

    def fills(self, site: Site) -> str:
        """The setting the site stands in for where that is unset (`Site.fills`), also where the
        function whose default it is is called for that from another module (`fallbacks`)."""
        if site.fills or not self.fallbacks or site.kind != "python":
            return site.fills
        return self._fallbacks.get((site.path, site.name.rsplit(".", 1)[0]), "")

    @cached_property
    def _fallbacks(self) -> dict[tuple[str, str], str]:
        return {(path, function): setting for path, function, setting in self.fallbacks}

    def in_tests(self, where: str | Site) -> bool:
        """The path (or the site's path) belongs to tests or fixtures, or the site's value is given
        to a mock or a fake: a scope of its own (portlint.model.scope)."""
        if isinstance(where, Site):
            return in_tests(where.path, self.test_paths) or mocked(where)
        return in_tests(where, self.test_paths)

    def in_container(self, path: str) -> bool:
        """The file is one a container that keeps its own network namespace mounts (`mounted`)."""
        if not self.mounted:
            return False
        if path in self.mounted:
            return True
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        while folder:
            if folder in self.mounted:
                return True
            folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
        return False

    @cached_property
    def code_sites(self) -> tuple[Site, ...]:
        """Sites in configs, scripts and code (not docs)."""
        return tuple(site for site in self.sites if not site.is_doc)

    @cached_property
    def written(self) -> tuple[Written, ...]:
        """Every range and port written in configs, scripts and code (not docs): each range
        (a low paired with its high sibling, `ranges_and_singles`), then each port.
        Computed ports (`$((BASE + 1))`) are left out: they follow their operands."""
        ranges, singles = ranges_and_singles(site for site in self.code_sites if not site.derived)
        found = [Written(r.low.value, r.high.value, range_stem(r.low.name), (r.low, r.high)) for r in ranges]
        return (*found, *(Written(s.value, s.top, s.name, (s,)) for s in singles))

    @cached_property
    def _every_port_sites(self) -> frozenset[int]:
        return frozenset(id(site) for w in self.written if w.every_port for site in w.sites)

    def any_port(self, site: Site) -> bool:
        """True for a bound of a written range over the whole port space (Written.every_port)."""
        return id(site) in self._every_port_sites

    @cached_property
    def claims(self) -> Claims:
        """Which band claims a site (`Claims.claim`): indexed once per layout."""
        return Claims(self.bands)

    @cached_property
    def decided(self) -> tuple[Band, ...]:
        """The bands a person declared: not those `portlint init` inferred (`inferred: true`), which
        describe what the repository writes and decide nothing about where a port goes."""
        return tuple(band for band in self.bands if not band.inferred)

    def band(self, name: str) -> Band | None:
        for band in self.bands:
            if band.name == name:
                return band
        return None

    def related(self, a: str, b: str) -> bool:
        """True when bands a and b may overlap: a carve-out or declared sharing."""
        band_a, band_b = self.band(a), self.band(b)
        if band_a is None or band_b is None:
            return False
        return (
            band_a.within == b
            or band_b.within == a
            or b in band_a.shares_with
            or a in band_b.shares_with
        )


class Claims:
    """Every selector and `ports:` name of the bands, indexed by name: a site is looked up by
    its names and their dotted suffixes (portlint.model.selectors) instead of trying every
    selector of every band."""

    def __init__(self, bands: tuple[Band, ...]) -> None:
        self.index: dict[str, list[tuple[tuple[int, int], Band, Selector | None]]] = defaultdict(list)
        for order, band in enumerate(bands):
            for rank, selector in enumerate(band.sites):
                self.index[bare(selector.name)].append(((order, rank), band, selector))
            for name, _ in band.ports:
                self.index[bare(name)].append(((order, len(band.sites)), band, None))

    def claim(self, site: Site) -> tuple[Band, str] | None:
        """The first band (in declaration order) claiming the site, and the role it gives.
        Within a band its selectors come first, in order, then its `ports:` names."""
        if not self.index:
            return None
        found = [c for name in site.names for suffix in suffixes(name) for c in self.index.get(suffix, ())]
        for _, band, selector in sorted(found, key=lambda c: c[0]):
            if not files_match(band.files, site.path):
                continue
            if selector is None:
                return band, site.role
            if (not selector.kind or selector.kind == site.kind) and files_match(selector.files, site.path):
                return band, selector.role or site.role
        return None
