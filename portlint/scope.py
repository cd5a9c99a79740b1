"""Test scope: paths whose ports belong to tests, fixtures and mocks (the `test_paths` config key).

A test writes the production default to talk to it, a deliberately bad port to
see it refused, or any number a mock will never bind. Those values are a scope
of their own: PL202/PL201 compare them with each other, never with production
sites, and `portlint init` never learns a band from them.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

# Gitignore-style globs (a name without a slash matches at any depth; a trailing
# slash matches a directory): test trees, pytest files, Helm chart `tests/`
# (under `tests/` too) and fixture data.
DEFAULT_TEST_PATHS: tuple[str, ...] = (
    "tests/", "test/", "testing/", "test_*.py", "*_test.py", "conftest.py", "fixtures/", "testdata/",
)


@lru_cache(maxsize=64)
def _spec(patterns: tuple[str, ...]) -> Any:
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(patterns)


def in_tests(path: str, patterns: tuple[str, ...] = DEFAULT_TEST_PATHS) -> bool:
    """True when the repository-relative path is test-like under `patterns` (none: nothing is)."""
    return bool(patterns) and bool(_spec(patterns).match_file(path))
