"""The command line: exit codes, output formats, --fix/--diff, config errors, installed entry point."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from installed import PORTLINT

from portlint.cli import main

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_demo_has_problems_and_exits_1(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 1
    out = capsys.readouterr().out
    assert "PL101" in out and "PL301 [*]" in out and out.rstrip().splitlines()[-1].startswith("Found ")


def test_check_is_the_default_command_and_accepts_the_same_options(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--select", "PL101"]) == main(["--select", "PL101"]) == 1
    out = capsys.readouterr().out
    problem_lines = [line for line in out.splitlines() if ": PL" in line]
    assert problem_lines and all(": PL101 " in line for line in problem_lines)


def test_exit_zero_and_quiet(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--exit-zero", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "Found" not in out and all(": PL" in line for line in out.splitlines())


def test_json_output_has_the_documented_fields(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["--output-format", "json"])
    problems = json.loads(capsys.readouterr().out)
    assert problems
    keys = {"code", "name", "message", "path", "line", "column", "end_line", "end_column", "fix"}
    assert all(set(p) == keys for p in problems)
    fixable = [p for p in problems if p["fix"]]
    assert fixable and fixable[0]["fix"]["applicability"] == "safe"
    assert set(fixable[0]["fix"]["edits"][0]) == {"start", "end", "content"}


def test_paths_are_shown_relative_to_the_working_directory(demo: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(demo.parent)
    main(["demo", "--output-format", "json"])
    assert all(p["path"].startswith("demo/") for p in json.loads(capsys.readouterr().out))


def test_given_paths_limit_what_is_reported(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["examples", "--output-format", "json"])
    paths = {p["path"] for p in json.loads(capsys.readouterr().out)}
    assert paths and all(p.startswith("examples/") for p in paths)


def test_diff_prints_the_fixes_and_writes_nothing(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _snapshot(demo)
    assert main(["--diff"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("--- a/") and "\n+++ b/" in out
    assert _snapshot(demo) == before


def test_fix_applies_safe_fixes_once_and_a_second_fix_changes_nothing(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _snapshot(demo)
    main(["--fix"])
    assert "Fixed " in capsys.readouterr().out
    after = _snapshot(demo)
    assert after != before
    main(["--fix"])
    assert _snapshot(demo) == after
    capsys.readouterr()
    main(["--output-format", "json"])
    assert not [p for p in json.loads(capsys.readouterr().out) if p["fix"] and p["fix"]["applicability"] == "safe"]


def test_an_unknown_code_is_a_usage_error_with_a_suggestion(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--select", "PL31"]) == 2
    assert "unknown rule PL31; did you mean PL301?" in capsys.readouterr().err


def test_a_bad_config_exits_2_with_one_line_naming_file_and_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".portlint.yaml").write_text("bands:\n  gym:\n    range: 5999-5000\n")
    monkeypatch.chdir(tmp_path)
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err == 'portlint: error: .portlint.yaml: bands.gym.range: expected LOW-HIGH with LOW <= HIGH, got "5999-5000"\n'


def test_zero_config_runs_with_the_stock_floor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "serve.yaml").write_text("server:\n  port: 40000\n  metrics_port: 9400\n")
    monkeypatch.chdir(tmp_path)
    assert main([]) == 1
    out = capsys.readouterr().out
    assert "serve.yaml:2:9: PL101 server.port=40000 reaches the ephemeral range (32768+)" in out
    assert "9400" not in out


def test_the_floor_can_be_overridden_on_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "serve.yaml").write_text("server:\n  metrics_port: 9400\n")
    monkeypatch.chdir(tmp_path)
    assert main(["--ephemeral-floor", "9000"]) == 1
    assert main(["--ephemeral-floor", "lots"]) == 2
    assert "--ephemeral-floor" in capsys.readouterr().err


def test_version_and_help() -> None:
    assert main(["--version"]) == 0
    assert main(["--help"]) == 0


def test_the_installed_entry_point_runs_without_a_traceback(demo: Path) -> None:
    result = subprocess.run([PORTLINT, "--output-format", "json"], capture_output=True, text=True)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert json.loads(result.stdout)
