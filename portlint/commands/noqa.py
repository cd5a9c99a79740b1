"""`portlint --add-noqa`: a suppression comment for every current problem where its file takes
one, and the baseline for every other, so that the next check passes.

This sits on top of the engine (a check's session): it takes the problems a check found and the
bytes of their files, adds `# portlint: ignore[CODE]` (YAML, shell, Python; merged
into a portlint comment already on the line) at the end of the problem's line, or
of its last line for a command continued with `\\`, and writes nothing it has not
proved harmless:

* each comment is re-parsed by the file's own extractor, which must see it as a
  comment carrying the code on that line (a `#` inside a string, a heredoc, a
  block scalar or a fenced code block is content, not a comment: that place is
  refused and the next one tried);
* what the file says must not change: the same sites and commands, and for YAML
  the same parse events, for Python the same syntax tree;
* the whole repository is checked again with the commented files: every problem
  handled must be gone and nothing new may appear, or the file is left as it was.

Every other byte stays as it was (line endings, a BOM, trailing spaces), and a
second run finds nothing to add. A problem that cannot take a comment is set aside
in the baseline (`.portlint-baseline`, portlint/config/baseline.py), keyed by a
fingerprint of its line, and listed: a file that does not parse (PL001), the
config, a file that says it is generated, Markdown (formatters move or drop a
comment added to a line: mdformat deletes one at the end of a table row), a
line where no comment is a comment (a string, a heredoc, a block scalar), a line
holding a directive of another tool that a comment after it would break
(`# yamllint disable-line ...` must be the line's whole comment; `# fmt: skip`
its last), a Python line the comment would make longer than the repository's
linter allows (ruff's `line-length` where its config selects E501, flake8's
`max-line-length`), and a file whose comments changed what portlint finds. The baseline
keeps its entries that still set aside a problem, drops the others (PL002
reports them meanwhile), and is written only when it has an entry or exists.
"""
from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from portlint.config import baseline as baselines
from portlint.config.build import Config
from portlint.config.locate import inside, tomllib
from portlint.engine import Options, Session, session
from portlint.model.edits import Edit
from portlint.model.files import FileState
from portlint.model.problems import Problem
from portlint.model.records import Struct, field, structs
from portlint.speed.interrupts import held_interrupts
from portlint.stages import write as writer
from portlint.stages.fix import apply

_CODES = re.compile(rb"(ignore)\[([^\]\[]*)\]")  # no `[` inside: a match is never tried past the next one
# Directives of other tools that a comment after them, on their line, breaks: yamllint reads a
# `disable-line`/`disable` comment only when it is the line's whole comment; black and isort read
# `fmt: skip`/`isort: skip` only as the line's last comment.
_FOREIGN = {
    "yaml": re.compile(rb"#\s*yamllint\s+(?:disable|enable)"),
    "python": re.compile(rb"#\s*(?:fmt|isort)\s*:\s*skip"),
}
# A file that says it is generated: a comment added to it is lost when it is made again.
_GENERATED = re.compile(rb"@generated|DO NOT EDIT|[Cc]ode generated|[Aa]uto-?generated|[Gg]enerated by")
_GENERATED_HEAD = 2048  # bytes of a file read for that mark


class NoqaOutcome(Struct):
    added: int = 0  # comments added or merged into an existing one
    suppressed: list[Problem] = field(default_factory=list)
    set_aside: list[tuple[Problem, str]] = field(default_factory=list)  # problems put in the baseline, and why
    changed: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)  # path -> (before, after)
    baseline: str = ""  # the baseline's path, when it was written
    notes: list[str] = field(default_factory=list)
    write_errors: list[str] = field(default_factory=list)
    unwritten: list[str] = field(default_factory=list)  # files that would have held comments, not written
    in_git: bool = True  # git listed the files (else a walk did)


