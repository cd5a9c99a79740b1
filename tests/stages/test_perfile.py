"""The per-file stage: its results are plain data, the same computed here or by a fork pool, read
from the cache or not, and what reading told the run (notes, read failures, digests) is that of
one process reading the listing in order."""
from __future__ import annotations

import os
import pickle
import shutil
from pathlib import Path

import pytest

from portlint import engine
from portlint.config.load import load_config
from portlint.config.locate import find_config
from portlint.model.naming import NameFilter
from portlint.speed import cache, pool
from portlint.stages import perfile
from portlint.stages.perfile import Job


def _prepared(root: Path, cached: bool = False) -> engine.Prepared:
    return engine.prepare(load_config(find_config(root), root), cached)


def _jobs(root: Path) -> tuple[list[Job], NameFilter]:
    """Every file of the repository worth extracting, as a job, and the config's name filter."""
    prepared = _prepared(root)
    jobs = [(path, state.kind, state.data, path in prepared.mirrored) for path, state in prepared.scanned.files.items()]
    return jobs, prepared.names


def test_the_per_file_results_are_plain_data(demo: Path) -> None:
    jobs, names = _jobs(demo)
    results = perfile.extract_many(jobs, names)
    assert pickle.loads(pickle.dumps(results)) == results
    assert any(tree is not None for _, tree in results)  # the demo's frozen pairs


@pytest.mark.parametrize("workers", ["2", "3"])
def test_a_fork_pool_gives_what_one_process_gives(demo: Path, monkeypatch: pytest.MonkeyPatch, workers: str) -> None:
    jobs, names = _jobs(demo)
    monkeypatch.setenv("PORTLINT_WORKERS", "1")
    serial = perfile.extract_many(jobs, names)
    config = load_config(find_config(demo), demo)
    alone = engine.run(config, engine.Options())
    monkeypatch.setenv("PORTLINT_WORKERS", workers)
    assert perfile.extract_many(jobs, names) == serial
    pooled = engine.run(config, engine.Options())
    assert (pooled.problems, pooled.notes) == (alone.problems, alone.notes)


def test_more_files_than_a_byte_numbers_give_what_one_process_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    """More jobs than a byte numbers, empty ones among them (a frozen pair's sides are read
    whatever their size): the pool's tasks still fit its queue."""
    for empty in (600, 300):  # only empty files; then half of them
        jobs = [(f"f{i}.sh", "shell", b"" if i < empty else b"PORT=%d\n" % (8000 + i), False) for i in range(600)]
        monkeypatch.setenv("PORTLINT_WORKERS", "1")
        serial = perfile.extract_many(jobs, NameFilter())
        monkeypatch.setenv("PORTLINT_WORKERS", "2")
        assert perfile.extract_many(jobs, NameFilter()) == serial
        assert sum(len(extraction.sites) for extraction, _ in serial) == 600 - empty


def _odd_files(root: Path, outside: Path) -> None:
    """Files the read stage skips or cannot check, and files the prefilter drops, among the demo's."""
    (root / "tools").mkdir()
    (root / "tools" / "binary.sh").write_bytes(b"PORT=8000\n\0\0")
    (root / "tools" / "wide.yaml").write_bytes("port: 8000\n".encode("utf-16"))
    (root / "tools" / "plain.md").write_text("# Nothing to see\n")
    (root / "tools" / "serve.py").write_text("import socket\ns = socket.socket()\ns.bind(('', 0))\nport = s.getsockname()[1]\ns.close()\n")
    (outside / "elsewhere.sh").write_text("PORT=9000\n")
    (root / "tools" / "linked.sh").symlink_to(outside / "elsewhere.sh")
    for i in range(30):
        (root / "tools" / f"step_{i}.sh").write_text(f"# step {i}\nMASTER_PORT={29500 + i}\n")


def _scanned(root: Path, workers: str, monkeypatch: pytest.MonkeyPatch, cached: bool = False) -> tuple:
    monkeypatch.setenv("PORTLINT_WORKERS", workers)
    prepared = _prepared(root, cached)
    if prepared.store is not None:
        prepared.store.save()
    scanned = prepared.scanned
    states = [(path, s.kind, s.data, s.extraction, s.tree) for path, s in scanned.files.items()]
    return states, scanned.notes, scanned.failures, scanned.digests


@pytest.mark.parametrize("workers", ["2", "3"])
def test_a_pool_reads_what_one_process_reads(demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: str) -> None:
    """With a fixed number of processes the pool starts at the first file worth extracting, so
    the rest of the listing is read by whichever process takes it: the files, their results,
    the notes, the read failures and the digests are those of one process, in the same order."""
    _odd_files(demo, tmp_path)
    serial = _scanned(demo, "1", monkeypatch, cached=True)
    shutil.rmtree(demo / cache.DIRECTORY)
    assert [path for path, *_ in serial[0]][-1] == "tools/step_9.sh" and "tools/serve.py" in [p for p, *_ in serial[0]]
    assert serial[1] == ["tools/linked.sh: skipped: a symlink leading outside the repository"]
    assert [f.path for f in serial[2]] == ["tools/binary.sh", "tools/wide.yaml"]
    assert "tools/plain.md" in serial[3]  # read and dropped by the prefilter: still a digest
    assert _scanned(demo, workers, monkeypatch, cached=True) == serial


