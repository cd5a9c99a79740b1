"""Sites: one place in one file where a port number is written; what a file could not give
(a failure), the commands code-pattern rules read, and ranges and ports as written."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from portlint.model.naming import range_stem, role_of
from portlint.model.ports import BASE, DOC_KINDS, HIGH, LOW, MAX_PORT, MIN_PORT, PORT, span
from portlint.model.records import Struct


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
    pod: bool = False  # written for a container that keeps its own network namespace (the extractor's evidence)
    host: str = ""  # the host written beside it in its mapping: LOCAL (a listener's address), REMOTE (a peer dialled)
    extent: int = 0  # a run of ports from this literal base: value..value + extent (`[BASE + i for i in range(4)]`)
    passed: bool = False  # doc sites: an option's value on an example command line (`serve.py --port 8000`)
    fills: str = ""  # the setting it stands in for where that is unset (`os.environ.get("MASTER_PORT") or scan(2000, 30000)`)

    @property
    def top(self) -> int:
        """The last port the site writes: its value, or the end of the run it starts."""
        return self.value + self.extent

    @property
    def open_run(self) -> bool:
        """A literal added to an unknown (`8000 + rank`, `int(job_id) + 15000`): the base of a run of
        ports whose length is not written, where its name does not say it is a base (`base_port`,
        a scan's start, names the first port the service takes)."""
        return self.role == BASE and not self.extent and role_of(self.name) != BASE

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



def literal_written(site: Site, data: bytes) -> bool:
    """The bytes hold the site's literal at its span: the digits of its value (`8_000`, `08080`
    as written), or, for a derived site (`$((X + 1))`, never rewritten), some text there. What a
    fix rewrites is a literal the bytes hold, whatever handed the site over (a cache may be stale,
    damaged or shipped by the repository)."""
    if not 0 <= site.start < site.end <= len(data):
        return False
    if site.derived:
        return True
    digits = data[site.start:site.end].replace(b"_", b"")
    return digits.isdigit() and int(digits) == site.value


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
    pod_network: bool = False  # runs in a container's own network namespace (a pod without hostNetwork, a compose service)




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



def ranges_and_singles(sites: Iterable[Site]) -> tuple[list[Range], list[Site]]:
    """Pair each low with its high sibling (same file, scope and stem); the rest stand alone."""
    groups: dict[tuple[str, str, str], list[Site]] = defaultdict(list)
    singles = []
    for site in sites:
        if site.role in (LOW, HIGH) and not site.derived:
            groups[(site.path, site.scope, range_stem(site.name))].append(site)
        else:
            singles.append(site)
    ranges = []
    for members in groups.values():
        lows = [s for s in members if s.role == LOW]
        highs = [s for s in members if s.role == HIGH]
        if len(lows) == 1 and len(highs) == 1:
            ranges.append(Range(lows[0], highs[0]))
        else:
            singles += members
    return ranges, singles
