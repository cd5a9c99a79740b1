"""An ignore comment that suppresses nothing.

What it does: after every other rule has run, flags `# portlint: ignore` comments
(and `<!-- portlint: ignore -->` in Markdown) on lines where no problem was
suppressed, and codes inside `ignore[...]` that suppressed nothing. Codes that
were not selected for this run are left alone, and so are bare ignores when
--select or --ignore left any rule out. An entry of the baseline
(`.portlint-baseline`, which `--add-noqa` writes where no comment can go) that
sets aside no problem is reported at its line there.
Why: suppressions outlive the problem they hid; a stale one hides the next real
problem on that line.
Example (fails): `master_port: 1400  # portlint: ignore[PL301]` when 1400 is the layout's value.
Use instead: `master_port: 1400` (`portlint --fix` removes the stale comment).
Options: none; `--select`/`--ignore` decide which codes are judged.
Fix: safe: removes the comment, or the stale codes from its list; a comment that
also carries other text is left for a human. A stale baseline entry has no fix:
delete its line, or run `portlint --add-noqa` again, which writes the baseline anew.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping

from portlint.config.baseline import Baseline, Entry
from portlint.config.suggest import did_you_mean
from portlint.model.edits import Edit, Fix
from portlint.model.extraction import Suppression
from portlint.model.layout import Layout
from portlint.model.problems import Problem

CODE = "PL002"
NAME = "unused-suppression"
NEEDS_LAYOUT = False
NEEDS: frozenset[str] = frozenset()  # sites, bands and failures only

# Codes hold no `[` (extract.suppression_in reads none): a match is never tried past the next one,
# which made a comment of `ignore[` without a `]` quadratic to read.
_CODES = re.compile(rb"(ignore)\[[^\]\[]*\]")
_BARE = re.compile(rb"portlint:\s*ignore(\[[^\]]*\])?")


def judge(
    layout: Layout,
    suppressions: Iterable[tuple[str, Suppression]],
    used: Mapping[tuple[str, int], set[str]],
    enabled: Callable[[str], bool],
    selected: Callable[[str], bool],
    data_of: Callable[[str], bytes],
) -> Iterator[Problem]:
    """The engine's entry, after the other rules' problems met the suppressions.

    `enabled`: the rule ran; `selected`: --select/--ignore chose it, whether or not it could run.
    """
    from portlint.rules import BY_CODE  # the registry imports this module

    bare = all(selected(code) for code in BY_CODE)  # a bare ignore may hide a deselected rule
    return unused(suppressions, used, enabled, data_of, BY_CODE, bare)


def unused(
    suppressions: Iterable[tuple[str, Suppression]],
    used: Mapping[tuple[str, int], set[str]],
    enabled: Callable[[str], bool],
    data_of: Callable[[str], bytes],
    known: Collection[str],
    bare: bool = True,
) -> Iterator[Problem]:
    """PL002 problems for the suppressions (path, comment) that `used` never hit.

    A code no rule has (a typo) suppresses nothing, so it is reported too, with a suggestion.
    A bare `ignore` is judged only when `bare` says every rule ran (no --select/--ignore
    left one out): otherwise it may be hiding a problem of a rule this run skipped.
    """
    for path, suppression in suppressions:
        hits = used.get((path, suppression.line), set())
        if not suppression.codes:
            if not hits and bare:
                yield _problem(path, suppression, "unused suppression: nothing on this line to ignore", data_of(path), ())
            continue
        stale = tuple(code for code in suppression.codes if code not in hits and enabled(code))
        if stale:
            keep = tuple(code for code in suppression.codes if code not in stale)
            message = f"unused suppression of {', '.join(stale)}: nothing on this line to ignore"
            unknown = [code for code in stale if code not in known]
            if unknown:
                message = "; ".join(_unknown(code, known) for code in unknown)
            yield _problem(path, suppression, message, data_of(path), keep)


def stale(baseline: Baseline, judged: Iterable[Entry], used: Iterable[Entry]) -> Iterator[Problem]:
    """PL002 problems for the baseline's entries (of rules that ran, on paths reported) that set
    aside no problem: at their line of the baseline file."""
    hit = {entry.line for entry in used}
    for entry in judged:
        if entry.line not in hit:
            yield Problem(
                baseline.path, entry.line, 1, CODE,
                f"unused baseline entry: no {entry.code} problem of {entry.path} has its fingerprint;"
                " delete the line, or run `portlint --add-noqa` again",
            )


def _unknown(code: str, known: Collection[str]) -> str:
    return f"unknown rule {code} in suppression" + did_you_mean(code, known)


def _problem(path: str, suppression: Suppression, message: str, data: bytes, keep: tuple[str, ...]) -> Problem:
    fix = _fix(data, suppression, keep)
    return Problem(path, suppression.line, suppression.column, CODE, message, fix)


def _fix(data: bytes, suppression: Suppression, keep: tuple[str, ...]) -> Fix | None:
    comment = data[suppression.start:suppression.end]
    if keep:
        text = _CODES.sub(lambda m: m.group(1) + b"[" + ",".join(keep).encode() + b"]", comment, count=1)
        return Fix((Edit(suppression.start, suppression.end, text),))
    if re.sub(rb"\s", b"", _BARE.sub(b"", comment, count=1)) not in (b"#", b"<!---->"):
        return None  # the comment says something else too: not ours to delete
    start = suppression.start
    while start > 0 and data[start - 1:start] in (b" ", b"\t"):
        start -= 1
    end = suppression.end
    if start == 0 or data[start - 1:start] == b"\n":  # the comment is the whole line
        end = data.find(b"\n", end)
        end = len(data) if end == -1 else end + 1
    return Fix((Edit(start, end, b""),))
