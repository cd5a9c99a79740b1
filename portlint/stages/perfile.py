"""The per-file stage: every listed file read, prefiltered and, where it is worth it, extracted,
and what reading the files told the run (notes, read failures, digests).

`extract_file` is a pure function of (path, kind, bytes, the config's name filter,
whether the file is one side of a frozen pair) returning a picklable FileState, so its
result is kept by content between runs (portlint.speed.cache, under `key`) and computed
in any process of the pool (portlint.speed.pool). `scan` visits the listing in this
process, file after file, until what is left to extract is worth a pool; from there this
process and forked workers share the rest of the listing, reading and extracting alike.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from msgspec import DecodeError, Raw

from portlint.model.extraction import Extraction
from portlint.model.files import FileState
from portlint.model.frozen import Flat
from portlint.model.naming import NameFilter
from portlint.model.records import replace
from portlint.model.sites import Failure, literal_written
from portlint.model.source import Source
from portlint.speed import cache, pool
from portlint.speed.switch import fast
from portlint.stages.discover import Candidate, Listing
from portlint.stages.extract.yaml_tree import flat
from portlint.stages.prefilter import Prefilter, prefilter, worth_parsing
from portlint.stages.read import Read, read_file

Result = tuple[Extraction, "Flat | None"]  # what the per-file stage gives of one file
RESULT = tuple[Extraction[Raw], Flat | None]  # a Result as the cache reads it: the analyses' exports left as JSON (_read_back)
Job = tuple[str, str, bytes, bool]  # (path, kind, bytes, one side of a frozen pair): one file to extract

# What the per-file stage imports on first use, by the kind of file that needs it ("": every
# kind): imported before a pool forks, or each worker imports it all again, and only for the
# kinds there are in more than one task (pool.tasks). Only a cost, never a result, if it falls
# behind: tests/perf/test_fork.py keeps it complete.
PER_FILE_MODULES: dict[str, tuple[str, ...]] = {
    "": ("portlint.stages.extract", "portlint.stages.extract.prose"),
    "yaml": ("portlint.stages.extract.yaml", "portlint.stages.extract.yaml_commands", "portlint.stages.extract.template",
             "portlint.speed.yaml_stream",
             "portlint.stages.extract.shell", "portlint.analysis.scripts", "ruamel.yaml", "ruamel.yaml.cyaml"),
    "python": ("portlint.stages.extract.python", "portlint.stages.extract.python_commands", "portlint.speed.outline",
               "portlint.stages.extract.shell", "portlint.analysis.scripts", "portlint.analysis.sockets.calls",
               "portlint.analysis.sockets.expressions",
               "portlint.analysis.sockets.flow", "portlint.analysis.sockets.imports", "portlint.analysis.sockets.describe",
               "portlint.analysis.sockets.module", "portlint.analysis.sockets.values"),
    "shell": ("portlint.stages.extract.shell", "portlint.analysis.scripts"),
    "markdown": ("portlint.stages.extract.markdown",),
}


# -- one file ----------------------------------------------------------------------------
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
        return FileState(path, kind, data, extraction, flat(source, roots) if roots is not None else None)
    module = importlib.import_module(f"portlint.stages.extract.{kind}")
    return FileState(path, kind, data, module.extract(source, names))


def worth_extracting(kind: str, data: bytes, pattern: Prefilter) -> bool:
    """The prefilter's decision (the fast path `prefilter`), narrowed for YAML by the extractor's
    own byte test (`yaml`): a YAML file is composed only where a key, a comment or a command can
    yield something."""
    if fast("prefilter") and not worth_parsing(kind, data, pattern):
        return False
    if kind != "yaml" or not fast("yaml"):
        return True
    from portlint.stages.extract.yaml import worth_composing

    return worth_composing(data, pattern.tokens, pattern.keys)


def key(kind: str, digest: str, mirrored: bool | None = None) -> str:
    """A file's entry in the per-file cache: everything `extract_file` reads of it (its bytes'
    digest, its kind, whether it is a frozen pair's side; the path is the entry's name and the
    name filter is in the cache's salt). The prefilter's decision reads no side (None)."""
    return f"{digest}:{kind}" if mirrored is None else f"{digest}:{kind}:{int(mirrored)}"


def remember(store: cache.Cache, state: FileState, mirrored: bool) -> None:
    """Keep a file's result as it is now (after a fix wrote it)."""
    store.put(state.path, key(state.kind, cache.digest(state.data), mirrored), (state.extraction, state.tree))


