"""Output never drives a terminal, and `init` writes only what it can write safely: every output
built from a repository's file names, keys or config escapes control characters as the text
report does (`portlint.report.printable`).

Each test reproduces a defect an adversarial campaign found (issue 39) in a fresh repository.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from portlint.cli import main
from portlint.report import _CONTROL


def test_init_writes_no_key_of_a_file_names_choosing_and_no_raw_control_character(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder name holding a newline ended the comment that names near-identical files, and
    wrote YAML of its choosing into `.portlint.yaml` (a band without `inferred: true`)."""
    from ruamel.yaml import YAML

    body = "server:\n  master_port: 1500\n  name: a\n  other: b\n  more: c\n"
    for folder in ("a", "b\nbands:\n  evil:\n    port: 9999\n#", "c\x1b]0;title\x07\x85\u2028\u202e"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "conf.yaml").write_text(body)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    written = (tmp_path / ".portlint.yaml").read_text()
    config = YAML(typ="safe").load(written)
    assert set(config) == {"ephemeral_floor", "bands"} and set(config["bands"]) == {"master"}
    assert all(band["inferred"] is True for band in config["bands"].values())
    assert not _CONTROL.findall(written.replace("\n", "")), written
    assert "\x85" in config["bands"]["master"]["description"]  # the name itself, escaped only as YAML reads it back
    assert main(["--no-cache"]) in (0, 1) and "error" not in capsys.readouterr().err
