"""Output never drives a terminal, and `init` writes only what it can write safely: every output
built from a repository's file names, keys or config escapes control characters as the text
report does (`portlint.report.printable`).

Each test reproduces a defect an adversarial campaign found (issue 39) in a fresh repository.
"""
from __future__ import annotations

import os
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


HOSTILE = "\x07\r\x1b]0;title\x07\x9b2J\u202e\u2028"  # BEL, CR, an OSC, a C1 CSI, a bidi override, a line separator


def _hostile_names(root: Path, config: bool) -> Path:
    """Names and a config that say HOSTILE: a file, and a key beside `master_port` on its port (PL202)."""
    root.mkdir()
    if config:
        (root / ".portlint.yaml").write_text(
            "bands:\n  master:\n    range: 1400-1999\n    description: \"x\\a\\r\\e[2J\\x9b\\u202e\"\n"
            "    sites: [master_port]\n"
        )
    (root / f"ports{HOSTILE}.yaml").write_text('master_port: 1500\n"evil\\a\\x9b\\u202e_port": 1500\n')
    (root / os.fsdecode(b"ports\x9b\xff.yaml")).write_text("master_port: 1500\n")  # not UTF-8: a raw 0x9b is a CSI
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.mark.parametrize("args", [
    ["--show-files"], ["--show-settings"], ["map"], ["map", "--svg", "../map.svg"], ["map", "--html", "../map.html"],
    ["init"],
], ids=" ".join)
def test_no_output_of_a_command_carries_a_control_character_of_a_file_name_or_a_config(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--show-files` printed file names raw (BEL, CR, C1 controls reached the terminal), as did
    `--show-settings`, the map and init; the text report already escaped them (report.printable)."""
    repo = _hostile_names(tmp_path / "repo", config=args == ["--show-settings"])
    monkeypatch.chdir(repo)
    code = main(args)
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    written = [path.read_text() for path in (tmp_path / "map.svg", tmp_path / "map.html", repo / ".portlint.yaml")
               if path.exists()]
    for shown in (out, err, *written):
        assert not _CONTROL.findall(shown.replace("\n", "")), shown
    assert "\\x9b" in out + "".join(written)  # escaped, not dropped
    if args == ["--show-files"]:
        assert "ports\\x9b\\xff.yaml" in out
