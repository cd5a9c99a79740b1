"""SARIF, GitHub annotations, JSON, statistics, --show-fixes, --exit-non-zero-on-fix and colour."""
from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path

import pytest
from conftest import copy_repo
from installed import PORTLINT
from jsonschema import Draft4Validator, FormatChecker

from portlint.cli import main
from portlint.report import github
from portlint.rules import ALL, summary

TESTS = Path(__file__).resolve().parents[1]
DEMO = TESTS.parent / "fixtures" / "demo"
SARIF_SCHEMA = json.loads((TESTS / "schemas" / "sarif-2.1.0.json").read_text())


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


def _sarif(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code, out = _run(["--output-format", "sarif", *args], capsys)
    assert code == 1
    return json.loads(out)


# SARIF


def test_sarif_validates_against_the_official_2_1_0_schema(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _sarif(capsys)
    errors = sorted(Draft4Validator(SARIF_SCHEMA, format_checker=FormatChecker()).iter_errors(log), key=str)
    assert not errors, errors[0]
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1


def test_sarif_has_one_rule_entry_per_code_with_descriptions_and_help(demo: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    rules = _sarif(capsys)["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [rule.CODE for rule in ALL]
    for entry, rule in zip(rules, ALL, strict=True):
        assert entry["name"] == rule.NAME
        assert entry["shortDescription"]["text"] == summary(rule)
        assert entry["fullDescription"]["text"].startswith("What it does:")
        assert summary(rule) not in entry["fullDescription"]["text"]
        assert f"portlint rule {rule.CODE}" in entry["help"]["text"]


def test_sarif_results_have_repository_relative_uris_and_full_regions(demo: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    run = _sarif(capsys)["runs"][0]
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == demo.resolve().as_uri() + "/"
    rules = run["tool"]["driver"]["rules"]
    drift = next(r for r in run["results"] if r["ruleId"] == "PL301" and "sft.yaml" in str(r["locations"]))
    location = drift["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "examples/configs/sft.yaml", "uriBaseId": "SRCROOT"}
    assert location["region"] == {"startLine": 93, "startColumn": 26, "endLine": 93, "endColumn": 30}
    assert rules[drift["ruleIndex"]]["id"] == "PL301"
    replacement = drift["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement["insertedContent"]["text"] == "1400"
    start, length = replacement["deletedRegion"]["byteOffset"], replacement["deletedRegion"]["byteLength"]
    assert (demo / "examples/configs/sft.yaml").read_bytes()[start:start + length] == b"1500"


def test_sarif_uris_are_relative_to_the_git_work_tree_when_the_config_sits_below_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    copy_repo(DEMO, tmp_path / "services" / "rl")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path / "services" / "rl")
    run = _sarif(capsys)["runs"][0]
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == tmp_path.resolve().as_uri() + "/"
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert "services/rl/examples/configs/sft.yaml" in uris


def _fingerprints(log: dict) -> dict[str, tuple[str, int]]:
    return {
        result["partialFingerprints"]["portlint/v1"]: (
            result["ruleId"], result["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for result in log["runs"][0]["results"]
    }


def test_sarif_fingerprints_are_unique_and_survive_unrelated_lines_moving(demo: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    before = _fingerprints(_sarif(capsys))
    assert len(before) == len(_sarif(capsys)["runs"][0]["results"])
    for name in ("examples/configs/evals/eval.yaml", "examples/configs/grpo_math_1B.yaml", "examples/configs/sft.yaml"):
        path = demo / name
        path.write_bytes(b"# a new comment\n# and another\n" + path.read_bytes())
    after = _fingerprints(_sarif(capsys))
    assert set(after) == set(before)
    moved = [fp for fp in before if before[fp][1] != after[fp][1]]
    assert moved, "the lines did move; the fingerprints did not"


def test_a_sarif_fingerprint_changes_when_the_offending_line_changes(demo: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    before = _fingerprints(_sarif(capsys))
    path = demo / "examples/configs/sft.yaml"
    path.write_text(path.read_text().replace("master_port_range_low: 1500", "master_port_range_low: 1600"))
    after = _fingerprints(_sarif(capsys))
    assert len(set(before) - set(after)) == 1


def test_sarif_for_a_clean_repository_is_valid_and_empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "serve.yaml").write_text("server:\n  port: 8080\n")
    monkeypatch.chdir(tmp_path)
    code, out = _run(["--output-format", "sarif"], capsys)
    log = json.loads(out)
    assert code == 0 and log["runs"][0]["results"] == []
    assert not list(Draft4Validator(SARIF_SCHEMA).iter_errors(log))


# GitHub workflow commands


def test_github_output_is_one_error_command_per_problem(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, text = _run(["--quiet"], capsys)
    code, out = _run(["--output-format", "github"], capsys)
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == len(text.splitlines())
    assert (
        "::error file=examples/configs/sft.yaml,line=93,col=26,endLine=93,endColumn=30,title=PL301::"
        "cluster.master_port_range_low=1500 drifted from the layout: band master gives 1400"
    ) in lines
    assert all(line.startswith("::error file=") for line in lines)


def test_github_escaping_follows_the_actions_toolkit() -> None:
    assert github.escape_data("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext: a,b"
    assert github.escape_property("dir,with:odd%name\n") == "dir%2Cwith%3Aodd%25name%0A"


def test_github_escapes_paths_and_messages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    odd = tmp_path / "a,b:c%"
    odd.mkdir()
    (odd / "serve.yaml").write_text("server:\n  port: 40000\n")
    monkeypatch.chdir(tmp_path)
    _, out = _run(["--output-format", "github"], capsys)
    assert out.startswith("::error file=a%2Cb%3Ac%25/serve.yaml,line=2,col=9,endLine=2,endColumn=14,title=PL101::")


# JSON (kept stable) and --statistics


def test_json_fields_and_types_are_stable(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = _run(["--output-format", "json"], capsys)
    types = {"code": str, "name": str, "message": str, "path": str, "line": int, "column": int,
             "end_line": int, "end_column": int}
    for problem in json.loads(out):
        assert list(problem) == [*types, "fix"]
        assert all(isinstance(problem[key], kind) for key, kind in types.items())
        if problem["fix"] is not None:
            assert list(problem["fix"]) == ["applicability", "edits"]
            assert problem["fix"]["applicability"] in ("safe", "unsafe")
            assert all(list(edit) == ["start", "end", "content"] for edit in problem["fix"]["edits"])


def test_statistics_count_problems_per_code(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, listed = _run(["--output-format", "json"], capsys)
    expected: dict[str, int] = {}
    for problem in json.loads(listed):
        expected[problem["code"]] = expected.get(problem["code"], 0) + 1
    code, out = _run(["--statistics", "--output-format", "json"], capsys)
    rows = json.loads(out)
    assert code == 1 and {r["code"]: r["count"] for r in rows} == expected
    assert [r["count"] for r in rows] == sorted((r["count"] for r in rows), reverse=True)
    _, text = _run(["--statistics"], capsys)
    assert f"{expected['PL301']}  PL301  [*] layout-drift" in text
    assert "PL302      unbound-port" in text and ": PL" not in text


def test_statistics_with_sarif_is_a_usage_error(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--statistics", "--output-format", "sarif"]) == 2
    assert "--statistics" in capsys.readouterr().err


# --show-fixes and --exit-non-zero-on-fix


def test_show_fixes_prints_what_each_fix_would_change(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = _run(["--show-fixes"], capsys)
    lines = out.splitlines()
    drift = next(i for i, line in enumerate(lines) if "master_port_range_low=1500" in line)
    assert lines[drift + 1] == '    fix: "1500" -> "1400"'


def test_show_fixes_with_fix_lists_what_was_fixed_per_file(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = _run(["--fix", "--show-fixes"], capsys)
    assert "Fixed 4 problems:\n" in out
    assert "- examples/configs/evals/eval.yaml:\n    2 × PL301 (layout-drift)\n" in out


def test_exit_non_zero_on_fix_fails_once_when_a_file_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".portlint.yaml").write_text("bands:\n  web:\n    port: 8080\n    sites: [server.port]\n")
    (tmp_path / "serve.yaml").write_text("server:\n  port: 8081\n")
    monkeypatch.chdir(tmp_path)
    assert main(["--fix"]) == 0  # fixed, nothing left
    (tmp_path / "serve.yaml").write_text("server:\n  port: 8081\n")
    assert main(["--fix", "--exit-non-zero-on-fix"]) == 1
    assert (tmp_path / "serve.yaml").read_text() == "server:\n  port: 8080\n"
    assert main(["--fix", "--exit-non-zero-on-fix"]) == 0
    (tmp_path / "serve.yaml").write_text("server:\n  port: 8081\n")
    assert main(["--fix", "--exit-non-zero-on-fix", "--exit-zero"]) == 0


# Colour


def _on_a_terminal(args: list[str], env: dict[str, str]) -> str:
    """Run the installed portlint with stdout on a pseudo-terminal; what it printed."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([PORTLINT, *args], stdout=follower, stderr=subprocess.DEVNULL, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=30)
    os.close(leader)
    return b"".join(chunks).decode()


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        ([], {}, True),
        (["--no-color"], {}, False),
        ([], {"NO_COLOR": "1"}, False),
    ],
    ids=["a-terminal-gets-colour", "no-color-flag-turns-it-off", "NO_COLOR-turns-it-off"],
)
def test_colour_only_on_a_terminal_without_no_color(demo: Path, args: list[str], env: dict[str, str],
                                                    coloured: bool) -> None:
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    out = _on_a_terminal(args, {**base, **env})
    assert ("\x1b[" in out) is coloured
    assert "PL301" in out


def test_no_colour_when_stdout_is_not_a_terminal(demo: Path) -> None:
    result = subprocess.run([PORTLINT], capture_output=True, text=True)
    assert "PL301" in result.stdout and "\x1b[" not in result.stdout


def test_the_summary_counts_fixable_and_unsafe_problems() -> None:
    from portlint.model.edits import Edit, Fix
    from portlint.model.problems import Problem
    from portlint.report import text

    safe = Fix((Edit(0, 1, b"1"),))
    unsafe = Fix((Edit(0, 1, b"1"),), safe=False)
    problems = [Problem("a", 1, 1, "PL301", "m", safe)] * 5 + [Problem("a", 2, 1, "PL501", "m", unsafe),
                                                               Problem("a", 3, 1, "PL101", "m")]
    assert text.summary(problems) == "Found 7 problems (5 fixable with --fix, 1 with --unsafe-fixes)."


def test_sarif_without_the_rules_of_the_run_still_validates_and_names_each_rule(tmp_path: Path) -> None:
    from portlint.model.problems import Problem
    from portlint.report import Context, sarif

    log = json.loads(sarif.render([Problem("a.yaml", 1, 1, "PL301", "m")], Context(tmp_path, tmp_path)))
    assert not list(Draft4Validator(SARIF_SCHEMA, format_checker=FormatChecker()).iter_errors(log))
    assert log["runs"][0]["results"][0]["ruleId"] == "PL301" and "ruleIndex" not in log["runs"][0]["results"][0]
