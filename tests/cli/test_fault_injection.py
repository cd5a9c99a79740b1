"""Fix safety under faults: every file ends wholly old or wholly new, and nothing is left behind.

Faults are injected where the writer touches the disk (the write, fsync, chmod,
the rename), by killing the process between the temporary file and the rename,
and by changing a file behind portlint's back. A read-only file is reported,
never half-written; mode, owner, line endings, BOM and final-newline state
survive a fix exactly.
"""
from __future__ import annotations

import errno
import os
import random
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from portlint.cli import main
from portlint.stages import write as writer

LAYOUT = b"""\
ephemeral_floor: 9000
bands:
  master:
    range: 1400-1999
    sites: [master_port_range_low, master_port_range_high, MASTER_PORT_RANGE_LOW, MASTER_PORT_RANGE_HIGH]
"""

# name -> (mode, bytes before, bytes after --fix): every layout of line endings, BOM and final newline.
FILES = {
    "a.yaml": (0o644, b"cluster:\n  master_port_range_low: 1500\n", b"cluster:\n  master_port_range_low: 1400\n"),
    "b-crlf-bom.yaml": (
        0o600,
        b"\xef\xbb\xbfcluster:\r\n  master_port_range_high: '2999'  # quoted\r\n",
        b"\xef\xbb\xbfcluster:\r\n  master_port_range_high: '1999'  # quoted\r\n",
    ),
    "c-no-final-newline.py": (0o640, b"MASTER_PORT_RANGE_LOW = 1500", b"MASTER_PORT_RANGE_LOW = 1400"),
    "d-executable.sbatch": (
        0o755,
        b"#!/bin/bash\r\nexport MASTER_PORT_RANGE_HIGH=${MASTER_PORT_RANGE_HIGH:-2999}\r\n\r\n",
        b"#!/bin/bash\r\nexport MASTER_PORT_RANGE_HIGH=${MASTER_PORT_RANGE_HIGH:-1999}\r\n\r\n",
    ),
    "e-setgid-mixed-endings.sh": (
        0o2775,
        b"x=1\rMASTER_PORT_RANGE_LOW=1500\r\nMASTER_PORT_RANGE_HIGH=2999\n",
        b"x=1\rMASTER_PORT_RANGE_LOW=1400\r\nMASTER_PORT_RANGE_HIGH=1999\n",
    ),
}
OLD = {name: before for name, (_, before, _) in FILES.items()}
NEW = {name: after for name, (_, _, after) in FILES.items()}


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / ".portlint.yaml").write_bytes(LAYOUT)
    for name, (mode, before, _) in FILES.items():
        (root / name).write_bytes(before)
        os.chmod(root / name, mode)
    return root


def contents(root: Path) -> dict[str, bytes]:
    return {name: (root / name).read_bytes() for name in FILES}


def leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*") if p.name.endswith(".portlint"))  # writer temporaries


def assert_each_wholly_old_or_new(root: Path) -> dict[str, str]:
    state = {}
    for name, data in contents(root).items():
        assert data in (OLD[name], NEW[name]), f"{name} is neither its old nor its new bytes: {data!r}"
        state[name] = "new" if data == NEW[name] and data != OLD[name] else "old"
    return state


def fix(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    monkeypatch.chdir(root)
    capsys.readouterr()
    code = main(["--fix"])
    out, err = capsys.readouterr()
    assert "internal error" not in err
    return code, out + err


def test_a_clean_fix_keeps_mode_line_endings_bom_and_final_newline_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "repo")
    code, _ = fix(root, monkeypatch, capsys)
    assert code == 0
    assert contents(root) == NEW
    for name, (mode, _, _) in FILES.items():
        assert stat.S_IMODE((root / name).stat().st_mode) == mode, name
    assert leftovers(root) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file away")
def test_a_fix_run_by_root_keeps_the_owner_of_a_users_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "repo")
    os.chown(root / "a.yaml", 12345, 23456)
    fix(root, monkeypatch, capsys)
    status = (root / "a.yaml").stat()
    assert (status.st_uid, status.st_gid) == (12345, 23456)
    assert (root / "a.yaml").read_bytes() == NEW["a.yaml"]


