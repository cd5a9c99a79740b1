"""The baseline: problems set aside where no suppression comment can go, by stable fingerprints.

`portlint --add-noqa` writes a suppression comment where a file takes one, and every other
problem it sets aside here, in `.portlint-baseline` at the repository root: a problem in a file
that cannot hold a comment (one that does not parse, the config, a generated file), on a line
where a comment would break another tool's directive or sit inside a string, and in Markdown,
whose formatters move or drop a comment added to a line. The file is plain text a person
reviews, one problem a line:

    PL101<TAB>.portlint.yaml<TAB>9f2c41d07a6be3e1:0<TAB>band store (43001) reaches the ephemeral range (32768+)

The rule's code, the path, and a fingerprint of the problem (as SARIF's `partialFingerprints`):
a hash of the code and the text of the problem's line, whitespace collapsed, with the rank of the
problem among those of one code on lines of one text in that file. It stays the same when lines
are added above or below, and changes when the line does; the message is there for the reader.
A line that matches no problem any more is reported (PL002) so the file does not rot; `portlint
--add-noqa` writes it anew. A line that is not an entry is a bad input: one line that names it,
exit 2.
"""
from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from portlint.config.locate import BASELINE_NAME, ConfigError
from portlint.model.records import Struct

if TYPE_CHECKING:  # a check imports the problems' dataclass after its pool forks (tests/engine/test_engine_stages.py)
    from portlint.model.problems import Problem

NAME = BASELINE_NAME
HEADER = (
    "# portlint baseline: problems set aside where no suppression comment can go, written by `portlint --add-noqa`.\n"
    "# One a line: the rule's code, the path, a fingerprint of the problem's line, its message when written.\n"
    "# Review it as you would the comments; a line that matches no problem any more is reported (PL002):\n"
    "# delete it, or run `portlint --add-noqa` again.\n"
)
_CODE = re.compile(r"(?:PL|H)\d{3}")
_FINGERPRINT = re.compile(r"[0-9a-f]{16}:\d+")
_SPACE = re.compile(rb"\s+")


class Entry(Struct, frozen=True):
    code: str
    path: str
    fingerprint: str
    message: str = ""
    line: int = 0  # where the entry is in the baseline file


class Baseline(Struct, frozen=True):
    path: str  # the file as problems show it (relative to the root)
    entries: tuple[Entry, ...] = ()


def load(root: Path) -> Baseline | None:
    """The baseline at the root, or None when there is none; ConfigError for a line that is not an entry."""
    target = root / NAME
    try:
        data = target.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ConfigError(NAME, "", f"cannot read it: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(NAME, "", "expected UTF-8 text") from None
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 3 or not _CODE.fullmatch(fields[0]) or not _FINGERPRINT.fullmatch(fields[2]) or not fields[1]:
            raise ConfigError(f"{NAME}:{number}", "", "expected CODE<tab>PATH<tab>FINGERPRINT[<tab>MESSAGE]")
        entries.append(Entry(fields[0], _unescape(fields[1]), fields[2], "\t".join(fields[3:]), number))
    return Baseline(NAME, tuple(entries))


def fingerprints(problems: Iterable[Problem], data_of: Callable[[str], bytes | None]) -> dict[int, str]:
    """Each problem's fingerprint, by id: the hash of its code and its line's text, and its rank
    among the problems of that code on lines of that text in its file (in position order)."""
    found: dict[int, str] = {}
    ranks: Counter[tuple[str, str, str]] = Counter()
    texts: dict[str, list[bytes]] = {}
    for problem in sorted(problems):
        if problem.path not in texts:
            data = data_of(problem.path)
            texts[problem.path] = data.split(b"\n") if data is not None else []
        lines = texts[problem.path]
        text = lines[problem.line - 1] if 0 < problem.line <= len(lines) else b""
        digest = hashlib.sha256(problem.code.encode() + b"\0" + _SPACE.sub(b" ", text).strip()).hexdigest()[:16]
        key = (problem.code, problem.path, digest)
        found[id(problem)] = f"{digest}:{ranks[key]}"
        ranks[key] += 1
    return found


def apply(
    problems: list[Problem], baseline: Baseline, data_of: Callable[[str], bytes | None],
) -> tuple[list[Problem], list[Entry]]:
    """The problems no entry sets aside, and the entries that set aside one (each entry one problem)."""
    prints = fingerprints(problems, data_of)
    waiting: dict[tuple[str, str, str], list[Entry]] = defaultdict(list)
    for entry in baseline.entries:
        waiting[(entry.code, entry.path, entry.fingerprint)].append(entry)
    kept, used = [], []
    for problem in problems:
        matching = waiting.get((problem.code, problem.path, prints[id(problem)]))
        if matching:
            used.append(matching.pop(0))
        else:
            kept.append(problem)
    return kept, used


def render(entries: Iterable[Entry]) -> bytes:
    """The file: its header, then the entries by path, code and fingerprint."""
    ordered = sorted(entries, key=lambda e: (e.path, e.code, e.fingerprint))
    lines = [f"{e.code}\t{_escape(e.path)}\t{e.fingerprint}\t{_one_line(e.message)}\n" for e in ordered]
    return (HEADER + "".join(lines)).encode()


def entry_for(problem: Problem, fingerprint: str) -> Entry:
    return Entry(problem.code, problem.path, fingerprint, problem.message)


def _escape(path: str) -> str:
    return path.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _unescape(path: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"t": "\t", "n": "\n", "r": "\r"}.get(m.group(1), m.group(1)), path)


def _one_line(message: str) -> str:
    return " ".join(message.split())