def revisit(root: Path, path: str, kind: str, data: bytes | None, names: NameFilter, mirrored: bool,
            files: Mapping[str, FileState] | None = None) -> FileState | None:
    """One listed file visited again as `scan` visits it, with `data` in place of what the disk
    holds (text an editor has not saved; None: the disk's bytes, read again): its state, or None
    where the stage would not extract it (nothing worth extracting, or nothing to read). `files`:
    the others as extracted, which say whether a script leads to a launcher (`_reached`)."""
    pattern = prefilter(names.selector_names)
    if data is None:
        data = read_file(root, path, False, pattern.search).data
        if data is None:
            return None
    if not mirrored and not worth_extracting(kind, data, pattern) and \
            not (kind == "shell" and files is not None and leads_to_a_launcher(path, data, files)):
        return None
    return extract_file(path, kind, data, names, mirrored)


def reread(root: Path, path: str, names: NameFilter) -> bytes | None:
    """A listed file's bytes read again (a frozen side, a text outside the extracted files);
    None when it is skipped or cannot be checked (the first read said why)."""
    return read_file(root, path, False, prefilter(names.selector_names).search).data


# -- every listed file ----------------------------------------------------------------------
class Scanned(NamedTuple):
    """What the per-file stage gives the run: the files worth extracting, with their results, in
    the listing's order, and what reading every listed file told it."""

    files: dict[str, FileState]
    notes: list[str]  # files skipped, and why
    failures: list[Failure]  # files that cannot be checked (PL001)
    digests: dict[str, str]  # path -> digest of the bytes read (with the cache on): what the output comes from
    trees: dict[tuple[str, bytes], Flat]  # frozen sides' flattened YAML, by content


class Visitor(NamedTuple):
    """What visiting a listed file reads besides the file: the same in every process of the pool."""

    root: Path
    names: NameFilter
    pattern: Prefilter
    mirrored: frozenset[str]  # both sides of every frozen pair: extracted whatever the prefilter says
    store: cache.Cache | None
    folders: dict[str, bool]  # the folders whose way into the tree was looked at (discover.leads_inside), this process's


class Visit(NamedTuple):
    """A listed file after the read stage, as any process of the pool hands it back: what
    reading it gave, whether it is worth extracting, and its per-file result once taken from
    the cache or computed."""

    read: Read  # its bytes only when it is worth extracting (the pool's workers send them back)
    worth: bool | None = None  # None: not read
    decided: bool = False  # `worth` was decided by this visit (not known from the cache, nor a frozen side)
    result: Result | None = None
    cached: bool = False  # `result` came from the cache
    encoded: bytes | None = None  # `result` as the cache stores it, when the process that computed it encoded it


def scan(listing: Listing, names: NameFilter, mirrored: Iterable[str], store: cache.Cache | None,
         meanwhile: Callable[[], object] = lambda: None) -> Scanned:
    """Every listed file read and, when it is worth it, extracted (or taken from the cache), with
    what reading told the run; the cache keeps what was taken from it and learns what was
    computed. `meanwhile`: this process's own work while the pool's workers start (imports of
    the stages after this one)."""
    visitor = Visitor(listing.root, names, prefilter(names.selector_names), frozenset(mirrored), store, {})
    visits = _visited(visitor, listing, meanwhile)
    scanned = _scanned(visitor, listing.files, visits)
    _reached(visitor, listing, scanned)
    return scanned


def _reached(visitor: Visitor, listing: Listing, scanned: Scanned) -> None:
    """The shell scripts that may run a script leaving a server running (a launcher,
    analysis.scripts.launcher), directly or through others, read and extracted here where the
    byte tests passed them over: PL604 follows a loop's runs into them (`_leading`).
    `scanned.files` is kept in the listing's order."""
    files = scanned.files
    reads: dict[str, Read] = {}

    def data_of(path: str) -> bytes | None:
        if path in files:
            return files[path].data
        if path not in reads:
            reads[path] = read_file(visitor.root, path, visitor.store is not None, lambda data: True, visitor.folders)
        return reads[path].data

    shells = [candidate.path for candidate in listing.files if candidate.kind == "shell"]
    added = False
    for path in _leading(_launchers(files), shells, data_of):
        if path not in files and (state := _late(visitor, path, reads[path])) is not None:
            files[path] = state
            taken(scanned, state)
            added = True
    if added:
        order = {candidate.path: index for index, candidate in enumerate(listing.files)}
        scanned.files.update(sorted(scanned.files.copy().items(), key=lambda item: order.get(item[0], -1)))


