"""The warm path (portlint/entry/replay.py): a check whose inputs are unchanged replays the last
run's output byte for byte without importing the engine or click; every kind of input
change misses; entries that are corrupt, foreign or cannot be written change nothing."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from portlint import engine
from portlint.entry import replay as runcache
from portlint.speed import cache
from portlint.stages import discover

# Runs the entry point in a fresh process, then says whether the run was replayed: a hit
# imports neither the engine nor click (a miss needs both).
PROBE = """import json, sys
from portlint.entry.command import main
code = main(sys.argv[2:])
sys.stdout.flush(); sys.stderr.flush()
with open(sys.argv[1], "w") as marker:
    json.dump({"code": code, "hit": "portlint.engine" not in sys.modules and "click" not in sys.modules,
               "imported": sorted(sys.modules)}, marker)
sys.exit(code)
"""


class Run:
    def __init__(self, done: subprocess.CompletedProcess[bytes], probe: dict) -> None:
        self.stdout, self.stderr, self.returncode = done.stdout, done.stderr, done.returncode
        self.code, self.hit, self.imported = probe["code"], probe["hit"], probe["imported"]

    @property
    def output(self) -> tuple[bytes, bytes, int]:
        return self.stdout, self.stderr, self.code


@pytest.fixture
def repo(demo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo as a git repository (the warm path needs git's listing), cache on."""
    monkeypatch.delenv("PORTLINT_NO_CACHE", raising=False)
    subprocess.run(["git", "init", "-q"], cwd=demo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=demo, check=True)
    return demo


def check(root: Path, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> Run:
    marker = root.parent / "probe.json"
    environment = {name: value for name, value in os.environ.items() if name != "PORTLINT_NO_CACHE"}
    done = subprocess.run([sys.executable, "-c", PROBE, str(marker), "check", *args], cwd=cwd or root,
                          capture_output=True, env={**environment, **(env or {})})
    assert done.returncode == json.loads(marker.read_text())["code"], done.stderr
    return Run(done, json.loads(marker.read_text()))


def entries(root: Path) -> list[Path]:
    return sorted((root / cache.DIRECTORY).glob("*/run-*"))


# -- hits ---------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [(), ("--output-format", "json"), ("--output-format", "sarif"),
                                  ("--output-format", "github"), ("--statistics",), ("--show-fixes", "--unsafe-fixes"),
                                  ("--select", "PL1,PL3", "--ignore=PL102")])
def test_a_second_run_replays_the_first_byte_for_byte(repo: Path, args: tuple[str, ...]) -> None:
    cold = check(repo, *args)
    warm = check(repo, *args)
    assert not cold.hit and warm.hit
    assert warm.output == cold.output and cold.code == 1 and cold.stdout
    assert len(entries(repo)) == 1


@pytest.mark.slow
def test_exit_codes_and_quiet_are_replayed(repo: Path) -> None:
    for args, code in ((("--exit-zero",), 0), (("-q",), 1)):
        cold, warm = check(repo, *args), check(repo, *args)
        assert (cold.code, warm.code, warm.returncode) == (code, code, code) and warm.hit
        assert warm.output == cold.output
    clean = ("--select", "PL001")  # the demo parses: nothing to report
    assert check(repo, *clean).code == 0
    again = check(repo, *clean)
    assert again.hit and again.code == 0


@pytest.mark.slow
def test_the_same_as_without_the_cache(repo: Path) -> None:
    check(repo)
    assert check(repo).output == check(repo, "--no-cache").output


def test_an_output_file_is_written_again_on_a_hit(repo: Path) -> None:
    report = repo / "report.json"
    cold = check(repo, "--output-format", "json", "--output-file", "report.json")
    written = report.read_bytes()
    report.unlink()
    warm = check(repo, "--output-format", "json", "--output-file", "report.json")
    assert warm.hit and warm.output == cold.output and report.read_bytes() == written and json.loads(written)


# -- misses -------------------------------------------------------------------------------


