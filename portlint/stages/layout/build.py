"""The layout stage: the files' sites bound to the bands, plus the facts the selected rules read.

A rule declares the facts it reads (`NEEDS`: "commands", "code_files",
"unreferenced", "frozen", "usage"); this stage computes only those. What does not
change while fixes change numbers (which files there are, which names a doc
describes that no code mentions, what the config's entries matched) is worked out
once per run, in the run's `Ground`; the rest each time the files change.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from types import ModuleType
from typing import NamedTuple

from portlint.analysis.destinations import Destinations
from portlint.analysis.tree import module_names
from portlint.config.build import Config
from portlint.model.extraction import CodeFile, Extraction
from portlint.model.files import FileState
from portlint.model.frozen import Flat, FrozenCheck, FrozenPair, InheritanceError
from portlint.model.layout import NOWHERE, Claims, Layout
from portlint.model.naming import NameFilter
from portlint.model.sites import Failure, Site
from portlint.model.usage import Usage
from portlint.stages.layout import frozen, ownership
from portlint.stages.layout.bind import bind

FACTS = frozenset(("commands", "code_files", "unreferenced", "frozen", "usage"))  # what a rule may declare in NEEDS


class Ground(NamedTuple):
    """What every round of the layout stage reads besides the files: fixed for a run."""

    config: Config
    config_path: str  # the config as problems show it ("" in zero-config)
    listed: Mapping[str, str]  # every listed file -> its kind
    pairs: tuple[FrozenPair, ...]
    needs: frozenset[str]  # the facts the selected rules read
    names: NameFilter
    claims: Claims
    read_failures: tuple[Failure, ...]  # files the per-file stage could not check
    trees: dict[tuple[str, bytes], Flat]  # flattened YAML by content: the per-file stage's, and each parent once composed
    reread: Callable[[str], bytes | None]  # a listed file's bytes read again (None: skipped, or cannot be checked)
    unreferenced: frozenset[str] = frozenset()  # names docs describe that no other file mentions (when needed)
    usage: Usage | None = None  # what the config's entries matched (when needed)
    carried: Carried | None = None  # what a layout hands the next one of the run (None: nothing)


class Carried:
    """What one layout of a run hands the next, so that a round after a change (a fix round, an
    editor's edit) works out again only what the changed files change:

    - `bound`: each file's sites bound to the bands, kept while its extraction is the same object
      (the per-file stage makes a new one for new bytes), so its sites stay the same objects;
    - `destinations`: the Python proofs, the same while every code file holds the same bytes,
      else new ones reusing the modules parsed from bytes still there;
    - `owners`: whose port each site is (ownership.py), by site object: a site's verdict reads the
      site, the config, the files containers mount and, for a Python site, the code files' proofs,
      so the Python sites' verdicts go when a code file changes, all of them when what containers
      mount changes, and a file's verdicts go with its earlier sites;
    - `mounted`: what containers mounted in the last layout.
    """

    def __init__(self) -> None:
        self.bound: dict[str, tuple[Extraction, tuple[Site, ...]]] = {}
        self.destinations: Destinations | None = None
        self.owners: dict[int, tuple[Site, str]] = {}
        self.mounted: frozenset[str] = frozenset()

    def proofs(self, code: tuple[CodeFile, ...]) -> Destinations:
        files = {f.path: f.data for f in code}
        earlier = self.destinations
        now = earlier.over(files) if earlier is not None else Destinations(files)
        if now is not earlier:
            self.owners = {key: kept for key, kept in self.owners.items() if kept[0].kind != "python"}
        self.destinations = now
        return now

    def tidy(self, sites: tuple[Site, ...]) -> None:
        """Forget the verdicts of sites no layout holds any more (a file dropped from the picture),
        once there are many of them."""
        if len(self.owners) > len(sites) + 4096:
            live = {id(site) for site in sites}
            self.owners = {key: kept for key, kept in self.owners.items() if key in live}


def once(ground: Ground, files: Mapping[str, FileState], usage_of: Callable[[], Usage] | None = None) -> Ground:
    """The ground with the facts worked out once per run (fixes change numbers, never names nor
    which files there are), from the files as the per-file stage left them. `usage_of` works
    out what the config's entries matched (it reads the rule registry, which stages do not
    import); None keeps what the ground knows of it."""
    if "unreferenced" in ground.needs:
        sites = bind((s for f in files.values() for s in f.extraction.sites), ground.claims)
        texts = ((p, _data(ground, files, p) or b"") for p, kind in sorted(ground.listed.items()) if kind != "markdown")
        ground = ground._replace(unreferenced=unreferenced(sites, texts))
    return ground._replace(usage=usage_of()) if "usage" in ground.needs and usage_of is not None else ground


def layout(ground: Ground, files: Mapping[str, FileState]) -> Layout:
    """The layout a rule sees: the bands, every site bound, what could not be checked, and the
    facts the selected rules read."""
    config, needs = ground.config, ground.needs
    sites = tuple(site for state in files.values() for site in _bound(ground, state))
    failures = failures_of(files.values())
    checks: list[FrozenCheck] = []
    if "frozen" in needs:
        checks = frozen_checks(ground.pairs, lambda p: _data(ground, files, p), ground.names.wants, ground.trees, failures)
    code = code_files(files.values()) if "code_files" in needs else ()
    mounted = frozenset(path for state in files.values() for path in state.extraction.mounts)
    carried = ground.carried
    destinations: Destinations | None = None
    if code:
        destinations = carried.proofs(code) if carried is not None else Destinations({f.path: f.data for f in code})
    made = Layout(
        config.ephemeral_floor, config.bands, sites, (*ground.read_failures, *failures),
        frozen=tuple(checks),
        commands=tuple(c for f in files.values() for c in f.extraction.commands) if "commands" in needs else (),
        code_files=code, destinations=destinations or NOWHERE,
        config_path=ground.config_path, declared=bool(config.bands), test_paths=config.test_paths,
        unreferenced=ground.unreferenced, usage=ground.usage, mounted=mounted,
        fallbacks=fallbacks(files.values()),
    )
    if carried is not None:
        if carried.mounted != mounted:  # a verdict may read what the containers mount
            carried.owners, carried.mounted = {}, mounted
        carried.tidy(sites)
        ownership.carry(made, carried.owners)
    return made


def needs_of(rules: Iterable[ModuleType]) -> frozenset[str]:
    """The facts the rules read; a rule that declares nothing gets every fact."""
    return frozenset(fact for rule in rules for fact in getattr(rule, "NEEDS", FACTS))


def _bound(ground: Ground, state: FileState) -> tuple[Site, ...]:
    """A file's sites bound to the bands, as bound last time when its extraction is the same."""
    if ground.carried is None:
        return bind(state.extraction.sites, ground.claims)
    bound = ground.carried.bound
    known = bound.get(state.path)
    if known is not None and known[0] is state.extraction:
        return known[1]
    sites = bind(state.extraction.sites, ground.claims)
    bound[state.path] = (state.extraction, sites)
    if known is not None:  # the file's earlier sites are gone, and their verdicts with them
        for site in known[1]:
            ground.carried.owners.pop(id(site), None)
    return sites