class Suppressed(NamedTuple):
    """What commenting problems gave: the files with the comments that held, the problems each
    file's comments suppress, how many lines took a comment, and the problems left, with why."""

    files: dict[str, FileState]
    handled: dict[str, list[Problem]]
    lines: dict[str, int]
    refused: list[tuple[Problem, str]]


def add_noqa(config: Config, options: Options) -> NoqaOutcome:
    current = session(config, structs.replace(options, fix=False, unsafe_fixes=False))
    files = dict(current.files)
    problems = [p for p in current.check(files) if p.path != baselines.NAME]  # a stale entry is dropped below
    laid = current.aside(files)
    kept = [*laid.used, *laid.unjudged] if laid is not None else []
    done = suppress(current, files, problems, problems)
    outcome = NoqaOutcome(notes=current.notes, in_git=current.prepared.listing.by_git)
    entries = _entries(current, done.files, kept, done.refused)
    outcome.set_aside = done.refused
    changed = {p: (files[p].data, s.data) for p, s in done.files.items() if s.data != files[p].data}
    written = writer.write_changed(config.root, changed)
    outcome.write_errors = list(written.errors)
    outcome.changed = {path: change for path, change in changed.items() if path not in written.unwritten}
    outcome.unwritten = sorted(written.unwritten)
    for path, found in done.handled.items():
        if found and path not in written.unwritten:  # a file not written holds none of its comments
            outcome.suppressed += found
            outcome.added += done.lines[path]
    _write_baseline(config, current, entries, outcome)
    return outcome


def suppress(current: Session, files: Mapping[str, FileState], problems: list[Problem],
             chosen: Iterable[Problem]) -> Suppressed:
    """A comment for each chosen problem (of `problems`, what a check of `files` found) where its
    file and line take one, proved harmless file by file (`_annotate`, then `_verify` over the
    whole repository), and the problems that take none, with why. `add_noqa` chooses every
    problem (and sets the others aside in the baseline); an editor's quick fix one."""
    files = dict(files)
    original = {path: state.data for path, state in files.items()}
    refused: list[tuple[Problem, str]] = []
    pending: dict[str, list[Problem]] = defaultdict(list)
    config_path = current.ground.config_path
    for problem in chosen:
        reason = no_comment(problem, files, config_path)
        if reason:
            refused.append((problem, reason))
        else:
            pending[problem.path].append(problem)
    handled: dict[str, list[Problem]] = {}
    lines: dict[str, int] = {}
    limit = python_line_length(current.prepared.config.root) if any(
        files[path].kind == "python" for path in pending) else None
    for path, items in sorted(pending.items()):
        state, done, refusals = _annotate(current, files[path], items, limit if files[path].kind == "python" else None)
        files[path] = state
        handled[path], lines[path] = [p for p, _ in done], len({line for _, line in done})
        refused += refusals
    refused += _verify(current, files, original, problems, handled)
    return Suppressed(files, handled, lines, sorted(refused, key=lambda item: item[0]))


def no_comment(problem: Problem, files: Mapping[str, FileState], config_path: str) -> str:
    """Why the problem takes no comment ("" when its file and line may take one): what
    `--add-noqa` sets aside in the baseline, and an editor offers no suppression for."""
    state = files.get(problem.path)
    if problem.code == "PL001":
        return "a file portlint cannot read or parse takes no comment"
    if problem.code == "PL002":
        return "an unused suppression takes no comment: `portlint --fix` removes it"
    if state is None:
        return "the config file takes no comment" if problem.path in (config_path, ".") else \
            "portlint did not read this file"
    if state.kind == "markdown":
        return "Markdown formatters move or drop a comment added to a line"
    if _GENERATED.search(state.data[:_GENERATED_HEAD]):
        return "the file says it is generated: a comment would be lost when it is made again"
    foreign = _FOREIGN.get(state.kind)
    if foreign is not None and any(foreign.search(_line(state.data, line)) for line in _places(problem)):
        return "a comment would break another tool's directive on its line"
    return ""


def _line(data: bytes, line: int) -> bytes:
    end = _line_end(data, line)
    return b"" if end is None else data[data.rfind(b"\n", 0, end) + 1:end]


