"""portlint.speed.pool: numbered tasks done by this process and forked workers give the results one
process gives, in order, whatever dies, fails to fork or arrives in pieces; the splits fit the
queue. (How the work is split between processes is a pin of its own: tests/perf/test_pool_split.py.)"""
from __future__ import annotations

import contextlib
import os
import pickle
import random
from collections.abc import Callable, Iterator

import pytest

from portlint.speed import pool


def _work(number: int) -> tuple[int, bytes]:
    """A result of a size that varies (a frame may come in pieces), picklable."""
    return number, bytes([number % 256]) * (number * 997 % 40_000)


EXPECTED = [_work(number) for number in range(40)]


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


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_a_pool_gives_every_result_once_in_order(workers: int) -> None:
    assert pool.run(len(EXPECTED), _work, workers) == EXPECTED


def test_a_pool_gives_what_each_task_computed_wherever_it_ran() -> None:
    """Each task is done once, by whichever process took it: its result is the one that process
    computed (a worker's is sent back whole)."""
    done = pool.run(64, lambda number: (number, os.getpid()), 2)
    assert [number for number, _ in done] == list(range(64))
    assert len({pid for _, pid in done}) <= 2


def test_without_pipes_the_work_is_done_here(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pipe() -> tuple[int, int]:
        raise OSError("Too many open files")

    monkeypatch.setattr(os, "pipe", no_pipe)
    assert pool.run(len(EXPECTED), _work, 2) == EXPECTED


def test_when_no_worker_can_be_forked_this_process_does_every_task(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork() -> int:
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    assert pool.run(len(EXPECTED), _work, 3) == EXPECTED


@pytest.mark.parametrize("when", ["at once", "after taking a task"])
def test_a_worker_that_dies_leaves_its_tasks_to_this_process(monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    def work(do: object, queue: int, sending: int) -> bytes:
        return os.read(queue, 1) if when == "after taking a task" else b""

    with _dying_worker(monkeypatch, work):
        assert pool.run(len(EXPECTED), _work, 2) == EXPECTED


@pytest.mark.parametrize("sent", ["whole frames", "a frame cut short", "bytes that are no frame"])
def test_a_worker_that_dies_after_sending_some_results_leaves_the_rest_to_this_process(
    monkeypatch: pytest.MonkeyPatch, sent: str
) -> None:
    """The results a worker sent whole are taken; the tasks it took without sending one whole
    (it died, or what it sent cannot be read) are done here."""
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

    with _dying_worker(monkeypatch, work):
        assert pool.run(len(EXPECTED), _work, 2) == EXPECTED


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


@pytest.mark.parametrize("how", ["pool", "no fork", "one process"])
def test_this_process_does_its_own_work_once_before_any_task_of_its_own(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """`meanwhile` runs once, in this process, before this process does a task (after the fork
    where there is a pool, first anyway where there is none); every result is there."""
    done: list[object] = []  # this process's: a worker's appends stay in the worker
    if how == "no fork":
        def no_fork() -> int:
            raise OSError("Resource temporarily unavailable")

        monkeypatch.setattr(os, "fork", no_fork)
    results = pool.run(12, lambda number: done.append(number) or number * 2, 1 if how == "one process" else 2,
                       lambda: done.append(("meanwhile", os.getpid())))
    assert results == [number * 2 for number in range(12)]
    assert done[0] == ("meanwhile", os.getpid()) and done.count(done[0]) == 1
    assert all(isinstance(number, int) for number in done[1:])


def test_more_tasks_than_a_byte_numbers_are_refused() -> None:
    with pytest.raises(ValueError, match="257 tasks"):
        pool.run(pool.TASKS + 1, _work, 2)


def test_the_splits_cover_every_item_once_and_fit_the_queue() -> None:
    """However the sizes fall, `runs` keeps the items in order in at most `count + 1` runs, and
    `tasks` and `reading` give every item to exactly one task, within their counts."""
    generator = random.Random(7)
    for count in (1, 2, 3, 8, 40, pool.TASKS - 1):
        for _ in range(30):
            sizes = sorted((generator.randint(0, 100_000) for _ in range(generator.randint(0, 600))), reverse=True)
            runs = pool.runs(list(range(len(sizes))), sizes, count)
            assert len(runs) <= count + 1
            assert [i for run in runs for i in run] == list(range(len(sizes)))
    for _ in range(50):
        count = generator.randint(8, pool.TASKS - 1)
        kinds = [generator.choice(("yaml", "python", "shell", "markdown")) for _ in range(generator.randint(1, 800))]
        sizes = [generator.randint(0, 1 << 17) for _ in kinds]
        tasks, _ = pool.tasks(kinds, sizes, count)
        assert sorted(i for task in tasks for i in task) == list(range(len(kinds))) and len(tasks) <= count
        reading = pool.reading(list(range(len(kinds))), kinds, sizes, count, {"yaml": ("portlint.no_such_module",)})
        assert sorted(i for task in reading for i in task) == list(range(len(kinds))) and len(reading) <= count
