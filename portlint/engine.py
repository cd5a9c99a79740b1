"""discover → extract → bind → run rules → drop suppressed → (fix → re-check) → outcome."""
from __future__ import annotations

import importlib
import re
import mmap
import stat
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from portlint import discover, frozen, writer
from portlint.binding import bind, files_match
from portlint.config import Config
from portlint.edits import apply, compatible
from portlint.extract import Extraction, Suppression
from portlint import analysis
from portlint.model import CodeFile, Failure, Layout, Site
from portlint.naming import NameFilter
from portlint.problem import Problem
from portlint.rules import BY_CODE, CHECKS, doc_drift, unused_config, unused_suppression
from portlint.source import Source
from portlint.tool_defaults import mentions_tool

MAX_FIX_ROUNDS = 10
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")  # UTF-16 LE/BE, UTF-32 BE (LE starts like UTF-16 LE)


@dataclass(frozen=True)
class Options:
    select: tuple[str, ...] = ()  # codes or prefixes; empty: every rule
    ignore: tuple[str, ...] = ()
    fix: bool = False
    unsafe_fixes: bool = False
    write: bool = True  # False for --diff: compute the fixes, write nothing
    paths: tuple[str, ...] = ()  # root-relative paths to report on; empty: everything


@dataclass(frozen=True)
class FileState:
    path: str
    kind: str
    data: bytes
    extraction: Extraction


@dataclass
class Outcome:
    problems: list[Problem]
    notes: list[str] = field(default_factory=list)
    changed: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)  # path -> (before, after)
    fixed: int = 0
    fixed_problems: list[Problem] = field(default_factory=list)  # the problems the fixes were for
    write_errors: list[str] = field(default_factory=list)


