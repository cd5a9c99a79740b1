"""tests/bench/realworld.py (the real-repository harness) on a tiny generated repository: no corpus needed."""
from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parents[1] / "bench" / "realworld.py"
spec = importlib.util.spec_from_file_location("realworld", HARNESS)
realworld = importlib.util.module_from_spec(spec)
assert spec.loader is not None
sys.modules["realworld"] = realworld
spec.loader.exec_module(realworld)

SVC = "MASTER_PORT = 40000\nx = 1  # portlint: ignore[PL101]\n"
CONF = "server:\n  port: 8000\n"


def git_repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    for name, text in files.items():
        (path / name).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=path, check=True)
    subprocess.run(["git", "add", "-A"], cwd=path, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "x"],
                   cwd=path, check=True)
    return path


def portlint_json(repo: Path) -> list[dict]:
    done = subprocess.run([*realworld.portlint_command(), "--output-format", "json"], cwd=repo,
                          capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def run_harness(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[str, list[list[str]]]:
    out = tmp_path / "triage.tsv"
    assert realworld.main([str(tmp_path / "corpus"), "--out", str(out), *args]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "mode\trepo\tpath\tline\tcode\tmessage"
    # the printed report with runs of spaces squeezed and the timings dropped
    printed = "\n".join(" ".join(line.split("  [")[0].split()) for line in capsys.readouterr().out.splitlines())
    return printed, [line.split("\t") for line in lines[1:]]


@pytest.mark.slow
def test_three_modes_counts_and_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = git_repo(tmp_path / "corpus" / "demo", {"svc.py": SVC, "conf.yaml": CONF})
    printed, rows = run_harness(tmp_path, capsys)

    # zero-config: what portlint itself reports on a pristine copy, row for row
    zero = [row for row in rows if row[0] == "zero"]
    expected_zero = portlint_json(repo)
    assert [(r[2], int(r[3]), r[4], r[5]) for r in zero] == [
        (p["path"], p["line"], p["code"], p["message"]) for p in expected_zero]
    assert {(r[2], r[3], r[4]) for r in zero} == {("svc.py", "1", "PL101"), ("svc.py", "2", "PL002")}
    assert "demo zero 2 problems: PL002x1 PL101x1" in printed

    # init: the check with the config init writes, on a copy of its own
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy)
    subprocess.run([*realworld.portlint_command(), "init", "--force"], cwd=copy, capture_output=True)
    expected_init = portlint_json(copy)
    init = [row for row in rows if row[0] == "init"]
    assert [(r[2], int(r[3]), r[4], r[5]) for r in init] == [
        (p["path"], p["line"], p["code"], p["message"]) for p in expected_init]
    assert f"demo init {len(expected_init)} problems" in printed

    # fix: the unused suppression is removed (a safe fix in any layout); the row names the line and its code
    fix = [row for row in rows if row[0] == "fix"]
    assert ["fix", "demo", "svc.py", "2", "PL002", "x = 1  # portlint: ignore[PL101] → x = 1"] in fix
    assert f"demo fix {len(fix)} lines in 1 files changed (" in printed and "PL002x1" in printed.split("demo fix ")[1]

    # the corpus itself is never written
    assert (repo / "svc.py").read_text() == SVC and not (repo / ".portlint.yaml").exists()
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout == ""


@pytest.mark.slow
def test_a_failing_mode_is_reported_and_the_others_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git_repo(tmp_path / "corpus" / "broken", {".portlint.yaml": "bands: [1, 2\n", "svc.py": SVC})
    git_repo(tmp_path / "corpus" / "demo", {"svc.py": SVC, "conf.yaml": CONF})
    printed, rows = run_harness(tmp_path, capsys, "--repos", "broken,demo")
    assert "broken zero ERROR exit 2: " in printed  # the broken config; init --force replaces it
    assert "broken init ERROR" not in printed
    assert "demo zero 2 problems" in printed
    assert "total zero 2 problems: PL002x1 PL101x1 (1 repositories failed)" in printed
    assert {row[1] for row in rows if row[0] == "zero"} == {"demo"}


def test_triage_join_prints_precision_and_unjudged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found = tmp_path / "found.tsv"
    found.write_text("mode\trepo\tpath\tline\tcode\tmessage\n"
                     "zero\tr\ta.py\t1\tPL101\tm1\n"
                     "zero\tr\ta.py\t3\tPL101\tm2\n"
                     "init\tr\ta.py\t1\tPL101\tm1\n"
                     "zero\tr\tb.yaml\t2\tPL202\tm3\n"
                     "fix\tr\tb.yaml\t2\tPL301\t1 → 2\n", encoding="utf-8")
    verdicts = tmp_path / "verdicts.tsv"
    verdicts.write_text("repo\tpath\tline\tcode\tmode\tverdict\treason\n"
                        "r\ta.py\t1\tPL101\tzero\ttrue\tephemeral\n"
                        "r\ta.py\t3\tPL101\tzero\tfalse\ttest value\n"
                        "r\tb.yaml\t2\tPL301\tfix\tfalse\tbreaks the service\n", encoding="utf-8")
    assert realworld.main(["--from", str(found), "--triage", str(verdicts)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "PL101   zero     2     1     1     0  50.0%" in lines
    assert "PL101   init     1     0     0     1  -" in lines
    assert "PL202   zero     1     0     0     1  -" in lines
    assert "PL301   fix      1     0     1     0  0.0%" in lines
    assert "2 findings without a verdict:" in lines
    assert "r\ta.py\t1\tPL101\tinit\tm1" in lines and "r\tb.yaml\t2\tPL202\tzero\tm3" in lines


def test_line_edits() -> None:
    assert realworld.line_edits(b"a\nport: 1\nb\n", b"a\nport: 2\nb\n") == [(2, "port: 1", "port: 2")]
    assert realworld.line_edits(b"a\nb\n", b"a\nb\nc\n") == [(3, "", "c")]
    assert realworld.line_edits(b"a\nb\nc\n", b"a\nc\n") == [(2, "b", "")]
    assert realworld.line_edits(b"a\r\n", b"a\n") == [(1, "(line endings)", "(line endings)")]
    assert realworld.escape("a\tb\\c\nd") == "a\\tb\\\\c\\nd"