def test_the_pools_cache_hits_are_kept_for_the_next_run(
    demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker takes results from the cache for the files it reads; this process keeps them
    in the next index, so a later run computes nothing it computed before."""
    _odd_files(demo, tmp_path)
    first = _scanned(demo, "2", monkeypatch, cached=True)
    first_read = first[0][0][0]  # the pool starts there, so most hits are read by the pool's processes
    (demo / first_read).write_bytes((demo / first_read).read_bytes() + b"\n")
    _scanned(demo, "2", monkeypatch, cached=True)  # one file changed: every other one a hit
    calls: list[str] = []
    real = perfile.extract_file

    def counting(path: str, *args: object, **kwargs: object) -> object:
        calls.append(path)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(perfile, "extract_file", counting)
    again = _scanned(demo, "1", monkeypatch, cached=True)
    assert calls == []
    assert again[0][1:] == first[0][1:]


def test_a_worker_that_dies_with_files_to_read_leaves_them_to_this_process(
    demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _odd_files(demo, tmp_path)
    serial = _scanned(demo, "1", monkeypatch)
    work = pool._work

    def dying(do: object, queue: int, sending: int) -> None:
        for _ in range(3):
            os.read(queue, 1)  # the first tasks (the listing's rest), taken and never done
        os._exit(3)

    monkeypatch.setattr(pool, "_work", dying)
    try:
        assert _scanned(demo, "2", monkeypatch) == serial
    finally:
        monkeypatch.setattr(pool, "_work", work)


def test_a_cache_key_is_what_the_extraction_reads_of_the_file() -> None:
    """The bytes (their digest), the kind and, for a result, whether the file is a frozen side."""
    keys = {perfile.key(kind, digest, side) for kind in ("yaml", "shell") for digest in ("a", "b") for side in (None, False, True)}
    assert len(keys) == 12


def _scripts(root: Path) -> None:
    files = {
        "sweep.sh": "for m in a b; do\n  bash lib/outer.sh \"$m\"\ndone\n",
        "lib/outer.sh": "source lib/common.sh\nbash lib/inner.sh \"$1\"\n",
        "lib/inner.sh": "kubectl port-forward svc/model 8080:80 &\n",
        "lib/common.sh": "log() { echo \"$@\"; }\n",
        "other.sh": "source lib/common.sh\nbash lib/tools.sh\n",
        "lib/tools.sh": "echo tools\n",
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


@pytest.mark.parametrize("cached", [False, True])
def test_a_script_is_read_where_it_may_lead_to_one_that_leaves_a_server(tmp_path: Path, cached: bool) -> None:
    """inner.sh leaves a server running; outer.sh, which starts nothing and loops over nothing,
    runs it, and sweep.sh's loop runs outer.sh: the byte tests pass outer.sh and sweep.sh over,
    and they are read because they name a script on the way to inner.sh. common.sh, other.sh and
    tools.sh lead to no such script and are not read at all."""
    _scripts(tmp_path)
    for _ in range(2 if cached else 1):  # the second run takes outer.sh from the cache
        files = _prepared(tmp_path, cached).scanned.files
        assert sorted(files) == ["lib/inner.sh", "lib/outer.sh", "sweep.sh"]


def test_a_chain_to_a_launcher_runs_through_scripts_the_byte_tests_kept(tmp_path: Path) -> None:
    """mid.sh is read anyway (it writes a port name); sweep.sh, whose loop runs it, is read
    because mid.sh runs the launcher inner.sh."""
    files = {
        "sweep.sh": "for m in a b; do\n  bash lib/mid.sh \"$m\"\ndone\n",
        "lib/mid.sh": "PROBE_PORT=9000\nbash lib/inner.sh \"$1\"\n",
        "lib/inner.sh": "kubectl port-forward svc/model 8080:80 &\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    assert sorted(_prepared(tmp_path).scanned.files) == ["lib/inner.sh", "lib/mid.sh", "sweep.sh"]


def test_an_edited_script_on_the_way_to_a_launcher_stays_read(tmp_path: Path) -> None:
    """The language server's view after an edit: outer.sh, read because sweep.sh's loop runs it on
    the way to inner.sh, is read again while it still names inner.sh, and left out once it does not."""
    from portlint.engine import Options, session

    _scripts(tmp_path)
    current = session(load_config(find_config(tmp_path), tmp_path), Options())
    assert "lib/outer.sh" in current.files
    kept = current.revised(current.files, "lib/outer.sh", b"echo start\nbash lib/inner.sh \"$1\"\n")
    assert kept["lib/outer.sh"].data == b"echo start\nbash lib/inner.sh \"$1\"\n"
    assert "lib/outer.sh" not in current.revised(current.files, "lib/outer.sh", b"echo nothing to run\n")