def _failing_for(target: str, real, fault: OSError, opened: dict[int, str]):  # noqa: ANN001, ANN202 - wraps os functions of any shape
    """`real`, except that it raises `fault` when it acts on a file whose path contains `target`
    (a descriptor is known by the path `opened` recorded for it)."""

    def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        paths = [str(a) for a in args if isinstance(a, (str, os.PathLike))]
        paths += [opened[a] for a in args if isinstance(a, int) and a in opened]
        if any(target in p for p in paths):
            raise fault
        return real(*args, **kwargs)

    return wrapper


def _recording(real, opened: dict[int, str]):  # noqa: ANN001, ANN202
    """`os.open`, with the path of every descriptor it gives recorded (mkstemp opens with it)."""

    def wrapper(path, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        descriptor = real(path, *args, **kwargs)
        opened[descriptor] = os.fsdecode(path)
        return descriptor

    return wrapper


@pytest.mark.parametrize("where", ["replace", "fsync", "chmod"])
def test_a_write_that_fails_leaves_that_file_old_the_others_new_and_no_temporary(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "repo")
    fault = OSError(errno.ENOSPC, "No space left on device")
    opened: dict[int, str] = {}
    monkeypatch.setattr(os, "open", _recording(os.open, opened))
    monkeypatch.setattr(os, where, _failing_for("b-crlf-bom.yaml", getattr(os, where), fault, opened))
    code, output = fix(root, monkeypatch, capsys)
    assert code == 1
    assert "b-crlf-bom.yaml: not written: No space left on device" in output
    assert assert_each_wholly_old_or_new(root) == {name: "old" if name == "b-crlf-bom.yaml" else "new" for name in FILES}
    assert leftovers(root) == []


class _HalfThenFull:
    """A file object that writes half of what it is given, then fails: a disk filling up."""

    def __init__(self, handle) -> None:  # noqa: ANN001
        self.handle = handle

    def write(self, data: bytes) -> int:
        self.handle.write(data[: len(data) // 2])
        self.handle.flush()
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self.handle, name)

    def __enter__(self) -> _HalfThenFull:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()


def test_a_half_written_temporary_never_replaces_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "repo")
    real_fdopen = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: _HalfThenFull(real_fdopen(fd, *a, **k)))
    code, output = fix(root, monkeypatch, capsys)
    assert code == 1 and output.count("not written: No space left on device") == len(FILES)
    assert contents(root) == OLD
    assert leftovers(root) == []


def test_an_interrupt_during_the_write_leaves_the_file_old_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "c.yaml"
    target.write_bytes(b"port: 1\n")

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fsync", interrupted)
        with pytest.raises(KeyboardInterrupt):
            writer.write_atomic(target, b"port: 2\n")
    assert target.read_bytes() == b"port: 1\n"
    assert os.listdir(tmp_path) == ["c.yaml"]


def test_a_read_only_file_is_reported_and_left_whole_even_for_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "repo")
    os.chmod(root / "a.yaml", 0o444)
    code, output = fix(root, monkeypatch, capsys)
    assert code == 1
    assert "a.yaml: not written: file is read-only" in output
    assert assert_each_wholly_old_or_new(root) == {name: "old" if name == "a.yaml" else "new" for name in FILES}
    assert stat.S_IMODE((root / "a.yaml").stat().st_mode) == 0o444
    assert leftovers(root) == []


def test_a_file_changed_on_disk_during_the_fix_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "repo")
    edited = b"cluster:\n  master_port_range_low: 1500\n  added_by_the_user: true\n"
    real_fsync = os.fsync

    def someone_edits_a_yaml(fd: int) -> None:  # runs after portlint read the file, before it replaces it
        real_fsync(fd)
        if (root / "a.yaml").read_bytes() == OLD["a.yaml"]:
            (root / "a.yaml").write_bytes(edited)

    monkeypatch.setattr(os, "fsync", someone_edits_a_yaml)
    code, output = fix(root, monkeypatch, capsys)
    assert code == 1 and "a.yaml: not written: changed on disk since it was read" in output
    assert (root / "a.yaml").read_bytes() == edited
    assert leftovers(root) == []


# -- killed between the temporary file and the rename ------------------------------
_KILLED_AT = """
import os, sys
from portlint.cli import main
calls = {"n": 0}
real = getattr(os, sys.argv[1])
def die(*args, **kwargs):
    calls["n"] += 1
    if calls["n"] == int(sys.argv[2]):
        os._exit(137)  # no cleanup, no finally: as if the process were killed here
    return real(*args, **kwargs)
setattr(os, sys.argv[1], die)
sys.exit(main(["--fix", "--quiet"]))
"""


