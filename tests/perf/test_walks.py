"""Pins of how often a run walks what it has: the files stamped once per run, the prefilter asked
again only of changed files. A cost, never a result: a run that asks again reports the same."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from portlint import engine
from portlint.config.load import load_config
from portlint.config.locate import find_config
from portlint.entry import replay as runcache
from portlint.speed import cache
from portlint.stages import perfile
from portlint.stages.prefilter import Prefilter


@pytest.fixture
def repo(demo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo as a git repository (the warm path needs git's listing), cache on."""
    monkeypatch.delenv("PORTLINT_NO_CACHE", raising=False)
    subprocess.run(["git", "init", "-q"], cwd=demo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=demo, check=True)
    return demo


def entries(root: Path) -> list[Path]:
    return sorted((root / cache.DIRECTORY).glob("*/run-*"))


def test_the_files_are_stamped_once_before_the_run_and_not_again_after_it(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                                         capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    """(An lstat of every path a second time, after the output, only to find what the key already says.)"""
    from portlint.entry.command import main

    monkeypatch.chdir(repo)
    stamped: list[int] = []
    real = runcache.Warm._stamps
    monkeypatch.setattr(runcache.Warm, "_stamps", lambda self: stamped.append(1) or real(self))
    assert main(["check"]) == 1
    assert stamped == [1] and len(entries(repo)) == 1
    assert main(["check"]) == 1  # a hit: stamped, hashed, replayed
    assert stamped == [1, 1]



def test_the_prefilter_runs_again_only_on_changed_files(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    real = perfile.worth_parsing

    def counting(kind: str, data: bytes, pattern: Prefilter) -> bool:
        seen.append(kind)
        return real(kind, data, pattern)

    monkeypatch.setattr(perfile, "worth_parsing", counting)
    config = load_config(find_config(repo), repo)
    cold = engine.run(config, engine.Options(cache=True))
    assert seen
    seen.clear()
    (repo / "ray.sub").write_bytes((repo / "ray.sub").read_bytes() + b"\n# edited\n")
    warm = engine.run(config, engine.Options(cache=True))
    assert seen == ["shell"]
    assert [p.code for p in warm.problems] == [p.code for p in cold.problems]
    assert warm.problems == engine.run(config, engine.Options()).problems

