"""The content cache (.portlint_cache/): hits give the same output, bad entries are ignored and rewritten,
an unwritable cache is a note, and a change of portlint or of the config's names misses."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import msgspec
import pytest
from conftest import copy_repo
from installed import PORTLINT

from portlint import engine
from portlint.cli import main
from portlint.config.load import load_config
from portlint.config.locate import find_config
from portlint.engine import Options, run
from portlint.model.extraction import Extraction
from portlint.speed import cache
from portlint.stages import perfile

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"


FIXTURES = DEMO.parent
CASES = sorted(p for p in FIXTURES.glob("PL*/*/repo") if p.is_dir())


@pytest.fixture(autouse=True)
def cache_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite turns the cache off (tests/conftest.py); these tests are about it."""
    monkeypatch.delenv("PORTLINT_NO_CACHE", raising=False)


@pytest.fixture
def extracted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the per-file stage computed (not taken from the cache), in order: in this
    process, which does every one (no pool: a worker's calls would not be counted here)."""
    monkeypatch.setenv("PORTLINT_WORKERS", "1")
    calls: list[str] = []
    real = perfile.extract_file

    def counting(path: str, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        calls.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(perfile, "extract_file", counting)
    return calls


def _run(root: Path, **options: object) -> engine.Outcome:
    config = load_config(find_config(root), root)
    return run(config, Options(cache=True, **options))  # type: ignore[arg-type]


def _index(root: Path) -> Path:
    (found,) = (p for p in (root / cache.DIRECTORY).glob("*/*") if not p.name.startswith("run-"))  # a CLI run's entry
    return found


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {name: value for name, value in os.environ.items() if name != "PORTLINT_NO_CACHE"}
    return subprocess.run([PORTLINT, "check", *args], cwd=root, capture_output=True, text=True, env=env)


def test_a_warm_run_computes_nothing_and_reports_the_same(demo: Path, extracted: list[str]) -> None:
    cold = _run(demo)
    assert extracted and (demo / cache.DIRECTORY / ".gitignore").read_text().splitlines()[-1] == "*"
    extracted.clear()
    warm = _run(demo)
    assert extracted == []
    assert warm.problems == cold.problems and warm.notes == cold.notes
    assert warm.problems == run(load_config(find_config(demo), demo), Options()).problems


@pytest.mark.slow
def test_the_cli_output_is_the_same_cold_warm_and_without_the_cache(demo: Path) -> None:
    cold = _cli(demo, "--output-format", "json")
    assert (demo / cache.DIRECTORY).is_dir()
    warm = _cli(demo, "--output-format", "json")
    uncached = _cli(demo, "--output-format", "json", "--no-cache")
    assert cold.returncode == warm.returncode == uncached.returncode == 1
    assert cold.stdout == warm.stdout == uncached.stdout and json.loads(cold.stdout)
    assert cold.stderr == warm.stderr == uncached.stderr


def test_only_a_changed_file_is_extracted_again(demo: Path, extracted: list[str]) -> None:
    _run(demo)
    script = demo / "ray.sub"
    script.write_bytes(script.read_bytes() + b"\n# one more line\n")
    extracted.clear()
    again = _run(demo)
    assert extracted == ["ray.sub"]
    assert again.problems == run(load_config(find_config(demo), demo), Options()).problems


def test_the_suites_copies_of_a_fixture_leave_the_cache_of_a_run_in_it_behind(tmp_path: Path) -> None:
    """The README's first command, `portlint fixtures/demo`, leaves a cache in the fixture; a copy
    that carried it held a second index, and the test below failed after that command."""
    fixture = tmp_path / "fixture"
    copy_repo(DEMO, fixture)
    assert _cli(fixture).returncode == 1 and (fixture / cache.DIRECTORY).is_dir()
    copy = tmp_path / "copy"
    copy_repo(fixture, copy)
    assert not (copy / cache.DIRECTORY).exists()
    _run(copy)
    assert _index(copy).is_file()  # the one index of this run


def test_a_corrupt_index_is_ignored_and_rewritten(demo: Path, extracted: list[str]) -> None:
    expected = _run(demo).problems
    index = _index(demo)
    index.write_bytes(b'{"format": 1, "salt": "\x00 not json')
    extracted.clear()
    assert _run(demo).problems == expected
    assert extracted  # computed again
    assert json.loads(index.read_bytes())["files"]  # and rewritten whole
    extracted.clear()
    assert _run(demo).problems == expected and extracted == []


def test_a_foreign_entry_is_ignored_and_never_runs_code(demo: Path, extracted: list[str], tmp_path: Path) -> None:
    expected = _run(demo).problems
    index = _index(demo)
    stored = json.loads(index.read_bytes())
    marker = tmp_path / "ran"
    path, (key, _) = next(iter(stored["files"].items()))
    stored["files"][path] = [key, ["@os:system", f"touch {marker}"]]  # not a result: the old codec's tag of a callable
    other, (other_key, _) = list(stored["files"].items())[1]
    stored["files"][other] = [other_key, [{"sites": [{"path": "a.yaml", "line": 1}]}, None]]  # a site without its fields
    index.write_text(json.dumps(stored))
    extracted.clear()
    assert _run(demo).problems == expected
    assert sorted(extracted) == sorted([path, other]) and not marker.exists()
    rewritten = json.loads(index.read_bytes())["files"]
    assert rewritten[path][1][0] != "@os:system"


def test_a_cache_that_cannot_be_written_is_a_note_and_the_run_goes_on(demo: Path) -> None:
    (demo / cache.DIRECTORY).write_text("a file where the cache directory would be\n")
    uncached = _cli(demo, "--no-cache")
    result = _cli(demo)
    assert result.returncode == uncached.returncode == 1
    assert result.stdout == uncached.stdout
    (note,) = [line for line in result.stderr.splitlines() if line not in uncached.stderr.splitlines()]
    assert note.startswith("portlint: .portlint_cache: not written (") and note.endswith("); the run went on without the cache")


def test_a_new_portlint_or_new_names_miss(demo: Path, extracted: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    _run(demo)
    count = len(extracted)
    extracted.clear()
    monkeypatch.setattr(cache, "__version__", "99.0")
    _run(demo)
    assert len(extracted) == count
    extracted.clear()
    monkeypatch.setattr(cache, "_SOURCE_HASH", "edited")  # portlint's own source changed
    _run(demo)
    assert len(extracted) == count
    assert cache.salt(["a"]) != cache.salt(["b"]) != cache.salt([])  # the config's selector names


@pytest.mark.slow
def test_no_cache_and_the_environment_variable_write_nothing(demo: Path) -> None:
    assert _cli(demo, "--no-cache").returncode == 1
    assert not (demo / cache.DIRECTORY).exists()
    env_run = subprocess.run([PORTLINT, "check"], cwd=demo, capture_output=True, text=True,
                             env={**os.environ, "PORTLINT_NO_CACHE": "1"})
    assert env_run.returncode == 1 and not (demo / cache.DIRECTORY).exists()
    assert run(load_config(find_config(demo), demo), Options()).problems  # the library default: no cache
    assert not (demo / cache.DIRECTORY).exists()


def test_clean_removes_the_cache(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _cli(demo)
    assert (demo / cache.DIRECTORY).is_dir()
    assert main(["clean"]) == 0
    assert not (demo / cache.DIRECTORY).exists()
    assert main(["clean"]) == 0
    assert capsys.readouterr().out.splitlines() == ["Removed .portlint_cache", "No cache at .portlint_cache"]


def test_the_cache_is_invisible_to_git(demo: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=demo, check=True)
    _cli(demo)
    assert (demo / cache.DIRECTORY).is_dir()
    listed = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=demo,
                            capture_output=True, text=True, check=True).stdout
    assert cache.DIRECTORY not in listed


def test_after_a_fix_the_cache_holds_the_fixed_files(demo: Path, extracted: list[str]) -> None:
    fixed = _run(demo, fix=True)
    assert fixed.changed
    extracted.clear()
    after = _run(demo)
    assert extracted == []  # every file as written is cached
    assert after.problems == run(load_config(find_config(demo), demo), Options()).problems


def test_a_diff_run_caches_the_files_as_they_are_on_disk(demo: Path, extracted: list[str]) -> None:
    diff = _run(demo, fix=True, write=False)
    assert diff.changed
    extracted.clear()
    after = _run(demo)
    assert extracted == []
    assert after.problems == run(load_config(find_config(demo), demo), Options()).problems


@pytest.mark.slow
def test_concurrent_runs_leave_a_whole_index(demo: Path) -> None:
    env = {name: value for name, value in os.environ.items() if name != "PORTLINT_NO_CACHE"}
    runs = [subprocess.Popen([PORTLINT, "check", "-q"], cwd=demo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
            for _ in range(4)]
    outputs = {run.communicate()[0] for run in runs}
    assert len(outputs) == 1
    assert json.loads(_index(demo).read_bytes())["files"]
    assert not [p for p in (demo / cache.DIRECTORY).rglob("*.tmp")]


def test_a_result_is_read_back_as_it_was_written_to_the_type_it_is(tmp_path: Path) -> None:
    """msgspec's JSON of a result, decoded to the type the caller names: records, tuples, lists,
    sets, mappings and the analyses' exports (tagged values, tuples as set members) come back equal."""
    from portlint.analysis.sockets.imports import Export
    from portlint.analysis.sockets.values import CANDIDATE, ZERO, Num, Param, Sock, Tup, numeric
    from portlint.model.extraction import Bound, Facts, HandedOn, Launcher, PortHandOff, Released, RepeatedStart, Spot, Suppression
    from portlint.model.frozen import Scalar, Tree
    from portlint.model.sites import Command, Site
    from portlint.stages.perfile import RESULT

    site = Site("a.yaml", 1, 2, 3, 7, "yaml", "x.port", 8080, aliases=("y",))
    tree = Tree({"x.port": Scalar("a.yaml", 1, 2, 3, 7, "8080", "")}, {"x": (1, 1)}, frozenset({"x"}), ("a.yaml",))
    export = Export("free_port", ("port",), ((0, frozenset({Param(0), CANDIDATE})),), frozenset({Num(("x", 0)), Tup((frozenset({ZERO}),))}),
                    ((("x", 0), ("zero", ("param", 1)), True),), ((0, ("chosen", ("param", 0))),), (0,), (), (0,), ((0, True),))
    spot = Spot(3, 5, 3, 20)
    handoff = PortHandOff("free", Bound(spot, "zero", "bind"), Released(Spot(4, 5, 4, 14), "close"), HandedOn(None, "return"))
    start = RepeatedStart(spot, "sweep", "a vLLM engine", "engine", 8000, "port=", 2, "for", 1, per_text="config")
    facts = Facts((handoff,), (start,), (export,), (Launcher("serve", "vllm serve", "server", 8000),), ("stop",))
    value = (Extraction((site,), (Suppression(1, 1, ("PL101",), 0, 5),), commands=(Command("a.sh", 1, 1, ("ray",)),),
                        sockets=facts), (tree, ["base.yaml"]))
    store = cache.Cache(tmp_path, "salt", RESULT)
    store.put("a.yaml", "k", value)
    assert store.save() == ""
    again = cache.Cache(tmp_path, "salt", RESULT)
    decoded = perfile._read_back(again.get("a.yaml", "k"))
    assert decoded == value and again.get("a.yaml", "other") is None
    read_back = decoded[0].sockets.exports[0]
    assert numeric(dict(read_back.defaults)[0]) == numeric(dict(export.defaults)[0]) == {CANDIDATE}  # the same marker
    assert Sock(("x", 0)) in {Sock(sid) for sid, _, _ in read_back.returned_socks}  # a sid read back as a tuple
    foreign = (Extraction(sockets=Facts(exports=(msgspec.Raw(b'{"name": "f"}'),))), None)  # an export without its fields
    assert perfile._read_back(foreign) is None  # computed again
    with pytest.raises(TypeError):
        cache.encode(object())


@pytest.mark.slow
def test_every_fixture_case_reports_the_same_cold_warm_and_uncached(tmp_path: Path, extracted: list[str]) -> None:
    """Each case's repository, all rules on: the cache changes nothing anywhere."""
    for number, case in enumerate(CASES):
        root = tmp_path / str(number)
        copy_repo(case, root, symlinks=True)
        config = load_config(find_config(root), root)
        uncached = run(config, Options())
        extracted.clear()
        cold = run(config, Options(cache=True))
        extracted.clear()
        warm = run(config, Options(cache=True))
        where = case.parent.relative_to(FIXTURES)
        assert cold.problems == uncached.problems and warm.problems == uncached.problems, where
        assert warm.notes == uncached.notes, where
        assert extracted == [], where  # everything computed cold was kept


def test_the_index_leaves_out_a_path_that_is_not_utf8(tmp_path: Path) -> None:
    """msgspec writes the index as UTF-8 JSON; a path git gave as surrogates (a file name that is
    not UTF-8) cannot be JSON text: it is left out of the index, the others are kept."""
    from portlint.stages.perfile import RESULT

    result = (Extraction(sites=(), suppressions=()), None)
    store = cache.Cache(tmp_path, "s", RESULT)
    for path in ("a/b.py", "é.md", "\udce9.py"):
        store.put(path, "k", result)
        store.decide(path, "d", False)
    assert store.save() == ""
    index = json.loads(store.path.read_bytes())
    assert sorted(index["files"]) == sorted(index["decisions"]) == ["a/b.py", "é.md"]
    assert "é" in store.path.read_text(encoding="utf-8")  # UTF-8, unescaped
    again = cache.Cache(tmp_path, "s", RESULT)
    assert again.get("é.md", "k") == result and again.decision("a/b.py", "d") is False


def test_portlints_fingerprint_is_its_files_paths_sizes_and_times(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Editing, adding, moving or touching a .py/.json/.yaml file of the package changes it; what is
    under __pycache__ or of another kind does not."""
    package = tmp_path / "fingerprinted"
    (package / "sub").mkdir(parents=True)
    (package / "__pycache__").mkdir()
    (package / "__init__.py").write_text("")
    (package / "sub" / "a.py").write_text("A = 1\n")
    (package / "table.json").write_text("{}\n")
    (package / "notes.txt").write_text("x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cache, "_PACKAGES", ("fingerprinted",))

    def fingerprint() -> str:
        monkeypatch.setattr(cache, "_SOURCE_HASH", None)
        return cache._source_hash()

    first = fingerprint()
    assert fingerprint() == first
    (package / "notes.txt").write_text("changed\n")
    (package / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    assert fingerprint() == first
    seen = {first}
    for change in (lambda: (package / "sub" / "a.py").write_text("A = 22\n"),
                   lambda: os.utime(package / "table.json", ns=(1, 1)),
                   lambda: (package / "sub" / "b.yaml").write_text("k: v\n"),
                   lambda: (package / "sub" / "b.yaml").rename(package / "b.yaml")):
        change()
        now = fingerprint()
        assert now not in seen
        seen.add(now)
