"""The `portlint` command: a check it does not replay is the CLI's, handed the listing and the
recorder; what the CLI reports is what it reports without them."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from portlint import engine
from portlint.config.load import load_for
from portlint.entry import command


@pytest.fixture
def repo(demo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo as a git repository (the warm path needs git's listing), cache on."""
    monkeypatch.delenv("PORTLINT_NO_CACHE", raising=False)
    subprocess.run(["git", "init", "-q"], cwd=demo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=demo, check=True)
    return demo


def _prepares(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    prepared: list[Path] = []
    real = engine.prepare
    monkeypatch.setattr(engine, "prepare", lambda config, *rest: prepared.append(config.root) or real(config, *rest))
    return prepared


def test_a_cold_check_is_prepared_once_and_reports_what_a_check_without_the_cache_does(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    prepared = _prepares(monkeypatch)
    assert command.main(["check", "--output-format", "json"]) == 1
    assert prepared == [repo]
    cold = capsys.readouterr().out
    monkeypatch.setenv("PORTLINT_NO_CACHE", "1")
    assert command.main(["check", "--output-format", "json"]) == 1
    assert capsys.readouterr().out == cold and prepared == [repo, repo]


def test_a_config_that_does_not_load_is_one_line_of_the_cli(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".portlint.yaml").write_text("bands: [\n")
    assert command.main(["check"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("portlint: error: .portlint.yaml") and captured.err.count("\n") == 1


def test_a_usage_error_after_the_warm_path_is_the_clis(repo: Path) -> None:
    """`check --output-format bogus` is a plain check to the warm path, which records it; click
    then refuses the format as it does without it: one line, exit 2, nothing on stdout."""
    env = {name: value for name, value in os.environ.items() if name != "PORTLINT_NO_CACHE"}
    args = [sys.executable, "-m", "portlint", "check", "--output-format", "bogus", "."]
    warm = subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True)
    plain = subprocess.run(args, cwd=repo, env={**env, "PORTLINT_NO_CACHE": "1"}, capture_output=True, text=True)
    assert (warm.returncode, warm.stdout, warm.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    assert warm.returncode == 2 and warm.stderr.startswith("portlint: error: ") and warm.stderr.count("\n") == 1


def test_a_check_after_one_whose_cli_failed_reads_the_files_again(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In one process, a check whose CLI refused its arguments leaves nothing for the next one
    (which may come after the files changed)."""
    monkeypatch.chdir(repo)
    assert command.main(["check", "--output-format", "bogus"]) == 2
    (repo / "tools.sh").write_text("MASTER_PORT=1500\n")
    outcome = engine.run(load_for(repo, ()), engine.Options(cache=True))
    assert "tools.sh" in outcome.read


def test_a_check_interrupted_while_its_files_are_read_says_aborted(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """^C while the stages before the rules run (most of a cold check): a blank line and
    `portlint: aborted` on stderr, exit 130, no traceback."""
    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(engine, "prepare", interrupted)
    assert command.main(["check"]) == 130
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "\nportlint: aborted\n")
