"""The engine's stages: plain data between them, facts computed for the rules that need them,
and the per-file stage giving the same results in a fork pool as in one process."""
from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import copy_repo

from portlint import engine
from portlint.config.load import load_config
from portlint.config.locate import find_config
from portlint.engine import FACTS, Engine, Options, needs_of
from portlint.rules import ALL, CHECKS, JUDGES
from portlint.speed import pool

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    target = tmp_path / "demo"
    copy_repo(DEMO, target)
    return target


def _jobs(root: Path) -> tuple[list[tuple[str, str, bytes, bool]], Engine]:
    run = Engine(load_config(find_config(root), root), Options())
    return [(path, kind, data, path in run.mirrored) for path, kind, data in run.read_all()], run


@contextlib.contextmanager
def _dying_worker(monkeypatch: pytest.MonkeyPatch, work: Callable[[Callable[[int], object], int, int], bytes]) -> Iterator[None]:
    """The pool's worker replaced by `work(do, queue, sending)`, which returns the task numbers
    it took, then dies; this process takes its own tasks only once the worker has those."""
    take = pool._take
    taken, told = os.pipe()

    def dying(do: Callable[[int], object], queue: int, sending: int) -> None:
        os.write(told, work(do, queue, sending) or b"-")
        os._exit(3)

    def waiting(do: Callable[[int], object], queue: int, between: Callable[[], object]) -> dict:
        assert os.read(taken, 256)
        return take(do, queue, between)

    monkeypatch.setattr(pool, "_work", dying)
    monkeypatch.setattr(pool, "_take", waiting)
    try:
        yield
    finally:
        os.close(taken)
        os.close(told)


def test_every_rule_declares_the_facts_it_reads() -> None:
    for rule in ALL:
        assert rule.NEEDS <= FACTS, rule.CODE
    assert {rule.CODE for rule in JUDGES} == {"PL002"} and not set(CHECKS) & set(JUDGES)


def test_a_rule_that_declares_nothing_gets_every_fact() -> None:
    assert needs_of([SimpleNamespace(CODE="PL999")]) == FACTS
    assert needs_of([SimpleNamespace(NEEDS=frozenset({"commands"}))]) == {"commands"}


def test_only_the_facts_the_selected_rules_need_are_computed(demo: Path) -> None:
    config = load_config(find_config(demo), demo)
    layout = lambda **options: (lambda e: e.layout(dict(e.scan())))(Engine(config, Options(**options)))  # noqa: E731
    full = layout()
    assert full.frozen and full.commands
    narrow = layout(select=("PL101",))
    assert narrow.sites == full.sites and narrow.frozen == () and narrow.commands == ()
    assert layout(select=("PL401",)).frozen == full.frozen


def test_the_per_file_results_are_plain_data(demo: Path) -> None:
    jobs, _ = _jobs(demo)
    results = engine.extract_many(jobs, _jobs(demo)[1].names)
    assert pickle.loads(pickle.dumps(results)) == results
    assert any(tree is not None for _, tree in results)  # the demo's frozen pairs


