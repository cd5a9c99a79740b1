"""One runner over every fixture case: fixtures/<CODE>-<name>/<case>/.

A case is a tiny repository (`repo/`, holding its own `.portlint.yaml` when it
needs a layout), `expected.txt` (the problems, `path:line:col: CODE message`;
path, position and code are compared, the message is documentation), optional
`args.txt` (extra command-line options) and, for fixable problems, `fixed/`
(the expected bytes of every file --fix changes).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from portlint.cli import main
from portlint.config import find_config, load_config
from portlint.edits import apply, compatible
from portlint.engine import Engine, Options

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CASES = sorted(p for p in FIXTURES.glob("PL*/*") if (p / "repo").is_dir())


def _case_id(case: Path) -> str:
    return f"{case.parent.name}/{case.name}"


def _args(case: Path) -> list[str]:
    args_file = case / "args.txt"
    return args_file.read_text().split() if args_file.exists() else []


def expected_problems(case: Path) -> list[tuple[str, int, int, str]]:
    found = []
    for line in (case / "expected.txt").read_text().splitlines():
        if line.strip():
            path, row, column, rest = line.split(":", 3)
            found.append((path, int(row), int(column), rest.split()[0]))
    return sorted(found)


def _problems(repo: Path, args: list[str]) -> list:
    floor = args[args.index("--ephemeral-floor") + 1] if "--ephemeral-floor" in args else None
    config = load_config(find_config(repo), repo, floor)
    return Engine(config, Options(unsafe_fixes="--unsafe-fixes" in args)).run().problems


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def repo(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "repo"
    shutil.copytree(request.param / "repo", target, symlinks=True)
    monkeypatch.chdir(target)
    return target


@pytest.mark.parametrize(("case", "repo"), [(c, c) for c in CASES], ids=[_case_id(c) for c in CASES], indirect=["repo"])
def test_case_reports_exactly_the_expected_problems(case: Path, repo: Path) -> None:
    found = sorted((p.path, p.line, p.column, p.code) for p in _problems(repo, _args(case)))
    assert found == expected_problems(case)


FIXABLE = [c for c in CASES if (c / "fixed").is_dir()]


@pytest.mark.parametrize(("case", "repo"), [(c, c) for c in FIXABLE], ids=[_case_id(c) for c in FIXABLE], indirect=["repo"])
def test_fix_gives_the_expected_bytes_and_nothing_else(case: Path, repo: Path) -> None:
    args = _args(case)
    before = _snapshot(repo)
    problems = _problems(repo, args)
    assert main(["--fix", "--quiet", *args]) in (0, 1)
    after = _snapshot(repo)
    expected = dict(before, **_snapshot(case / "fixed"))
    assert after == expected
    # Every byte outside the reported edits is unchanged: the fixed files are
    # exactly the reported edits spliced into the originals.
    unsafe = "--unsafe-fixes" in args
    for path in set(after) - {p for p in after if after[p] == before.get(p)}:
        fixes = [p.fix for p in problems if p.path == path and p.fix and (p.fix.safe or unsafe)]
        assert apply(before[path], (e for fix in compatible(fixes) for e in fix.edits)) == after[path]
    remaining = _problems(repo, args)
    assert not [p for p in remaining if p.fix and (p.fix.safe or unsafe)]
    assert all(p.code != "PL001" for p in remaining), "a fixed file no longer parses"
    assert main(["--fix", "--quiet", *args]) in (0, 1)
    assert _snapshot(repo) == after, "a second --fix changed something"
