"""Pins of what a run imports: none of the heavy modules it does not need (start-up is most of a
small run). A cost, never a result: a run that imports more reports the same."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from portlint.speed import cache


def _cached() -> dict[str, str]:
    """This environment, with the cache on."""
    return {name: value for name, value in os.environ.items() if name != "PORTLINT_NO_CACHE"}


def _in_git(root: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)


def test_a_cold_check_writes_its_index_without_importing_tempfile(demo: Path) -> None:
    """The index goes through a temporary named by process and time, created only if new; a serial
    check that writes it never imports tempfile (with shutil and random, ~4 ms)."""
    env = _cached()
    program = ("import sys\nfrom portlint.cli import main\ncode = main(['check', '--exit-zero', '-q'])\n"
               "print('tempfile' in sys.modules, code)\n")
    run = subprocess.run([sys.executable, "-c", program], cwd=demo, capture_output=True, text=True,
                         env={**env, "PORTLINT_WORKERS": "1"})
    assert run.stdout.split()[-2:] == ["False", "0"], run.stdout + run.stderr
    (index,) = (p for p in (demo / cache.DIRECTORY).glob("*/*") if not p.name.startswith("run-"))
    assert json.loads(index.read_bytes())["files"]
    assert not [p for p in (demo / cache.DIRECTORY).rglob("*.tmp")]
    assert (demo / cache.DIRECTORY / ".gitignore").read_bytes() == b"# Automatically created by portlint.\n*\n"



def test_a_check_with_the_default_globs_never_imports_pathspec(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "serve.py").write_text("PORT = 8000\n")
    (tmp_path / "tests" / "test_serve.py").write_text("PORT = 8001\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    program = textwrap.dedent("""\
        import sys
        from portlint.cli import main
        code = main(["check", "--no-cache", "--exit-zero", "."])
        print("pathspec" in sys.modules, code)
    """)
    run = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True)
    assert run.stdout.split()[-2:] == ["False", "0"], run.stdout + run.stderr



def test_check_does_not_import_rich() -> None:
    code = "import sys, portlint.cli; sys.exit('rich' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0



def test_a_replay_imports_no_parser_and_no_record_library(demo: Path) -> None:
    """A replayed check imports neither click nor the engine, nor a parser or msgspec."""
    _in_git(demo)
    probe = textwrap.dedent("""\
        import sys
        from portlint.entry.command import main
        code = main(["check"])
        print(" ".join(sorted(sys.modules)), file=sys.stderr)
        sys.exit(code)
    """)
    runs = [subprocess.run([sys.executable, "-c", probe], cwd=demo, capture_output=True, text=True, env=_cached())
            for _ in range(2)]
    assert [run.returncode for run in runs] == [1, 1] and runs[0].stdout == runs[1].stdout
    imported = runs[1].stderr.split("\n")[-2].split()
    assert "click" not in imported and "portlint.engine" not in imported  # replayed
    heavy = ("msgspec", "ruamel", "pathspec", "re2", "jsonschema", "fastjsonschema", "ast", "tokenize")
    assert [name for name in imported if name.split(".")[0] in heavy] == []
