"""A package you can pin: `--version` names the commit between releases; `python -m build` makes a
wheel and an sdist that install and run in a fresh virtualenv; `pipx run --spec .` runs it."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from installed import PORTLINT

from portlint import __version__

ROOT = Path(__file__).resolve().parents[2]
# A release (a tag vX.Y.Z at the commit built) is X.Y.Z; any other build names its commit, and
# `.dYYYYMMDD` when the tree it was built from had uncommitted changes.
VERSION = re.compile(r"(?P<release>\d+\.\d+\.\d+)(?:\+g(?P<commit>[0-9a-f]{7,40})(?:\.d\d{8})?)?")


def test_version_names_the_commit_it_was_built_from() -> None:
    done = subprocess.run([PORTLINT, "--version"], capture_output=True, text=True, check=True)
    assert done.stdout == f"portlint, version {__version__}\n"
    match = VERSION.fullmatch(__version__)
    assert match is not None, __version__
    if match["commit"] and (ROOT / ".git").exists():  # installed from this checkout: a commit of it
        known = subprocess.run(["git", "cat-file", "-e", f"{match['commit']}^{{commit}}"], cwd=ROOT, capture_output=True)
        assert known.returncode == 0, f"{match['commit']} is not a commit of this repository"


def _venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    return where / "bin"


def _source(tmp_path: Path) -> Path:
    """The repository's committed files in a folder of their own: a build writes the version file
    into the tree it builds, which must not be this checkout (a check running meanwhile would see
    portlint's source change)."""
    source = tmp_path / "source"
    subprocess.run(["git", "clone", "--quiet", "--local", str(ROOT), str(source)], check=True, capture_output=True)
    return source


def _demo_output(portlint: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    work = tmp_path / "work"
    if not work.exists():
        shutil.copytree(ROOT / "fixtures" / "demo", work / "fixtures" / "demo",
                        ignore=shutil.ignore_patterns(".portlint_cache"))
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "VIRTUAL_ENV")}
    return subprocess.run([str(portlint), "fixtures/demo"], cwd=work, capture_output=True, text=True, env=env)


@pytest.mark.slow
def test_build_makes_a_wheel_and_an_sdist_that_install_and_run(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(_source(tmp_path))], check=True,
                   capture_output=True, text=True)
    [wheel] = dist.glob("portlint-*.whl")
    [sdist] = dist.glob("portlint-*.tar.gz")
    built = wheel.name.split("-")[1]
    assert sdist.name == f"portlint-{built}.tar.gz" and VERSION.fullmatch(built), built
    expected = _demo_output(Path(PORTLINT), tmp_path)
    assert expected.returncode == 1 and "PL301" in expected.stdout
    bin_dir = _venv(tmp_path / "fresh")
    for package in (wheel, sdist):  # the sdist builds its own wheel, with the version it records
        subprocess.run([str(bin_dir / "pip"), "install", "--quiet", "--force-reinstall", str(package)],
                       check=True, capture_output=True, text=True)
        version = subprocess.run([str(bin_dir / "portlint"), "--version"], capture_output=True, text=True, check=True)
        assert version.stdout == f"portlint, version {built}\n", package.name
        ran = _demo_output(bin_dir / "portlint", tmp_path)
        assert (ran.returncode, ran.stdout) == (expected.returncode, expected.stdout), package.name


@pytest.mark.slow
def test_pipx_runs_portlint_from_the_checkout(tmp_path: Path) -> None:
    pipx = shutil.which("pipx", path=str(Path(sys.executable).parent))
    assert pipx is not None, "pipx comes with the test extra"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "NO_COLOR")}
    env.update(PIPX_HOME=str(tmp_path / "pipx"), PIPX_BIN_DIR=str(tmp_path / "bin"))
    done = subprocess.run([pipx, "run", "--spec", str(_source(tmp_path)), "portlint", "--version"], capture_output=True,
                          text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr
    assert VERSION.fullmatch(done.stdout.removeprefix("portlint, version ").strip()), done.stdout