def _launchers(files: Mapping[str, FileState]) -> list[str]:
    return [path for path, state in files.items()
            if state.kind == "shell" and state.extraction.sockets is not None and state.extraction.sockets.launchers]


def _leading(launchers: list[str], scripts: list[str], data_of: Callable[[str], bytes | None]) -> list[str]:
    """The scripts that name the file of a launcher, or of a script that does, on and on, in the
    order found. Every run the analysis can follow writes the file name of the script it runs
    (analysis.scripts.resolve), so a script that names none of them leads to no launcher."""
    names = {_name(path) for path in launchers}
    seen = set(launchers)
    leading: list[str] = []
    while names:
        found = [path for path in scripts
                 if path not in seen and (data := data_of(path)) is not None and any(name in data for name in names)]
        seen.update(found)
        leading += found
        names = {_name(path) for path in found}
    return leading


def leads_to_a_launcher(path: str, data: bytes, files: Mapping[str, FileState]) -> bool:
    """Whether a shell script the byte tests pass over is one the per-file stage reads
    (`_reached`), the other scripts as `files` holds them: what an edit of one script asks."""
    others = {other: state.data for other, state in files.items() if other != path and state.kind == "shell"}
    scripts = [*others, path]
    return path in _leading(_launchers({p: s for p, s in files.items() if p != path}), scripts,
                            lambda p: data if p == path else others.get(p))


def _name(path: str) -> bytes:
    return path.rsplit("/", 1)[-1].encode()


def _visited(visitor: Visitor, listing: Listing, meanwhile: Callable[[], object]) -> list[Visit]:
    """Every listed file visited: in this process, file after file, until the files read so far
    leave enough to extract for a pool to win; from there this process and the pool's workers
    share the rest of the listing, and the files read so far (_shared). With nothing cached
    (the cache is new, or off), that is from the first file worth extracting, as long as
    pool.EAGER_FILES are left to read: the processes then share the reading and the
    extractors' imports as well. With results cached, from pool.PARALLEL_BYTES left to
    extract: most files are then read and taken from the cache, and a pool for a few changed
    files costs more than it gives."""
    listed = listing.files
    store = visitor.store
    cold = store is None or store.empty()
    visits: list[Visit] = []
    pending: list[int] = []  # files read, worth extracting and not in the cache
    size = 0
    for candidate in listed:
        visit = _visit(visitor, candidate, extract=False)
        visits.append(visit)
        if visit.worth and visit.result is None:
            pending.append(len(visits) - 1)
            size += len(visit.read.data or b"")
            workers = pool.workers(size, len(listed) - len(visits) if cold else 0)
            if workers > 1:
                _shared(visitor, listing, visits, pending, workers, meanwhile)
                return visits
    extracted = extract_many([_job(visitor, listed[index], visits[index]) for index in pending], visitor.names)
    for index, result in zip(pending, extracted):
        visits[index] = visits[index]._replace(result=result)
    return visits


def _shared(visitor: Visitor, listing: Listing, visits: list[Visit], pending: list[int], workers: int,
            meanwhile: Callable[[], object]) -> None:
    """The rest of the listing (read, then extracted where worth it) and the pending files
    (extracted), shared by this process and forked workers; `visits` completed in place.

    The pool's queue: a rare kind's pending files first (pool.tasks), then the rest of the
    listing (pool.reading: its costs are known only once read), then the pending files,
    largest first, the smallest together, the last runs halving, so that the processes finish
    close together."""
    listed = listing.files
    rest = list(range(len(visits), len(listed)))
    visits.extend([Visit(Read())] * len(rest))
    jobs = [_job(visitor, listed[i], visits[i]) for i in pending]
    extracting, shared = pool.tasks([job[1] for job in jobs], [len(job[2]) for job in jobs],
                                    pool.TASKS - pool.READ_TASKS - 1)
    pool.preload(_modules(shared))
    reading = pool.reading(rest, [listed[i].kind for i in rest], [listing.size(listed[i].path) for i in rest],
                           pool.READ_TASKS, PER_FILE_MODULES)
    rare = sum(1 for task in extracting if jobs[task[0]][1] not in shared)
    tasks = [(False, [pending[j] for j in task]) for task in extracting[:rare]]
    tasks += [(True, chunk) for chunk in reading]
    tasks += [(False, [pending[j] for j in task]) for task in extracting[rare:]]

    def do(number: int) -> list[Visit]:
        reads, indices = tasks[number]
        if reads:
            done = [_visit(visitor, listed[i], extract=True) for i in indices]
        else:
            done = [visits[i]._replace(result=_extracted(_job(visitor, listed[i], visits[i]), visitor.names))
                    for i in indices]
        return [_encoded(visitor, visit) for visit in done]

    for (_, indices), done in zip(tasks, pool.run(len(tasks), do, workers, meanwhile)):
        for index, visit in zip(indices, done):
            visits[index] = visit


