"""No input crashes the run: a file nested deeper than its parser should recurse is one PL001
that says so (or a skip with a note), never a signal or an internal error, and the rest of the
repository is checked.

Each test reproduces a defect an adversarial campaign found (issue 39) in a fresh repository.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from installed import PORTLINT

from portlint.cli import main
from portlint.model.naming import NameFilter
from portlint.stages.perfile import extract_file

DEEPER = 40_000  # levels: ruamel.yaml.clib's composer overflowed the C stack at ~25,000 (SIGSEGV)
DEEP_FILES = {
    "flow-sequences.yaml": b"deep: " + b"[" * DEEPER + b"]" * DEEPER + b"\n",
    "flow-mappings.yaml": b"deep: " + b"{a: " * DEEPER + b"1" + b"}" * DEEPER + b"\n",
    "block-sequences.yaml": b"deep:\n" + b"- " * DEEPER + b"1\n",
}


@pytest.mark.parametrize("name", sorted(DEEP_FILES))
def test_yaml_nested_40000_deep_is_one_parse_error_not_a_segfault(name: str, tmp_path: Path) -> None:
    """A run is a process: a segfault in one file lost every other file's problems (exit 139)."""
    (tmp_path / name).write_bytes(b"master_port: 1500\n" + DEEP_FILES[name])
    (tmp_path / "good.yaml").write_bytes(b"master_port: 40000\n")  # PL101
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    done = subprocess.run([PORTLINT, "--no-cache", "--output-format", "json"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1, (done.returncode, done.stderr)
    problems = {(p["path"], p["code"], p["message"]) for p in json.loads(done.stdout)}
    assert (name, "PL001", "cannot check this file: YAML nested deeper than 500 levels") in problems
    assert any(path == "good.yaml" for path, _, _ in problems)  # the rest is checked


@pytest.mark.parametrize("shape", ["flow", "block"])
def test_a_frozen_source_nested_too_deep_is_a_parse_error_at_the_source(shape: str, tmp_path: Path) -> None:
    deep = b"[" * DEEPER + b"]" * DEEPER if shape == "flow" else b"\n" + b"- " * DEEPER + b"1"
    (tmp_path / "tests").mkdir()
    (tmp_path / "a.yaml").write_bytes(b"master_port: 1500\ndeep: " + deep + b"\n")
    (tmp_path / "tests" / "a.yaml").write_bytes(b"master_port: 1500\n")
    (tmp_path / ".portlint.yaml").write_text('frozen:\n  - copies: "tests/*.yaml"\n    source: "{name}"\n')
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    done = subprocess.run([PORTLINT, "--no-cache", "--output-format", "json"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert [p["message"] for p in json.loads(done.stdout) if p["path"] == "a.yaml"] == [
        "cannot check this file: YAML nested deeper than 500 levels"]


def test_a_frozen_pair_nested_just_under_the_bound_is_checked_without_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below the composer's bound, the walks over a frozen pair's nodes recurse a frame a level:
    at 990 levels that was past Python's recursion limit, an internal error."""
    from portlint.stages.extract.yaml import MAX_DEPTH

    deep = b"master_port: 1500\ndeep: " + b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1) + b"\n"
    (tmp_path / "tests").mkdir()
    (tmp_path / "a.yaml").write_bytes(deep)
    (tmp_path / "tests" / "a.yaml").write_bytes(deep)
    (tmp_path / ".portlint.yaml").write_text('frozen:\n  - copies: "tests/*.yaml"\n    source: "{name}"\n')
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    assert main(["--no-cache"]) == 0
    assert "error" not in capsys.readouterr().err


def test_python_nested_past_the_parsers_limits_is_a_parse_error_that_says_so() -> None:
    """ast raises MemoryError, without a message, on 100,000 unary minuses: the PL001 said nothing."""
    state = extract_file("a.py", "python", b"master_port = " + b"-" * 100_000 + b"1\n", NameFilter())
    assert state.extraction.error == "invalid Python: nested too deeply to parse"
