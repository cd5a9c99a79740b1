"""The typed model every rule reads: sites found in files, bands of the layout."""
from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from portlint.config.scope import DEFAULT_TEST_PATHS, in_tests, mocked
from portlint.model.records import Struct

if TYPE_CHECKING:
    from portlint.analysis.destinations import Destinations
    from portlint.model.extraction import Facts
    from portlint.model.frozen import FrozenCheck
    from portlint.model.usage import Usage

DOC_KINDS = ("markdown", "comment")

# TCP and UDP port numbers (0 is not one: it asks the kernel for any free port).
MIN_PORT = 1
MAX_PORT = 65535
PRIVILEGED_CEILING = 1024  # ports below it need root (CAP_NET_BIND_SERVICE) to bind


def is_port(value: int) -> bool:
    return MIN_PORT <= value <= MAX_PORT


def span(low: int, high: int) -> str:
    """How every message writes ports: `8080` for one, `8000-8999` for a range."""
    return str(low) if low == high else f"{low}-{high}"


# Roles of a site, from its name: a single port, the low or high end of a range, or a base
# (the first port of a run: `start_port`, `base_port`).
PORT = "port"
LOW = "low"
HIGH = "high"
BASE = "base"


class Site(Struct, frozen=True):
    """One place in one file where a port number is written.

    `start`/`end` are the byte span of the number's digits inside the file;
    quotes around a quoted literal stay outside the span, so an edit of the span
    keeps the literal's quoting as written.
    """

    path: str  # repository-relative, POSIX separators
    line: int  # 1-based
    column: int  # 1-based, in characters
    start: int  # byte offset of the first digit
    end: int  # byte offset after the last digit
    kind: str  # yaml | shell | python | markdown | comment
    name: str  # key path, variable, option (--x), Python name, env var
    value: int
    role: str = PORT
    aliases: tuple[str, ...] = ()  # other names the site answers to
    scope: str = ""  # parent key / enclosing scope, for pairing low with high
    derived: str = ""  # the expression of a computed site (shell arithmetic)
    band: str = ""  # set by binding
    end_line: int = 0
    end_column: int = 0
    offset: int = 0  # doc sites: the number states the layout's value + offset (`[A, B)`: B = high + 1)
    mock: bool = False  # given to a mock (`MagicMock(port=8000)`, `patch.dict(os.environ, ...)`): test scope

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    @property
    def fixable(self) -> bool:
        """A computed value has no literal to rewrite."""
        return not self.derived

    @property
    def is_doc(self) -> bool:
        """Docs describe the layout; PL501 checks them, the port rules do not."""
        return self.kind in DOC_KINDS


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


class Failure(Struct, frozen=True):
    """A file that could not be read or parsed (PL001)."""

    path: str
    line: int
    column: int
    reason: str


class Command(Struct, frozen=True):
    """One simple command as written in a script or a YAML command string (`ray start --head ...`).

    `words` are the command's words with quotes removed and expansions kept as
    written (`--min-worker-port=${MIN_WORKER_PORT}`); `assignments` are the
    `NAME=value` words in front of it. Code-pattern rules (PL603) read these.
    """

    path: str
    line: int
    column: int
    words: tuple[str, ...]
    assignments: tuple[tuple[str, str], ...] = ()
    end_line: int = 0
    end_column: int = 0
    via: str = ""  # who runs it when the file holds no command line: "kuberay" (a rayStartParams mapping)
    pod_network: bool = False  # runs in a Kubernetes pod's own network namespace (no hostNetwork)


class CodeFile(Struct, frozen=True):
    """A Python file the code-pattern rules read (PL601/PL602/PL604): what the extraction found in it, and
    its bytes for the files that call helpers of other modules."""

    path: str
    kind: str
    data: bytes
    sockets: Facts | None = None  # what the code analyses found in it, computed by the extraction


class Range(Struct, frozen=True):
    """A low site and its high sibling: same file, same scope, same name stem."""

    low: Site
    high: Site


class Written(Struct, frozen=True):
    """A range (a low site and its high sibling) or a single port, as written in one place."""

    low: int
    high: int
    name: str  # a range's stem (`port_range_*`), a port's own name
    sites: tuple[Site, ...]  # (low, high) of a range, (site,) of a port

    @property
    def first(self) -> Site:
        return self.sites[0]

    @property
    def is_range(self) -> bool:
        return len(self.sites) == 2

    @property
    def span(self) -> str:
        return span(self.low, self.high)

    @property
    def every_port(self) -> bool:
        """A range over the whole port space (`port_min=1, port_max=65535`): a firewall rule or a
        bound check meaning "any port", not ports anything listens on or a lane of the layout."""
        return self.is_range and self.low <= MIN_PORT and self.high >= MAX_PORT


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
    test_paths: tuple[str, ...] = DEFAULT_TEST_PATHS  # test-like paths (portlint.config.scope)

    def in_tests(self, where: str | Site) -> bool:
        """The path (or the site's path) belongs to tests or fixtures, or the site's value is given
        to a mock or a fake: a scope of its own (portlint.config.scope)."""
        if isinstance(where, Site):
            return in_tests(where.path, self.test_paths) or mocked(where)
        return in_tests(where, self.test_paths)

    @property
    def code_sites(self) -> tuple[Site, ...]:
        """Sites in configs, scripts and code (not docs)."""
        return tuple(site for site in self.sites if not site.is_doc)

    @cached_property
    def written(self) -> tuple[Written, ...]:
        """Every range and port written in configs, scripts and code (not docs): each range
        (a low paired with its high sibling, binding.ranges_and_singles), then each port.
        Computed ports (`$((BASE + 1))`) are left out: they follow their operands."""
        from portlint.stages.extract.naming import range_stem
        from portlint.stages.layout.bind import ranges_and_singles  # binding and naming read this module

        ranges, singles = ranges_and_singles(site for site in self.code_sites if not site.derived)
        found = [Written(r.low.value, r.high.value, range_stem(r.low.name), (r.low, r.high)) for r in ranges]
        return (*found, *(Written(s.value, s.value, s.name, (s,)) for s in singles))

    @cached_property
    def destinations(self) -> Destinations:
        """Where the code files' parameter defaults go (PL101, PL302): one analysis per run, each
        module parsed once for every rule that asks (needs the `code_files` fact)."""
        from portlint.analysis.destinations import Destinations  # it reads Site from this module

        return Destinations({f.path: f.data for f in self.code_files})

    @cached_property
    def _every_port_sites(self) -> frozenset[int]:
        return frozenset(id(site) for w in self.written if w.every_port for site in w.sites)

    def any_port(self, site: Site) -> bool:
        """True for a bound of a written range over the whole port space (Written.every_port)."""
        return id(site) in self._every_port_sites

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


def name_matches(selector: str, name: str) -> bool:
    """A selector matches a name whole, or a dotted suffix of it at a dot boundary.

    `generation.port_range_low` matches `policy.generation.port_range_low`;
    `--min-worker-port` and `min-worker-port` name the same long option.
    """
    selector = selector.lstrip("-") if selector.startswith("--") else selector
    name = name[2:] if name.startswith("--") else name
    return name == selector or name.endswith("." + selector)
