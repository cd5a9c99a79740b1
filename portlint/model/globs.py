"""Paths against gitignore-style globs: `include`, `exclude`, `test_paths` and a band's `files`.

`matcher(patterns)` is `pathspec.GitIgnoreSpec.from_lines(patterns).match_file`.
Where every pattern is a name that may hold `*` (`conftest.py`, `test_*.py`,
`**/*.py`), or a folder's (`tests/`, `*.egg-info/`) — the shapes of every
default — the path's parts are matched without it: a name matches any part, a
folder's any part but the last, and `*` is any run of characters but `/`. A name
without `*` is looked up among the parts, one that starts with its only `*` is
what a part ends with (`.py` before a `/` or the end), the others are one regular
expression anchored where a part starts. Importing pathspec costs more than listing a
repository: its backends are dataclasses, whose methods are compiled when it is imported. A pattern of any other shape (a
slash inside, `?`, `[...]`, a negation, an escape, a comment) goes to pathspec.
tests/model/test_globs.py checks that both agree on every default and on paths of
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
    ends: list[str] = []  # `*X` (`*.py`, `*.egg-info/`): X ending a part, wherever it is
    plain_names: set[str] = set()  # names and folders without `*`: a part they are
    plain_folders: set[str] = set()
    for pattern in patterns:
        simple = _SIMPLE.fullmatch(pattern)
        if simple is None or "**" in simple.group(1):
            import pathspec

            spec = pathspec.GitIgnoreSpec.from_lines(patterns)
            return lambda path: bool(spec.match_file(path))
        name, folder = simple.groups()
        if "*" not in name:
            (plain_folders if folder else plain_names).add(name)
        elif name.startswith("*") and "*" not in name[1:]:
            ends.append(re.escape(name[1:]) + ("/" if folder else r"(?:/|\Z)"))
        else:
            (folders if folder else names).append(re.escape(name).replace(r"\*", "[^/]*"))
    alternatives = []
    if names:
        alternatives.append(rf"(?:{'|'.join(names)})(?:/|\Z)")
    if folders:
        alternatives.append(rf"(?:{'|'.join(folders)})/")
    # Where a part starts is asked only of what starts with neither `*` nor a plain name: `(?:\A|/)`
    # tried at every byte of every path costs several times these, on every path of the listing.
    parts = [rf"(?:\A|/)(?:{'|'.join(alternatives)})"] if alternatives else []
    search = _compiled("|".join([*parts, *ends])) if parts or ends else None

    def matches(path: str) -> bool:
        if plain_names or plain_folders:
            split = path.split("/")
            if not plain_names.isdisjoint(split) or plain_folders and not plain_folders.isdisjoint(split[:-1]):
                return True
        return search is not None and search(path) is not None

    return matches


def files_match(patterns: tuple[str, ...], path: str) -> bool:
    """The path matches one of the patterns; no patterns match every path (a band without `files`)."""
    return not patterns or matcher(patterns)(path)


def _compiled(pattern: str) -> Callable[[str], object]:
    """The search of `pattern`: by `re`, unless it holds two runs of `[^/]*` or more (`a*b*c`),
    which backtrack polynomially in a part's length (a hostile config's glob against a long
    name); RE2, linear in it, searches those (its `\\z` is `re`'s `\\Z`). pathspec, for the other
    shapes, searches by RE2 itself where google-re2 is installed."""
    if pattern.count("[^/]*") < 2:
        return re.compile(pattern).search
    import re2

    return re2.compile(pattern.replace(r"\Z", r"\z")).search  # type: ignore[no-any-return]
