"""The hooks of .pre-commit-hooks.yaml, run by the real pre-commit on real commits.

pre-commit installs portlint into a virtualenv of its own from a git repository:
this project, cloned to a temporary directory with the working tree laid over it
and committed (so uncommitted work is what gets tested). That install fetches
portlint's dependencies from PyPI once per run; every hook run after it is quick.
pre-commit is a test dependency (the `test` extra): without it these tests fail.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds a pre-commit hook environment from PyPI

ROOT = Path(__file__).resolve().parents[2]
FILES = ROOT / "fixtures" / "precommit"
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "portlint tests", "GIT_AUTHOR_EMAIL": "tests@portlint.invalid",
    "GIT_COMMITTER_NAME": "portlint tests", "GIT_COMMITTER_EMAIL": "tests@portlint.invalid",
}


def _run(command: list[str], cwd: Path, env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    if check and result.returncode != 0:
        raise AssertionError(f"{command} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One PRE_COMMIT_HOME for the module: portlint's hook environment is built once."""
    home = tmp_path_factory.mktemp("pre-commit-home")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    return {**base, **GIT_IDENTITY, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1"}


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> tuple[Path, str]:
    """This project as pre-commit would fetch it: HEAD plus the working tree, in one commit."""
    _run(PRE_COMMIT + ["--version"], ROOT, env)  # pre-commit missing: fail here, loudly
    clone = tmp_path_factory.mktemp("hook-repo") / "portlint"
    _run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(clone)], ROOT, env)
    listed = _run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT, env).stdout
    for name in filter(None, listed.split("\0")):
        source, target = ROOT / name, clone / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        elif target.exists() and not source.exists():
            target.unlink()
    _run(["git", "add", "-A"], clone, env)
    _run(["git", "commit", "-q", "--allow-empty", "--no-verify", "-m", "the working tree"], clone, env)
    return clone, _run(["git", "rev-parse", "HEAD"], clone, env).stdout.strip()


@pytest.fixture
def project(tmp_path: Path, env: dict[str, str], hook_repo: tuple[Path, str]) -> Iterator[Path]:
    """A user's repository with both hooks installed, its clean state committed."""
    repo = tmp_path / "project"
    shutil.copytree(FILES, repo)
    hooks, rev = hook_repo
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {rev}\n    hooks:\n      - id: portlint\n"
    )
    _run(["git", "init", "-q"], repo, env)
    _run(PRE_COMMIT + ["install"], repo, env)
    _run(["git", "add", "-A"], repo, env)
    _run(["git", "commit", "-q", "-m", "a clean layout"], repo, env)  # the hook runs, and passes
    yield repo


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def _commit(repo: Path, env: dict[str, str], *paths: str) -> subprocess.CompletedProcess[str]:
    _run(["git", "add", *paths], repo, env)
    return _run(["git", "commit", "-m", "a change"], repo, env, check=False)


def test_a_commit_that_puts_a_port_above_the_floor_is_rejected_with_the_problem_shown(
    project: Path, env: dict[str, str],
) -> None:
    _edit(project / "configs" / "serve.yaml", "port_range_high: 8999", "port_range_high: 9500")
    result = _commit(project, env, "configs/serve.yaml")
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "portlint" in output and "Failed" in output
    assert "configs/serve.yaml:5:20: PL101 engine.port_range_high=9500 reaches the ephemeral range (9000+)" in output
    log = _run(["git", "log", "--oneline"], project, env).stdout.splitlines()
    assert len(log) == 1  # nothing was committed


def test_try_repo_runs_the_check_hook_on_the_whole_repository(
    project: Path, env: dict[str, str], hook_repo: tuple[Path, str],
) -> None:
    # try-repo builds a fresh hook environment on every call (~30 s): one call, on a drifted file.
    _edit(project / "configs" / "serve.yaml", "port_range_low: 7000", "port_range_low: 7100")
    hooks, rev = hook_repo
    result = _run(PRE_COMMIT + ["try-repo", str(hooks), "portlint", "--ref", rev, "--all-files"], project, env,
                  check=False)
    assert result.returncode == 1
    assert "configs/serve.yaml:4:19: PL301 [*] engine.port_range_low=7100 drifted" in result.stdout


def test_the_fix_hook_repairs_the_file_fails_once_and_then_passes(project: Path, env: dict[str, str]) -> None:
    config = project / ".pre-commit-config.yaml"
    _edit(config, "- id: portlint\n", "- id: portlint-fix\n")
    serve = project / "configs" / "serve.yaml"
    clean = serve.read_text()
    _edit(serve, "port_range_low: 7000", "port_range_low: 7100")
    first = _commit(project, env, ".pre-commit-config.yaml", "configs/serve.yaml")
    assert first.returncode != 0
    shown = first.stdout + first.stderr
    assert "- files were modified by this hook" in shown and "No problems remain." in shown
    assert serve.read_text() == clean  # only the digits changed back; the comments are kept
    second = _commit(project, env, ".pre-commit-config.yaml", "configs/serve.yaml")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "portlint (fix)" in second.stdout + second.stderr and "Passed" in second.stdout + second.stderr


def test_a_commit_that_edits_only_a_source_config_while_its_frozen_copy_goes_stale_is_rejected(
    project: Path, env: dict[str, str],
) -> None:
    _edit(project / "configs" / "serve.yaml", "http_port: 8080", "http_port: 8081")
    result = _commit(project, env, "configs/serve.yaml")
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "tests/reference_configs/serve.yaml:6:14: PL401" in output  # the copy nobody touched
    assert "8080" in output and "8081" in output


def test_the_readme_stanza_works_as_written_once_it_names_a_repository_and_a_commit(
    tmp_path: Path, env: dict[str, str], hook_repo: tuple[Path, str],
) -> None:
    readme = (ROOT / "README.md").read_text()
    stanza = readme.split("\n## pre-commit\n", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    hooks, rev = hook_repo
    assert "https://github.com/OWNER/portlint" in stanza and "COMMIT_SHA" in stanza
    repo = tmp_path / "project"
    shutil.copytree(FILES, repo)
    (repo / ".pre-commit-config.yaml").write_text(
        stanza.replace("https://github.com/OWNER/portlint", str(hooks)).replace("COMMIT_SHA", rev)
    )
    _run(["git", "init", "-q"], repo, env)
    _run(PRE_COMMIT + ["install"], repo, env)
    _run(["git", "add", "-A"], repo, env)
    _run(["git", "commit", "-q", "-m", "a clean layout"], repo, env)  # the hook runs, and passes
    _edit(repo / "configs" / "serve.yaml", "port_range_high: 8999", "port_range_high: 9500")
    result = _commit(repo, env, "configs/serve.yaml")
    assert result.returncode != 0
    assert "configs/serve.yaml:5:20: PL101 engine.port_range_high=9500 reaches the ephemeral range (9000+)" in (
        result.stdout + result.stderr
    )