def _late(visitor: Visitor, path: str, read: Read) -> FileState | None:
    """A shell script the byte tests passed over, extracted from what was read again (or taken
    from the cache, which keeps it under its bytes as any file's result); None where it cannot
    be read."""
    store = visitor.store
    if read.data is None:
        return None
    entry = key("shell", read.digest, False)
    hit = store.get(path, entry) if store is not None else None
    result = _read_back(hit) if hit is not None else None
    if result is None or not verified(result, read.data):
        result = _extracted((path, "shell", read.data, False), visitor.names)
        if store is not None:
            store.put(path, entry, result)
    return FileState(path, "shell", read.data, *result)


def _visit(visitor: Visitor, candidate: Candidate, extract: bool) -> Visit:
    """Read one listed file, decide whether it is worth extracting (or take the decision of
    the last run on the same bytes from the cache), take its result from the cache, and
    extract it when asked. Changes nothing of the run: any process of the pool may visit
    (_scanned applies what the visits found)."""
    path, kind = candidate.path, candidate.kind
    store = visitor.store
    read = read_file(visitor.root, path, store is not None, visitor.pattern.search, visitor.folders)
    data = read.data
    if data is None:
        return Visit(read)
    decided = False
    if path in visitor.mirrored:
        worth = True
    elif store is None:
        worth, decided = worth_extracting(kind, data, visitor.pattern), True
    else:
        known = store.decision(path, key(kind, read.digest))
        worth, decided = (worth_extracting(kind, data, visitor.pattern), True) if known is None else (known, False)
    if not worth:
        return Visit(read._replace(data=None), worth, decided)
    if store is not None:
        hit = store.get(path, key(kind, read.digest, path in visitor.mirrored))
        result = _read_back(hit) if hit is not None else None
        if result is not None and verified(result, data):  # one that is not is a miss: computed again
            return Visit(read, worth, decided, result, cached=True)
    if extract:
        return Visit(read, worth, decided, _extracted((path, kind, data, path in visitor.mirrored), visitor.names))
    return Visit(read, worth, decided)


def _read_back(hit: tuple[Extraction[Raw], Flat | None]) -> Result | None:
    """A result from the cache, its analyses' exports read back too (None where they do not read
    back: computed again): only a file that exports some needs the analyses' records, and their
    import is left to the few that do."""
    extraction, tree = hit
    facts = extraction.sockets
    if facts is None or not facts.exports:
        return hit
    from portlint.analysis.sockets.imports import Export

    try:
        exports = tuple(cache.decode(raw, Export) for raw in facts.exports)
    except DecodeError:
        return None
    return replace(extraction, sockets=replace(facts, exports=exports)), tree


def verified(result: Result, data: bytes) -> bool:
    """A cached result says of these bytes what extracting them would: every site's span holds
    its literal, every suppression's span a suppression, every scalar of a frozen side's tree
    its value where the value is written as it is. The cache may be stale, damaged or forged (a
    repository can ship one): a fix must never be made at a span the bytes do not back."""
    extraction, tree = result
    try:  # a forged record may hold anything its type allows: not an answer, whatever it holds
        if not all(literal_written(site, data) for site in extraction.sites):
            return False
        if not all(0 <= s.start < s.end <= len(data) and b"portlint:" in data[s.start:s.end] for s in extraction.suppressions):
            return False
        if tree is None:
            return True
        own, _ = tree
        return all(
            0 <= s.start <= s.end <= len(data)
            and (s.end - s.start != len(s.value.encode()) or data[s.start:s.end] == s.value.encode())  # else no fix reads it
            for s in own.scalars.values()
        )
    except (TypeError, ValueError, AttributeError):
        return False