# (the call to die in, its count, files already replaced): fsync runs twice a file (the
# temporary, then the directory after the rename), the rename once.
KILL_POINTS = [("replace", 1, 0), ("replace", 3, 2), ("fsync", 1, 0), ("fsync", 3, 1)]


@pytest.mark.slow
@pytest.mark.parametrize(("where", "nth", "replaced"), KILL_POINTS, ids=[f"{w}-call-{n}" for w, n, _ in KILL_POINTS])
def test_a_process_killed_mid_write_leaves_whole_files_and_the_next_run_cleans_up(
    where: str, nth: int, replaced: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = make_repo(tmp_path / "repo")
    done = subprocess.run([sys.executable, "-c", _KILLED_AT, where, str(nth)], cwd=root, capture_output=True, timeout=120)
    assert done.returncode == 137, done.stderr
    state = assert_each_wholly_old_or_new(root)
    assert list(state.values()).count("new") == replaced  # files are written in order
    assert len(leftovers(root)) == 1  # the killed run's temporary, named after its process
    code, _ = fix(root, monkeypatch, capsys)
    assert code == 0 and contents(root) == NEW
    assert leftovers(root) == [], "the next run did not remove the dead run's temporary"


@pytest.mark.slow
def test_sigkill_at_random_moments_never_leaves_a_torn_file(tmp_path: Path) -> None:
    """Real SIGKILLs at random times during `--fix` over many files; then one clean run finishes the job."""
    root = make_repo(tmp_path / "repo")
    for index in range(150):
        (root / f"many-{index:03}.yaml").write_bytes(OLD["a.yaml"])
    rng = random.Random(6)
    for _ in range(6):
        process = subprocess.Popen([sys.executable, "-m", "portlint.cli", "--fix", "--quiet"], cwd=root,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.2, 1.2))
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert_each_wholly_old_or_new(root)
        for index in range(150):
            assert (root / f"many-{index:03}.yaml").read_bytes() in (OLD["a.yaml"], NEW["a.yaml"])
    done = subprocess.run([sys.executable, "-m", "portlint.cli", "--fix", "--quiet"], cwd=root, timeout=120)
    assert done.returncode == 0
    assert contents(root) == NEW and leftovers(root) == []


def test_a_leftover_of_a_live_process_or_another_file_is_never_removed(tmp_path: Path) -> None:
    target = tmp_path / "a.yaml"
    target.write_bytes(b"port: 1\n")
    live = tmp_path / f".a.yaml.{os.getppid()}.abcd1234.portlint"  # our parent is alive
    other = tmp_path / ".a.yaml.1.yaml.99999999.zzzz.portlint"  # a temporary of `a.yaml.1.yaml`
    unrelated = tmp_path / ".a.yaml.notes"
    for path in (live, other, unrelated):
        path.write_bytes(b"")
    writer.write_atomic(target, b"port: 2\n")
    assert sorted(os.listdir(tmp_path)) == sorted(p.name for p in (target, live, other, unrelated))


# -- fixes that never settle --------------------------------------------------------
class _FlipFlop:
    """A rule whose fix flips a literal between two values forever (a stand-in for two
    rules that disagree): the engine must give up, write nothing and claim no fix."""

    CODE, NAME, NEEDS_LAYOUT = "PL301", "layout-drift", False

    @staticmethod
    def check(layout):  # noqa: ANN001, ANN205
        from portlint.model.edits import Edit, Fix
        from portlint.model.problems import Problem

        for site in layout.sites:
            if site.path == "a.yaml":
                other = b"1600" if site.value == 1500 else b"1500"
                yield Problem(site.path, site.line, site.column, "PL301", "flip", Fix((Edit(site.start, site.end, other),)))


def test_fixes_that_do_not_converge_leave_the_file_as_it_was_and_count_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import portlint.rules

    root = tmp_path / "repo"
    root.mkdir()
    (root / ".portlint.yaml").write_bytes(LAYOUT)  # PL301's code: enabled under a layout
    (root / "a.yaml").write_bytes(b"master_port: 1500\n")
    monkeypatch.setattr(portlint.rules, "CHECKS", (_FlipFlop,))  # the rules the engine runs
    code, output = fix(root, monkeypatch, capsys)
    assert (root / "a.yaml").read_bytes() == b"master_port: 1500\n"
    assert "a.yaml: fixes did not converge" in output
    assert "Fixed" not in output, output
    assert code == 1 and leftovers(root) == []