class Engine:
    """One run over one repository root with one config."""

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
        self._usage: unused_config.Usage | None = None

    # -- the run ---------------------------------------------------------------
    def run(self) -> Outcome:
        files = dict(self.scan())
        if not self.options.fix:
            return Outcome(self.check(files), self.notes)
        return self.fix(files)

    def scan(self) -> Iterator[tuple[str, FileState]]:
        root = self.config.root
        pattern = discover.prefilter(self.names.selector_names)
        config_path = self.config_display()
        listed = [c for c in discover.candidates(root, self.config.include, self.config.exclude) if c.path != config_path]
        self.listed = {c.path: c.kind for c in listed}  # the layout's own numbers are the layout, not sites
        self.pairs = self.frozen_pairs()
        self.mirrored = {p for pair in self.pairs for p in (pair.copy, pair.source) if p}
        for candidate in listed:
            data = self._read(root / candidate.path, candidate.path)
            if data is None:
                continue
            if self._worth_parsing(candidate.path, candidate.kind, data, pattern):
                yield candidate.path, self.extract(candidate.path, candidate.kind, data)

    def _worth_parsing(self, path: str, kind: str, data: bytes, pattern: re.Pattern[bytes]) -> bool:
        """A port token or selector name, a frozen pair, socket code (PL601/602), or a
        tool whose default ports matter (PL603): anything else holds nothing to check."""
        return bool(
            pattern.search(data) or path in self.mirrored
            or _uses_sockets(kind, data) or mentions_tool(kind, data)
        )

    def frozen_pairs(self) -> list[frozen.FrozenPair]:
        yaml_files = sorted(p for p, kind in self.listed.items() if kind == "yaml")
        return frozen.pairs(self.config.frozen, yaml_files, lambda p: p in self.listed)

    def extract(self, path: str, kind: str, data: bytes) -> FileState:
        try:
            source = Source(path, data)
        except UnicodeDecodeError as error:
            where = f"byte 0x{data[error.start]:02x} at offset {error.start}"
            return FileState(path, kind, data, Extraction(error=f"not UTF-8 text ({where})"))
        if kind == "yaml" and path in self.mirrored:  # compose once for the extractor and the pair
            from portlint.extract.yaml import extract_with_roots

            extraction, roots = extract_with_roots(source, self.names)
            if roots is not None:
                self.trees[(path, data)] = frozen.flat(source, roots)
            if extraction.note:
                self._skipped(path, extraction.note)
            return FileState(path, kind, data, extraction)
        module = importlib.import_module(f"portlint.extract.{kind}")
        extraction = module.extract(source, self.names)
        if extraction.note:
            self._skipped(path, extraction.note)
        return FileState(path, kind, data, extraction)

    def _read(self, full: Path, path: str) -> bytes | None:
        """The file's bytes; None when it is skipped (a note) or cannot be checked (a PL001)."""
        if full.is_symlink():
            try:
                target = full.resolve(strict=True)
            except FileNotFoundError:
                return None  # a dangling link: nothing to read
            except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
                return self._unreadable(path, "cannot read: a symlink loop")
            if not discover.inside(self.config.root, target):
                return self._skipped(path, "a symlink leading outside the repository")
        try:
            status = full.stat()
            if stat.S_ISDIR(status.st_mode):
                return self._skipped(path, "a directory")
            if not stat.S_ISREG(status.st_mode):
                return self._skipped(path, "not a regular file")  # a FIFO would block the read
            if status.st_size > discover.MAX_BYTES:
                if not self._may_hold_sites(full):
                    return None
                return self._unreadable(path, f"too large: {status.st_size} bytes, over the {discover.MAX_BYTES}-byte limit")
            data = full.read_bytes()
        except FileNotFoundError:
            return None  # listed by git but deleted in the work tree
        except OSError as error:
            return self._unreadable(path, f"cannot read: {error.strerror or error}")
        if data.startswith(_WIDE_BOMS):
            return self._unreadable(path, "UTF-16 or UTF-32 text; portlint reads UTF-8")
        nul = data.find(b"\0", 0, 8192)
        if nul != -1:
            return self._unreadable(path, f"binary: a NUL byte at offset {nul}")
        return data

    def _may_hold_sites(self, full: Path) -> bool:
        """The prefilter over a file too large to read whole, through a read-only mapping."""
        with open(full, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
            return discover.prefilter(self.names.selector_names).search(view) is not None

    def _skipped(self, path: str, reason: str) -> None:
        note = f"{path}: skipped: {reason}"
        if note not in self.notes:  # a file can be read again for a frozen pair
            self.notes.append(note)

    def _unreadable(self, path: str, reason: str) -> None:
        if all(failure.path != path for failure in self.read_failures):
            self.read_failures.append(Failure(path, 1, 1, reason))

    # -- checking --------------------------------------------------------------
    def layout(self, files: dict[str, FileState]) -> Layout:
        config = self.config
        sites = bind((s for f in files.values() for s in f.extraction.sites), config.bands)
        failures = [
            Failure(f.path, f.extraction.error_line, f.extraction.error_column, f.extraction.error)
            for f in files.values() if f.extraction.error
        ]
        checks = self.frozen_checks(files, failures)
        return Layout(
            config.ephemeral_floor, config.bands, sites, tuple(self.read_failures + failures),
            frozen=tuple(checks),
            commands=tuple(c for f in files.values() for c in f.extraction.commands),
            code_files=tuple(
                CodeFile(f.path, f.kind, f.data, f.extraction.sockets) for f in files.values()
                if f.kind == "python" and not f.extraction.error
            ),
            config_path=self.config_display(), declared=bool(config.bands), test_paths=config.test_paths,
            unreferenced=self.unreferenced(files, sites), usage=self.usage(),
        )

    def usage(self) -> unused_config.Usage:
        """What the config's entries matched (PL003); once per run, fixes change no file names."""
        if self._usage is None:
            from portlint.config_usage import usage

            self._usage = usage(self.config, self.listed, self.pairs, self.options.select, self.config_display())
        return self._usage

    def unreferenced(self, files: dict[str, FileState], sites: Iterable[Site]) -> frozenset[str]:
        """Names documented as `NAME=N` that no config, script or code file mentions (PL501).

        Fixes change numbers, never names, so the answer is computed once per run.
        """
        if self._unreferenced is not None:
            return self._unreferenced
        sites = list(sites)
        in_code = {name for site in sites if not site.is_doc for name in site.names}
        missing = {
            s.name for s in sites
            if s.kind == "markdown" and not s.scope and not s.band and s.name not in in_code
        } if self.enabled(doc_drift.CODE) else set()
        for path, kind in sorted(self.listed.items()):
            if not missing:
                break
            if kind != "markdown":
                data = files[path].data if path in files else self._read(self.config.root / path, path)
                missing = {name for name in missing if not _mentions(data or b"", name)}
        self._unreferenced = frozenset(missing)
        return self._unreferenced

    def frozen_checks(self, files: dict[str, FileState], failures: list[Failure]) -> list[frozen.FrozenCheck]:
        """Both sides of every frozen pair; a broken inheritance chain is a PL001 at the source."""
        def read(path: str) -> bytes | None:
            if path in files:
                return files[path].data
            return self._read(self.config.root / path, path) if path in self.listed else None

        checks = []
        for pair in self.pairs:
            try:
                checks.append(frozen.check_pair(pair, read, self.names.wants, self.trees))
            except (frozen.InheritanceError, ValueError, UnicodeDecodeError) as error:
                if not any(f.path == pair.source for f in failures):
                    failures.append(Failure(pair.source, 1, 1, str(error)))
        self.partners = _partners(checks)
        return checks

    def config_display(self) -> str:
        path = self.config.path
        if path is None:
            return ""
        try:
            return path.resolve().relative_to(self.config.root.resolve()).as_posix()
        except ValueError:
            return str(path)

    def enabled(self, code: str) -> bool:
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

    def check(self, files: dict[str, FileState]) -> list[Problem]:
        layout = self.layout(files)
        problems = [p for rule in CHECKS if self.enabled(rule.CODE) for p in rule.check(layout)]
        problems = [p for p in problems if not self._ignored_for_file(p)]
        kept, used = _apply_suppressions(problems, files)
        if self.enabled(unused_suppression.CODE):
            suppressions = [(f.path, s) for f in files.values() for s in f.extraction.suppressions]
            bare = all(self.selected(code) for code in BY_CODE)  # a bare ignore may hide a deselected rule
            kept += unused_suppression.unused(suppressions, used, self.enabled, lambda p: files[p].data, BY_CODE, bare)
        kept = [p for p in kept if self.reported(p.path)]
        if not _matches_any(unused_config.CODE, self.options.ignore):  # whatever --select and the paths say
            kept += unused_config.idle_selections(layout)
        return sorted(kept)

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

    # -- fixing ----------------------------------------------------------------
    def applicable(self, problem: Problem) -> bool:
        return problem.fix is not None and (problem.fix.safe or self.options.unsafe_fixes)

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
                chosen = compatible(problem.fix for problem in problems)
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

    def _write(self, outcome: Outcome) -> None:
        for path, (before, after) in sorted(outcome.changed.items()):
            try:
                writer.write_atomic(self.config.root / path, after, expected=before)
            except OSError as error:
                outcome.write_errors.append(f"{path}: not written: {error.strerror or error}")


def run(config: Config, options: Options) -> Outcome:
    return Engine(config, options).run()


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


def _uses_sockets(kind: str, data: bytes) -> bool:
    """Python a code analysis reads (socket code that binds: PL601/PL602; rendezvous starts: PL604)."""
    return kind == "python" and analysis.worth_reading(data)


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
    return code == "ALL" or any(known.startswith(code) for known in BY_CODE)