def _encoded(visitor: Visitor, visit: Visit) -> Visit:
    """A result computed here, with its cache entry encoded by the process that computed it
    (the pool's processes share the encoding, which this process would do alone at the end)."""
    if visitor.store is None or visit.result is None or visit.cached:
        return visit
    try:
        return visit._replace(encoded=cache.encode(visit.result))
    except (TypeError, ValueError):
        return visit  # a value msgspec does not encode, or text that is not UTF-8: not cached


def _scanned(visitor: Visitor, listed: list[Candidate], visits: list[Visit]) -> Scanned:
    """What the visits found, in the listing's order: digests, notes, read failures and the
    prefilter's decisions (kept in the cache), then the files worth extracting with their
    results (kept in the cache) and what those results tell the run (a note, a frozen tree)."""
    store = visitor.store
    scanned = Scanned({}, [], [], {}, {})
    for candidate, visit in zip(listed, visits):
        path, read = candidate.path, visit.read
        _told(scanned, path, read)
        if store is not None and visit.worth is not None and path not in visitor.mirrored:
            decision = key(candidate.kind, read.digest)
            if visit.decided:
                store.decide(path, decision, visit.worth)
            else:
                store.decision(path, decision)  # known: kept in the next index
    for candidate, visit in zip(listed, visits):
        if not visit.worth:
            continue
        assert visit.result is not None and visit.read.data is not None  # worth it: read, and extracted
        path, kind = candidate.path, candidate.kind
        if store is not None:
            entry = key(kind, visit.read.digest, path in visitor.mirrored)
            if visit.cached:
                store.keep(path, entry)
            elif visit.encoded is not None:
                store.put_encoded(path, entry, visit.encoded)
            else:
                store.put(path, entry, visit.result)
        extraction, tree = visit.result
        state = FileState(path, kind, visit.read.data, extraction, tree)
        taken(scanned, state)
        scanned.files[path] = state
    return scanned


def _told(scanned: Scanned, path: str, read: Read) -> None:
    if read.digest:
        scanned.digests[path] = read.digest
    if read.note:
        skipped(scanned.notes, path, read.note)
    if read.failure and all(failure.path != path for failure in scanned.failures):
        scanned.failures.append(Failure(path, 1, 1, read.failure))


def taken(scanned: Scanned, state: FileState) -> None:
    """What a per-file result tells the run besides itself: a frozen side's tree, a note."""
    if state.tree is not None:
        scanned.trees[(state.path, state.data)] = state.tree
    if state.extraction.note:
        skipped(scanned.notes, state.path, state.extraction.note)


def skipped(notes: list[str], path: str, reason: str) -> None:
    """The note of a file skipped, once (a file can be read again for a frozen pair)."""
    note = f"{path}: skipped: {reason}"
    if note not in notes:
        notes.append(note)


# -- extraction over many files: in this process, or with forked workers ----------------------
def extract_many(jobs: list[Job], names: NameFilter) -> list[Result]:
    """(extraction, tree) of every job, in order: by a pool when there is enough to extract (the
    files read when the listing ended before a pool started: one process, unless
    PORTLINT_WORKERS says otherwise)."""
    workers = pool.workers(sum(len(job[2]) for job in jobs))
    if workers == 1 or len(jobs) < 2:
        return [_extracted(job, names) for job in jobs]
    tasks, shared = pool.tasks([job[1] for job in jobs], [len(job[2]) for job in jobs], pool.TASKS)
    pool.preload(_modules(shared))
    done = pool.run(len(tasks), lambda number: [_extracted(jobs[i], names) for i in tasks[number]], workers)
    found: list[Result | None] = [None] * len(jobs)
    for task, results in zip(tasks, done):
        for index, result in zip(task, results):
            found[index] = result
    return found  # type: ignore[return-value]  # every job is in one task


def _modules(kinds: Iterable[str]) -> list[str]:
    """What the per-file stage imports for these kinds (and for every kind)."""
    return [module for kind in ("", *sorted(kinds)) for module in PER_FILE_MODULES.get(kind, ())]


def _extracted(job: Job, names: NameFilter) -> Result:
    path, kind, data, mirrored = job
    state = extract_file(path, kind, data, names, mirrored)
    return state.extraction, state.tree


def _job(visitor: Visitor, candidate: Candidate, visit: Visit) -> Job:
    assert visit.read.data is not None
    return candidate.path, candidate.kind, visit.read.data, candidate.path in visitor.mirrored


