"""Each fast path gives what its plain way gives (portlint/speed/switch.py): every fixture case and a
generated repository (tests/speed/generated.py) checked with every rule, output compared byte for
byte, and the fixes too (`--diff`)."""
from __future__ import annotations

import contextlib
import io
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import copy_repo
from generated import build

from portlint.cli import main
from portlint.entry import command
from portlint.speed import switch

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASES = sorted(p for p in FIXTURES.glob("PL*/*") if (p / "repo").is_dir())
# The fast paths of the per-file stage and the engine (the command's own, replay, below).
STAGES = sorted(set(switch.FAST_PATHS) - {"replay"})
Output = tuple[int, str, str]


def _options(case: Path) -> list[str]:
    """The case's options but its choice of rules: every rule runs here."""
    args_file = case / "args.txt"
    words = args_file.read_text().split() if args_file.exists() else []
    kept, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in ("--select", "--ignore"):
            skip = True
        elif not word.startswith(("--select=", "--ignore=")):
            kept.append(word)
    return [*kept, "--select", "ALL"]


def _checked(repo: Path, args: list[str], plain: list[str]) -> tuple[Output, Output]:
    """The JSON report, and the fixes as a diff, of a check of `repo` taking the plain ways of `plain`."""
    found = []
    with pytest.MonkeyPatch.context() as patch, switch.taking_plain(plain):
        patch.chdir(repo)
        for extra in (["--output-format", "json"], ["--diff", "--unsafe-fixes"]):
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(["check", "--no-cache", *extra, *args])
            found.append((code, out.getvalue(), err.getvalue()))
    return found[0], found[1]


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.parent.name}/{case.name}")
def test_a_fixture_reads_the_same_by_every_plain_way(case: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    copy_repo(case / "repo", repo, symlinks=True)
    args = _options(case)
    fast = _checked(repo, args, [])
    assert fast[0][0] in (0, 1), fast[0][2]
    assert _checked(repo, args, ["all"]) == fast


@pytest.fixture(scope="module", params=[False, True], ids=["zero-config", "with-a-layout"])
def generated(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("generated")
    build(root, seed=7 if request.param else 11, layout=request.param)
    yield root


@pytest.fixture(scope="module")
def fast(generated: Path) -> tuple[Output, Output]:
    """The generated repository's report and fixes by the fast paths."""
    found = _checked(generated, ["--select", "ALL"], [])
    assert found[0][0] == 1 and found[0][1].count('"code"') > 50, found[0][2]  # the generated shapes are found
    return found


@pytest.mark.parametrize("name", [*STAGES, "all"])
def test_the_generated_repository_reads_the_same_by_each_plain_way(name: str, generated: Path,
                                                                  fast: tuple[Output, Output]) -> None:
    assert _checked(generated, ["--select", "ALL"], [name]) == fast


@pytest.mark.parametrize("name", ["replay", "all"])
def test_the_command_reports_the_same_cold_warm_and_by_the_plain_ways(name: str, generated: Path, tmp_path: Path,
                                                                     capfd: pytest.CaptureFixture[str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The `portlint` command: a cold run, then a replayed one, against the same two runs taking
    the plain way (the replay's is to run again)."""
    repo = tmp_path / "repo"
    subprocess.run(["cp", "-a", str(generated), str(repo)], check=True)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    monkeypatch.delenv("PORTLINT_NO_CACHE", raising=False)
    monkeypatch.chdir(repo)
    runs = []
    for plain in ([], [name]):
        subprocess.run(["rm", "-rf", ".portlint_cache"], check=True)
        with switch.taking_plain(plain):
            for _ in range(2):
                capfd.readouterr()
                code = command.main(["check", "--select", "ALL", "--output-format", "json"])
                out = capfd.readouterr()
                runs.append((code, out.out, out.err))
    assert runs[0][0] == 1 and runs[0][1].count('"code"') > 50
    assert runs == [runs[0]] * 4