def _entries(current: Session, files: dict[str, FileState], kept: list[baselines.Entry],
             aside: list[tuple[Problem, str]]) -> list[baselines.Entry]:
    """The baseline's entries: those kept, and one for each problem set aside, fingerprinted among
    every problem of the commented repository (a fingerprint ranks a problem among its likes)."""
    if not aside:
        return kept
    every = current.every(files)  # every problem, as a baseline is laid over them
    wanted = {(p.path, p.line, p.column, p.code) for p, _ in aside}
    prints = baselines.fingerprints(every, lambda path: current.data_of(files, path))
    return [*kept, *(baselines.entry_for(p, prints[id(p)]) for p in every if (p.path, p.line, p.column, p.code) in wanted)]


def _write_baseline(config: Config, current: Session, entries: list[baselines.Entry], outcome: NoqaOutcome) -> None:
    """The baseline, written when it has an entry or already exists (never left stale)."""
    target = config.root / baselines.NAME
    if not entries and current.baseline is None and not target.exists():
        return
    data = baselines.render(entries)
    try:
        before = target.read_bytes() if target.exists() else None
        if before is None:
            with held_interrupts(), open(target, "xb") as handle:  # whole, or not there
                handle.write(data)
        elif before != data:
            writer.write_atomic(target, data, expected=before, root=config.root)
        outcome.baseline = baselines.NAME if before != data else ""
    except OSError as error:
        outcome.write_errors.append(f"{baselines.NAME}: not written: {error.strerror or error}")


def _verify(
    current: Session, files: dict[str, FileState], original: dict[str, bytes], problems: list[Problem],
    handled: dict[str, list[Problem]],
) -> list[tuple[Problem, str]]:
    """Check the repository again: a commented file must lose exactly its handled problems (a file
    that does not is put back as it was, and its problems are refused, with why)."""
    before = {_identity(p) for p in problems}
    after = current.check(files)
    left = {_identity(p) for p in after}
    refused = []
    for path, found in handled.items():
        if not found:
            continue
        new = [p for p in after if p.path == path and _identity(p) not in before]
        kept = [p for p in found if _identity(p) in left]
        if new or kept:
            files[path] = current.extract(path, files[path].kind, original[path])
            why = "adding comments to this file changed what portlint finds in it" if new else \
                "a comment on its line does not suppress it"
            refused += [(p, why) for p in found]
            handled[path] = []
    return refused


def _identity(problem: Problem) -> tuple[str, int, int, str, str]:
    return problem.path, problem.line, problem.column, problem.code, problem.message


def _annotate(
    current: Session, state: FileState, problems: list[Problem], limit: int | None = None,
) -> tuple[FileState, list[tuple[Problem, int]], list[tuple[Problem, str]]]:
    """Comment the file's problems one line at a time; a place that fails the checks is
    refused and the problem's next place tried (a continued command's last line). A line the
    comment would make longer than `limit` (the repository's own line length) is refused too."""
    tried = {id(p): 0 for p in problems}
    waiting = list(problems)
    done: list[tuple[Problem, int]] = []
    refused: list[tuple[Problem, str]] = []
    while waiting:
        by_line: dict[int, list[Problem]] = defaultdict(list)
        for problem in waiting:
            places = _places(problem)
            if tried[id(problem)] < len(places):
                by_line[places[tried[id(problem)]]].append(problem)
            else:
                refused.append((problem, _why_not(problem, state.kind, limit)))
        waiting = []
        for line, group in sorted(by_line.items()):
            codes = tuple(sorted({p.code for p in group}))
            after = _commented(current, state, line, codes, limit)
            if after is None:
                for problem in group:
                    tried[id(problem)] += 1
                waiting += group
            else:
                state = after
                done += [(problem, line) for problem in group]
    return state, done, refused


