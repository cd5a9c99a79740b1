"""Every byte change goes through edits.apply; every write through writer.write_atomic."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from portlint.model.edits import Edit, Fix
from portlint.stages import write as writer
from portlint.stages.fix import OverlappingEdits, apply, compatible


def test_apply_splices_edits_in_any_order_and_keeps_every_other_byte() -> None:
    source = b"a: 1400\r\nb: '1999'  # keep\r\n"
    edits = [Edit(13, 17, b"2999"), Edit(3, 7, b"2000")]
    assert apply(source, edits) == b"a: 2000\r\nb: '2999'  # keep\r\n"


def test_apply_refuses_overlapping_or_out_of_range_edits() -> None:
    with pytest.raises(OverlappingEdits):
        apply(b"0123456789", [Edit(1, 5, b"x"), Edit(4, 6, b"y")])
    with pytest.raises(OverlappingEdits):
        apply(b"0123", [Edit(2, 9, b"x")])


def test_compatible_keeps_the_first_of_two_overlapping_fixes() -> None:
    first, clash, later = Fix((Edit(0, 4, b"a"),)), Fix((Edit(2, 6, b"b"),)), Fix((Edit(6, 8, b"c"),))
    assert compatible([first, clash, later]) == [first, later]


def test_write_atomic_replaces_the_bytes_and_keeps_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "ray.sub"
    target.write_bytes(b"old")
    target.chmod(0o751)
    writer.write_atomic(target, b"new\r\n")
    assert target.read_bytes() == b"new\r\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert os.listdir(tmp_path) == ["ray.sub"]


def test_write_atomic_writes_through_a_symlink_and_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.yaml"
    real.write_bytes(b"port: 1\n")
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    writer.write_atomic(link, b"port: 2\n")
    assert link.is_symlink() and real.read_bytes() == b"port: 2\n"


def test_write_atomic_refuses_a_read_only_file_even_as_root(tmp_path: Path) -> None:
    target = tmp_path / "frozen.yaml"
    target.write_bytes(b"port: 1\n")
    target.chmod(0o444)
    with pytest.raises(PermissionError):
        writer.write_atomic(target, b"port: 2\n")
    assert target.read_bytes() == b"port: 1\n"


def test_a_failing_write_leaves_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "c.yaml"
    target.write_bytes(b"port: 1\n")

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        writer.write_atomic(target, b"port: 2\n")
    assert target.read_bytes() == b"port: 1\n"
    assert os.listdir(tmp_path) == ["c.yaml"]
