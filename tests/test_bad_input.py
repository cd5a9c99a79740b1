"""Bad input never crashes portlint, and never hides the rest of the repository.

Every case is a tiny repository: the layout in fixtures/bad-input/layout.yaml,
the good file fixtures/bad-input/good.yaml (one known problem) and the bad
input beside it. A broken file must come back as a PL001 problem that names the
file and the reason, an odd but valid one must be checked (and fixed) like any
other, and in both cases the good file's problem must still be reported.

Small static inputs live in fixtures/bad-input/files/; what cannot be committed
(a 50 MB file, symlink loops, an unreadable file, a directory named x.yaml,
10,000-deep nesting) is generated into tmp_path here.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from portlint.cli import main
from portlint.edits import apply
from portlint.problem import Edit

BAD_INPUT = Path(__file__).resolve().parent.parent / "fixtures" / "bad-input"
FILES = BAD_INPUT / "files"
GOOD_PROBLEM = ("good.yaml", 3, 26, "PL301")

# A broken file -> words its PL001 message must contain.
BROKEN = {
    "yaml-unclosed-quote.yaml": "invalid YAML",
    "yaml-tab-indentation.yaml": "invalid YAML",
    "yaml-duplicate-keys.yaml": "duplicate key",
    "yaml-not-utf8-latin1.yaml": "not UTF-8",
    "python-syntax-error.py": "invalid Python",
    "python2-print-statement.py": "invalid Python",
    "python-unknown-encoding.py": "unknown encoding",
    "shell-unterminated-quote.sh": "unterminated double quote",
    "shell-unterminated-heredoc.sbatch": "unterminated heredoc",
}

# An odd but valid file -> (line, column, code) of every problem planted in it.
ODD_BUT_VALID = {
    "yaml-alias-bomb.yaml": [(12, 26, "PL301")],
    "yaml-multi-document.yaml": [(5, 26, "PL301"), (10, 35, "PL301")],
    "yaml-bom-crlf.yaml": [(1, 35, "PL301"), (3, 28, "PL301")],
    "yaml-mixed-line-endings.yaml": [(2, 35, "PL301"), (4, 27, "PL301")],
    "yaml-unicode-line-separators.yaml": [(4, 26, "PL301")],
    "yaml-no-final-newline.yaml": [(2, 26, "PL301")],
    "yaml-only-comments.yaml": [(1, 26, "PL501")],
    "empty.yaml": [],
    "empty.py": [],
    "empty.sh": [],
    "empty.md": [],
    "python-lone-cr-line-endings.py": [(1, 58, "PL301"), (2, 26, "PL301")],
    "python-bom-crlf.py": [(1, 26, "PL301"), (2, 27, "PL301")],
    "python-unicode.py": [(2, 40, "PL301")],
    "shell-crlf.sh": [(2, 30, "PL301"), (3, 50, "PL301")],
    "markdown-weird.md": [(5, 26, "PL501")],
}


def make_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(BAD_INPUT / "layout.yaml", repo / ".portlint.yaml")
    shutil.copy(BAD_INPUT / "good.yaml", repo / "good.yaml")
    return repo


class Run:
    """One in-process `portlint --output-format json` run in a repository."""

    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.err = code, err
        self.problems = json.loads(out) if out.strip() else []

    def positions(self, path: str | None = None) -> list[tuple[str, int, int, str]]:
        return sorted(
            (p["path"], p["line"], p["column"], p["code"]) for p in self.problems if path is None or p["path"] == path
        )

    def parse_errors(self, path: str) -> list[str]:
        return [p["message"] for p in self.problems if p["code"] == "PL001" and p["path"] == path]


def run(repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> Run:
    monkeypatch.chdir(repo)
    capsys.readouterr()
    code = main(["--output-format", "json", *args])
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err, err
    assert code in (0, 1), err
    return Run(code, out, err)


def run_subprocess(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """portlint as a user runs it: a separate process, so a traceback would show on stderr."""
    env = {**os.environ, "PORTLINT_TRACEBACK": "1"}  # let a bug escape as a traceback, not exit 2
    return subprocess.run(
        [sys.executable, "-m", "portlint.cli", *args], cwd=repo, capture_output=True, text=True, env=env, timeout=300
    )


def safe(problem: dict) -> bool:
    return bool(problem["fix"]) and problem["fix"]["applicability"] == "safe"


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# -- the static corpus ----------------------------------------------------------
@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_file_is_one_parse_error_naming_the_reason_and_the_rest_is_checked(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    shutil.copy(FILES / name, repo / name)
    result = run(repo, capsys, monkeypatch)
    messages = result.parse_errors(name)
    assert len(messages) == 1 and BROKEN[name] in messages[0], result.problems
    assert all(p["line"] >= 1 and p["column"] >= 1 for p in result.problems)
    assert GOOD_PROBLEM in result.positions()
    assert result.code == 1


@pytest.mark.parametrize("name", sorted(ODD_BUT_VALID))
def test_an_odd_but_valid_file_is_checked_and_fixed_in_place(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    shutil.copy(FILES / name, repo / name)
    before = (repo / name).read_bytes()
    result = run(repo, capsys, monkeypatch)
    assert result.positions(name) == [(name, *where) for where in ODD_BUT_VALID[name]]
    assert GOOD_PROBLEM in result.positions()
    edits = [
        Edit(e["start"], e["end"], e["content"].encode())
        for p in result.problems if p["path"] == name and safe(p) for e in p["fix"]["edits"]
    ]
    fixed = run(repo, capsys, monkeypatch, "--fix")
    assert (repo / name).read_bytes() == apply(before, edits), "bytes outside the reported edits changed"
    assert not [p for p in fixed.problems if safe(p)], "a fixable problem survived --fix"
    assert not fixed.parse_errors(name), "the fixed file no longer parses"
    after = snapshot(repo)
    run(repo, capsys, monkeypatch, "--fix")
    assert snapshot(repo) == after, "a second --fix changed something"


def test_the_whole_corpus_at_once_in_a_subprocess_prints_no_traceback(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    for path in FILES.iterdir():
        shutil.copy(path, repo / path.name)
    done = run_subprocess(repo, "--output-format", "json")
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    problems = json.loads(done.stdout)
    assert {p["path"] for p in problems if p["code"] == "PL001"} == set(BROKEN)
    found = {(p["path"], p["line"], p["column"], p["code"]) for p in problems}
    assert found >= {GOOD_PROBLEM} | {(name, *where) for name, planted in ODD_BUT_VALID.items() for where in planted}
