"""read → extract per file → build the layout → rules → select/suppress → (fix loop) → write.

Each stage is a function of plain data. The per-file stage, `extract_file`, is a
pure function of (path, kind, bytes, the config's name filter, whether the file
is one side of a frozen pair) returning a picklable `FileState`, so its result
can be kept by content and computed in any process. Rules declare the facts of
the layout they read (`NEEDS`: "commands", "code_files", "unreferenced",
"frozen"); the engine computes the facts the enabled rules need and knows no
rule by name.
"""
from __future__ import annotations

import importlib
import os
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cached_property
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple, TypeGuard

from portlint import GC_THRESHOLDS, analysis
from portlint.analysis.destinations import Destinations
from portlint.config import baseline as baselines
from portlint.config.build import Config
from portlint.model.extraction import CodeFile, Extraction, Suppression
from portlint.model.layout import NOWHERE, Layout
from portlint.model.naming import NameFilter
from portlint.model.records import Struct, field
from portlint.model.sites import Failure, Site
from portlint.model.source import Source
from portlint.speed import cache, pool
from portlint.stages import discover
from portlint.stages import write as writer
from portlint.stages.fix import apply, compatible
from portlint.stages.layout import frozen
from portlint.stages.layout.bind import bind, files_match
from portlint.stages.read import Read, read_file
from portlint.tables.tool_defaults import mentions_tool

if TYPE_CHECKING:
    from pathlib import Path

    from portlint.model.problems import Problem

MAX_FIX_ROUNDS = 10
FACTS = frozenset(("commands", "code_files", "unreferenced", "frozen", "usage"))  # what a rule may declare in NEEDS


class Options(Struct, frozen=True):
    select: tuple[str, ...] = ()  # codes or prefixes; empty: every rule
    ignore: tuple[str, ...] = ()
    fix: bool = False
    unsafe_fixes: bool = False
    write: bool = True  # False for --diff: compute the fixes, write nothing
    paths: tuple[str, ...] = ()  # root-relative paths to report on; empty: everything
    cache: bool = False  # keep per-file results in .portlint_cache/ (the CLI's default; --no-cache)
    # Modules the caller imports once the run is done (its reporters): imported by this process
    # while the pool's workers start, as the rules are (Engine._meanwhile).
    ahead: tuple[str, ...] = ()


class FileState(Struct, frozen=True):
    """One file as the per-file stage leaves it: plain data, picklable."""

    path: str
    kind: str
    data: bytes
    extraction: Extraction
    tree: frozen.Flat | None = None  # a frozen pair's side: its composed YAML, flattened


class Outcome(Struct):
    problems: list[Problem]
    notes: list[str] = field(default_factory=list)
    changed: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)  # path -> (before, after)
    fixed: int = 0
    fixed_problems: list[Problem] = field(default_factory=list)  # the problems the fixes were for
    write_errors: list[str] = field(default_factory=list)
    read: dict[str, str] = field(default_factory=dict)  # path -> digest of every file read (with the cache on)


# -- stage: extract one file (pure) ------------------------------------------------
def extract_file(path: str, kind: str, data: bytes, names: NameFilter, mirrored: bool = False) -> FileState:
    """Sites, suppressions and commands of one file; never raises for bad content (PL001 instead)."""
    try:
        source = Source(path, data)
    except UnicodeDecodeError as error:
        where = f"byte 0x{data[error.start]:02x} at offset {error.start}"
        return FileState(path, kind, data, Extraction(error=f"not UTF-8 text ({where})"))
    if kind == "yaml" and mirrored:  # compose once for the extractor and the pair
        from portlint.stages.extract.yaml import extract_with_roots

        extraction, roots = extract_with_roots(source, names)
        return FileState(path, kind, data, extraction, frozen.flat(source, roots) if roots is not None else None)
    module = importlib.import_module(f"portlint.stages.extract.{kind}")
    return FileState(path, kind, data, module.extract(source, names))


def worth_parsing(kind: str, data: bytes, pattern: discover.Prefilter) -> bool:
    """A port token or selector name, socket code (PL601/602), or a tool whose default
    ports matter (PL603): anything else holds nothing to check (frozen pairs aside)."""
    if kind == "yaml":  # and then only where a key, a comment or a command can yield something
        from portlint.stages.extract.yaml import worth_composing

        return bool(pattern.search(data) or mentions_tool(kind, data)) and worth_composing(data, pattern.tokens, pattern.keys)
    # A Python file is asked about the literals anyway (its extraction asks `mentions_tool`): its
    # tokens come from that pass. Any other file is asked only where no token is found, and
    # `search` stops at the first (on kuberay's YAML, the one pass cost ~10 ms more).
    found = pattern.held(data) if kind == "python" else pattern.search(data)
    return bool(found or uses_sockets(kind, data) or mentions_tool(kind, data))


def uses_sockets(kind: str, data: bytes) -> bool:
    """Python a code analysis reads (socket code that binds: PL601/PL602; rendezvous starts: PL604)."""
    return kind == "python" and analysis.worth_reading(data)