def test_a_fork_pool_gives_what_one_process_gives(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jobs, run = _jobs(demo)
    monkeypatch.setenv("PORTLINT_WORKERS", "1")
    serial = engine.extract_many(jobs, run.names)
    monkeypatch.setenv("PORTLINT_WORKERS", "2")
    assert engine.extract_many(jobs, run.names) == serial
    config = load_config(find_config(demo), demo)
    pooled = Engine(config, Options()).run()
    monkeypatch.setenv("PORTLINT_WORKERS", "1")
    assert pooled.problems == Engine(config, Options()).run().problems


def test_without_a_pool_the_work_is_done_here(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jobs, run = _jobs(demo)
    serial = engine.extract_many(jobs, run.names)

    def no_pool(*args: object) -> None:
        raise OSError("no fork here")

    monkeypatch.setattr(pool, "_shared", no_pool)
    monkeypatch.setenv("PORTLINT_WORKERS", "2")
    assert engine.extract_many(jobs, run.names) == serial


@pytest.mark.parametrize("when", ["at once", "after taking a task"])
def test_a_worker_that_dies_leaves_its_tasks_to_this_process(demo: Path, monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    jobs, run = _jobs(demo)
    monkeypatch.setenv("PORTLINT_WORKERS", "1")
    serial = engine.extract_many(jobs, run.names)

    def work(do: object, queue: int, sending: int) -> bytes:
        return os.read(queue, 1) if when == "after taking a task" else b""

    monkeypatch.setenv("PORTLINT_WORKERS", "2")
    with _dying_worker(monkeypatch, work):
        assert engine.extract_many(jobs, run.names) == serial


@pytest.mark.parametrize("sent", ["whole frames", "a frame cut short", "bytes that are no frame"])
def test_a_worker_that_dies_after_sending_some_results_leaves_the_rest_to_this_process(
    demo: Path, monkeypatch: pytest.MonkeyPatch, sent: str
) -> None:
    """The results a worker sent whole are taken; the tasks it took without sending one whole
    (it died, or what it sent cannot be read) are done here."""
    jobs, run = _jobs(demo)
    monkeypatch.setenv("PORTLINT_WORKERS", "1")
    serial = engine.extract_many(jobs, run.names)

    def work(do: Callable[[int], object], queue: int, sending: int) -> bytes:
        numbers = [os.read(queue, 1)[0] for _ in range(3)]
        frames = b""
        for number in numbers[:2]:
            frame = pickle.dumps((number, do(number)))
            frames += pool._LENGTH.pack(len(frame)) + frame
        if sent == "a frame cut short":
            frames = frames[:-7]
        elif sent == "bytes that are no frame":
            frames = pool._LENGTH.pack(5) + b"junk!" + frames
        os.write(sending, frames)
        return bytes(numbers)

    monkeypatch.setenv("PORTLINT_WORKERS", "2")
    with _dying_worker(monkeypatch, work):
        assert engine.extract_many(jobs, run.names) == serial


def test_frames_are_taken_whole_however_the_reads_cut_them() -> None:
    """A frame that comes in pieces is taken once it is whole, with the frames that came with its
    last piece; what comes after the last whole frame waits for the rest."""
    framed = [pool._LENGTH.pack(len(frame)) + frame
              for frame in (pickle.dumps((number, bytes([number]) * 5000 * number)) for number in (1, 2, 3))]
    frames = b"".join(framed)
    first, second = len(framed[0]), len(framed[0]) + len(framed[1])
    # a length cut in two, a frame completed exactly, then one whole frame and the start of the next
    pieces = [frames[:3], frames[3:first - 9], frames[first - 9:first], frames[first:second + 10], frames[second + 10:]]
    results, sending = os.pipe()
    os.set_blocking(results, False)
    worker = pool._Worker(0, results)
    done: dict[int, object] = {}
    seen = []
    try:
        for piece in pieces:
            os.write(sending, piece)
            assert worker.read(done)
            seen.append(sorted(done))
        os.close(sending)
        assert not worker.read(done)
    finally:
        os.close(results)
    assert seen == [[], [], [1], [1, 2], [1, 2, 3]]
    assert done == {number: bytes([number]) * 5000 * number for number in (1, 2, 3)}
    assert not worker.pending


def test_when_no_worker_can_be_forked_this_process_does_every_task(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jobs, run = _jobs(demo)
    monkeypatch.setenv("PORTLINT_WORKERS", "1")
    serial = engine.extract_many(jobs, run.names)

    def no_fork() -> int:
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    monkeypatch.setenv("PORTLINT_WORKERS", "3")
    assert engine.extract_many(jobs, run.names) == serial


@pytest.mark.parametrize("how", ["pool", "no fork", "one process"])
def test_this_process_does_its_own_work_once_while_the_workers_start(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """`meanwhile` runs once, in this process, before it takes a task: after the fork where
    there is a pool, first anyway where there is none."""
    done: list[object] = []  # this process's: a worker's appends stay in the worker
    if how == "no fork":
        def no_fork() -> int:
            raise OSError("Resource temporarily unavailable")

        monkeypatch.setattr(os, "fork", no_fork)
    results = pool.run(12, lambda number: done.append(number) or number * 2, 1 if how == "one process" else 2,
                       lambda: done.append(("meanwhile", os.getpid())))
    assert results == [number * 2 for number in range(12)]
    assert done[0] == ("meanwhile", os.getpid()) and done.count(done[0]) == 1
    assert len(done) > 1 and all(isinstance(number, int) for number in done[1:])


def _in_git(root: Path) -> None:
    """The folder as a git repository whose files are listed (a check's warm path asks git)."""
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)


def _imported_at_fork(root: Path, names: tuple[str, ...]) -> tuple[str, str]:
    """A cold check of `root` with a pool of two: which of `names` were imported when it forked
    (stderr), and its JSON output."""
    probe = f"""import os, sys
at_fork = []
fork = os.fork
def recording():
    at_fork.append(sorted(name for name in {names!r} if name in sys.modules))
    return fork()
os.fork = recording
from portlint.entry.command import main
code = main(["check", "--exit-zero", "--output-format", "json", "."])
print(at_fork, file=sys.stderr)
sys.exit(code)
"""
    _in_git(root)  # the warm path's run: as a user's
    done = subprocess.run([sys.executable, "-c", probe], cwd=root, env={**_with_cache(), "PORTLINT_WORKERS": "2"},
                          capture_output=True, text=True, check=True)
    return done.stderr.strip(), done.stdout


def _with_cache() -> dict[str, str]:
    """This environment, with the cache on (a check's warm path, as a user's)."""
    return {name: value for name, value in os.environ.items() if name != "PORTLINT_NO_CACHE"}


def test_a_cold_check_forks_its_pool_before_the_cli_and_the_rules_are_imported(demo: Path) -> None:
    """A cold check runs its per-file stage before click is imported, and imports the CLI, the
    rules and its reporter while its workers start on the files, not before the fork; its
    output is the same."""
    at_fork, output = _imported_at_fork(demo, ("click", "portlint.cli", "portlint.rules", "portlint.report.json"))
    assert at_fork == "[[]]"  # one fork, and none imported yet
    shutil.rmtree(demo / ".portlint_cache")
    alone = subprocess.run([sys.executable, "-m", "portlint", "check", "--exit-zero", "--output-format", "json", "."],
                           cwd=demo, env={**_with_cache(), "PORTLINT_WORKERS": "1"}, capture_output=True, text=True, check=True)
    assert output == alone.stdout and '"PL' in alone.stdout


def test_a_zero_config_check_forks_before_importing_what_only_the_rules_and_the_cli_need(demo: Path) -> None:
    """Without a config (as on every corpus repository), nothing before the fork imports the
    problems' dataclass, dataclasses, inspect or typing_extensions (~15 ms before the fork,
    README "Speed"): the rules and click import them once the workers have started. (A
    config's glob of another shape imports pathspec, which imports them all.) Nor json (~2.5
    ms), which only the run cache's entry needs, written after the report."""
    (demo / ".portlint.yaml").unlink()
    at_fork, _ = _imported_at_fork(demo, ("portlint.model.problems", "dataclasses", "inspect", "typing_extensions", "json"))
    assert at_fork == "[[]]"  # one fork, and none imported yet


def test_msgspec_is_imported_without_typing_extensions_which_stays_importable() -> None:
    """portlint.model.records imports msgspec as where typing_extensions is not installed, and leaves
    it to be imported by what needs it (jsonschema's referencing does)."""
    probe = """import sys
from portlint.model.records import Struct
print("typing_extensions" in sys.modules, "inspect" in sys.modules)
import typing_extensions
class Point(Struct, frozen=True):
    x: int
    y: int = 0
print(Point(1) == Point(1, 0), typing_extensions.__name__)
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["False False", "True typing_extensions"]


def _listings(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The roots the engine lists, in order."""
    from portlint.stages import discover

    listed: list[Path] = []
    candidates = discover.candidates
    monkeypatch.setattr(discover, "candidates", lambda root, *rest: listed.append(root) or candidates(root, *rest))
    return listed


def test_a_check_scanned_ahead_is_run_on_those_results_when_the_cli_asks_for_it(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """scan_ahead runs the per-file stage; `run` with the same config and the cache on takes it
    (the files are not listed again) and gives what a run from scratch gives."""
    from portlint.config.load import load_for

    listed = _listings(monkeypatch)
    config = load_for(demo, ())
    fresh = engine.Engine(config, Options(cache=True, select=("PL301",))).run()
    shutil.rmtree(demo / ".portlint_cache")
    engine.scan_ahead(demo, (), None, ("portlint.report.text",))
    assert len(listed) == 2 and engine._AHEAD
    ahead = engine.run(config, Options(cache=True, select=("PL301",)))
    assert len(listed) == 2 and not engine._AHEAD  # taken: no listing, no reading again
    assert ahead.problems == fresh.problems and {p.code for p in ahead.problems} == {"PL301"}
    assert ahead.read == fresh.read and ahead.notes == fresh.notes


@pytest.mark.parametrize("asked", ["another config", "no cache"])
def test_a_check_scanned_ahead_for_something_else_is_dropped(demo: Path, monkeypatch: pytest.MonkeyPatch, asked: str) -> None:
    """The CLI asks for another config (an override), or for no cache: its run does it all again."""
    from portlint.config.load import load_for

    listed = _listings(monkeypatch)
    engine.scan_ahead(demo, (), None, ())
    config = load_for(demo, ("ephemeral_floor = 40000",) if asked == "another config" else ())
    outcome = engine.run(config, Options(cache=asked != "no cache"))
    assert len(listed) == 2 and not engine._AHEAD
    assert outcome.problems == engine.Engine(config, Options()).run().problems


def test_a_check_that_cannot_be_scanned_ahead_leaves_its_error_to_the_cli(demo: Path) -> None:
    """A config that does not load: scan_ahead keeps nothing and says nothing."""
    (demo / ".portlint.yaml").write_text("bands: [\n")
    engine.scan_ahead(demo, (), None, ())
    assert not engine._AHEAD


def test_a_usage_error_after_a_check_scanned_ahead_is_the_clis(demo: Path) -> None:
    """`check --output-format bogus` is a plain check to the warm path, which scans ahead; click
    then refuses the format as it does without it: one line, exit 2, nothing on stdout."""
    _in_git(demo)
    env = {name: value for name, value in os.environ.items() if name != "PORTLINT_NO_CACHE"}
    command = [sys.executable, "-m", "portlint", "check", "--output-format", "bogus", "."]
    ahead = subprocess.run(command, cwd=demo, env=env, capture_output=True, text=True)
    plain = subprocess.run(command, cwd=demo, env={**env, "PORTLINT_NO_CACHE": "1"}, capture_output=True, text=True)
    assert (ahead.returncode, ahead.stdout, ahead.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    assert ahead.returncode == 2 and ahead.stderr.startswith("portlint: error: ") and ahead.stderr.count("\n") == 1


def test_what_was_scanned_ahead_for_a_cli_that_failed_is_not_kept(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In one process, a check whose CLI refused its arguments leaves nothing for the next run
    (which may come after the files changed): the next check reads them again."""
    from portlint.config.load import load_for
    from portlint.entry import command as start

    _in_git(demo)
    monkeypatch.chdir(demo)
    monkeypatch.delenv("PORTLINT_NO_CACHE", raising=False)
    listed = _listings(monkeypatch)
    assert start.main(["check", "--output-format", "bogus"]) == 2
    assert len(listed) == 1 and not engine._AHEAD  # scanned ahead, then dropped
    (demo / "tools.sh").write_text("MASTER_PORT=1500\n")
    outcome = engine.run(load_for(demo, ()), Options(cache=True))
    assert len(listed) == 2 and "tools.sh" in outcome.read


def test_a_check_interrupted_while_its_files_are_read_ahead_says_aborted(
    demo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """^C during the per-file stage run ahead of the CLI (most of a cold check) ends the check as
    it ends one the CLI runs: a blank line and `portlint: aborted` on stderr, exit 2, no traceback."""
    from portlint.entry import command as start

    _in_git(demo)
    monkeypatch.chdir(demo)
    monkeypatch.delenv("PORTLINT_NO_CACHE", raising=False)

    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(engine, "scan_ahead", interrupted)
    assert start.main(["check"]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "\nportlint: aborted\n")
    assert not engine._AHEAD


@pytest.fixture(autouse=True)
def _nothing_ahead() -> Iterator[None]:
    """No test leaves a check scanned ahead to another."""
    yield
    engine._AHEAD.clear()


def test_a_pools_tasks_are_runs_of_about_equal_size_largest_alone_then_halving() -> None:
    """Largest first: a big file is a task of its own, the small ones go together, in order; from
    two runs' worth left, each run is half of what is left (an eighth of a run at least), so
    that the last tasks, whose costs are least known, are small."""
    assert engine._runs([7, 3, 5, 1, 2, 4], [50, 30, 10, 5, 3, 2], 4) == [[7], [3], [5], [1], [2, 4]]
    assert engine._runs([1, 2, 3, 4], [10, 10, 10, 10], 2) == [[1, 2], [3], [4]]
    assert engine._runs([1, 2, 3], [0, 0, 0], 2) == [[1, 2, 3]]
    assert len(engine._runs(list(range(600)), [0, 1] * 300, pool.TASKS)) <= pool.TASKS + 1
    assert engine._runs([], [], 16) == []
    order = list(range(300))
    sizes = [1000 - i for i in order]
    runs = engine._runs(order, sizes, 16)
    assert [i for run in runs for i in run] == order and len(runs) <= 17
    totals = [sum(sizes[i] for i in run) for run in runs]
    target = sum(sizes) / (16 - engine._TAIL_RUNS)
    assert all(abs(total - target) < 1000 for total in totals[:10])  # equal runs first,
    assert all(later < earlier for earlier, later in zip(totals[10:15], totals[11:15]))  # then halving,
    assert max(totals[-3:]) < target / 4  # down to the smallest


def test_a_pools_runs_never_outnumber_what_they_are_given() -> None:
    """However the sizes fall, at most `count + 1` runs: the tasks must fit the pool's queue."""
    import random

    generator = random.Random(7)
    for count in (1, 2, 3, 8, 40, pool.TASKS - 1):
        for _ in range(50):
            sizes = sorted((generator.randint(0, 100_000) for _ in range(generator.randint(0, 600))), reverse=True)
            runs = engine._runs(list(range(len(sizes))), sizes, count)
            assert len(runs) <= count + 1
            assert [i for run in runs for i in run] == list(range(len(sizes)))


def test_a_kind_with_few_files_is_one_task_that_imports_what_it_reads_itself() -> None:
    """Two YAML files among many Python ones: one task, first, and ruamel.yaml is left to the
    process that takes it; the Python files go largest first."""
    jobs = [("a.yaml", "yaml", b"x: 1\n", False), *((f"m{i}.py", "python", b"#" * (10 + i), False) for i in range(8)),
            ("b.yaml", "yaml", b"y: 2\n", False)]
    tasks, shared = engine._tasks(jobs, pool.TASKS)
    assert tasks[0] == [0, 9] and shared == {"python"}
    assert [i for task in tasks[1:] for i in task] == list(range(8, 0, -1))
    many = [(f"c{i}.yaml", "yaml", b"z: 3\n", False) for i in range(engine.RARE + 1)]
    assert engine._tasks(many, pool.TASKS)[1] == {"yaml"}
    large = [(f"d{i}.yaml", "yaml", b"#" * (engine.RARE_BYTES // 2 + 1), False) for i in range(2)]
    assert engine._tasks(large, pool.TASKS) == ([[0], [1]], {"yaml"})  # two processes can share them


def test_a_pool_numbers_every_task_with_a_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    """More jobs than a byte numbers, empty ones among them (a frozen pair's sides are read
    whatever their size): the pool's tasks still fit the queue."""
    from portlint.model.naming import NameFilter

    for empty in (600, 300):  # only empty files; then half of them
        jobs = [(f"f{i}.sh", "shell", b"" if i < empty else b"PORT=%d\n" % (8000 + i), False) for i in range(600)]
        monkeypatch.setenv("PORTLINT_WORKERS", "1")
        serial = engine.extract_many(jobs, NameFilter())
        monkeypatch.setenv("PORTLINT_WORKERS", "2")
        assert engine.extract_many(jobs, NameFilter()) == serial
        assert sum(len(extraction.sites) for extraction, _ in serial) == 600 - empty


def test_small_inputs_stay_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PORTLINT_WORKERS", raising=False)
    cores = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 8)
    assert engine._workers(engine.PARALLEL_BYTES - 1) == 1
    assert engine._workers(engine.PARALLEL_BYTES) == cores  # enough to extract: every core (eight at most)
    assert engine._workers(0, engine.EAGER_FILES - 1) == 1
    assert engine._workers(0, engine.EAGER_FILES) == cores  # a first run with enough left to read


def test_a_first_run_forks_at_once_and_a_run_over_cached_results_only_for_enough_to_extract(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With nothing cached every file is read and extracted, and two processes share that from
    the first file worth extracting; with the results cached, a changed file or two is
    extracted here (a pool costs more than it gives them)."""
    monkeypatch.delenv("PORTLINT_WORKERS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)  # two cores, whatever this machine has
    forks: list[int] = []
    fork = os.fork

    def counting() -> int:
        forks.append(1)
        return fork()

    monkeypatch.setattr(os, "fork", counting)
    config = load_config(find_config(demo), demo)
    first = Engine(config, Options(cache=True)).run()
    assert len(forks) == 1
    (demo / "ray.sub").write_bytes((demo / "ray.sub").read_bytes() + b"\n# edited\n")
    again = Engine(config, Options(cache=True)).run()
    assert len(forks) == 1 and again.problems == first.problems
    assert Engine(config, Options()).run().problems == first.problems and len(forks) == 2  # no cache: a first run


@pytest.mark.parametrize("kind", sorted(set(engine.PER_FILE_MODULES) - {""}))
def test_a_pool_is_forked_after_what_the_per_file_stage_imports(kind: str) -> None:
    """Every module extracting the fixtures of a kind imports on first use is in
    engine.PER_FILE_MODULES for that kind or for every kind (imported before the fork, else
    every worker imports it again). One process per kind: another kind's imports would hide
    a module missing from this one's list."""
    probe = """import sys
from pathlib import Path
from portlint import engine
from portlint.stages import discover
from portlint.model.naming import NameFilter
before = set(sys.modules)
for number, path in enumerate(sorted(Path(sys.argv[1]).rglob("*"))):
    kind = discover.kind_of(str(path), path.read_bytes()[:128]) if path.is_file() else ""
    if kind == sys.argv[2]:
        engine.extract_file(str(path), kind, path.read_bytes(), NameFilter(["MASTER_PORT"]), kind == "yaml" and number % 2 == 0)
print(" ".join(sorted(set(sys.modules) - before)))
"""
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    # Run outside the repository: from its root, `import portlint` would find the source tree
    # (which has no portlint.rules: portlint/rules/ is mapped there by the installation) before the install.
    done = subprocess.run([sys.executable, "-c", probe, str(fixtures), kind], cwd=fixtures.parent.parent,
                          capture_output=True, text=True, check=True)
    imported = {name for name in done.stdout.split() if name.startswith(("portlint.", "ruamel.yaml"))}
    assert imported, done.stderr
    preloaded = set()
    for module in (*engine.PER_FILE_MODULES[""], *engine.PER_FILE_MODULES[kind]):
        preloaded |= {name for name in imported if name == module or name.startswith(module + ".")}
    assert imported - preloaded == set()



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
    run = Engine(load_config(find_config(root), root), Options(cache=cached))
    run.store = run._open_cache()
    states = [(path, s.kind, s.data, s.extraction, s.tree) for path, s in run.scan()]
    if run.store is not None:
        run.store.save()
    return states, run.notes, run.read_failures, run.digests


@pytest.mark.parametrize("workers", ["2", "3"])
def test_a_pool_shares_the_rest_of_the_listing_and_reads_what_one_process_reads(
    demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: str
) -> None:
    """With a fixed number of processes the pool starts at the first file worth extracting, so
    the rest of the listing is read by whichever process takes it: the files, their results,
    the notes, the read failures and the digests are those of one process, in the same order."""
    _odd_files(demo, tmp_path)
    serial = _scanned(demo, "1", monkeypatch, cached=True)
    shutil.rmtree(demo / ".portlint_cache")
    assert [path for path, *_ in serial[0]][-1] == "tools/step_9.sh" and "tools/serve.py" in [p for p, *_ in serial[0]]
    assert serial[1] == ["tools/linked.sh: skipped: a symlink leading outside the repository"]
    assert [f.path for f in serial[2]] == ["tools/binary.sh", "tools/wide.yaml"]
    assert "tools/plain.md" in serial[3]  # read and dropped by the prefilter: still a digest
    readers = tmp_path / "readers"
    visit = Engine._visit

    def recording(self: Engine, candidate: object, pattern: object, extract: bool) -> object:
        with open(readers, "a") as out:
            out.write(f"{os.getpid()}\n")
        return visit(self, candidate, pattern, extract)  # type: ignore[arg-type]

    monkeypatch.setattr(Engine, "_visit", recording)
    assert _scanned(demo, workers, monkeypatch, cached=True) == serial
    assert len(set(readers.read_text().split())) > 1  # files read by a worker


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
    real = engine.extract_file

    def counting(path: str, *args: object, **kwargs: object) -> object:
        calls.append(path)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "extract_file", counting)
    again = _scanned(demo, "1", monkeypatch, cached=True)
    assert calls == []
    assert again[0][1:] == first[0][1:]


def test_a_worker_that_dies_with_files_to_read_leaves_them_to_this_process(
    demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _odd_files(demo, tmp_path)
    serial = _scanned(demo, "1", monkeypatch)
    with _dying_worker(monkeypatch, lambda do, queue, sending: b"".join(os.read(queue, 1) for _ in range(3))):
        assert _scanned(demo, "2", monkeypatch) == serial  # the worker took the first tasks: the listing's rest


def test_a_kind_whose_modules_are_not_imported_is_read_by_one_task(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rest of the listing: its few YAML files (ruamel.yaml not imported here) are one task,
    first, so that one process imports what they need; the rest largest first, in runs of
    about equal size, the small files together at the end."""
    kinds = ["python", "yaml", "python", "markdown", "yaml", *["python"] * 10]
    sizes = [10, 1, 500, 20, 1, *range(30, 130, 10)]
    monkeypatch.setitem(engine.PER_FILE_MODULES, "yaml", ("portlint.no_such_module",))
    monkeypatch.setitem(engine.PER_FILE_MODULES, "python", ("portlint.engine",))  # imported
    monkeypatch.setitem(engine.PER_FILE_MODULES, "markdown", ("portlint.engine",))
    tasks = engine._reading(list(range(len(kinds))), kinds, sizes, 5)
    assert tasks[0] == [1, 4] and tasks[1] == [2]  # the YAML files, then the largest file alone
    assert [i for task in tasks[1:] for i in task] == [2, *range(14, 4, -1), 3, 0] and len(tasks) <= 5
    many = ["yaml"] * (engine.RARE_READS + 1)
    assert all(len(task) < len(many) for task in engine._reading(list(range(len(many))), many, [1] * len(many), 8))
    assert engine._reading([3, 4, 5, 6, 7, 8, 9, 10], ["yaml", *["python"] * 7], [1] * 8, 5)[0] == [3]
    assert len(engine._reading(list(range(40)), ["yaml"] * 40, [1] * 40, 8)) <= 8  # one kind: shared, not one task
    assert len(engine._reading(list(range(40)), ["yaml"] * 40, [1] * 40, 8)) > 1


def test_a_pools_results_are_those_its_processes_computed() -> None:
    """Each task is done once, by whichever process took it, and its result is the one that
    process computed: some by the worker, sent back, some by this process."""
    import time

    def do(number: int) -> tuple[int, int]:
        time.sleep(0.002)  # long enough that both processes take tasks
        return number, os.getpid()

    done = pool.run(64, do, 2)
    assert [number for number, _ in done] == list(range(64))
    pids = {pid for _, pid in done}
    assert os.getpid() in pids and len(pids) == 2
