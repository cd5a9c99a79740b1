"""Numbered tasks done by this process and workers forked from it (the per-file stage's pool).

Every process takes the next task from one pipe, a byte per task, until it is empty: a
read cannot split a byte, so no task is taken twice, and the processes finish close
together when the last tasks are small. The workers see this process's memory as it was
at the fork (the tasks' inputs are never sent); each sends the results of the tasks it
took back once, at the end, pickled. A worker that dies leaves the tasks it took to this
process, which does them itself; so does a machine where no pipe or process can be made.
(concurrent.futures, which this replaced, left this process idle while the workers ran,
cost a round trip per task and its own imports: README, "Speed".)
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Any, NoReturn

TASKS = 256  # as many as a byte numbers


def run(count: int, do: Callable[[int], Any], workers: int) -> list[Any]:
    """`do(number)` of every task number below `count` (at most TASKS), in order, by this
    process and up to `workers - 1` forked from it."""
    if count > TASKS:
        raise ValueError(f"{count} tasks: a pool numbers at most {TASKS}")
    done: dict[int, Any] = {}
    if workers > 1 and count > 1 and hasattr(os, "fork"):
        with contextlib.suppress(OSError):  # no pipes here: this process does every task
            done = _shared(count, do, workers)
    return [done[number] if number in done else do(number) for number in range(count)]


def _shared(count: int, do: Callable[[int], Any], workers: int) -> dict[int, Any]:
    import pickle  # noqa: F401 - once here, before the fork: every process sends or reads results

    queue, filling = os.pipe()
    try:
        os.write(filling, bytes(range(count)))
    finally:
        os.close(filling)  # so the queue ends when it is empty
    children: list[tuple[int, int]] = []  # (pid, read end of its results)
    try:
        for _ in range(workers - 1):
            results, sending = os.pipe()
            try:
                pid = os.fork()
            except OSError:  # no more processes: fewer workers
                os.close(results)
                os.close(sending)
                break
            if pid == 0:
                _work(do, queue, sending)
            os.close(sending)
            children.append((pid, results))
        done = _take(do, queue)
        while children:
            pid, results = children.pop()
            done.update(_collected(pid, results))
    finally:
        os.close(queue)
        for pid, results in children:  # only when this process failed: stop the others
            os.close(results)
            _reap(pid, kill=True)
    return done


def _take(do: Callable[[int], Any], queue: int) -> dict[int, Any]:
    """The tasks this process takes from the queue until it is empty, done: number -> result."""
    done = {}
    while taken := os.read(queue, 1):
        done[taken[0]] = do(taken[0])
    return done


def _work(do: Callable[[int], Any], queue: int, sending: int) -> NoReturn:
    """A forked worker: its tasks, then their results down the pipe, then out (os._exit: nothing
    of this process, buffered output or exit handlers, runs twice)."""
    import pickle

    code = 1
    try:
        payload = memoryview(pickle.dumps(_take(do, queue), pickle.HIGHEST_PROTOCOL))
        while payload:
            payload = payload[os.write(sending, payload):]
        code = 0
    finally:
        os._exit(code)


def _collected(pid: int, results: int) -> dict[int, Any]:
    """What a worker sent, once it has ended; nothing from one that failed (this process then
    does its tasks again)."""
    import pickle

    chunks = []
    try:
        while chunk := os.read(results, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(results)
    if not _reap(pid, kill=False):
        return {}
    try:
        done = pickle.loads(b"".join(chunks))
    except Exception:  # noqa: BLE001 - a payload cut short
        return {}
    return done if isinstance(done, dict) else {}


def _reap(pid: int, kill: bool) -> bool:
    """Wait for a worker (stopped first when `kill`); whether it exited cleanly."""
    import signal

    if kill:
        with contextlib.suppress(OSError):  # it has ended already
            os.kill(pid, signal.SIGKILL)
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return False
    return os.waitstatus_to_exitcode(status) == 0
