"""Test scope: paths whose ports belong to tests, fixtures and mocks (the `test_paths` config key),
and values given to mocks and fakes wherever they are written.

A test writes the production default to talk to it, a deliberately bad port to
see it refused, or any number a mock will never bind. Those values are a scope
of their own: PL202/PL201 compare them with each other, never with production
sites, and `portlint init` never learns a band from them.

A mock can sit in a production-path file too (a `--dry-run` helper, a module's
self-test, a `fake_backend()` for local runs): a Python value given to a mock
(`MagicMock(port=8000)`, `patch.dict(os.environ, {"MASTER_PORT": "29500"})`,
`monkeypatch.setenv(...)`; the extractor marks it, `Site.mock`) or written in a
function, class or object named as a fake (`fake_server(port=8000)`,
`class FakeEngine: port = 8000`, `mock_server.port = 8000`: a `fake`, `mock`,
`stub` or `dummy` name part) is in test scope wherever the file is.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from portlint.model.globs import matcher

if TYPE_CHECKING:
    from portlint.model.sites import Site

# A name part that says it stands in for the real thing: `fake_server`, `FakeEngine`, `mock`, `_stub_env`.
_FAKE = re.compile(r"_*(?:fake|mock|stub|dummy)(?:$|_|[A-Z0-9])|_*(?:Fake|Mock|Stub|Dummy)(?:$|[A-Z0-9_])")

# Gitignore-style globs (a name without a slash matches at any depth; a trailing
# slash matches a directory): test trees, pytest files, Helm chart `tests/`
# (under `tests/` too) and fixture data.
DEFAULT_TEST_PATHS: tuple[str, ...] = (
    "tests/", "test/", "testing/", "test_*.py", "*_test.py", "conftest.py", "fixtures/", "testdata/",
)


@lru_cache(maxsize=1 << 16)
def in_tests(path: str, patterns: tuple[str, ...] = DEFAULT_TEST_PATHS) -> bool:
    """True when the repository-relative path is test-like under `patterns` (none: nothing is).
    Kept per path: the rules ask it of every site, in every round of a run (a fix round, an edit)."""
    return bool(patterns) and matcher(patterns)(path)


def mocked(site: Site) -> bool:
    """A Python value given to a mock, or written in a function, class or object named as a fake
    (any part of its scope, or of its name before the leaf: `fake_server.port`, `FakeEngine.port`)."""
    if site.mock:
        return True
    if site.kind != "python":
        return False
    parts = [*(site.scope.split(".") if site.scope else ()), *site.name.split(".")[:-1]]
    return any(_FAKE.match(part) for part in parts)
