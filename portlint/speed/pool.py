"""Numbered tasks done by this process and workers forked from it (the per-file stage's pool).

Every process takes the next task from one pipe, a byte per task, until it is empty: a
read cannot split a byte, so no task is taken twice, and the processes finish close
together when the last tasks are small (`tasks`, `runs` and `reading` split the work so). The workers see this process's memory as it was
at the fork (the tasks' inputs are never sent). A worker sends each task's result as soon
as it has it, pickled in a frame of its own, down a pipe of its own; this process reads what
has come between its own tasks, so that neither pickling nor unpickling waits for the last
task. A worker that dies leaves the tasks whose frames did not come to this process, which
does them itself; so does a machine where no pipe or process can be made.
Nothing here knows what the tasks are: the caller gives their kinds, sizes and the modules
each kind imports. (concurrent.futures, which this replaced, left this process idle while the
workers ran, cost a round trip per task and its own imports.)
"""
from __future__ import annotations

import contextlib
import importlib
import os
import struct
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NoReturn

from portlint.speed.switch import fast

TASKS = 256  # as many as a byte numbers
_LENGTH = struct.Struct("<I")  # a frame's length, before the frame: (task number, result) pickled
_PIPE_BYTES = 1 << 20  # results a worker may send before this process reads them (Linux: F_SETPIPE_SZ)


# -- how many processes, and which task does what ----------------------------------------
PARALLEL_BYTES = 1 << 19  # less input to work on than this and one process is faster (docs/performance.md)
EAGER_FILES = 8  # with nothing done before (no cache), as many files left to read as this and two processes are faster
RARE, RARE_BYTES = 4, 1 << 16  # items of one kind: as few and as small as this and they are one task (`tasks`)
READ_TASKS = 160  # of the pool's tasks, at most this many read the rest of a listing (`reading`)
RARE_READS = 200  # files of a kind whose modules are not imported: as few as this and they are one task (`reading`)
_TAIL_RUNS = 3  # the halving runs cut two runs' worth into five: three more (`runs`)


def workers(size: int, rest: int = 0) -> int:
    """Processes for work on `size` bytes, with `rest` files left to read (0 once reading is
    known to be cheap: results kept from an earlier run)."""
    if not fast("pool"):
        return 1
    wanted = os.environ.get("PORTLINT_WORKERS", "")
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)  # a fixed number, whatever the size (1: never a pool)
    if size < PARALLEL_BYTES and rest < EAGER_FILES:
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return min(cores, 8)


def preload(modules: Iterable[str]) -> None:
    """Import, once, before the pool forks, what every process's tasks import on first use: else
    each worker imports it all again."""
    for module in modules:
        importlib.import_module(module)


def imported(modules: Iterable[str]) -> bool:
    """Whether this process has imported every one of the modules."""
    return all(module in sys.modules for module in modules)


def tasks(kinds: Sequence[str], sizes: Sequence[int], count: int) -> tuple[list[list[int]], set[str]]:
    """At most `count` tasks (item indices) over items of these kinds and sizes, and the kinds
    whose modules every process needs. A kind with at most RARE items, RARE_BYTES in all, is one
    task, first in the queue, and only the process that takes it imports what it needs. The rest
    are runs of items, largest first, so that no process is left holding the longest one at the
    end, the smallest a few together, the last runs halving (`runs`)."""
    by_kind: dict[str, list[int]] = defaultdict(list)
    for index, kind in enumerate(kinds):
        by_kind[kind].append(index)
    rare = sorted(kind for kind, indices in by_kind.items()
                  if len(indices) <= RARE and sum(sizes[i] for i in indices) <= RARE_BYTES)
    order = sorted((i for i, kind in enumerate(kinds) if kind not in rare), key=lambda i: -sizes[i])
    split = [by_kind[kind] for kind in rare] + runs(order, [sizes[i] for i in order], count - 1 - len(rare))
    return split, set(by_kind) - set(rare)