def _places(problem: Problem) -> list[int]:
    """The lines a suppression of the problem may sit on: its first, and its last when it spans lines."""
    return list(dict.fromkeys((problem.line, max(problem.line, problem.end_line))))


def _why_not(problem: Problem, kind: str, limit: int | None = None) -> str:
    where = "its line" if problem.end_line <= problem.line else "its first or last line"
    inside = {
        "yaml": "a string or block scalar", "shell": "a string or heredoc", "python": "a string",
        "markdown": "code or a table cell",
    }.get(kind, "content")
    longer = f", make it longer than the repository's line length ({limit})" if limit else ""
    return f"a comment at the end of {where} would be inside {inside}{longer} or break the line"


def _commented(current: Session, state: FileState, line: int, codes: tuple[str, ...],
               limit: int | None = None) -> FileState | None:
    """The file with the codes' suppression on `line`, if the file's parser agrees it is one and
    the line stays within `limit` characters (where it was)."""
    data = state.data
    existing = [s for s in state.extraction.suppressions if s.line == line]
    if any(not s.codes or set(codes) <= set(s.codes) for s in existing):
        return None  # already covered on this line, and still reported: not this place
    if existing:
        target = existing[0]
        comment = data[target.start:target.end]
        match = _CODES.search(comment)
        if match is None:  # pragma: no cover - a suppression with codes has its brackets
            return None
        listed = [c.strip() for c in match.group(2).decode().split(",") if c.strip()]
        merged = ",".join([*listed, *(c for c in codes if c not in listed)]).encode()
        text = comment[:match.start(2)] + merged + comment[match.end(2):]
        edit = Edit(target.start, target.end, text)
        span = (target.start, target.start + len(text))
    else:
        at = _line_end(data, line)
        if at is None:
            return None
        start = data.rfind(b"\n", 0, at) + 1
        content = data[start:at].rstrip(b" \t")
        at = start + len(content)
        label = "ignore[" + ",".join(codes) + "]"
        added = f"<!-- portlint: {label} -->" if state.kind == "markdown" else f"# portlint: {label}"
        gap = b"" if not content.strip() else b" " if state.kind == "markdown" else b"  "
        edit = Edit(at, at, gap + added.encode())
        span = (at + len(gap), at + len(gap) + len(added.encode()))
    changed = apply(data, [edit])
    if limit is not None and _longer_than(_line(changed, line), limit) and not _longer_than(_line(data, line), limit):
        return None  # the repository's linter would report the line the comment made too long
    after = current.extract(state.path, state.kind, changed)
    if not _agrees(state, after, line, codes, span):
        return None
    return after


def _longer_than(line: bytes, limit: int) -> bool:
    return len(line.rstrip(b"\r").decode("utf-8", "replace")) > limit


# -- the repository's own line length (its Python linter's) --------------------------------
_RUFF_FILES = ("ruff.toml", ".ruff.toml")
_FLAKE8_FILES = (".flake8", "setup.cfg", "tox.ini")
_RUFF_DEFAULT, _FLAKE8_DEFAULT = 88, 79


def python_line_length(root: Path) -> int | None:
    """The line length the repository's Python linter holds lines to, where it checks it: ruff's
    `line-length` (88 unset) where its config selects E501 (`E501`, `E5`, `E` or `ALL`), else
    flake8's `max-line-length` (79 unset) where a flake8 section is configured; None where
    neither checks line length. Only the root's files are read."""
    for name in (*_RUFF_FILES, "pyproject.toml"):
        config = _toml(root, root / name)
        ruff = config.get("tool", {}).get("ruff") if name == "pyproject.toml" else config or None
        if isinstance(ruff, dict):
            found = ruff.get("lint")
            lint: dict = found if isinstance(found, dict) else {}
            chosen = [*_codes(ruff, "select"), *_codes(ruff, "extend-select"), *_codes(lint, "select"),
                      *_codes(lint, "extend-select")]
            if any(code in ("E501", "E50", "E5", "E", "ALL") for code in chosen):
                length = ruff.get("line-length", _RUFF_DEFAULT)
                return length if isinstance(length, int) and length > 0 else _RUFF_DEFAULT
            return None
    for name in _FLAKE8_FILES:
        length = _flake8_length(root / name) if inside(root, root / name) else None
        if length is not None:
            return length
    return None


