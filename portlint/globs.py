"""Paths against gitignore-style globs: `include`, `exclude`, `test_paths` and a band's `files`.

`matcher(patterns)` is `pathspec.GitIgnoreSpec.from_lines(patterns).match_file`.
Where every pattern is a name that may hold `*` (`conftest.py`, `test_*.py`,
`**/*.py`), or a folder's (`tests/`, `*.egg-info/`) — the shapes of every
default — the path's parts are matched by one regular expression instead: a
name matches any part, a folder's any part but the last, and `*` is any run of
characters but `/`. Importing pathspec costs ~14 ms of a check of this
machine, more than listing a repository: its backends are dataclasses, whose
methods are compiled when it is imported. A pattern of any other shape (a
slash inside, `?`, `[...]`, a negation, an escape, a comment) goes to pathspec.
tests/test_globs.py checks that both agree on every default and on paths of
every shape the simple patterns can meet.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

_SIMPLE = re.compile(r"(?:\*\*/)?([^/?\[\]\\!#\s*][^/?\[\]\\\s]*|\*[^/?\[\]\\\s*][^/?\[\]\\\s]*)(/?)")


@lru_cache(maxsize=4096)
def matcher(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether a repository-relative path matches one of the patterns, as git ignores paths."""
    names: list[str] = []
    folders: list[str] = []
    for pattern in patterns:
        simple = _SIMPLE.fullmatch(pattern)
        if simple is None or "**" in simple.group(1):
            import pathspec

            spec = pathspec.GitIgnoreSpec.from_lines(patterns)
            return lambda path: bool(spec.match_file(path))
        (folders if simple.group(2) else names).append(re.escape(simple.group(1)).replace(r"\*", "[^/]*"))
    alternatives = []
    if names:
        alternatives.append(rf"(?:{'|'.join(names)})(?:/|\Z)")
    if folders:
        alternatives.append(rf"(?:{'|'.join(folders)})/")
    if not alternatives:
        return lambda path: False
    search = re.compile(rf"(?:\A|/)(?:{'|'.join(alternatives)})").search
    return lambda path: search(path) is not None