# -- the per-file stage over many files: in this process, or with forked workers -----
PARALLEL_BYTES = 1 << 19  # less input to extract than this and one process is faster (README, "Speed")
EAGER_FILES = 8  # with nothing cached, as many files left to read as this and two processes are faster
Result = tuple[Extraction, "frozen.Flat | None"]  # what the per-file stage gives of one file
Job = tuple[str, str, bytes, bool]  # (path, kind, bytes, one side of a frozen pair): one file to extract


def extract_many(jobs: list[Job], names: NameFilter) -> list[Result]:
    """(extraction, tree) of every job, in order: by a pool when there is enough to extract (the
    files read when the listing ended before a pool started: one process, unless
    PORTLINT_WORKERS says otherwise)."""
    workers = _workers(sum(len(job[2]) for job in jobs))
    if workers == 1 or len(jobs) < 2:
        return [_extracted(job, names) for job in jobs]
    tasks, shared = _tasks(jobs, pool.TASKS)
    _preload(shared)
    done = pool.run(len(tasks), lambda number: [_extracted(jobs[i], names) for i in tasks[number]], workers)
    found: list[Result | None] = [None] * len(jobs)
    for task, results in zip(tasks, done):
        for index, result in zip(task, results):
            found[index] = result
    return found  # type: ignore[return-value]  # every job is in one task


def _extracted(job: Job, names: NameFilter) -> Result:
    path, kind, data, mirrored = job
    return _result(extract_file(path, kind, data, names, mirrored))


def _workers(size: int, rest: int = 0) -> int:
    """Processes for the per-file stage once `size` bytes are left to extract, and (with nothing
    cached yet) `rest` files left to read."""
    wanted = os.environ.get("PORTLINT_WORKERS", "")
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)  # a fixed number, whatever the size (1: never a pool)
    if size < PARALLEL_BYTES and rest < EAGER_FILES:
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return min(cores, 8)


# What the per-file stage imports on first use, by the kind of file that needs it ("": every
# kind): imported before a pool forks, or each worker imports it all again (on AReaL 59
# modules, ~0.1 s of CPU per worker), and only for the kinds there are in more than one task
# (trl's pool has no YAML to read, and ruamel.yaml costs ~10-20 ms; _tasks). Only a cost, never
# a result, if it falls behind: tests/engine/test_engine_stages.py keeps it complete.
PER_FILE_MODULES: dict[str, tuple[str, ...]] = {
    "": ("portlint.stages.extract", "portlint.stages.extract.prose"),
    "yaml": ("portlint.stages.extract.yaml", "portlint.stages.extract.yaml_commands", "portlint.stages.extract.template",
             "portlint.stages.extract.shell", "ruamel.yaml", "ruamel.yaml.cyaml"),
    "python": ("portlint.stages.extract.python", "portlint.stages.extract.python_commands", "portlint.speed.outline",
               "portlint.stages.extract.shell", "portlint.analysis.calls", "portlint.analysis.expressions",
               "portlint.analysis.flow", "portlint.analysis.imports", "portlint.analysis.messages",
               "portlint.analysis.module", "portlint.analysis.values"),
    "shell": ("portlint.stages.extract.shell",),
    "markdown": ("portlint.stages.extract.markdown",),
}


def _preload(kinds: Iterable[str]) -> None:
    """What the per-file stage imports for these kinds, once here, before the pool forks."""
    for kind in ("", *sorted(kinds)):
        for module in PER_FILE_MODULES.get(kind, ()):
            importlib.import_module(module)


def _tasks(jobs: list[Job], count: int) -> tuple[list[list[int]], set[str]]:
    """At most `count` tasks of the pool (job indices), and the kinds whose modules every
    process needs. A kind with at most RARE jobs, RARE_BYTES in all, is one task, first in the
    queue, and only the process that takes it imports what it reads (ruamel.yaml, ~10 ms, for
    AReaL's two YAML files or NeMo-Skills' one). The rest are runs of jobs, largest files
    first, so that no process is left holding the longest one at the end, the smallest a few
    together, the last runs halving (_runs)."""
    by_kind: dict[str, list[int]] = defaultdict(list)
    for index, job in enumerate(jobs):
        by_kind[job[1]].append(index)
    rare = sorted(kind for kind, indices in by_kind.items()
                  if len(indices) <= RARE and sum(len(jobs[i][2]) for i in indices) <= RARE_BYTES)
    order = sorted((i for i, job in enumerate(jobs) if job[1] not in rare), key=lambda i: -len(jobs[i][2]))
    tasks = [by_kind[kind] for kind in rare] + _runs(order, [len(jobs[i][2]) for i in order], count - 1 - len(rare))
    return tasks, set(by_kind) - set(rare)


RARE, RARE_BYTES = 4, 1 << 16  # jobs of one kind: as few and as small as this and they are one task (_tasks)
READ_TASKS = 160  # of the pool's tasks, at most this many read the rest of the listing (Engine._shared)
RARE_READS = 200  # files of a kind whose modules are not imported: as few as this and they are one task (_reading)