def _toml(root: Path, path: Path) -> dict:
    """A TOML file of the repository's, {} where it is not there, leads outside the tree or does not parse."""
    if not inside(root, path):
        return {}
    toml = tomllib()
    try:
        found = toml.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, toml.TOMLDecodeError, RecursionError):
        return {}
    return found if isinstance(found, dict) else {}


def _codes(table: dict, key: str) -> list[str]:
    found = table.get(key, [])
    return [code for code in found if isinstance(code, str)] if isinstance(found, list) else []


def _flake8_length(path: Path) -> int | None:
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, configparser.Error):
        return None
    if not parser.has_section("flake8"):
        return None
    value = parser.get("flake8", "max-line-length", fallback=parser.get("flake8", "max_line_length", fallback=""))
    return int(value) if value.strip().isdigit() and int(value) > 0 else _FLAKE8_DEFAULT


def _line_end(data: bytes, line: int) -> int | None:
    """Byte offset where line `line` (1-based) ends, before its CRLF or LF."""
    start = 0
    for _ in range(line - 1):
        start = data.find(b"\n", start) + 1
        if start == 0:
            return None
    end = data.find(b"\n", start)
    end = len(data) if end == -1 else end
    return end - 1 if end > start and data[end - 1:end] == b"\r" else end


def _agrees(before: FileState, after: FileState, line: int, codes: tuple[str, ...], span: tuple[int, int]) -> bool:
    """The parser reads the new text as a suppression on `line`, and the file says what it said."""
    extraction = after.extraction
    if extraction.error:
        return False
    if not any(
        s.line == line and set(codes) <= set(s.codes) and s.start <= span[0] and span[1] <= s.end
        for s in extraction.suppressions
    ):
        return False
    if _shape(before) != _shape(after):
        return False
    return _content(before) == _content(after)


def _shape(state: FileState) -> tuple[object, ...]:
    """Sites and commands without their byte offsets (a comment moves the bytes after it)."""
    sites = sorted(
        (s.line, s.column, s.end_line, s.end_column, s.kind, s.name, s.value, s.role, s.aliases, s.scope, s.derived)
        for s in state.extraction.sites
    )
    return tuple(sites), state.extraction.commands


def _content(state: FileState) -> object:
    """What the file means, comments aside: YAML parse events, a Python syntax tree."""
    text = state.data.decode("utf-8-sig")
    if state.kind == "python":
        try:
            return ast.dump(ast.parse(text))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    if state.kind == "yaml":
        from ruamel.yaml import YAML
        from ruamel.yaml.error import YAMLError

        try:
            return [
                (type(event).__name__, getattr(event, "value", None), getattr(event, "tag", None),
                 getattr(event, "anchor", None), getattr(event, "style", None))
                for event in YAML(typ="safe", pure=True).parse(text)
            ]
        except (YAMLError, RecursionError):
            return None
    return None  # shell and Markdown: the extractor's reading (sites, commands, comments) is all there is


def summary(outcome: NoqaOutcome) -> str:
    """`Added 3 suppression comments (4 problems) to 2 files.`, and how many problems the baseline sets aside."""
    files = len(outcome.changed)
    text = (
        f"Added {_count(outcome.added, 'suppression comment')} ({_count(len(outcome.suppressed), 'problem')}) "
        f"to {_count(files, 'file')}." if outcome.added else
        "No suppression comment added." if outcome.unwritten else "No suppression comment to add."
    )
    if outcome.unwritten:
        text += f" {_count(len(outcome.unwritten), 'file')} not written (listed above)."
    if outcome.set_aside:
        text += f" Set aside {_count(len(outcome.set_aside), 'problem')} in {baselines.NAME} (listed above)."
    return text


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