def runs(items: list[int], sizes: list[int], count: int) -> list[list[int]]:
    """`items` cut, in order, into at most `count + 1` runs: of about equal total size (the
    largest items each alone, the many small ones together) until two runs' worth is left,
    then each run half of what is left, down to an eighth of a run. A run's cost is known only
    once it is done, so the last ones are small: the processes then finish close together."""
    tail = min(_TAIL_RUNS, count // 4)  # kept for the halving runs
    left = sum(sizes)
    target = max(left / max(count - tail, 1), 1)
    split: list[list[int]] = []
    total = 0
    for item, size in zip(items, sizes):
        if not split or (total >= min(target, max(left / 2, target / 8)) and len(split) <= count):
            split.append([])
            total = 0
        split[-1].append(item)
        total += size
        left -= size
    return split


def reading(items: list[int], kinds: list[str], sizes: list[int], count: int,
            modules: Mapping[str, Sequence[str]]) -> list[list[int]]:
    """At most `count` tasks reading `items` (of these kinds and sizes). A kind of few files
    (RARE_READS at most, a quarter of them at most) whose `modules` this process has not
    imported is one task, first, so that only the process taking it imports them; the rest
    largest first, the small files together, the last runs halving (`runs`: the processes then
    finish close together, wherever the listing puts its heavy files)."""
    by_kind: dict[str, list[int]] = defaultdict(list)
    for item, kind in zip(items, kinds):
        by_kind[kind].append(item)
    alone = [kind for kind, group in sorted(by_kind.items())
             if len(group) <= min(RARE_READS, len(items) // 4) and not imported(modules.get(kind, ()))]
    size_of = dict(zip(items, sizes))
    rest = sorted((item for item, kind in zip(items, kinds) if kind not in alone), key=lambda i: -size_of[i])
    return [by_kind[kind] for kind in alone] + runs(rest, [size_of[i] for i in rest], count - len(alone) - 1)


# -- the pool ---------------------------------------------------------------------------
def run(count: int, do: Callable[[int], Any], workers: int, meanwhile: Callable[[], object] = lambda: None) -> list[Any]:
    """`do(number)` of every task number below `count` (at most TASKS), in order, by this
    process and up to `workers - 1` forked from it; `meanwhile()` by this process once the
    workers are forked, before it takes a task (work of its own the workers need not wait for:
    they take the tasks it would have). Where no worker can be forked it runs first."""
    if count > TASKS:
        raise ValueError(f"{count} tasks: a pool numbers at most {TASKS}")
    done: dict[int, Any] = {}
    ran = False

    def once() -> None:
        nonlocal ran
        if not ran:
            ran = True
            meanwhile()

    if workers > 1 and count > 1 and hasattr(os, "fork"):
        with contextlib.suppress(OSError):  # no pipes here: this process does every task
            done = _shared(count, do, workers, once)
    once()
    return [done[number] if number in done else do(number) for number in range(count)]


class _Worker:
    """A forked worker as this process sees it: its pid, the read end of its results, and the
    bytes read from it that do not make a whole frame yet."""

    def __init__(self, pid: int, results: int) -> None:
        self.pid = pid
        self.results = results
        self.pending = bytearray()

    def read(self, done: dict[int, Any]) -> bool:
        """The whole frames that have come, unpickled into `done`; False once the worker has
        sent all it will (the pipe's end, or bytes that are not a frame of ours: the tasks
        not in `done` are then done here)."""
        import pickle

        while True:
            try:
                chunk = os.read(self.results, _PIPE_BYTES)
            except BlockingIOError:
                return True  # nothing more for now: back to this process's own tasks
            if not chunk:
                return False
            self.pending += chunk
            at = 0
            while len(self.pending) - at >= _LENGTH.size:
                (length,) = _LENGTH.unpack_from(self.pending, at)
                start = at + _LENGTH.size
                if len(self.pending) - start < length:
                    break
                try:
                    number, result = pickle.loads(self.pending[start:start + length])
                except Exception:  # noqa: BLE001 - not a frame of ours
                    return False
                done[number] = result
                at = start + length
            del self.pending[:at]


def _shared(count: int, do: Callable[[int], Any], workers: int, meanwhile: Callable[[], object]) -> dict[int, Any]:
    import pickle  # noqa: F401 - once here, before the fork: every process sends or reads results

    queue, filling = os.pipe()
    try:
        os.write(filling, bytes(range(count)))
    finally:
        os.close(filling)  # so the queue ends when it is empty
    children: list[_Worker] = []
    parent = os.getpid()
    try:
        for _ in range(workers - 1):
            results, sending = os.pipe()
            _widen(sending)
            try:
                pid = os.fork()
            except OSError:  # no more processes: fewer workers
                os.close(results)
                os.close(sending)
                break
            if pid == 0:
                os.close(results)
                _dies_with(parent)
                _work(do, queue, sending)
            os.close(sending)
            os.set_blocking(results, False)
            children.append(_Worker(pid, results))
        meanwhile()
        received: dict[int, Any] = {}  # the workers' results, read between this process's tasks
        done = _take(do, queue, lambda: [child.read(received) for child in children])
        while children:
            child = children.pop()
            os.set_blocking(child.results, True)
            child.read(received)  # to the end of what it sends
            os.close(child.results)
            _reap(child.pid, kill=False)
        done.update(received)
    finally:
        os.close(queue)
        for child in children:  # only when this process failed: stop the others
            os.close(child.results)
            _reap(child.pid, kill=True)
    return done


def _widen(pipe: int) -> None:
    """A pipe that holds more than a page or sixteen of results (a worker then rarely waits for
    this process to read); where the system cannot, it keeps its size."""
    import fcntl

    resize = getattr(fcntl, "F_SETPIPE_SZ", None)
    if resize is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(pipe, resize, _PIPE_BYTES)


def _take(do: Callable[[int], Any], queue: int, between: Callable[[], object] = lambda: None) -> dict[int, Any]:
    """The tasks this process takes from the queue until it is empty, done: number -> result
    (`between` runs after each)."""
    done = {}
    while taken := os.read(queue, 1):
        done[taken[0]] = do(taken[0])
        between()
    return done


def _work(do: Callable[[int], Any], queue: int, sending: int) -> NoReturn:
    """A forked worker: its tasks, each result sent as a frame as soon as it is done, then out
    (os._exit: nothing of this process, buffered output or exit handlers, runs twice)."""
    import pickle

    code = 1
    try:
        while taken := os.read(queue, 1):
            frame = pickle.dumps((taken[0], do(taken[0])), pickle.HIGHEST_PROTOCOL)
            payload = memoryview(_LENGTH.pack(len(frame)) + frame)
            while payload:
                payload = payload[os.write(sending, payload):]
        code = 0
    finally:
        os.close(sending)
        os._exit(code)


def _dies_with(parent: int) -> None:
    """This worker ends when the process that forked it does, however that ends.

    A terminal's ^C reaches every process of the group: a worker is ended by it quietly (the
    default action), and the parent, which catches it, says so and reaps its workers. A parent
    killed outright (SIGKILL, an OOM kill) reaps nothing: the kernel then kills the worker
    (Linux's PR_SET_PDEATHSIG), at once, whatever it is doing. Polling the parent's pid, or
    waiting for a pipe's end, would notice only between tasks, and a task can take seconds (one
    large file), all that time outliving the parent. Where prctl is not available, the worker
    ends at its next write, which the parent's end of its pipe no longer reads."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(ImportError, OSError, AttributeError):  # best effort: never the worker's end
            import ctypes  # here, in the worker: the parent's imports and tasks do not wait for it

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)  # the parent ended before the kernel was asked


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


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
