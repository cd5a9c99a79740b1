"""Pins of how the pool splits the work (portlint.speed.pool): when a pool starts, which task does
what. A cost, never a result: any split gives the same results (tests/speed/test_pool.py)."""
from __future__ import annotations

import os

import pytest

from portlint.speed import pool


def test_a_pools_tasks_are_runs_of_about_equal_size_largest_alone_then_halving() -> None:
    """Largest first: a big file is a task of its own, the small ones go together, in order; from
    two runs' worth left, each run is half of what is left (an eighth of a run at least), so
    that the last tasks, whose costs are least known, are small."""
    assert pool.runs([7, 3, 5, 1, 2, 4], [50, 30, 10, 5, 3, 2], 4) == [[7], [3], [5], [1], [2, 4]]
    assert pool.runs([1, 2, 3, 4], [10, 10, 10, 10], 2) == [[1, 2], [3], [4]]
    assert pool.runs([1, 2, 3], [0, 0, 0], 2) == [[1, 2, 3]]
    assert pool.runs([], [], 16) == []
    order = list(range(300))
    sizes = [1000 - i for i in order]
    runs = pool.runs(order, sizes, 16)
    assert [i for run in runs for i in run] == order and len(runs) <= 17
    totals = [sum(sizes[i] for i in run) for run in runs]
    target = sum(sizes) / (16 - pool._TAIL_RUNS)
    assert all(abs(total - target) < 1000 for total in totals[:10])  # equal runs first,
    assert all(later < earlier for earlier, later in zip(totals[10:15], totals[11:15]))  # then halving,
    assert max(totals[-3:]) < target / 4  # down to the smallest


def test_a_kind_with_few_items_is_one_task_that_imports_what_it_needs_itself() -> None:
    """Two YAML files among many Python ones: one task, first, and ruamel.yaml is left to the
    process that takes it; the Python files go largest first."""
    kinds = ["yaml", *["python"] * 8, "yaml"]
    sizes = [5, *(10 + i for i in range(8)), 5]
    tasks, shared = pool.tasks(kinds, sizes, pool.TASKS)
    assert tasks[0] == [0, 9] and shared == {"python"}
    assert [i for task in tasks[1:] for i in task] == list(range(8, 0, -1))
    assert pool.tasks(["yaml"] * (pool.RARE + 1), [5] * (pool.RARE + 1), pool.TASKS)[1] == {"yaml"}
    large = [pool.RARE_BYTES // 2 + 1] * 2
    assert pool.tasks(["yaml", "yaml"], large, pool.TASKS) == ([[0], [1]], {"yaml"})  # two processes can share them


def test_a_kind_whose_modules_are_not_imported_is_read_by_one_task() -> None:
    """The rest of the listing: its few YAML files (their modules not imported here) are one task,
    first, so that one process imports what they need; the rest largest first, in runs of
    about equal size, the small files together at the end."""
    kinds = ["python", "yaml", "python", "markdown", "yaml", *["python"] * 10]
    sizes = [10, 1, 500, 20, 1, *range(30, 130, 10)]
    modules = {"yaml": ("portlint.no_such_module",), "python": ("portlint.speed.pool",), "markdown": ("portlint.speed.pool",)}
    tasks = pool.reading(list(range(len(kinds))), kinds, sizes, 5, modules)
    assert tasks[0] == [1, 4] and tasks[1] == [2]  # the YAML files, then the largest file alone
    assert [i for task in tasks[1:] for i in task] == [2, *range(14, 4, -1), 3, 0] and len(tasks) <= 5
    many = ["yaml"] * (pool.RARE_READS + 1)
    assert all(len(task) < len(many) for task in pool.reading(list(range(len(many))), many, [1] * len(many), 8, modules))
    assert pool.reading([3, 4, 5, 6, 7, 8, 9, 10], ["yaml", *["python"] * 7], [1] * 8, 5, modules)[0] == [3]
    assert len(pool.reading(list(range(40)), ["yaml"] * 40, [1] * 40, 8, modules)) <= 8  # one kind: shared, not one task
    assert len(pool.reading(list(range(40)), ["yaml"] * 40, [1] * 40, 8, modules)) > 1


def test_small_inputs_stay_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PORTLINT_WORKERS", raising=False)
    cores = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 8)
    assert pool.workers(pool.PARALLEL_BYTES - 1) == 1
    assert pool.workers(pool.PARALLEL_BYTES) == cores  # enough to extract: every core (eight at most)
    assert pool.workers(0, pool.EAGER_FILES - 1) == 1
    assert pool.workers(0, pool.EAGER_FILES) == cores  # a first run with enough left to read
