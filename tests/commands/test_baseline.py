"""The baseline `--add-noqa` writes where no comment can go, and the neighbours' directives it keeps working.

yamllint, mdformat and shellcheck run for real (the test extra installs them): what portlint adds
must leave each of them saying what it said before.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from mypy.fastparse import parse_type_ignore_tag

from portlint.cli import main
from portlint.commands.noqa import python_line_length
from portlint.config.baseline import NAME

LAYOUT = "bands:\n  master:\n    range: 1400-1999\n    sites: [master_port, MASTER_PORT]\n"


def _repo(root: Path, files: dict[str, str]) -> Path:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    return root


def _run(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str):
    monkeypatch.chdir(root)
    capsys.readouterr()
    code = main([*args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _tool(name: str) -> str:
    """The tool installed beside this interpreter (the test extra's), never one PATH finds elsewhere."""
    found = Path(sys.executable).parent / name
    assert found.is_file(), f"{name} is in the test extra: pip install -e '.[test]'"
    return str(found)


def _yamllint(repo: Path, path: str) -> list[str]:
    done = subprocess.run([_tool("yamllint"), "-f", "parsable", "-d", "{extends: default, rules: {document-start: disable}}",
                           path], cwd=repo, capture_output=True, text=True)
    return done.stdout.splitlines()


def test_a_yamllint_directive_keeps_its_line_and_the_problem_goes_to_the_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    text = (
        "cluster:\n"
        "  master_port: 40000  # yamllint disable-line rule:truthy rule:comments\n"
        "  enabled: yes\n"
        "  other:\n"
        "    master_port: 41000\n"
    )
    repo = _repo(tmp_path, {"c.yaml": text})
    before = _yamllint(repo, "c.yaml")
    assert _run(repo, monkeypatch, capsys, "--add-noqa", "--quiet")[0] == 0
    after = (repo / "c.yaml").read_text()
    assert after == text.replace("master_port: 41000\n", "master_port: 41000  # portlint: ignore[PL101]\n")
    assert _yamllint(repo, "c.yaml") == before  # the directive still holds, and the added comment is clean
    assert [line.split("\t")[:2] for line in (repo / NAME).read_text().splitlines() if line[:1] != "#"] == [
        ["PL101", "c.yaml"],
    ]
    assert _run(repo, monkeypatch, capsys)[:2] == (0, "All checks passed!\n")


def test_markdown_is_left_to_its_formatter_and_the_baseline_survives_mdformat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    doc = (
        "# Ports\n\n"
        "| name | value |\n|---|---|\n| master | `MASTER_PORT=1500` |\n\n"
        "The store listens on `MASTER_PORT=1500`   when nothing else is set.\n"
    )
    repo = _repo(tmp_path, {".portlint.yaml": LAYOUT, "run.sh": "MASTER_PORT=1400\n", "docs/ports.md": doc})
    assert _run(repo, monkeypatch, capsys, "--add-noqa", "--quiet")[0] == 0
    assert (repo / "docs/ports.md").read_text() == doc
    subprocess.run([_tool("mdformat"), "docs/ports.md"], cwd=repo, check=True)
    assert (repo / "docs/ports.md").read_text() != doc  # the formatter rewrote the table and the spaces
    assert _run(repo, monkeypatch, capsys)[:2] == (0, "All checks passed!\n")


def test_python_pragmas_and_shellcheck_directives_keep_working_beside_the_comment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    code = (
        "import os\n"
        "MASTER_PORT: int = '40000'  # type: ignore[assignment]\n"
        f"OTHER_MASTER_PORT = 40001  # {'a long line ' * 8}  # noqa: E501\n"
        "LAST_MASTER_PORT = 40002  # fmt: skip\n"
    )
    script = "#!/bin/bash\n# shellcheck disable=SC2034\nMASTER_PORT=40003\necho \"$HOME\"\n"
    repo = _repo(tmp_path, {"ports.py": code, "run.sh": script})
    shellcheck_before = subprocess.run([_tool("shellcheck"), "run.sh"], cwd=repo, capture_output=True, text=True)
    ruff = [_tool("ruff"), "check", "--isolated", "--select", "E501", "--output-format", "concise", "ports.py"]
    assert subprocess.run(ruff, cwd=repo, capture_output=True).returncode == 0  # the long line's noqa holds
    assert _run(repo, monkeypatch, capsys, "--add-noqa", "--quiet")[0] == 0
    lines = (repo / "ports.py").read_text().splitlines()
    assert lines[1:] == [
        "MASTER_PORT: int = '40000'  # type: ignore[assignment]  # portlint: ignore[PL101]",
        f"OTHER_MASTER_PORT = 40001  # {'a long line ' * 8}  # noqa: E501  # portlint: ignore[PL101]",
        "LAST_MASTER_PORT = 40002  # fmt: skip",  # black reads `fmt: skip` as the last comment only: baseline
    ]
    tree = ast.parse((repo / "ports.py").read_text(), type_comments=True)
    assert [(t.lineno, parse_type_ignore_tag(t.tag)) for t in tree.type_ignores] == [(2, ["assignment"])]  # as mypy reads it
    assert subprocess.run(ruff, cwd=repo, capture_output=True).returncode == 0  # and still holds
    assert (repo / "run.sh").read_text() == script.replace("=40003\n", "=40003  # portlint: ignore[PL101]\n")
    shellcheck_after = subprocess.run([_tool("shellcheck"), "run.sh"], cwd=repo, capture_output=True, text=True)
    assert (shellcheck_after.returncode, shellcheck_after.stdout) == (shellcheck_before.returncode, shellcheck_before.stdout)
    assert _run(repo, monkeypatch, capsys)[:2] == (0, "All checks passed!\n")


def test_an_entry_follows_its_line_and_one_that_sets_aside_nothing_is_reported_then_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    repo = _repo(tmp_path, {"gen.py": "# @generated\nMASTER_PORT = 40000\nSTORE_PORT = 40001\n"})
    assert _run(repo, monkeypatch, capsys, "--add-noqa", "--quiet")[0] == 0
    (repo / "gen.py").write_text("# @generated\nimport os\n\nMASTER_PORT = 40000\nSTORE_PORT = 8000\n")
    code, out, _ = _run(repo, monkeypatch, capsys, "--no-color")  # lines moved: still set aside; one is fixed
    stale = [n for n, line in enumerate((repo / NAME).read_text().splitlines(), 1) if "\tgen.py\t" in line][1]
    assert (code, out) == (1, f"{NAME}:{stale}:1: PL002 unused baseline entry: no PL101 problem of gen.py has its "
                              "fingerprint; delete the line, or run `portlint --add-noqa` again\nFound 1 problem.\n")
    assert _run(repo, monkeypatch, capsys, "--add-noqa") == (0, "No suppression comment to add.\n", "")
    assert [line.split("\t")[:2] for line in (repo / NAME).read_text().splitlines() if line[:1] != "#"] == [
        ["PL101", "gen.py"],
    ]
    assert _run(repo, monkeypatch, capsys)[:2] == (0, "All checks passed!\n")


def test_a_baseline_line_that_is_not_an_entry_is_one_line_and_exit_2_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    repo = _repo(tmp_path, {"a.yaml": "master_port: 40000\n", NAME: "# ok\nPL101 a.yaml 0123\n"})
    before = (repo / "a.yaml").read_text()
    for args in ((), ("--fix",), ("--add-noqa",)):
        assert _run(repo, monkeypatch, capsys, *args) == (
            2, "", f"portlint: error: {NAME}:2: expected CODE<tab>PATH<tab>FINGERPRINT[<tab>MESSAGE]\n")
    assert (repo / "a.yaml").read_text() == before and (repo / NAME).read_text() == "# ok\nPL101 a.yaml 0123\n"


def test_nothing_to_set_aside_writes_no_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    repo = _repo(tmp_path, {"a.yaml": "master_port: 40000\n"})
    assert _run(repo, monkeypatch, capsys, "--add-noqa", "--quiet")[0] == 0
    assert not (repo / NAME).exists()


def test_a_comment_never_makes_a_line_longer_than_the_repositorys_linter_allows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """The repository's ruff selects E501 at 60 characters: a line the comment would take past that
    goes to the baseline, a short one takes the comment, and ruff (the real one, with the
    repository's config) passes before and after."""
    pyproject = '[tool.ruff]\nline-length = 60\n\n[tool.ruff.lint]\nselect = ["E", "F"]\n'
    code = (
        "MASTER_PORT = 40000\n"
        "EVALUATION_CLUSTER_MASTER_PORT = 40001  # eval cluster\n"
    )
    repo = _repo(tmp_path, {"pyproject.toml": pyproject, "ports.py": code})
    ruff = [_tool("ruff"), "check", "--output-format", "concise", "ports.py"]
    assert subprocess.run(ruff, cwd=repo, capture_output=True).returncode == 0
    assert _run(repo, monkeypatch, capsys, "--add-noqa", "--quiet")[0] == 0
    assert (repo / "ports.py").read_text() == code.replace("= 40000\n", "= 40000  # portlint: ignore[PL101]\n")
    assert subprocess.run(ruff, cwd=repo, capture_output=True).returncode == 0
    assert [line.split("\t")[:2] for line in (repo / NAME).read_text().splitlines() if line[:1] != "#"] == [
        ["PL101", "ports.py"],
    ]
    assert _run(repo, monkeypatch, capsys)[:2] == (0, "All checks passed!\n")


@pytest.mark.parametrize("files, length", [
    ({"pyproject.toml": '[tool.ruff.lint]\nextend-select = ["E501"]\n'}, 88),
    ({"ruff.toml": 'line-length = 100\n[lint]\nselect = ["ALL"]\n'}, 100),
    ({"pyproject.toml": "[tool.ruff]\nline-length = 100\n"}, None),  # ruff's defaults do not check E501
    ({"setup.cfg": "[flake8]\nmax-line-length = 120\n"}, 120),
    ({".flake8": "[flake8]\nignore = W503\n"}, 79),
    ({"setup.cfg": "[metadata]\nname = x\n"}, None),
    ({"pyproject.toml": "not toml ["}, None),
])
def test_the_line_length_is_the_linters_where_it_checks_one(tmp_path: Path, files: dict[str, str], length: int | None) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert python_line_length(tmp_path) == length


def test_a_linter_config_that_leads_outside_the_tree_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "ruff.toml").write_text('line-length = 60\n[lint]\nselect = ["E"]\n')
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "ruff.toml").symlink_to(outside / "ruff.toml")
    assert python_line_length(repo) is None
    (repo / "ruff.toml").unlink()
    (repo / "ruff.toml").write_text('line-length = 60\n[lint]\nselect = ["E"]\n')
    assert python_line_length(repo) == 60