@pytest.mark.slow
def test_every_kind_of_input_change_misses(repo: Path) -> None:
    first = check(repo)
    assert check(repo).hit
    (repo / ".git" / "info").mkdir(exist_ok=True)
    changes = [
        lambda: (repo / "ray.sub").write_bytes((repo / "ray.sub").read_bytes() + b"\n# edited\n"),  # a file edited
        lambda: (repo / "extra.yaml").write_text("server:\n  port: 9999\n"),  # a new untracked file
        lambda: (repo / "tools").mkdir() or (repo / "tools" / "run").write_text("#!/bin/sh\nserve --port 9998\n"),
        lambda: (repo / ".portlint.yaml").write_bytes((repo / ".portlint.yaml").read_bytes() + b"\n# edited\n"),
        lambda: (repo / ".git" / "info" / "exclude").write_text("extra.yaml\n"),  # git's view of the tree
        lambda: (repo / "tools" / "run").unlink(),
        lambda: (repo / ".git" / "info" / "exclude").write_text(".portlint-baseline\n"),
        lambda: (repo / ".portlint-baseline").write_text(  # the baseline, though git ignores it
            "PL101\tnemo_rl/distributed/ports.py\t0000000000000000:0\n"),
        lambda: (repo / ".portlint-baseline").write_text(""),
    ]
    for change in changes:
        change()
        miss = check(repo)
        assert not miss.hit and miss.output == check(repo, "--no-cache").output
        assert check(repo).hit  # and the new state is kept
    assert first.code == 1


@pytest.mark.slow
def test_a_symlink_is_its_target_and_what_it_holds(repo: Path) -> None:
    (repo / "ports").mkdir()
    (repo / "ports" / "a.yaml").write_text("server:\n  port: 8080\n")
    (repo / "ports" / "b.yaml").write_text("server:\n  port: 8081\n")
    (repo / "linked.yaml").symlink_to("ports/a.yaml")
    check(repo)
    assert check(repo).hit
    for change in (lambda: (repo / "ports" / "a.yaml").write_text("server:\n  port: 9090\n"),  # what it leads to
                   lambda: (repo / "linked.yaml").unlink() or (repo / "linked.yaml").symlink_to("ports/b.yaml")):
        change()
        miss = check(repo)
        assert not miss.hit and miss.output == check(repo, "--no-cache").output
        assert check(repo).hit


@pytest.mark.slow
def test_a_touched_file_is_a_run_then_a_hit_again(repo: Path) -> None:
    """The stored stamps only decide whether hashing may find a hit: a new modification
    time costs one run (the same output), never a replay of anything else."""
    first = check(repo)
    os.utime(repo / "ray.sub", ns=(1, 1))
    touched = check(repo)
    assert not touched.hit and touched.output == first.output
    assert check(repo).hit


def test_a_file_no_check_reads_is_not_an_input(repo: Path) -> None:
    check(repo)
    (repo / "notes.json").write_text('{"port": 1}\n')  # no extractor reads .json
    assert check(repo).hit


@pytest.mark.slow
def test_options_and_the_environment_are_part_of_the_key(repo: Path) -> None:
    check(repo)
    assert not check(repo, "--output-format", "json").hit
    assert not check(repo, env={"NO_COLOR": "1"}).hit
    assert not check(repo, env={"PORTLINT_WORKERS": "1"}).hit
    assert check(repo).hit and check(repo, "--output-format", "json").hit and check(repo, env={"NO_COLOR": "1"}).hit
    assert len(entries(repo)) == 4


