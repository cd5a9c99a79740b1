"""One runner over every fixture case: fixtures/<CODE>-<name>/<case>/.

A case is a tiny repository (`repo/`, holding its own `.portlint.yaml` when it
needs a layout), `expected.txt`, optional `args.txt` (command-line options) and,
for fixable problems, `fixed/` (the expected bytes of every file --fix changes).

The contract is what a user sees: the case runs as `portlint --select <CODE>`
(CODE from the folder name) plus the options in `args.txt`; an `args.txt` that
has its own `--select` replaces the default one. Every line `portlint` prints,
`path:line:col: CODE message` without the `[*]` fix mark, must be a line of
`expected.txt` and the other way round (order aside).

`PORTLINT_UPDATE_FIXTURES=1 pytest tests/rules/test_fixtures.py` rewrites the
`expected.txt` and `fixed/` that differ, warns of each, and goes on to check
the rest of the case against them (a fix must still be its reported edits,
leave every file parsing and change nothing the second time): review the
rewrite with `git diff fixtures/` before committing it. A case
gets a `fixed/` only by having one: create it empty and run the update mode.
"""
from __future__ import annotations

import os
import re
import shutil
import warnings
from pathlib import Path

import pytest
from conftest import copy_repo

from portlint.cli import check, main
from portlint.config.load import load_config
from portlint.config.locate import find_config
from portlint.engine import Options, run
from portlint.model.problems import Problem
from portlint.stages.fix import apply, compatible

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASES = sorted(p for p in FIXTURES.glob("PL*/*") if (p / "repo").is_dir())
FIXABLE = [c for c in CASES if (c / "fixed").is_dir()]
UPDATE = os.environ.get("PORTLINT_UPDATE_FIXTURES", "") not in ("", "0")
_FIX_MARK = re.compile(r"^(.*?:\d+:\d+: [A-Z]+\d+) \[\*\] ")  # `path:line:col: CODE [*] message`


def _case_id(case: Path) -> str:
    return f"{case.parent.name}/{case.name}"


def case_args(case: Path) -> list[str]:
    """The case's command-line options: args.txt, with `--select <its CODE>` unless args.txt selects."""
    args_file = case / "args.txt"
    args = args_file.read_text().split() if args_file.exists() else []
    if not any(arg == "--select" or arg.startswith("--select=") for arg in args):
        args += ["--select", case.parent.name.split("-", 1)[0]]
    return args


def expected_lines(case: Path) -> list[str]:
    return [line for line in (case / "expected.txt").read_text().splitlines() if line.strip()]


def reported_lines(args: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    """What `portlint [args]` prints, one problem a line, the fix mark dropped."""
    capsys.readouterr()
    assert main(["check", "--quiet", "--no-color", *args]) in (0, 1), capsys.readouterr().err
    out = capsys.readouterr().out
    return [_unmarked(line) for line in out.splitlines() if line.strip()]


def _unmarked(line: str) -> str:
    return _FIX_MARK.sub(r"\1 ", line, count=1)


def _problems(repo: Path, args: list[str]) -> list[Problem]:
    """The problems the engine finds with the case's options (parsed by the CLI's own parser)."""
    params = check.make_context("check", list(args)).params
    config = load_config(find_config(repo), repo, params["ephemeral_floor"])
    options = Options(select=params["select"], ignore=params["ignore"], unsafe_fixes=params["unsafe_fixes"])
    return run(config, options).problems


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def repo(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "repo"
    copy_repo(request.param / "repo", target, symlinks=True)
    monkeypatch.chdir(target)
    return target


@pytest.mark.parametrize(("case", "repo"), [(c, c) for c in CASES], ids=[_case_id(c) for c in CASES], indirect=["repo"])
def test_case_reports_exactly_the_expected_lines(case: Path, repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found = reported_lines(case_args(case), capsys)
    if UPDATE and sorted(found) != sorted(expected_lines(case)):
        (case / "expected.txt").write_text("".join(line + "\n" for line in found))
        warnings.warn(f"rewrote {case.relative_to(FIXTURES.parent)}/expected.txt: review with git diff", stacklevel=1)
    assert sorted(found) == sorted(expected_lines(case))


@pytest.mark.parametrize(("case", "repo"), [(c, c) for c in FIXABLE], ids=[_case_id(c) for c in FIXABLE], indirect=["repo"])
def test_fix_gives_the_expected_bytes_and_nothing_else(case: Path, repo: Path) -> None:
    args = case_args(case)
    before = _snapshot(repo)
    problems = _problems(repo, args)
    assert main(["--fix", "--quiet", *args]) in (0, 1)
    after = _snapshot(repo)
    changed = {path: data for path, data in after.items() if before.get(path) != data}
    if UPDATE and dict(before, **_snapshot(case / "fixed")) != after:
        shutil.rmtree(case / "fixed")
        for path, data in changed.items():
            (case / "fixed" / path).parent.mkdir(parents=True, exist_ok=True)
            (case / "fixed" / path).write_bytes(data)
        (case / "fixed").mkdir(exist_ok=True)
        warnings.warn(f"rewrote {case.relative_to(FIXTURES.parent)}/fixed/: review with git diff", stacklevel=1)
    expected = dict(before, **_snapshot(case / "fixed"))
    assert after == expected
    # Every byte outside the reported edits is unchanged: the fixed files are
    # exactly the reported edits spliced into the originals.
    unsafe = "--unsafe-fixes" in args
    for path in changed:
        fixes = [p.fix for p in problems if p.path == path and p.fix and (p.fix.safe or unsafe)]
        assert apply(before[path], (e for fix in compatible(fixes) for e in fix.edits)) == after[path]
    remaining = _problems(repo, args)
    assert not [p for p in remaining if p.fix and (p.fix.safe or unsafe)]
    assert all(p.code != "PL001" for p in remaining), "a fixed file no longer parses"
    assert main(["--fix", "--quiet", *args]) in (0, 1)
    assert _snapshot(repo) == after, "a second --fix changed something"
