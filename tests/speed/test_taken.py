"""Each fast path of portlint/speed/switch.py is taken on the generated repository of the equivalence
tests (test_plain.py), and cuts work short there: otherwise comparing its output with the plain
way's would prove nothing. A fast path added to FAST_PATHS without a count here fails the last test."""
from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from generated import build
from test_plain import _checked

from portlint.entry import command, replay
from portlint.speed import needles, outline, pool, switch
from portlint.stages import perfile
from portlint.stages.extract import markdown, yaml, yaml_commands
from portlint.stages.extract import python as python_extract

# What each fast path of the per-file stage skips, by the function whose answer lets it skip.
COUNTED = ("prefilter", "needles", "outline", "yaml", "documents", "commands", "markdown")
# Taken by the command, or by the engine around the per-file stage.
COMMAND = ("replay", "pool")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("generated")
    build(root, seed=11)
    return root


def _counting(patch: pytest.MonkeyPatch, taken: Counter[str], name: str, owner: Any, attribute: str,
              cut: Callable[[Any, tuple[Any, ...]], bool]) -> None:
    """Wrap owner.attribute so that a call whose result (and arguments) `cut` says skipped work counts for `name`."""
    original = getattr(owner, attribute)

    def counted(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        if cut(result, args):
            taken[name] += 1
        return result

    patch.setattr(owner, attribute, counted)


def _per_file_cuts(generated: Path, plain: list[str]) -> Counter[str]:
    taken: Counter[str] = Counter()
    with pytest.MonkeyPatch.context() as patch:
        _counting(patch, taken, "prefilter", perfile, "worth_parsing", lambda worth, args: not worth)
        _counting(patch, taken, "needles", needles, "_bits", lambda bits, args: True)
        _counting(patch, taken, "outline", outline, "sparse", lambda sparse, args: sparse is not None and sparse != args[0])
        _counting(patch, taken, "yaml", yaml, "worth_composing", lambda worth, args: not worth)
        _counting(patch, taken, "documents", yaml, "_hot_documents", lambda extraction, args: extraction is not None)
        _counting(patch, taken, "commands", python_extract, "mentions_tool", lambda mentions, args: not mentions)
        _counting(patch, taken, "commands", yaml_commands, "mentions_tool", lambda mentions, args: not mentions)
        _counting(patch, taken, "markdown read", markdown, "read", lambda extraction, args: True)
        _counting(patch, taken, "markdown asked", markdown, "extract", lambda extraction, args: True)
        _checked(generated, ["--select", "ALL"], ["pool", *plain])  # one process: the counts are this one's
    taken["markdown"] = taken.pop("markdown asked") - taken.pop("markdown read")  # files not parsed
    return taken


def test_each_fast_path_of_the_per_file_stage_cuts_work_on_the_generated_repository(generated: Path) -> None:
    taken = _per_file_cuts(generated, [])
    assert {name for name in COUNTED if taken[name] == 0} == set()


def test_the_plain_ways_cut_nothing(generated: Path) -> None:
    """The counts above are of the fast paths: taking every plain way, none is counted."""
    assert +_per_file_cuts(generated, ["all"]) == Counter()


def test_the_command_replays_and_forks_a_pool(generated: Path, tmp_path: Path,
                                                           capfd: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["cp", "-a", str(generated), str(repo)], check=True)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    monkeypatch.delenv("PORTLINT_NO_CACHE", raising=False)
    monkeypatch.delenv("PORTLINT_WORKERS", raising=False)
    monkeypatch.chdir(repo)
    taken: Counter[str] = Counter()
    _counting(monkeypatch, taken, "replay", replay.Warm, "replay", lambda code, args: code is not None)
    _counting(monkeypatch, taken, "pool", pool, "workers", lambda workers, args: workers > 1)
    with switch.taking_plain([]):
        for _ in range(2):
            command.main(["check", "--select", "ALL", "--output-format", "json"])
            capfd.readouterr()
    assert (taken["replay"], taken["pool"] > 0) == (1, True)


def test_every_fast_path_is_counted_here() -> None:
    assert sorted((*COUNTED, *COMMAND)) == sorted(switch.FAST_PATHS)