def _runs(items: list[int], sizes: list[int], count: int) -> list[list[int]]:
    """`items` cut, in order, into at most `count + 1` runs: of about equal total size (the
    largest items each alone, the many small ones together) until two runs' worth is left,
    then each run half of what is left, down to an eighth of a run. A run's cost is known only
    once it is done (which of its files are worth extracting), so the last ones are small: on
    AReaL the processes finish ~0.4 ms apart, against ~5 ms with runs of equal size to the end
    (mean of ten cold checks each)."""
    tail = min(_TAIL_RUNS, count // 4)  # kept for the halving runs
    left = sum(sizes)
    target = max(left / max(count - tail, 1), 1)
    runs: list[list[int]] = []
    total = 0
    for item, size in zip(items, sizes):
        if not runs or (total >= min(target, max(left / 2, target / 8)) and len(runs) <= count):
            runs.append([])
            total = 0
        runs[-1].append(item)
        total += size
        left -= size
    return runs


_TAIL_RUNS = 3  # the halving runs cut two runs' worth into five: three more (_runs)


def _reading(items: list[int], kinds: list[str], sizes: list[int], count: int) -> list[list[int]]:
    """The pool's tasks reading `items` of the listing (of these kinds and sizes): at most
    `count`. A kind of few files (RARE_READS at most, a quarter of them at most) whose modules
    this process has not imported is one task, first, so that only the process taking it
    imports them (AReaL's 79 YAML files, 2 of them worth composing, and ruamel.yaml: 20-40 ms);
    the rest largest first, the small files together, the last runs halving (_runs, as for the
    files already read: the processes then finish close together, wherever the listing puts its
    heavy files)."""
    by_kind: dict[str, list[int]] = defaultdict(list)
    for item, kind in zip(items, kinds):
        by_kind[kind].append(item)
    alone = [kind for kind, group in sorted(by_kind.items())
             if len(group) <= min(RARE_READS, len(items) // 4)
             and not all(m in sys.modules for m in PER_FILE_MODULES.get(kind, ()))]
    size_of = dict(zip(items, sizes))
    rest = sorted((item for item, kind in zip(items, kinds) if kind not in alone), key=lambda i: -size_of[i])
    return [by_kind[kind] for kind in alone] + _runs(rest, [size_of[i] for i in rest], count - len(alone) - 1)


def _result(state: FileState) -> Result:
    return state.extraction, state.tree


class Visit(NamedTuple):
    """A listed file after the read stage, as any process of the pool hands it back: what
    reading it gave, whether it is worth extracting, and its per-file result once taken from
    the cache or computed."""

    read: Read  # its bytes only when it is worth extracting (the pool's workers send them back)
    worth: bool | None = None  # None: not read
    decided: bool = False  # `worth` was decided by this visit (not known from the cache, nor a frozen side)
    result: Result | None = None
    cached: bool = False  # `result` came from the cache
    encoded: Any = None  # `result` as the cache stores it, when the process that computed it encoded it


# -- stage: the layout's facts (each a function of plain data) ----------------------
def failures_of(states: Iterable[FileState]) -> list[Failure]:
    return [
        Failure(s.path, s.extraction.error_line, s.extraction.error_column, s.extraction.error)
        for s in states if s.extraction.error
    ]


def code_files(states: Iterable[FileState]) -> tuple[CodeFile, ...]:
    """Python files with what the code analyses found in them (PL601/PL602/PL604), as their extraction computed it."""
    return tuple(
        CodeFile(s.path, s.kind, s.data, s.extraction.sockets) for s in states if s.kind == "python" and not s.extraction.error
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
    pairs: Iterable[frozen.FrozenPair], read: Callable[[str], bytes | None], wants: Callable[[str], bool],
    trees: dict[tuple[str, bytes], frozen.Flat], failures: list[Failure],
) -> list[frozen.FrozenCheck]:
    """Both sides of every frozen pair; a broken inheritance chain is a PL001 at the source (appended to failures)."""
    checks = []
    for pair in pairs:
        try:
            checks.append(frozen.check_pair(pair, read, wants, trees))
        except (frozen.InheritanceError, ValueError, UnicodeDecodeError) as error:
            if not any(f.path == pair.source for f in failures):
                failures.append(Failure(pair.source, 1, 1, str(error)))
    return checks


# -- stage: rules, then suppressions -----------------------------------------------
def run_rules(layout: Layout, rules: Iterable[ModuleType]) -> list[Problem]:
    return [problem for rule in rules for problem in named(rule, rule.check(layout))]


def named(rule: ModuleType, problems: Iterable[Problem]) -> list[Problem]:
    """The problems a rule reported, each carrying the rule's name (reports read it there)."""
    from portlint.rules import describe

    described = describe(rule)
    return [problem.of(described) for problem in problems]


def needs_of(rules: Iterable[ModuleType]) -> frozenset[str]:
    """The facts the rules read; a rule that declares nothing gets every fact."""
    return frozenset(fact for rule in rules for fact in getattr(rule, "NEEDS", FACTS))


class Engine:
    """One run over one repository root with one config: the stages, and what they share."""

    def __init__(self, config: Config, options: Options) -> None:
        self.config = config
        self.options = options
        selector_names = [sel.name for band in config.bands for sel in band.sites]
        selector_names += [name for band in config.bands for name, _ in band.ports]
        self.names = NameFilter(selector_names)
        self.notes: list[str] = [config.floor_note] if config.floor_note else []
        self.listed: dict[str, str] = {}  # every candidate file -> its kind
        self._unreferenced: frozenset[str] | None = None
        self.partners: dict[str, set[str]] = {}
        self.pairs: list[frozen.FrozenPair] = []
        self.mirrored: set[str] = set()
        self.trees: dict[tuple[str, bytes], frozen.Flat] = {}  # flattened YAML by content
        self.read_failures: list[Failure] = []
        self._usage: Any = None  # portlint.stages.layout.usage.Usage
        self.store: cache.Cache | None = None
        self.unwritten: set[str] = set()  # fixed files the writer refused
        self.digests: dict[str, str] = {}  # path -> digest of the bytes read (with the cache on)
        self.files: dict[str, FileState] | None = None  # the per-file stage's results, once computed (scanned)
        self.baseline_kept: list[baselines.Entry] = []  # of the last check: the baseline entries still in use or not judged
        self.baseline_input: list[Problem] = []  # of the last check: the problems the baseline was laid over

    # The rules are imported when first asked for: after the per-file stage, or while the pool's
    # workers start on it (_meanwhile), never before it (~12 ms of every cold check).
    @cached_property
    def rules(self) -> tuple[ModuleType, ...]:
        from portlint.rules import CHECKS

        return tuple(rule for rule in CHECKS if self.enabled(rule.CODE))

    @cached_property
    def judges(self) -> tuple[ModuleType, ...]:
        from portlint.rules import JUDGES

        return tuple(rule for rule in JUDGES if self.enabled(rule.CODE))

    @cached_property
    def beyond(self) -> tuple[ModuleType, ...]:
        """Rules with `beyond_selection(layout)`: problems reported whatever --select and the
        paths say (PL003's idle --select items); only --ignore drops them."""
        from portlint.rules import ALL

        return tuple(rule for rule in ALL if hasattr(rule, "beyond_selection") and not _matches_any(rule.CODE, self.options.ignore))

    @cached_property
    def needs(self) -> frozenset[str]:
        needs = needs_of((*self.rules, *self.judges, *self.beyond))
        if self.options.paths:
            needs |= {"frozen"}  # a stale copy is reported with the source asked for
        return needs

    def _meanwhile(self) -> None:
        """What this process does while the pool's workers start on the per-file stage, which
        they then do more of: the imports of the stages after it, which would wait for it."""
        importlib.import_module("portlint.rules")
        for module in self.options.ahead:
            importlib.import_module(module)

    # -- the run ---------------------------------------------------------------
    def run(self) -> Outcome:
        files = self.scanned()
        outcome = self.fix(files) if self.options.fix else Outcome(self.check(files), self.notes)
        if self.store is not None:
            for path in outcome.changed if self.options.write else ():
                if path not in self.unwritten:  # what is on disk now
                    self._remember(files[path])
            note = self.store.save()
            if note:
                self.notes.append(note)
            outcome.read = dict(self.digests)
        return outcome

    def scanned(self) -> dict[str, FileState]:
        """The per-file stage's results (the cache opened for it), computed once: by `run`, or
        before the CLI asks for the run (scan_ahead)."""
        if self.files is None:
            self.store = self._open_cache()
            self.files = dict(self.scan())
        return self.files

    def _open_cache(self) -> cache.Cache | None:
        if not self.options.cache:
            return None
        return cache.Cache(self.config.root, cache.salt(self.names.selector_names))

    def _key(self, kind: str, path: str, digest: str) -> str:
        """Everything extract_file reads of the file: its bytes (their digest), kind and side of
        a frozen pair (the path is the entry's name; the name filter is in the cache's salt)."""
        return f"{digest}:{kind}:{int(path in self.mirrored)}"

    def _remember(self, state: FileState) -> None:
        assert self.store is not None
        self.store.put(state.path, self._key(state.kind, state.path, cache.digest(state.data)), _result(state))

    def scan(self) -> Iterator[tuple[str, FileState]]:
        """Stages read → extract: every listed file worth parsing, extracted."""
        listed, visits = self._visited()
        return ((state.path, state) for state in self._states(listed, visits))

    def listing(self) -> list[discover.Candidate]:
        """The files to read, with their kinds; the frozen pairs among them."""
        config_path = self.config_display()
        listed = [c for c in discover.candidates(self.config.root, self.config.include, self.config.exclude) if c.path != config_path]
        self.listed = {c.path: c.kind for c in listed}  # the layout's own numbers are the layout, not sites
        self.pairs = self.frozen_pairs()
        self.mirrored = {p for pair in self.pairs for p in (pair.copy, pair.source) if p}
        return listed

    def read_all(self) -> Iterator[tuple[str, str, bytes]]:
        """Stage read alone: (path, kind, bytes) of every listed file worth parsing."""
        listed = self.listing()
        pattern = discover.prefilter(self.names.selector_names)
        visits = [self._visit(candidate, pattern, extract=False) for candidate in listed]
        self._told(listed, visits)
        return ((c.path, c.kind, v.read.data) for c, v in zip(listed, visits) if v.worth and v.read.data is not None)

    def _visited(self) -> tuple[list[discover.Candidate], list[Visit]]:
        """Every listed file read and, when it is worth it, extracted (or taken from the cache).

        In this process, file after file, until the files read so far leave enough to extract
        for a pool to win; from there this process and the pool's workers share the rest of the
        listing, reading and extracting alike, and the files read so far (_shared). With nothing
        cached (the cache is new, or off), that is from the first file worth extracting, as long
        as EAGER_FILES are left to read: the processes then share the reading and the extractors'
        imports as well (each kind's in one process where it can, _reading). With results cached,
        from PARALLEL_BYTES left to extract: most files are then read and taken from the cache,
        and a pool for a few changed files costs more than it gives (README, "Speed")."""
        listed = self.listing()
        pattern = discover.prefilter(self.names.selector_names)
        cold = self.store is None or self.store.empty()
        visits: list[Visit] = []
        pending: list[int] = []  # files read, worth extracting and not in the cache
        size = 0
        for candidate in listed:
            visit = self._visit(candidate, pattern, extract=False)
            visits.append(visit)
            if visit.worth and visit.result is None:
                pending.append(len(visits) - 1)
                size += len(visit.read.data or b"")
                workers = _workers(size, len(listed) - len(visits) if cold else 0)
                if workers > 1:
                    self._shared(listed, visits, pending, pattern, workers)
                    return listed, visits
        extracted = extract_many([self._job(listed[index], visits[index]) for index in pending], self.names)
        for index, result in zip(pending, extracted):
            visits[index] = visits[index]._replace(result=result)
        return listed, visits

    def _shared(self, listed: list[discover.Candidate], visits: list[Visit], pending: list[int],
                pattern: discover.Prefilter, workers: int) -> None:
        """The rest of the listing (read, then extracted where worth it) and the pending files
        (extracted), shared by this process and forked workers; `visits` completed in place.

        The pool's queue: a rare kind's pending files first (_tasks), then the rest of the
        listing (_reading: its costs are known only once read), then the pending files, largest
        first, the smallest together, the last runs halving, so that the processes finish close
        together."""
        rest = list(range(len(visits), len(listed)))
        visits.extend([Visit(Read())] * len(rest))
        jobs = [self._job(listed[i], visits[i]) for i in pending]
        extracting, shared = _tasks(jobs, pool.TASKS - READ_TASKS - 1)
        _preload(shared)
        reading = _reading(rest, [listed[i].kind for i in rest], [discover.size(self.config.root, listed[i].path) for i in rest],
                           READ_TASKS)
        rare = sum(1 for task in extracting if jobs[task[0]][1] not in shared)
        tasks = [(False, [pending[j] for j in task]) for task in extracting[:rare]]
        tasks += [(True, chunk) for chunk in reading]
        tasks += [(False, [pending[j] for j in task]) for task in extracting[rare:]]

        def do(number: int) -> list[Visit]:
            reads, indices = tasks[number]
            if reads:
                done = [self._visit(listed[i], pattern, extract=True) for i in indices]
            else:
                done = [visits[i]._replace(result=_extracted(self._job(listed[i], visits[i]), self.names)) for i in indices]
            return [self._encoded(visit) for visit in done]

        for (_, indices), done in zip(tasks, pool.run(len(tasks), do, workers, self._meanwhile)):
            for index, visit in zip(indices, done):
                visits[index] = visit

    def _encoded(self, visit: Visit) -> Visit:
        """A result computed here, with its cache entry encoded by the process that computed it
        (the pool's processes share the encoding, which this process would do alone at the end)."""
        if self.store is None or visit.result is None or visit.cached:
            return visit
        try:
            return visit._replace(encoded=cache.encode(visit.result))
        except TypeError:
            return visit  # a value the cache's codec does not know: not cached

    def _visit(self, candidate: discover.Candidate, pattern: discover.Prefilter, extract: bool) -> Visit:
        """Read one listed file, decide whether it is worth extracting (or take the decision of
        the last run on the same bytes from the cache), take its result from the cache, and
        extract it when asked. Changes nothing of the run: any process of the pool may visit
        (_told applies what a visit found)."""
        path, kind = candidate.path, candidate.kind
        read = read_file(self.config.root, path, self.store is not None, self.names.selector_names)
        data = read.data
        if data is None:
            return Visit(read)
        decided = False
        if path in self.mirrored:
            worth = True
        elif self.store is None:
            worth, decided = worth_parsing(kind, data, pattern), True
        else:
            known = self.store.decision(path, f"{read.digest}:{kind}")
            worth, decided = (worth_parsing(kind, data, pattern), True) if known is None else (known, False)
        if not worth:
            return Visit(read._replace(data=None), worth, decided)
        if self.store is not None:
            hit = self.store.get(path, self._key(kind, path, read.digest))
            if _result_shaped(hit):
                return Visit(read, worth, decided, hit, cached=True)
        if extract:
            return Visit(read, worth, decided, _extracted((path, kind, data, path in self.mirrored), self.names))
        return Visit(read, worth, decided)

    def _job(self, candidate: discover.Candidate, visit: Visit) -> Job:
        assert visit.read.data is not None
        return candidate.path, candidate.kind, visit.read.data, candidate.path in self.mirrored

    def _told(self, listed: list[discover.Candidate], visits: list[Visit]) -> None:
        """What reading the files told the run, in the listing's order: digests, notes, read
        failures, the prefilter's decisions (kept in the cache)."""
        for candidate, visit in zip(listed, visits):
            path, read = candidate.path, visit.read
            self._read_told(path, read)
            if self.store is not None and visit.worth is not None and path not in self.mirrored:
                key = f"{read.digest}:{candidate.kind}"
                if visit.decided:
                    self.store.decide(path, key, visit.worth)
                else:
                    self.store.decision(path, key)  # known: kept in the next index

    def _read_told(self, path: str, read: Read) -> None:
        if read.digest:
            self.digests[path] = read.digest
        if read.note:
            self._skipped(path, read.note)
        if read.failure:
            self._unreadable(path, read.failure)

    def _states(self, listed: list[discover.Candidate], visits: list[Visit]) -> list[FileState]:
        """The files worth extracting, with their results, in the listing's order; the cache
        keeps what was taken from it and learns what was computed."""
        self._told(listed, visits)
        states = []
        store = self.store
        for candidate, visit in zip(listed, visits):
            if not visit.worth:
                continue
            assert visit.result is not None and visit.read.data is not None  # worth it: read, and extracted
            path, kind = candidate.path, candidate.kind
            if store is not None:
                key = self._key(kind, path, visit.read.digest)
                if visit.cached:
                    store.keep(path, key)
                elif visit.encoded is not None:
                    store.put_encoded(path, key, visit.encoded)
                else:
                    store.put(path, key, visit.result)
            extraction, tree = visit.result
            state = FileState(path, kind, visit.read.data, extraction, tree)
            self._taken(state)
            states.append(state)
        return states

    def frozen_pairs(self) -> list[frozen.FrozenPair]:
        yaml_files = sorted(p for p, kind in self.listed.items() if kind == "yaml")
        return frozen.pairs(self.config.frozen, yaml_files, lambda p: p in self.listed)

    def extract(self, path: str, kind: str, data: bytes) -> FileState:
        state = extract_file(path, kind, data, self.names, path in self.mirrored)
        self._taken(state)
        return state

    def _taken(self, state: FileState) -> None:
        """What a per-file result tells the run besides itself: a frozen side's tree, a note."""
        if state.tree is not None:
            self.trees[(state.path, state.data)] = state.tree
        if state.extraction.note:
            self._skipped(state.path, state.extraction.note)

    def _read(self, path: str) -> bytes | None:
        """A listed file's bytes read again (a frozen side or a text outside the extracted
        files); None when it is skipped (a note) or cannot be checked (a PL001)."""
        read = read_file(self.config.root, path, self.store is not None, self.names.selector_names)
        self._read_told(path, read)
        return read.data

    def _skipped(self, path: str, reason: str) -> None:
        note = f"{path}: skipped: {reason}"
        if note not in self.notes:  # a file can be read again for a frozen pair
            self.notes.append(note)

    def _unreadable(self, path: str, reason: str) -> None:
        if all(failure.path != path for failure in self.read_failures):
            self.read_failures.append(Failure(path, 1, 1, reason))

    # -- stage: the layout ------------------------------------------------------
    def layout(self, files: dict[str, FileState]) -> Layout:
        config, needs = self.config, self.needs
        sites = bind((s for f in files.values() for s in f.extraction.sites), config.bands)
        failures = failures_of(files.values())
        checks: list[frozen.FrozenCheck] = []
        if "frozen" in needs:
            checks = frozen_checks(self.pairs, lambda p: self._data(files, p), self.names.wants, self.trees, failures)
            self.partners = _partners(checks)
        code = code_files(files.values()) if "code_files" in needs else ()
        return Layout(
            config.ephemeral_floor, config.bands, sites, tuple(self.read_failures + failures),
            frozen=tuple(checks),
            commands=tuple(c for f in files.values() for c in f.extraction.commands) if "commands" in needs else (),
            code_files=code, destinations=Destinations({f.path: f.data for f in code}) if code else NOWHERE,
            config_path=self.config_display(), declared=bool(config.bands), test_paths=config.test_paths,
            unreferenced=self.unreferenced(files, sites) if "unreferenced" in needs else frozenset(),
            usage=self.usage() if "usage" in needs else None,
        )

    def usage(self) -> Any:
        """What the config's entries matched (PL003); once per run, fixes change no file names."""
        if self._usage is None:
            from portlint.rules import BY_CODE
            from portlint.stages.layout.usage import usage

            self._usage = usage(self.config, self.listed, self.pairs, self.options.select, self.config_display(), BY_CODE)
        return self._usage

    def _data(self, files: Mapping[str, FileState], path: str) -> bytes | None:
        """A listed file's bytes: as extracted (fixes included), else read again."""
        if path in files:
            return files[path].data
        return self._read(path) if path in self.listed else None

    def unreferenced(self, files: dict[str, FileState], sites: Iterable[Site]) -> frozenset[str]:
        """Fixes change numbers, never names: the answer is computed once per run."""
        if self._unreferenced is None:
            texts = ((p, self._data(files, p) or b"") for p, kind in sorted(self.listed.items()) if kind != "markdown")
            self._unreferenced = unreferenced(sites, texts)
        return self._unreferenced

    def config_display(self) -> str:
        path = self.config.path
        if path is None:
            return ""
        try:
            return path.resolve().relative_to(self.config.root.resolve()).as_posix()
        except ValueError:
            return str(path)

    def enabled(self, code: str) -> bool:
        from portlint.rules import BY_CODE

        rule = BY_CODE.get(code)
        if rule is None:
            return True  # an unknown code in a suppression: PL002 reports it
        if rule.NEEDS_LAYOUT and not self.config.bands:
            return False
        return self.selected(code)

    def selected(self, code: str) -> bool:
        """Chosen by --select/--ignore, whether or not the rule can run here."""
        if self.options.select and not _matches_any(code, self.options.select):
            return False
        return not _matches_any(code, self.options.ignore)

    # -- stage: rules → select/suppress ------------------------------------------
    def check(self, files: dict[str, FileState]) -> list[Problem]:
        layout = self.layout(files)
        problems = [p for p in run_rules(layout, self.rules) if not self._ignored_for_file(p)]
        kept, used = _apply_suppressions(problems, files)
        suppressions = [(f.path, s) for f in files.values() for s in f.extraction.suppressions]
        for judge in self.judges:  # rules over the suppressions the others used (PL002)
            kept += named(judge, judge.judge(layout, suppressions, used, self.enabled, self.selected, lambda p: files[p].data))
        kept = [p for p in kept if self.reported(p.path)]
        if self.baseline is not None:
            kept = self._set_aside(kept, files, self.baseline)
        for rule in self.beyond:
            kept += named(rule, rule.beyond_selection(layout))
        return sorted(kept)

    @cached_property
    def baseline(self) -> baselines.Baseline | None:
        """The problems set aside where no comment can go (portlint/config/baseline.py), read once."""
        return baselines.load(self.config.root)

    def _set_aside(self, problems: list[Problem], files: dict[str, FileState], baseline: baselines.Baseline) -> list[Problem]:
        """The problems the baseline does not set aside, and PL002 for each of its entries that set
        aside none (of a rule that ran, on a path reported)."""
        self.baseline_input = problems
        kept, used = baselines.apply(problems, baseline, lambda path: self.bytes_of(files, path))
        judged = [e for e in baseline.entries if self.enabled(e.code) and self.reported(e.path)]
        lines = {e.line for e in judged}
        self.baseline_kept = [*used, *(e for e in baseline.entries if e.line not in lines)]  # what --add-noqa keeps
        if self.enabled("PL002"):
            from portlint.rules import BY_CODE

            kept += named(BY_CODE["PL002"], BY_CODE["PL002"].stale(baseline, judged, used))
        return kept

    def bytes_of(self, files: Mapping[str, FileState], path: str) -> bytes | None:
        """A problem's file as checked: as extracted, else as it is on disk (the config, a file that failed)."""
        if path in files:
            return files[path].data
        try:
            return (self.config.root / path).read_bytes()
        except OSError:
            return None

    def _ignored_for_file(self, problem: Problem) -> bool:
        return any(
            files_match((pattern,), problem.path) and _matches_any(problem.code, codes)
            for pattern, codes in self.config.per_file_ignores
        )

    def reported(self, path: str) -> bool:
        """Problems in the given paths, and in the files paired with them (a stale frozen copy)."""
        wanted = self.options.paths
        if not wanted:
            return True
        return any(_under(p, wanted) for p in (path, *self.partners.get(path, ())))

    # -- stage: the fix loop ------------------------------------------------------
    def applicable(self, problem: Problem) -> bool:
        return problem.applicable(self.options.unsafe_fixes)

    def fix(self, files: dict[str, FileState]) -> Outcome:
        original = {path: state.data for path, state in files.items()}
        outcome = Outcome([], self.notes)
        refused: set[str] = set()
        fixed_in: dict[str, int] = defaultdict(int)
        for _ in range(MAX_FIX_ROUNDS):
            by_path = defaultdict(list)
            for problem in self.check(files):
                if self.applicable(problem) and problem.path not in refused:
                    by_path[problem.path].append(problem)
            if not by_path:
                break
            for path, problems in by_path.items():
                chosen = compatible(problem.fix for problem in problems if problem.fix is not None)
                if self._fix_file(files, path, chosen, refused):
                    applied = {id(fix) for fix in chosen}
                    outcome.fixed += len(chosen)
                    fixed_in[path] += len(chosen)
                    outcome.fixed_problems += [p for p in problems if id(p.fix) in applied]
        else:
            for path in by_path:
                self.notes.append(f"{path}: fixes did not converge after {MAX_FIX_ROUNDS} rounds; file left as it was")
                files[path] = self.extract(path, files[path].kind, original[path])
                outcome.fixed -= fixed_in[path]  # none of them is written
                outcome.fixed_problems = [p for p in outcome.fixed_problems if p.path != path]
        outcome.problems = self.check(files)
        outcome.changed = {p: (original[p], f.data) for p, f in files.items() if f.data != original[p]}
        if self.options.write:
            self._write(outcome)
        return outcome

    def _fix_file(self, files: dict[str, FileState], path: str, fixes: list, refused: set[str]) -> int:
        state = files[path]
        fixed = apply(state.data, (edit for fix in fixes for edit in fix.edits))
        after = self.extract(path, state.kind, fixed)
        if after.extraction.error:
            refused.add(path)
            self.notes.append(f"{path}: fixes not applied: the result would not parse ({after.extraction.error})")
            return 0
        files[path] = after
        return len(fixes)

    # -- stage: write ---------------------------------------------------------------
    def _write(self, outcome: Outcome) -> None:
        for path, (before, after) in sorted(outcome.changed.items()):
            try:
                writer.write_atomic(self.config.root / path, after, expected=before)
            except OSError as error:
                self.unwritten.add(path)
                outcome.write_errors.append(f"{path}: not written: {error.strerror or error}")


def run(config: Config, options: Options) -> Outcome:
    """A check: the one scan_ahead started where it ran with this config and the cache as asked."""
    ahead = _AHEAD.pop() if _AHEAD else None
    if ahead is not None and ahead.config == config and ahead.options.cache == options.cache:
        ahead.options = options  # the rules and what they need are still to be worked out: by these
        return ahead.run()
    return Engine(config, options).run()


_AHEAD: list[Engine] = []  # the engine whose per-file stage scan_ahead ran, until `run` takes it


def scan_ahead(start: Path, config_args: tuple[str, ...], ephemeral_floor: str | None, imports: tuple[str, ...]) -> None:
    """The per-file stage of the check about to be asked for, run before the CLI that asks is
    imported: this process imports it (`imports`) while the pool's workers start on the files,
    not before it forks them (~25 ms of a cold check, click's import most of it). `run` takes
    the results when the CLI's config is this one and the cache is on; otherwise (an error here,
    another config, a command that runs no check) they are dropped and the CLI's own run does
    it all, as it always did: its errors are the CLI's to report, in its words."""
    from portlint.config.load import load_for

    try:
        engine = Engine(load_for(start, config_args, ephemeral_floor), Options(cache=True, ahead=imports))
        fewer_collections()
        engine.scanned()
    except Exception:  # noqa: BLE001 - the CLI's run meets it again and reports it
        return
    _AHEAD[:] = [engine]


def drop_scanned_ahead() -> None:
    """Forget what scan_ahead kept, once the CLI it was kept for has returned (taken or not): a
    later check in this process reads the files again."""
    _AHEAD.clear()


def fewer_collections() -> None:
    """Collections rare for a check (portlint.GC_THRESHOLDS), and none of what is loaded by now."""
    import gc

    gc.freeze()  # modules, the config: never garbage
    gc.set_threshold(*GC_THRESHOLDS)


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


def _under(path: str, wanted: Iterable[str]) -> bool:
    return any(path == p or path.startswith(p.rstrip("/") + "/") or p in ("", ".") for p in wanted)


def _partners(checks: Iterable[frozen.FrozenCheck]) -> dict[str, set[str]]:
    """copy <-> source and every parent merged into the source."""
    partners: dict[str, set[str]] = defaultdict(set)
    for check in checks:
        copy = check.pair.copy
        for other in check.source.files if check.source else ():
            partners[copy].add(other)
            partners[other].add(copy)
    return partners


def _result_shaped(hit: object) -> TypeGuard[Result]:
    """A cached (extraction, tree) pair, as this version stores it (anything else is computed again)."""
    return (
        isinstance(hit, tuple) and len(hit) == 2 and isinstance(hit[0], Extraction)
        and (hit[1] is None or isinstance(hit[1], tuple))
    )


def _matches_any(code: str, prefixes: Iterable[str]) -> bool:
    return any(prefix == "ALL" or code.startswith(prefix) for prefix in prefixes)


def _apply_suppressions(
    problems: list[Problem], files: dict[str, FileState]
) -> tuple[list[Problem], dict[tuple[str, int], set[str]]]:
    """Drop problems an ignore comment on their line covers; remember which codes were used.

    A problem spanning lines (a command continued with `\\`, which takes a comment
    only on its last line) is covered from its first or its last line.
    """
    comments: dict[tuple[str, int], list[Suppression]] = defaultdict(list)
    for state in files.values():
        for suppression in state.extraction.suppressions:
            comments[(state.path, suppression.line)].append(suppression)
    used: dict[tuple[str, int], set[str]] = defaultdict(set)
    kept = []
    for problem in problems:
        keys = [(problem.path, line) for line in dict.fromkeys((problem.line, max(problem.line, problem.end_line)))]
        key = next((k for k in keys if any(not s.codes or problem.code in s.codes for s in comments.get(k, ()))), None)
        if problem.code != "PL001" and key is not None:
            used[key].add(problem.code)
        else:
            kept.append(problem)
    return kept, used


def known_code(code: str) -> bool:
    from portlint.rules import BY_CODE

    return code == "ALL" or any(known.startswith(code) for known in BY_CODE)
