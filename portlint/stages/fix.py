"""The one way bytes change: a fix's edits, spliced into a file's bytes where they do not overlap;
and the fix loop, which applies every applicable fix and checks again until nothing is left."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from portlint.model.edits import Edit, Fix
from portlint.model.files import FileState
from portlint.model.sites import literal_written

if TYPE_CHECKING:  # the problems' records are imported by the rules, not before a check's pool forks
    from portlint.model.problems import Problem


class OverlappingEdits(ValueError):
    pass


def apply(source: bytes, edits: Iterable[Edit]) -> bytes:
    """Replace each edit's span; every byte outside the spans is kept as it was."""
    ordered = sorted(edits)
    pieces, cursor = [], 0
    for edit in ordered:
        if edit.start < cursor or edit.end < edit.start or edit.end > len(source):
            raise OverlappingEdits(f"edit {edit.start}-{edit.end} overlaps another or leaves the file")
        pieces += [source[cursor:edit.start], edit.text]
        cursor = edit.end
    pieces.append(source[cursor:])
    return b"".join(pieces)


def compatible(fixes: Iterable[Fix]) -> list[Fix]:
    """The fixes, in order, that can be applied together: a fix overlapping an earlier one waits."""
    taken: list[Edit] = []
    chosen = []
    for fix in fixes:
        if any(e.start < t.end and t.start < e.end or e == t for e in fix.edits for t in taken):
            continue
        taken += fix.edits
        chosen.append(fix)
    return chosen


MAX_FIX_ROUNDS = 10


class Fixed(NamedTuple):
    """What the fix loop did: the files after it, what is left to report, and what it changed."""

    files: dict[str, FileState]
    problems: list[Problem]  # what the files still hold, fixes applied
    changed: dict[str, tuple[bytes, bytes]]  # path -> (before, after)
    fixed: int  # fixes applied (and kept)
    fixed_problems: list[Problem]  # the problems those fixes were for
    notes: list[str]  # files whose fixes were refused or did not converge, and re-extracted files skipped


def fix_loop(
    files: Mapping[str, FileState], check: Callable[[Mapping[str, FileState]], list[Problem]],
    extract: Callable[[str, str, bytes], FileState], unsafe: bool, notes: Iterable[str] = (),
    wanted: Callable[[Problem], bool] | None = None,
) -> Fixed:
    """Every applicable fix spliced in, each changed file extracted again (a fix whose result does
    not parse is refused) and everything checked again, until nothing applicable is left or
    MAX_FIX_ROUNDS have passed (the files that still change are then left as they were).
    `check` gives the problems of the files; `notes`: the run's so far (a note is made once);
    `wanted`: which applicable problems to fix (None: all of them; an editor's quick fix
    chooses one problem, or one file's)."""
    files = dict(files)
    original = {path: state.data for path, state in files.items()}
    known, made = set(notes), []
    refused: set[str] = set()
    fixed_in: dict[str, int] = defaultdict(int)
    fixed, fixed_problems = 0, []

    def extracted(path: str, kind: str, data: bytes) -> FileState:
        state = extract(path, kind, data)
        if state.extraction.note:
            note = f"{path}: skipped: {state.extraction.note}"
            if note not in known:
                known.add(note)
                made.append(note)
        return state

    for _ in range(MAX_FIX_ROUNDS):
        by_path = defaultdict(list)
        for problem in check(files):
            if problem.applicable(unsafe) and problem.path not in refused and (wanted is None or wanted(problem)):
                by_path[problem.path].append(problem)
        if not by_path:
            break
        for path, problems in by_path.items():
            state = files[path]
            if not _backed(state.data, problems):
                refused.add(path)
                made.append(f"{path}: fixes not applied: a site's span does not hold its literal "
                            "(a stale or damaged cache?); run with --no-cache")
                continue
            chosen = compatible(problem.fix for problem in problems if problem.fix is not None)
            after = extracted(path, state.kind, apply(state.data, (edit for fix in chosen for edit in fix.edits)))
            if after.extraction.error:
                refused.add(path)
                made.append(f"{path}: fixes not applied: the result would not parse ({after.extraction.error})")
                continue
            files[path] = after
            applied = {id(fix) for fix in chosen}
            fixed += len(chosen)
            fixed_in[path] += len(chosen)
            fixed_problems += [p for p in problems if id(p.fix) in applied]
    else:
        for path in by_path:
            made.append(f"{path}: fixes did not converge after {MAX_FIX_ROUNDS} rounds; file left as it was")
            files[path] = extracted(path, files[path].kind, original[path])
            fixed -= fixed_in[path]  # none of them is written
            fixed_problems = [p for p in fixed_problems if p.path != path]
    changed = {p: (original[p], f.data) for p, f in files.items() if f.data != original[p]}
    return Fixed(files, check(files), changed, fixed, fixed_problems, made)


def _backed(data: bytes, problems: Iterable[Problem]) -> bool:
    """Before a file is written: every edit at a site's span replaces that site's literal, as the
    bytes read hold it (a result taken from the cache is verified as it is taken; this holds
    whatever a rule was handed)."""
    return all(
        literal_written(site, data)
        for problem in problems if problem.fix is not None
        for edit in problem.fix.edits
        for site in problem.sites if site.path == problem.path and (site.start, site.end) == (edit.start, edit.end)
    )
