"""No stale answer: the caches are keyed by everything that can change the answer (the interpreter,
the installed distributions, where a path argument leads), and a cache folder is used only where it
is, never through a symlink.

Each test reproduces a defect an adversarial campaign found (issue 39) in a fresh repository.
"""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from installed import PORTLINT

from portlint import engine
from portlint.config.load import load_for
from portlint.speed import cache
from portlint.stages import perfile


@pytest.fixture
def extracted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the per-file stage computed (not taken from the cache), with the cache on and
    every file done in this process (a worker's calls would not be counted here)."""
    monkeypatch.delenv("PORTLINT_NO_CACHE", raising=False)
    monkeypatch.setenv("PORTLINT_WORKERS", "1")
    calls: list[str] = []
    real = perfile.extract_file

    def counting(path: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(perfile, "extract_file", counting)
    return calls


def _cached_check(root: Path) -> Any:
    return engine.run(load_for(root, ()), engine.Options(cache=True))


def test_the_per_file_cache_is_keyed_by_the_interpreter_and_the_installed_distributions(
    tmp_path: Path, extracted: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 3.11 and a 3.12 install of one checkout replayed each other's parse (`type Port = int`
    is a PL001 before 3.12 only): the cache's salt held neither the Python version nor any
    dependency's."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "ports.py").write_text("type Port = int\nMASTER_PORT = 1500\n")
    (repo / "ports.yaml").write_text("master_port: 1500\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _cached_check(repo)
    assert sorted(extracted) == ["ports.py", "ports.yaml"]
    extracted.clear()
    _cached_check(repo)
    assert extracted == []  # a hit
    site = tmp_path / "site-packages"  # a dependency upgraded: another version's .dist-info
    (site / "ruamel.yaml-99.0.dist-info").mkdir(parents=True)
    changes: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
        "another build of Python": lambda m: m.setattr(sys, "version", sys.version + " (another build)"),
        "another implementation": lambda m: m.setattr(sys.implementation, "name", "another"),
        "another ruamel.yaml": lambda m: m.syspath_prepend(str(site)),
    }
    for what, change in changes.items():
        with monkeypatch.context() as patched:
            patched.setattr(cache, "_DISTRIBUTIONS", None, raising=False)  # listed again, if it is listed
            change(patched)
            _cached_check(repo)
        assert sorted(extracted) == ["ports.py", "ports.yaml"], what
        extracted.clear()


def test_a_warm_run_through_a_re_pointed_ignored_symlink_is_not_replayed(tmp_path: Path) -> None:
    """`portlint current`, `current` an ignored symlink: re-pointed, the warm run replayed the
    answer about the old target (git lists the same files, of the same bytes)."""
    for release, port in (("v1", 1500), ("v2", 40000)):
        (tmp_path / "releases" / release).mkdir(parents=True)
        (tmp_path / "releases" / release / "ports.yaml").write_text(f"master_port: {port}\n")
    (tmp_path / ".gitignore").write_text("current\n")
    (tmp_path / "current").symlink_to("releases/v1")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    env = {name: value for name, value in os.environ.items() if name != "PORTLINT_NO_CACHE"}

    def check() -> subprocess.CompletedProcess[str]:
        return subprocess.run([PORTLINT, "current"], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)

    assert check().returncode == 0
    assert check().returncode == 0  # replayed
    (tmp_path / "current").unlink()
    (tmp_path / "current").symlink_to("releases/v2")
    again = check()
    assert again.returncode == 1 and "releases/v2/ports.yaml:1:14: PL101" in again.stdout, again.stdout


@pytest.mark.parametrize("where", ["outside", "inside"])
def test_a_committed_cache_folder_symlink_is_neither_read_nor_written_through(where: str, tmp_path: Path) -> None:
    """A committed `.portlint_cache` symlink made a plain check write its .gitignore, index and
    run entries into the folder it points to (outside the work tree, or over the repository's own)."""
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "ports.yaml").write_text("master_port: 40000\n")
    target = tmp_path / "elsewhere" if where == "outside" else repo / "src"
    target.mkdir(exist_ok=True)
    (repo / ".portlint_cache").symlink_to(target)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    before = sorted(p.name for p in target.iterdir())
    env = {name: value for name, value in os.environ.items() if name != "PORTLINT_NO_CACHE"}
    for _ in range(2):
        done = subprocess.run([PORTLINT], cwd=repo, capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 1 and "src/ports.yaml:1:14: PL101" in done.stdout, done.stdout
        assert done.stderr == (
            "portlint: .portlint_cache: a symlink, not a folder of this repository; the run went on without the cache\n"
        )
        assert sorted(p.name for p in target.iterdir()) == before
