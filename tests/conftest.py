"""Suite-wide settings and fixtures.

The content cache stays off unless a test turns it on (tests/speed/test_cache.py does,
and runs every fixture case cold and warm): a test comparing a repository's
files before and after a run then sees only the files portlint checks and fixes.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

os.environ.setdefault("PORTLINT_NO_CACHE", "1")

DEMO = Path(__file__).resolve().parent.parent / "fixtures" / "demo"
# Sparse trees (portlint/speed/outline.py) need possessive quantifiers, which `re` has from
# Python 3.11: before, every module is parsed whole, and a test of what a sparse tree holds has nothing to test.
SPARSE = sys.version_info >= (3, 11)
needs_sparse = pytest.mark.skipif(not SPARSE, reason="python_outline declines before 3.11: modules are parsed whole")


def copy_repo(source: Path, target: Path, symlinks: bool = False) -> None:
    """A copy of a fixture repository without the cache a run in the checkout leaves in it (the
    README's first command, `portlint fixtures/demo`, writes fixtures/demo/.portlint_cache/)."""
    shutil.copytree(source, target, symlinks=symlinks, ignore=shutil.ignore_patterns(".portlint_cache"))


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the demo repository, as the working directory."""
    target = tmp_path / "demo"
    copy_repo(DEMO, target)
    monkeypatch.chdir(target)
    return target