def test_portlint_itself_and_its_dependencies_are_part_of_the_key(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    keys = []
    for change in (lambda: None, lambda: monkeypatch.setattr(cache, "_SOURCE_HASH", "edited"),
                   lambda: monkeypatch.setattr(runcache, "_distributions", lambda: "ruamel.yaml-99.dist-info")):
        change()
        warm = runcache.prepare(["check"])
        assert warm is not None and warm.hash_files()
        keys.append(warm.key)
    monkeypatch.setattr(runcache, "__version__", "99.0")
    other = runcache.prepare(["check"])
    assert other is not None and other.hash_files() and other.entry.parent.name == "99.0"
    assert len({*keys, other.key}) == 4


def test_a_terminal_is_another_invocation(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    piped = runcache.prepare(["check"])

    class Terminal:
        encoding, errors, buffer = "utf-8", "strict", sys.__stdout__

        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdout", Terminal())
    terminal = runcache.prepare(["check"])
    assert piped is not None and terminal is not None and piped.hash_files() and terminal.hash_files()
    assert piped.entry != terminal.entry and piped.key != terminal.key


@pytest.mark.slow
@pytest.mark.parametrize("args", [("--fix",), ("--diff",), ("--add-noqa",), ("--no-cache",), ("--show-settings",),
                                  ("--show-files",), ("--help",), ("--sellect", "PL1"), ("--select",), ("--", ".")])
def test_what_writes_or_prints_something_else_is_never_replayed(repo: Path, args: tuple[str, ...]) -> None:
    assert runcache.parse(list(args)) is None
    check(repo, *args)
    second = check(repo, *args)
    assert not second.hit and not entries(repo)


@pytest.mark.slow
def test_a_fix_is_applied_again_and_not_replayed(repo: Path) -> None:
    check(repo)
    assert check(repo, "--fix").code in (0, 1)
    after = check(repo)
    assert not after.hit  # the fix changed files: their new bytes are new inputs
    assert after.output == check(repo, "--no-cache").output


@pytest.mark.slow
def test_the_environment_switch_and_other_places_are_not_replayed(repo: Path) -> None:
    check(repo)
    assert not check(repo, env={"PORTLINT_NO_CACHE": "1"}).hit
    (repo / "sub").mkdir()
    (repo / "sub" / "x.yaml").write_text("port: 8080\n")
    check(repo, cwd=repo / "sub")
    assert not check(repo, cwd=repo / "sub").hit  # reporters look at files to show paths from there
    assert check(repo, "sub").code in (0, 1) and check(repo, "sub").hit  # a path from the root is fine


def test_outside_git_nothing_is_replayed(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PORTLINT_NO_CACHE", raising=False)
    check(demo)
    assert not check(demo).hit and not entries(demo)


# -- bad entries, bad folders, races --------------------------------------------------------


@pytest.mark.slow
def test_a_corrupt_or_foreign_entry_is_a_miss_and_is_rewritten(repo: Path) -> None:
    expected = check(repo).output
    (entry,) = entries(repo)
    good = json.loads(entry.read_bytes())
    for bad in (b"\x00 not json", b"[]", json.dumps({**good, "format": 99}).encode(),
                json.dumps({**good, "code": 2}).encode(), json.dumps({**good, "out": [[3, "x"]]}).encode(),
                json.dumps({**good, "out": [[1, "\u20ac"]]}).encode(), json.dumps({**good, "key": "other"}).encode()):
        entry.write_bytes(bad)
        miss = check(repo)
        assert not miss.hit and miss.output == expected
        assert json.loads(entry.read_bytes()) == good  # rewritten whole
        assert check(repo).hit


@pytest.mark.slow
def test_a_cache_folder_that_cannot_be_written_is_a_note(repo: Path) -> None:
    uncached = check(repo, "--no-cache")
    (repo / cache.DIRECTORY).write_text("a file where the cache folder would be\n")
    first, second = check(repo), check(repo)
    assert not first.hit and not second.hit and first.output == second.output
    assert first.stdout == uncached.stdout and first.code == uncached.code == 1
    assert b"portlint: .portlint_cache: not written (" in first.stderr


@pytest.mark.slow
def test_entries_are_written_through_a_temporary_and_a_rename(repo: Path) -> None:
    runs = [subprocess.Popen([sys.executable, "-m", "portlint", "check", "-q"], cwd=repo, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env={k: v for k, v in os.environ.items() if k != "PORTLINT_NO_CACHE"})
            for _ in range(4)]
    outputs = {run.communicate() for run in runs}
    assert len(outputs) == 1
    (entry,) = entries(repo)
    assert json.loads(entry.read_bytes())["format"] == runcache.FORMAT
    assert not list((repo / cache.DIRECTORY).rglob("*.tmp"))
    assert check(repo, "-q").hit and (check(repo, "-q").stdout, check(repo, "-q").stderr) == outputs.pop()


def test_a_file_changed_while_the_check_ran_is_never_replayed(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    """Whether the files were hashed before the run (an entry whose stamps match) or not (none yet),
    what a run whose file was edited while the engine ran printed is never replayed: the entry's
    key is the bytes the engine read, its stamps were taken before the edit."""
    from portlint.entry.command import main

    monkeypatch.chdir(repo)
    run, replay = engine.run, runcache.Warm.replay
    script = repo / "ray.sub"

    def editing(*args: object) -> engine.Outcome:
        outcome = run(*args)  # type: ignore[arg-type]
        script.write_bytes(script.read_bytes() + b"\n# edited while the check ran\n")
        return outcome

    def replayed() -> int | None:
        warm = runcache.prepare(["check"])
        assert warm is not None
        return warm.replay()

    monkeypatch.setattr(engine, "run", editing)
    assert main(["check"]) == 1
    assert replayed() is None  # no entry yet: the key is made after the run, from what it read
    monkeypatch.setattr(engine, "run", run)
    assert main(["check"]) == 1
    assert replayed() == 1  # the stamps match: hashed before the run, a hit
    monkeypatch.setattr(runcache.Warm, "replay", lambda self: None if self.hash_files() else None)  # hashed, no replay
    monkeypatch.setattr(engine, "run", editing)
    assert main(["check"]) == 1
    monkeypatch.setattr(runcache.Warm, "replay", replay)
    monkeypatch.setattr(engine, "run", run)
    assert replayed() is None
    assert main(["check"]) == 1  # the file as it is now: a run, then a hit
    assert replayed() == 1


def test_the_run_lists_what_was_hashed(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The listing the warm path hashed is the one the run reads, handed to it (and taken)."""
    monkeypatch.chdir(repo)
    warm = runcache.prepare(["check"])
    assert warm is not None and "ray.sub" in (warm.listed() or []) and not warm.taken
    handed = warm.handed()
    assert handed is not None and warm.taken and handed.files == warm.listing
    (repo / "new.sh").write_text("PORT=1\n")  # not in the listing handed over
    listing = discover.listing(repo, ["**/*"], [], discover.Listed(["ray.sub"], {}))
    assert [c.path for c in listing.files] == ["ray.sub"] and listing.by_git
    assert "new.sh" in [c.path for c in discover.listing(repo, ["**/*"], []).files]  # git's own, asked now


def test_git_lists_the_files_while_the_run_goes_on(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A git that lists nothing until told to (a file appears), and gives up after a while: the
    # listing is whole only if `prepare` returned without waiting for git to end.
    go = tmp_path / "go"
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True, check=True).stdout.strip()
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "git").write_text(f"#!/bin/sh\nfor i in $(seq 200); do [ -e {go} ] && exec {real} \"$@\"; sleep 0.05; done\nexit 1\n")
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(repo)
    warm = runcache.prepare(["check"])
    assert warm is not None and not warm.git.done and warm.replay() is None  # nothing stored: git not waited for
    go.touch()
    listing = warm.listed()
    assert listing is not None and "ray.sub" in listing and warm.stamps and warm.git.done


def test_the_sizes_the_stamps_found_are_the_ones_the_run_shares_its_work_by(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    warm = runcache.prepare(["check"])
    handed = warm.handed() if warm is not None else None
    assert handed is not None
    size = (repo / "ray.sub").stat().st_size
    listing = discover.listing(repo, ["**/*"], [], handed)
    assert handed.sizes["ray.sub"] == listing.size("ray.sub") == size
    (repo / "ray.sub").write_text("grown\n" * 100)
    assert listing.size("ray.sub") == size  # as stated, not asked again
    assert discover.listing(repo, ["**/*"], []).size("ray.sub") == (repo / "ray.sub").stat().st_size
    assert listing.size("no-such-file") == 0


def test_a_run_that_never_lists_reaps_git_and_stores_nothing(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    warm = runcache.prepare(["check"])
    assert warm is not None
    assert warm.record(lambda: 0) == 0
    assert warm.git.done and not warm.taken and entries(repo) == []


def test_a_file_name_that_is_not_utf8_is_listed_stamped_and_replayed(repo: Path) -> None:
    """git lists such a name with its bytes; the warm path's key used to refuse it with a traceback."""
    os.close(os.open(os.path.join(os.fsencode(repo), b"caf\xe9.sh"), os.O_CREAT | os.O_WRONLY))
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    cold, warm = check(repo), check(repo)
    assert b"Traceback" not in cold.stderr and cold.code in (0, 1) and not cold.hit
    assert warm.hit and warm.output == cold.output


def test_the_entry_point_is_the_warm_path() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+ (tomli before: not a test dependency)

    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert pyproject["project"]["scripts"]["portlint"] == "portlint.entry.command:run"


# -- the prefilter's decisions ----------------------------------------------------------------


def test_the_warm_path_reads_each_path_as_the_read_stage_does(tmp_path: Path) -> None:
    """The key's digest of a file is the digest of the bytes the read stage reads (one reader):
    a file, an empty file, a symlink to a file inside; a folder and a FIFO have none."""
    from portlint.stages.read import Read, read_file

    root = tmp_path / "repo"
    (root / "sub").mkdir(parents=True)
    (root / "a.sh").write_bytes(b"PORT=8000\n" * 5000)
    (root / "empty.sh").write_bytes(b"")
    (root / "link.sh").symlink_to("a.sh")
    os.mkfifo(root / "fifo.sh")
    for name in ("a.sh", "empty.sh", "link.sh"):
        token, digest = runcache._state(str(root / name))
        assert digest == cache.digest(read_file(root, name, False, bool).data or b"") and token.endswith(digest), name
    assert runcache._state(str(root / "link.sh"))[0].startswith("l a.sh ")
    assert runcache._state(str(root / "sub")) == ("f d", "") and read_file(root, "sub", False, bool).note == "a directory"
    assert runcache._state(str(root / "fifo.sh")) is None and read_file(root, "fifo.sh", False, bool).note == "not a regular file"
    assert runcache._state(str(root / "missing.sh")) == ("-", "") and read_file(root, "missing.sh", False, bool) == Read()
