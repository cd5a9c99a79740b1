"""Nothing outside the work tree is read as the repository's, or written: a tracked folder
replaced by a symlink to a folder outside keeps its files in git's listing.

Each test reproduces a defect an adversarial campaign found (issue 39) in a fresh repository.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from portlint.cli import main
from portlint.stages import write


def test_fix_neither_reads_nor_writes_through_a_tracked_folder_replaced_by_a_symlink_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / "conf").mkdir(parents=True)
    (repo / ".portlint.yaml").write_text("bands:\n  master:\n    range: 1400-1999\n    sites: [master_port_low]\n")
    (repo / "ports.yaml").write_text("master_port_low: 1400\n")  # the selector matches a site inside
    (repo / "conf" / "a.yaml").write_text("master_port_low: 1400\n")
    (repo / "conf" / "run").write_text("#!/bin/sh\nMASTER_PORT_LOW=1400\n")  # a script known by its shebang
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    outside.mkdir()
    secret = {"a.yaml": b"master_port_low: 2500\n", "run": b"#!/bin/sh\nMASTER_PORT_LOW=2500\n"}
    for name, data in secret.items():
        (outside / name).write_bytes(data)
    shutil.rmtree(repo / "conf")
    (repo / "conf").symlink_to(outside)
    monkeypatch.chdir(repo)
    for args in ([], ["--fix"]):
        assert main(["--no-cache", *args]) == 0
        out, err = capsys.readouterr()
        assert "PL301" not in out
        assert err == "portlint: conf/a.yaml: skipped: a symlink leading outside the repository\n", err
    assert {name: (outside / name).read_bytes() for name in secret} == secret


def test_a_folder_linked_to_another_folder_inside_is_read_as_usual(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "a.yaml").write_text("master_port: 40000\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], check=True)
    (tmp_path / "conf").rename(tmp_path / "real")
    (tmp_path / "conf").symlink_to(tmp_path / "real")
    monkeypatch.chdir(tmp_path)
    assert main(["--no-cache", "--output-format", "json"]) == 1
    out, err = capsys.readouterr()
    assert [(item["path"], item["code"]) for item in json.loads(out)] == [("conf/a.yaml", "PL101"), ("real/a.yaml", "PL101")]
    assert err == ""


def test_the_writer_refuses_a_file_whose_folder_became_a_symlink_out_after_it_was_read(tmp_path: Path) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / "conf").mkdir(parents=True)
    outside.mkdir()
    (outside / "a.yaml").write_bytes(b"master_port_low: 2500\n")
    (repo / "conf").rmdir()
    (repo / "conf").symlink_to(outside)
    with pytest.raises(PermissionError, match="a symlink leading outside the repository"):
        write.write_atomic(repo / "conf" / "a.yaml", b"master_port_low: 1400\n", root=repo)
    assert (outside / "a.yaml").read_bytes() == b"master_port_low: 2500\n"
