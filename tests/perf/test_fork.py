"""Pins of when a check forks its pool and what it has imported by then (a cost, never a result:
a check whose pool forks later, or after more imports, reports the same)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from portlint import engine
from portlint.config.load import load_config
from portlint.config.locate import find_config
from portlint.engine import Options
from portlint.stages import perfile


def _in_git(root: Path) -> None:
    """The folder as a git repository whose files are listed (a check's warm path asks git)."""
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)


def _with_cache() -> dict[str, str]:
    """This environment, with the cache on (a check's warm path, as a user's)."""
    return {name: value for name, value in os.environ.items() if name != "PORTLINT_NO_CACHE"}


def _imported_at_fork(root: Path, names: tuple[str, ...]) -> tuple[str, str]:
    """A cold check of `root` with a pool of two: which of `names` were imported when it forked
    (stderr), and its JSON output."""
    probe = f"""import os, sys
at_fork = []
fork = os.fork
def recording():
    at_fork.append(sorted(name for name in {names!r} if name in sys.modules))
    return fork()
os.fork = recording
from portlint.entry.command import main
code = main(["check", "--exit-zero", "--output-format", "json", "."])
print(at_fork, file=sys.stderr)
sys.exit(code)
"""
    _in_git(root)  # the warm path's run: as a user's
    done = subprocess.run([sys.executable, "-c", probe], cwd=root, env={**_with_cache(), "PORTLINT_WORKERS": "2"},
                          capture_output=True, text=True, check=True)
    return done.stderr.strip(), done.stdout


def test_a_cold_check_forks_its_pool_before_the_rules_are_imported(demo: Path) -> None:
    """A cold check imports the rules and its reporter while its workers start on the files, not
    before the fork; its output is the same."""
    at_fork, output = _imported_at_fork(demo, ("click", "portlint.cli", "portlint.rules", "portlint.report.json"))
    assert at_fork == "[['click', 'portlint.cli']]"  # one fork, neither the rules nor the reporter imported yet
    shutil.rmtree(demo / ".portlint_cache")
    alone = subprocess.run([sys.executable, "-m", "portlint", "check", "--exit-zero", "--output-format", "json", "."],
                           cwd=demo, env={**_with_cache(), "PORTLINT_WORKERS": "1"}, capture_output=True, text=True, check=True)
    assert output == alone.stdout and '"PL' in alone.stdout


def test_a_zero_config_check_forks_before_importing_what_only_the_rules_and_the_cli_need(demo: Path) -> None:
    """Without a config, nothing before the fork imports the problems' dataclass or dataclasses:
    the rules and click import them once the workers have started. (A config's glob of another
    shape imports pathspec, which imports them all.) Nor json, which only the run cache's entry
    needs, written after the report."""
    (demo / ".portlint.yaml").unlink()
    at_fork, _ = _imported_at_fork(demo, ("portlint.model.problems", "dataclasses", "json"))
    assert at_fork == "[[]]"  # one fork, and none imported yet


def test_a_first_run_forks_at_once_and_a_run_over_cached_results_only_for_enough_to_extract(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With nothing cached every file is read and extracted, and two processes share that from
    the first file worth extracting; with the results cached, a changed file or two is
    extracted here (a pool costs more than it gives them)."""
    monkeypatch.delenv("PORTLINT_WORKERS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)  # two cores, whatever this machine has
    forks: list[int] = []
    fork = os.fork

    def counting() -> int:
        forks.append(1)
        return fork()

    monkeypatch.setattr(os, "fork", counting)
    config = load_config(find_config(demo), demo)
    first = engine.run(config, Options(cache=True))
    assert len(forks) == 1
    (demo / "ray.sub").write_bytes((demo / "ray.sub").read_bytes() + b"\n# edited\n")
    again = engine.run(config, Options(cache=True))
    assert len(forks) == 1 and again.problems == first.problems
    assert engine.run(config, Options()).problems == first.problems and len(forks) == 2  # no cache: a first run


@pytest.mark.parametrize("kind", sorted(set(perfile.PER_FILE_MODULES) - {""}))
def test_a_pool_is_forked_after_what_the_per_file_stage_imports(kind: str) -> None:
    """Every module extracting the fixtures of a kind imports on first use is in
    perfile.PER_FILE_MODULES for that kind or for every kind (imported before the fork, else
    every worker imports it again). One process per kind: another kind's imports would hide
    a module missing from this one's list."""
    probe = """import sys
from pathlib import Path
from portlint.stages import discover, perfile
from portlint.model.naming import NameFilter
before = set(sys.modules)
for number, path in enumerate(sorted(Path(sys.argv[1]).rglob("*"))):
    kind = discover.kind_of(str(path), path.read_bytes()[:128]) if path.is_file() else ""
    if kind == sys.argv[2]:
        perfile.extract_file(str(path), kind, path.read_bytes(), NameFilter(["MASTER_PORT"]), kind == "yaml" and number % 2 == 0)
print(" ".join(sorted(set(sys.modules) - before)))
"""
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    done = subprocess.run([sys.executable, "-c", probe, str(fixtures), kind], cwd=fixtures.parent.parent,
                          capture_output=True, text=True, check=True)
    imported = {name for name in done.stdout.split() if name.startswith(("portlint.", "ruamel.yaml"))}
    assert imported, done.stderr
    preloaded = set()
    for module in (*perfile.PER_FILE_MODULES[""], *perfile.PER_FILE_MODULES[kind]):
        preloaded |= {name for name in imported if name == module or name.startswith(module + ".")}
    assert imported - preloaded == set()
