"""Conventions kept where there is no reason to differ from ruff: `--diff` exits 1 only when it
prints a diff; NO_COLOR and FORCE_COLOR; `--cache-dir` and PORTLINT_CACHE_DIR for both caches;
`github` annotations with paths from the repository's root, wherever the step runs."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from installed import PORTLINT

from portlint import __version__
from portlint.cli import _use_color, main
from portlint.speed import cache

LAYOUT = "ephemeral_floor: 9000\nbands:\n  web:\n    port: 8080\n    sites: [web.port]\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root / ".portlint.yaml", LAYOUT)
    monkeypatch.chdir(root)
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- --diff ----------------------------------------------------------------------------------


def test_diff_exits_1_when_it_prints_a_diff(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(repo / "a.yaml", "web:\n  port: 8081\n")
    code, out, err = run(capsys, "--diff")
    assert code == 1
    assert out == (
        "--- a/a.yaml\n+++ b/a.yaml\n@@ -1,2 +1,2 @@\n web:\n-  port: 8081\n+  port: 8080\n"
    )
    assert err == "Would fix 1 problem. No problems would remain.\n"


def test_diff_exits_0_when_only_unfixable_problems_remain(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(repo / "a.yaml", "web:\n  port: 8080\nother:\n  port: 9100\n")  # PL101 and PL302: no fix
    assert run(capsys, "--diff") == (0, "", "Found 2 problems.\n")
    assert run(capsys)[0] == 1  # a check still fails on them


# -- colour ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("flag", "force", "no_color", "expected"), [
    (False, "", "", False),  # a pipe: plain
    (False, "1", "", True),  # FORCE_COLOR colours a pipe (a CI log)
    (False, "1", "1", True),  # ... even beside NO_COLOR, as ruff's
    (False, "", "1", False),
    (True, "1", "", False),  # --no-color wins over everything
])
def test_force_color_and_no_color(monkeypatch: pytest.MonkeyPatch, flag: bool, force: str, no_color: str,
                                  expected: bool) -> None:
    monkeypatch.setenv("FORCE_COLOR", force)
    monkeypatch.setenv("NO_COLOR", no_color)
    assert _use_color(flag) is expected


def test_force_color_colours_the_report_in_a_pipe(repo: Path) -> None:
    write(repo / "a.yaml", "web:\n  port: 8081\n")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    plain = subprocess.run([PORTLINT], cwd=repo, capture_output=True, text=True, env=env)
    forced = subprocess.run([PORTLINT], cwd=repo, capture_output=True, text=True, env={**env, "FORCE_COLOR": "1"})
    assert "\x1b[" not in plain.stdout
    assert "\x1b[" in forced.stdout
    assert forced.stdout.replace("\x1b[0m", "").count("a.yaml:2:9") == 1


# -- the cache folder -------------------------------------------------------------------------


def _cached(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_cache_dir_holds_the_per_file_cache(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PORTLINT_NO_CACHE", raising=False)
    write(repo / "a.yaml", "web:\n  port: 8081\n")
    elsewhere = tmp_path / "caches" / "portlint"
    first = run(capsys, "--cache-dir", str(elsewhere))
    assert first[0] == 1
    stored = _cached(elsewhere)
    assert stored[0] == ".gitignore" and [p.split("/")[0] for p in stored[1:]] == [__version__]
    assert not (repo / cache.DIRECTORY).exists()
    assert run(capsys, "--cache-dir", str(elsewhere)) == first  # read back, same output
    assert run(capsys, "clean", "--cache-dir", str(elsewhere)) == (0, f"Removed {os.path.relpath(elsewhere)}\n", "")
    assert not elsewhere.exists()


def test_the_environment_names_the_folder_of_both_caches(repo: Path, tmp_path: Path) -> None:
    """PORTLINT_CACHE_DIR moves the per-file index and the whole-run entries the warm path replays."""
    write(repo / "a.yaml", "web:\n  port: 8081\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    elsewhere = tmp_path / "ci-cache"
    env = {k: v for k, v in os.environ.items() if k not in ("PORTLINT_NO_CACHE", "NO_COLOR", "FORCE_COLOR")}
    env["PORTLINT_CACHE_DIR"] = str(elsewhere)
    runs = [subprocess.run([PORTLINT], cwd=repo, capture_output=True, text=True, env=env) for _ in range(2)]
    assert runs[0].returncode == runs[1].returncode == 1 and runs[0].stdout == runs[1].stdout
    stored = _cached(elsewhere / __version__)
    assert any(name.startswith("run-") for name in stored) and len(stored) == 2  # the run's entry, the index
    assert not (repo / cache.DIRECTORY).exists()


def test_a_default_folder_leading_outside_the_repository_is_not_written(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("PORTLINT_NO_CACHE", raising=False)
    monkeypatch.delenv(cache.ENVIRONMENT, raising=False)
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / cache.DIRECTORY).symlink_to(outside)  # shipped by the repository
    write(repo / "a.yaml", "web:\n  port: 8081\n")
    code, _, err = run(capsys)
    assert code == 1
    assert err == "portlint: .portlint_cache: a symlink, not a folder of this repository; the run went on without the cache\n"
    assert list(outside.iterdir()) == []
    assert cache.folder(repo) is None and cache.folder(repo, outside) == outside  # named by the user: used


def test_the_cache_folder_is_the_user_s_else_the_environment_s_else_the_root_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(cache.ENVIRONMENT, raising=False)
    assert cache.folder(tmp_path / "r") == tmp_path / "r" / ".portlint_cache"
    monkeypatch.setenv(cache.ENVIRONMENT, "rel/c")
    assert cache.folder(tmp_path / "r") == tmp_path / "rel" / "c"
    assert cache.folder(tmp_path / "r", Path("given")) == tmp_path / "given"


# -- github annotations ----------------------------------------------------------------------


def test_github_paths_are_from_the_repository_root_when_run_in_a_subfolder(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A workflow step with `working-directory: services/api`: annotations still name the files
    from the repository's root, where GitHub places them (the message's paths too)."""
    api = repo / "services" / "api"
    write(api / ".portlint.yaml", LAYOUT)
    write(api / "configs" / "a.yaml", "web:\n  port: 8081\n")
    write(api / "configs" / "b.yaml", "other_port: 8081\n")
    monkeypatch.chdir(api)
    code, out, _ = run(capsys, "--output-format", "github", "--select", "PL202,PL301")
    assert code == 1
    assert out.splitlines() == [
        "::error file=services/api/configs/a.yaml,line=2,col=9,endLine=2,endColumn=13,title=PL202::port 8081 written by "
        "2 services: web.port=8081 (band web) at services/api/configs/a.yaml:2; other_port=8081 at services/api/configs/b.yaml:1",
        "::error file=services/api/configs/a.yaml,line=2,col=9,endLine=2,endColumn=13,title=PL301::"
        "web.port=8081 drifted from the layout: band web gives 8080",
    ]
    text = run(capsys, "--select", "PL301")[1]  # the text format stays relative to the working directory
    assert text.startswith("configs/a.yaml:2:9: PL301")
