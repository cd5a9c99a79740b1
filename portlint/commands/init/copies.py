"""Frozen copies guessed for `portlint init`: YAML files of one name whose content is near-identical.

Comments and blank lines are set aside before comparing (copies often drop
them). The file under a test-like directory (`tests/`, `reference_configs/`,
`snapshots/`...) is the copy; when neither or both are, the direction is unknown
and the pair is only mentioned.
"""
from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict
from pathlib import Path

from portlint.commands.init.bands import is_config
from portlint.config.build import Config
from portlint.stages import discover
from portlint.stages.read import read_file

NEAR_IDENTICAL = 0.9  # difflib ratio of two files' lines, comments and blank lines aside
MAX_SAME_NAME = 50  # files of one name compared pairwise; more are left out (quadratic)
_COPY_DIRS = frozenset(
    "test tests testing reference references reference_configs snapshot snapshots golden frozen fixtures".split()
)


def frozen_pairs(config: Config) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """Near-identical YAML files of the same name: (copy, source) pairs, and pairs of unknown direction."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for candidate in discover.candidates(config.root, config.include, config.exclude):
        if candidate.kind == "yaml" and not is_config(candidate.path):
            by_name[candidate.path.rsplit("/", 1)[-1]].append(candidate.path)
    directed: list[tuple[str, str]] = []
    undirected: list[tuple[str, str]] = []
    for paths in by_name.values():
        contents = {path: _content_lines(config.root, path) for path in paths[:MAX_SAME_NAME]}
        counts = {path: Counter(lines) for path, lines in contents.items()}
        for index, first in enumerate(paths[:MAX_SAME_NAME]):
            for second in paths[index + 1:MAX_SAME_NAME]:
                if not _alike(counts[first], counts[second], len(contents[first]), len(contents[second])):
                    continue
                pair = _direction(first, second)
                if pair is None or _near_identical(contents[first], contents[second]):
                    (directed if pair else undirected).append(pair or (first, second))
    return tuple(directed), tuple(undirected)


def _content_lines(root: Path, path: str) -> list[str]:
    """The file's lines without comments and blank lines: copies often drop the comments. Read as
    a check reads it (nothing of a file that leads outside the work tree, or is too large)."""
    data = read_file(root, path, False, lambda _: None).data
    try:
        text = (data or b"").decode("utf-8-sig")
    except UnicodeDecodeError:
        return []
    lines = (re.sub(r"(^|\s)#.*$", "", line).rstrip() for line in text.splitlines())
    return [line for line in lines if line.strip()]


def _alike(first: Counter[str], second: Counter[str], first_size: int, second_size: int) -> bool:
    """The files' lines, as multisets, are ≥ 90% the same (difflib's quick_ratio, from counts made
    once per file): enough for a pair that is only mentioned."""
    total = first_size + second_size
    if not first_size or not second_size or 2 * min(first_size, second_size) < NEAR_IDENTICAL * total:
        return False
    small, large = (first, second) if len(first) <= len(second) else (second, first)
    common = sum(min(count, large[line]) for line, count in small.items())
    return 2 * common >= NEAR_IDENTICAL * total


def _near_identical(first: list[str], second: list[str]) -> bool:
    """The files' lines, in order, are ≥ 90% the same (difflib's ratio): for a pair that becomes a
    frozen copy. Quadratic at worst, so asked only of a pair `_alike` let through and one side of
    which looks like a copy (release manifests of thousands of lines, pairwise: minutes)."""
    return difflib.SequenceMatcher(None, first, second, autojunk=False).ratio() >= NEAR_IDENTICAL


def _direction(first: str, second: str) -> tuple[str, str] | None:
    """(copy, source): the copy sits under a test-like directory and the source does not."""
    first_copy, second_copy = _looks_like_a_copy(first), _looks_like_a_copy(second)
    if first_copy == second_copy:
        return None
    return (first, second) if first_copy else (second, first)


def _looks_like_a_copy(path: str) -> bool:
    return any(part.lower() in _COPY_DIRS for part in path.split("/")[:-1])