def _data(ground: Ground, files: Mapping[str, FileState], path: str) -> bytes | None:
    """A listed file's bytes: as extracted (fixes included), else read again."""
    if path in files:
        return files[path].data
    return ground.reread(path) if path in ground.listed else None


# -- the facts (each a function of plain data) -------------------------------------------
def fallbacks(states: Collection[FileState]) -> tuple[tuple[str, str, str], ...]:
    """(path, function, setting) for the functions other modules call to fill a setting where it
    is unset (`Extraction.fills`), each found where its module is a Python file of the repository."""
    wanted = [found for state in states for found in state.extraction.fills]
    if not wanted:
        return ()
    paths: dict[str, list[str]] = {}
    for state in states:
        if state.path.endswith(".py"):
            for module in module_names(state.path):
                paths.setdefault(module, []).append(state.path)
    return tuple(sorted({
        (path, function, setting) for module, function, setting in wanted for path in paths.get(module, ())
    }))


def failures_of(states: Iterable[FileState]) -> list[Failure]:
    return [
        Failure(s.path, s.extraction.error_line, s.extraction.error_column, s.extraction.error)
        for s in states if s.extraction.error
    ]


def code_files(states: Iterable[FileState]) -> tuple[CodeFile, ...]:
    """Python files with what the code analyses found in them (PL601/PL602/PL604), as their extraction computed it."""
    return tuple(
        CodeFile(s.path, s.kind, s.data, s.extraction.sockets) for s in states
        if (s.kind == "python" or s.extraction.sockets is not None) and not s.extraction.error
    )


def unreferenced(sites: Iterable[Site], texts: Iterable[tuple[str, bytes]]) -> frozenset[str]:
    """Names documented as `NAME=N` that no config, script or code text mentions (PL501).

    `texts` are (path, bytes) of every listed non-Markdown file, read lazily: the
    search stops as soon as every name is found.
    """
    sites = list(sites)
    in_code = {name for site in sites if not site.is_doc for name in site.names}
    missing = {s.name for s in sites if s.kind == "markdown" and not s.scope and not s.band and s.name not in in_code}
    for _, data in texts:
        if not missing:
            break
        missing = {name for name in missing if not _mentions(data, name)}
    return frozenset(missing)


def frozen_checks(
    pairs: Iterable[FrozenPair], read: Callable[[str], bytes | None], wants: Callable[[str], bool],
    trees: dict[tuple[str, bytes], Flat], failures: list[Failure],
) -> list[FrozenCheck]:
    """Both sides of every frozen pair; a broken inheritance chain is a PL001 at the source (appended to failures)."""
    checks = []
    for pair in pairs:
        try:
            checks.append(frozen.check_pair(pair, read, wants, trees))
        except (InheritanceError, ValueError, UnicodeDecodeError) as error:
            if not any(f.path == pair.source for f in failures):
                failures.append(Failure(pair.source, 1, 1, str(error)))
        except RecursionError:  # nested past what the walks read, below the composer's bound
            if not any(f.path == pair.source for f in failures):
                failures.append(Failure(pair.source, 1, 1, "YAML nested too deeply to read"))
    return checks


def _mentions(data: bytes, name: str) -> bool:
    """The name appears as a whole word (not inside a longer identifier)."""
    needle = name.encode()
    at = data.find(needle)
    while at != -1:
        before = data[at - 1:at]
        after = data[at + len(needle):at + len(needle) + 1]
        if not (before.isalnum() or before == b"_") and not (after.isalnum() or after == b"_"):
            return True
        at = data.find(needle, at + 1)
    return False
