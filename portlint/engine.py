"""discover → per file (read, prefilter, extract) → layout → check → (fix loop) → write.

The engine composes the stages (portlint/stages/), each a function of plain data that
returns a record: the listing, what the per-file stage found (`Scanned`), the run's
`Ground` and each round's `Layout`, the problems, what the fix loop did (`Fixed`), what
writing gave. It knows no rule by name: it resolves the registry's rules for the options
(a `Selection`) and computes the facts of the layout they declare in `NEEDS`.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from portlint import GC_THRESHOLDS
from portlint.config import baseline as baselines
from portlint.config.baseline import Baseline
from portlint.config.build import Config
from portlint.model.files import FileState
from portlint.model.frozen import FrozenPair
from portlint.model.layout import Claims, Layout
from portlint.model.naming import NameFilter
from portlint.model.records import Struct, field
from portlint.speed import cache
from portlint.stages import check as checking
from portlint.stages import discover, perfile
from portlint.stages import write as writing
from portlint.stages.fix import fix_loop
from portlint.stages.layout import build, frozen
from portlint.stages.layout.build import Ground, needs_of
from portlint.stages.read import read_file

if TYPE_CHECKING:
    from portlint.model.problems import Problem

class Options(Struct, frozen=True):
    select: tuple[str, ...] = ()  # codes or prefixes; empty: every rule
    ignore: tuple[str, ...] = ()
    fix: bool = False
    unsafe_fixes: bool = False
    write: bool = True  # False for --diff: compute the fixes, write nothing
    paths: tuple[str, ...] = ()  # root-relative paths to report on; empty: everything
    cache: bool = False  # keep per-file results in .portlint_cache/ (the CLI's default; --no-cache)
    # Modules the caller imports once the run is done (its reporters): imported by this process
    # while the pool's workers start, as the rules are.
    ahead: tuple[str, ...] = ()


class Outcome(Struct):
    problems: list[Problem]
    notes: list[str] = field(default_factory=list)
    changed: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)  # path -> (before, after)
    fixed: int = 0
    fixed_problems: list[Problem] = field(default_factory=list)  # the problems the fixes were for
    write_errors: list[str] = field(default_factory=list)
    read: dict[str, str] = field(default_factory=dict)  # path -> digest of every file read (with the cache on)
    in_git: bool = True  # git listed the files (else a walk did)


class Prepared(NamedTuple):
    """The stages before the rules, done: the listing, its frozen pairs and what the per-file
    stage found, with the config and cache they were done with."""

    config: Config
    cache: bool
    names: NameFilter  # which names the extractors keep: port-like ones and the selectors'
    listing: discover.Listing
    pairs: tuple[FrozenPair, ...]
    mirrored: frozenset[str]  # both sides of every frozen pair
    store: cache.Cache | None
    scanned: perfile.Scanned


class Known(NamedTuple):
    """What the caller of a check knows of it already (the `portlint` command, before the CLI):
    handed to the CLI (click's `obj`), which hands it to `run`."""

    root: Path | None = None  # the repository the listing is of
    listing: Callable[[], discover.Listed | None] | None = None  # git's listing, when the run lists (None: git's own)
    confirm: Callable[..., None] | None = None  # told what the check ran on and read (the warm path's recorder)


NOTHING_KNOWN = Known()


def prepare(config: Config, cached: bool, known: Known = NOTHING_KNOWN, imports: Iterable[str] = ()) -> Prepared:
    """Discover the files, pair the frozen copies, and run the per-file stage (`imports`: what
    this process imports while the pool's workers start on it)."""
    names = names_of(config)
    store = cache.Cache(config.root, cache.salt(names.selector_names), perfile.RESULT, config.cache_dir) if cached else None
    given = known.listing() if known.listing is not None and known.root == config.root else None
    own = config.own_files()
    listing = discover.listing(config.root, config.include, config.exclude, given)
    listing = listing._replace(files=[c for c in listing.files if c.path not in own])  # the layout's own numbers are no sites
    kinds = {c.path: c.kind for c in listing.files}
    pairs = tuple(frozen.pairs(config.frozen, sorted(p for p, kind in kinds.items() if kind == "yaml"), kinds.__contains__))
    mirrored = frozenset(p for pair in pairs for p in (pair.copy, pair.source) if p)
    scanned = perfile.scan(listing, names, mirrored, store, lambda: [importlib.import_module(m) for m in imports])
    return Prepared(config, cached, names, listing, pairs, mirrored, store, scanned)


class Session(NamedTuple):
    """A prepared run with its rules chosen: the files, and the way to lay them out, check them
    and extract one again. A check is one; so are the commands on top of one (init, map, host,
    --add-noqa)."""

    prepared: Prepared
    options: Options
    chosen: checking.Selection
    ground: Ground
    files: dict[str, FileState]
    notes: list[str]
    baseline: Baseline | None = None  # the problems set aside where no comment can go (.portlint-baseline)

    def layout(self, files: Mapping[str, FileState]) -> Layout:
        return build.layout(self.ground, files)

    def check(self, files: Mapping[str, FileState]) -> list[Problem]:
        config = self.prepared.config
        return checking.check(self.layout(files), files, self.chosen, config.per_file_ignores, self.options.paths,
                              self.baseline, lambda path: self.data_of(files, path))

    def every(self, files: Mapping[str, FileState]) -> list[Problem]:
        """The problems with no baseline laid over them."""
        return self._replace(baseline=None).check(files)

    def aside(self, files: Mapping[str, FileState]) -> checking.Aside | None:
        """What the baseline makes of the problems (None without a baseline)."""
        if self.baseline is None:
            return None
        return checking.set_aside(self.every(files), self.baseline, self.chosen, self.options.paths,
                                  lambda path: self.data_of(files, path))

    def data_of(self, files: Mapping[str, FileState], path: str) -> bytes | None:
        """A problem's file as checked: as extracted (fixes included), else as read from the root
        (the config, a file that failed to parse)."""
        if path in files:
            return files[path].data
        return read_file(self.prepared.config.root, path, False, lambda data: True).data

    def extract(self, path: str, kind: str, data: bytes) -> FileState:
        """A file extracted again (after an edit); a frozen side's tree is kept for the layout."""
        state = perfile.extract_file(path, kind, data, self.prepared.names, path in self.prepared.mirrored)
        if state.tree is not None:
            self.ground.trees[(path, data)] = state.tree
        return state

    def revised(self, files: Mapping[str, FileState], path: str, data: bytes | None = None) -> dict[str, FileState]:
        """The files with a listed file as it is now: `data` (text an editor holds and has not
        saved), or what the disk holds (None). It is extracted where the per-file stage would
        extract it and left out where it would not, in the listing's order; the flattened trees
        of its earlier contents are forgotten. A path the listing does not hold changes nothing:
        which files a check reads is the listing's to say (a language server overlays the
        editor's buffers this way, one edit at a time)."""
        kind = self.ground.listed.get(path)
        if kind is None:
            return dict(files)
        prepared = self.prepared
        mirrored = path in prepared.mirrored
        state = perfile.revisit(prepared.config.root, path, kind, data, prepared.names, mirrored, files)
        for stale in [key for key in self.ground.trees if key[0] == path]:
            del self.ground.trees[stale]
        if state is not None and state.tree is not None:
            self.ground.trees[(path, state.data)] = state.tree
        if state is None:
            return {p: s for p, s in files.items() if p != path}
        if path in files:
            return {p: state if p == path else s for p, s in files.items()}
        return {c.path: state if c.path == path else files[c.path]
                for c in prepared.listing.files if c.path == path or c.path in files}

    def regrounded(self, files: Mapping[str, FileState]) -> Session:
        """The session with the facts worked out once per run (build.once: names docs describe
        that nothing else mentions) worked out again from `files`, after edits that may have
        changed which names the files mention."""
        return self._replace(ground=build.once(self.ground, files))


def session(config: Config, options: Options, known: Known = NOTHING_KNOWN) -> Session:
    """The run of `options` over the repository of `config`."""
    prepared = prepare(config, options.cache, known, ("portlint.rules", *options.ahead))
    config = prepared.config  # equal to the one asked for: its frozen pairs are the ones matched (usage)
    from portlint import rules as registry  # after the per-file stage: a cold check's workers start first

    chosen = checking.selection(registry, options.select, options.ignore, bool(config.bands))
    needs = needs_of((*chosen.rules, *chosen.judges, *chosen.beyond)) | ({"frozen"} if options.paths else set())
    scanned, shown = prepared.scanned, config_path(config)
    kinds = {c.path: c.kind for c in prepared.listing.files}

    def usage() -> Any:
        from portlint.stages.layout.usage import usage

        return usage(config, kinds, prepared.pairs, options.select, shown, registry.BY_CODE)

    ground = Ground(config, shown, kinds, prepared.pairs, needs, prepared.names, Claims(config.bands),
                    tuple(scanned.failures), dict(scanned.trees),
                    lambda path: perfile.reread(config.root, path, prepared.names), carried=build.Carried())
    ground = build.once(ground, scanned.files, usage)
    notes = [*([config.floor_note] if config.floor_note else []), *scanned.notes]
    return Session(prepared, options, chosen, ground, dict(scanned.files), notes, baselines.load(config.root))


def run(config: Config, options: Options, known: Known = NOTHING_KNOWN) -> Outcome:
    """A check: its problems, and with --fix the files fixed and written."""
    current = session(config, options, known)
    files = current.files
    if options.fix:
        fixed = fix_loop(files, current.check, current.extract, options.unsafe_fixes, current.notes)
        files = fixed.files
        outcome = Outcome(fixed.problems, [*current.notes, *fixed.notes], fixed.changed, fixed.fixed, fixed.fixed_problems)
    else:
        outcome = Outcome(current.check(files), current.notes)
    written = writing.write_changed(config.root, outcome.changed) if options.write else writing.Written()
    outcome.write_errors = list(written.errors)
    prepared = current.prepared
    if prepared.store is not None:
        for path in outcome.changed if options.write else ():
            if path not in written.unwritten:  # what is on disk now
                perfile.remember(prepared.store, files[path], path in prepared.mirrored)
        note = prepared.store.save()
        if note:
            outcome.notes.append(note)
        outcome.read = dict(prepared.scanned.digests)
    outcome.in_git = prepared.listing.by_git
    return outcome


def names_of(config: Config) -> NameFilter:
    """The names the extractors keep: port-like ones, and every name a band's selectors and ports give."""
    selector_names = [sel.name for band in config.bands for sel in band.sites]
    selector_names += [name for band in config.bands for name, _ in band.ports]
    return NameFilter(selector_names)


def config_path(config: Config) -> str:
    """The config file as problems show it: relative to the root where it is inside ("" without one)."""
    path = config.path
    if path is None:
        return ""
    try:
        return path.resolve().relative_to(config.root.resolve()).as_posix()
    except ValueError:
        return str(path)


def fewer_collections() -> None:
    """Collections rare for a check (portlint.GC_THRESHOLDS), and none of what is loaded by now."""
    import gc

    gc.freeze()  # modules, the config: never garbage
    gc.set_threshold(*GC_THRESHOLDS)


def known_code(code: str) -> bool:
    from portlint.rules import BY_CODE

    return code == "ALL" or any(known.startswith(code) for known in BY_CODE)
