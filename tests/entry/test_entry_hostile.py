"""The entry points run none of the scanned code, an interrupt is quiet at any moment (exit 130,
one line, every file whole), and no worker outlives the command.

Each test reproduces a defect an adversarial campaign found (issue 39) in a fresh repository.
"""
from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from installed import PORTLINT


def test_python_dash_m_portlint_imports_no_module_of_the_repository_it_checks(tmp_path: Path) -> None:
    """`python -m` puts the working directory first on sys.path: a repository's `click.py` or
    `json.py` was imported in place of the real module (the `portlint` script never did)."""
    marker = tmp_path / "imported.marker"
    repo = tmp_path / "repo"
    repo.mkdir()
    trap = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    for module in ("click", "json", "re2", "msgspec", "fastjsonschema", "pathspec"):
        (repo / f"{module}.py").write_text(trap)
    (repo / "ports.yaml").write_text("master_port: 1500\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    done = subprocess.run([sys.executable, "-m", "portlint", "--no-cache"], cwd=repo, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    assert not marker.exists(), f"imported from the repository: {marker.read_text().split()}"


# -- interrupts are quiet, and no worker outlives its parent --------------------------------------
def _fixable_repo(root: Path) -> dict[str, bytes]:
    """Files `--fix` rewrites (PL301), enough of them to be interrupted while it reads or writes."""
    root.mkdir()
    (root / ".portlint.yaml").write_text("bands:\n  master:\n    range: 1400-1999\n    sites: [master_port]\n")
    files = {f"pkg{i // 40}/conf{i}.yaml": f"server:\n  master_port: {2000 + i}\n".encode() * 50 for i in range(200)}
    for name, data in files.items():
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_bytes(data)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    return files


@pytest.mark.slow
def test_ctrl_c_at_any_moment_exits_130_with_one_line_and_leaves_every_file_whole(tmp_path: Path) -> None:
    """^C early in a run printed a traceback (a KeyboardInterrupt during an import, before any
    handler existed) in about 1 of 8 interrupts, and an interrupted run exited 2."""
    repo = tmp_path / "repo"
    files = _fixable_repo(repo)
    fixed = {name: data.replace(b"master_port: ", b"master_port: 1400  # ").split(b"  # ")[0] for name, data in files.items()}
    rng = random.Random(12)
    # ^C at a moment of the run: as long as an uninterrupted one takes here (a fixed span would
    # let a faster machine or portlint finish first most of the time, and count few interrupts).
    started = time.monotonic()
    subprocess.run([PORTLINT, "--fix", "--no-cache"], cwd=repo, capture_output=True, check=False)
    span = time.monotonic() - started
    interrupted = 0
    for _ in range(30):
        for name, data in files.items():
            (repo / name).write_bytes(data)
        runs = subprocess.Popen([PORTLINT, "--fix", "--no-cache"], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)  # its own process group, as a terminal's foreground job
        time.sleep(rng.uniform(0.02, max(span, 0.05)))
        with contextlib.suppress(ProcessLookupError):
            os.killpg(runs.pid, signal.SIGINT)  # as the terminal sends ^C: to every process of the group
        out, err = runs.communicate(timeout=120)
        text = err.decode()
        if (runs.returncode == -signal.SIGINT and not text) or (
                "Traceback" in text and not re.search(r'File "[^"]*/portlint/[^"]*\.py"', text)):
            continue  # ^C came before a line of portlint ran (the interpreter's startup, its script's import)
        assert "Traceback" not in text and "Exception" not in text, text
        if runs.returncode == 130:  # the shell's status for SIGINT
            interrupted += 1
            assert [line for line in text.splitlines() if line] == ["portlint: aborted"], text
        else:
            assert runs.returncode in (0, 1), (runs.returncode, text)
        for name, data in files.items():  # each file whole: as it was, or fixed
            assert (repo / name).read_bytes() in (data, fixed[name]) or b"master_port: 1400\n" in (repo / name).read_bytes()
        assert not [p for p in repo.rglob("*.portlint")], "a temporary was left behind"
    assert interrupted >= 10, interrupted  # most of the interrupts land while it runs


def _processes_in_group(group: int) -> list[int]:
    """The live processes (not zombies) of a process group, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == group and fields[0] != "Z":
                    found.append(int(entry.name))
    return found


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_worker_dies_with_its_parent_when_the_parent_is_killed(tmp_path: Path) -> None:
    """A parent killed outright reaps nothing: its worker went on with its task (~1.7 s)."""
    for i in range(6):  # large files, each one task of a few seconds
        (tmp_path / f"ports{i}.py").write_text("".join(f"S{j}_PORT = {8000 + j % 1000}\n" for j in range(90_000)))
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    env = {**os.environ, "PORTLINT_WORKERS": "2"}
    parent = subprocess.Popen([PORTLINT, "--no-cache"], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=env, start_new_session=True)
    deadline = time.monotonic() + 30
    while len(_processes_in_group(parent.pid)) < 2:  # the worker is forked
        assert time.monotonic() < deadline and parent.poll() is None
        time.sleep(0.01)
    time.sleep(0.3)  # into its first task
    parent.kill()
    parent.wait()
    time.sleep(0.5)
    assert _processes_in_group(parent.pid) == []
