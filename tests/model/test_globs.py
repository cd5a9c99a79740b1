"""portlint.model.globs: the same answers as pathspec's gitignore matching, without importing it for simple patterns."""
from __future__ import annotations

import itertools
import subprocess
from pathlib import Path

import pathspec
import pytest

from portlint.config.build import DEFAULT_INCLUDE
from portlint.model.globs import matcher
from portlint.model.scope import DEFAULT_TEST_PATHS
from portlint.stages.discover import DEFAULT_EXCLUDE

ROOT = Path(__file__).resolve().parents[2]

# Every part the simple patterns can meet: the names of the defaults, near misses of them
# (a prefix, a suffix, another case), and names that are only one thing's start or end.
PARTS = (
    "tests", "test", "testing", "xtests", "tests.py", "Tests", "conftest.py", "conftest.pyc", "my_conftest.py",
    "test_a.py", "test_.py", "test_a.pyc", "a_test.py", "_test.py", "a_test.pyx", "fixtures", "testdata",
    "build", "rebuild", "build.sh", "dist", "dist-packages", "site-packages", ".git", ".github", ".venv", "venv",
    "node_modules", ".tox", ".nox", "__pycache__", "pkg.egg-info", ".egg-info", "egg-info", "a.yaml", "a.yml",
    "a.YAML", ".yaml", "run.sh", "run.bash", "job.sub", "job.sbatch", "x.py", "README.md", "a.markdown", "Makefile",
    "a+b.py", "ab.py", "x.d+", ".d+", "x.dd", "(e)", "e", "y.f", ".f", "yf",
)
SETS = {
    "include": DEFAULT_INCLUDE,
    "exclude": DEFAULT_EXCLUDE,
    "test_paths": DEFAULT_TEST_PATHS,
    "names and folders": ("*.md", "docs/", "x*y", "**/a.yaml", "test*"),
    "plain, ending and inner, with characters a regex reads": ("a+b.py", "*.d+/", "(e)/", "*.f", "x.*"),
    "a pattern pathspec must read": ("tests/", "examples/**/*.yaml", "!examples/keep.yaml"),
}


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_path_of_one_to_three_parts_matches_as_pathspec_says(name: str) -> None:
    patterns = SETS[name]
    spec = pathspec.GitIgnoreSpec.from_lines(patterns)
    matches = matcher(patterns)
    paths = ["/".join(parts) for depth in (1, 2) for parts in itertools.product(PARTS, repeat=depth)]
    paths += ["/".join(parts) for parts in itertools.islice(itertools.permutations(PARTS, 3), 0, None, 7)]
    paths += ["examples/a/b.yaml", "examples/keep.yaml", "docs/x.md", "a/docs/y", "docs"]
    assert len(paths) > 10_000
    disagree = [path for path in paths if matches(path) != bool(spec.match_file(path))]
    assert disagree == []
    assert any(map(matches, paths)) and not all(map(matches, paths))


def test_the_repositorys_own_files_match_as_pathspec_says() -> None:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if len(listed) < 100:  # a copy without its git history: its files as a walk finds them
        listed = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and ".git" not in p.parts]
    for patterns in (DEFAULT_INCLUDE, DEFAULT_EXCLUDE, DEFAULT_TEST_PATHS):
        spec = pathspec.GitIgnoreSpec.from_lines(patterns)
        assert [p for p in listed if matcher(patterns)(p)] == [p for p in listed if spec.match_file(p)]


@pytest.mark.parametrize("pattern", ["a*b*c", "*t*s*/", "x*y*", "*.d*+*"])
def test_a_glob_of_several_stars_matches_as_pathspec_says(pattern: str) -> None:
    """Such a glob is searched by RE2 (`re` backtracked polynomially on a long name): the same answers."""
    spec = pathspec.GitIgnoreSpec.from_lines([pattern])
    names = ["abc", "aXbYc", "ab", "acb", "tests", "t/s", "xy", "xay", "y", "a.d+", ".d+x", "x.dd+"]
    paths = [*names, *(f"{a}/{b}" for a in names for b in names)]
    assert [matcher((pattern,))(path) for path in paths] == [spec.match_file(path) for path in paths]
