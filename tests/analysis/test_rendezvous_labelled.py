"""PL604 on its labelled set (fixtures/rendezvous-labelled): every unit gets exactly its label.

`python -m pytest tests/analysis/test_rendezvous_labelled.py -s -k precision` prints precision and recall.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from portlint.analysis import rendezvous
from portlint.model.naming import NameFilter
from portlint.stages.perfile import extract_file

LABELLED = Path(__file__).resolve().parents[2] / "fixtures" / "rendezvous-labelled"
_LOOP = re.compile(r"^\s*(?:for|while|until)\b")
_DONE = re.compile(r"^\s*done\b")


def units(path: Path, data: bytes) -> list[tuple[str, int, int]]:
    """(unit, first line, last line): functions of a Python file (methods as Class.method), loops of a script."""
    name = str(path.relative_to(LABELLED))
    if path.suffix == ".py":
        found = []

        def walk(node: ast.AST, prefix: str) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    found.append((f"{name}::{prefix}{child.name}", first, child.end_lineno or first))
                    walk(child, prefix + child.name + ".")
                elif isinstance(child, ast.ClassDef):
                    walk(child, prefix + child.name + ".")

        walk(ast.parse(data), "")
        return found
    loops, open_ = [], []
    for number, line in enumerate(data.decode().splitlines(), 1):
        if _LOOP.match(line):
            open_.append(number)
        elif _DONE.match(line) and open_:
            first = open_.pop()
            loops.append((f"{name}::loop@{first}", first, number))
    return loops


def predicted() -> dict[str, set[str]]:
    """Each unit's codes: the starts of every file, followed across the set's files as a run follows them."""
    found: dict[str, set[str]] = {}
    files, spans = [], {}
    for path in sorted(p for p in LABELLED.rglob("*") if p.suffix in (".py", ".sh")):
        data = path.read_bytes()
        name = str(path.relative_to(LABELLED))
        spans[name] = units(path, data)
        for unit, _, _ in spans[name]:
            found[unit] = set()
        kind = "python" if path.suffix == ".py" else "shell"
        files.append((name, kind, data, extract_file(name, kind, data, NameFilter()).extraction.sockets))
    for name, starts in rendezvous.resolve(files).items():
        for start in starts:
            holders = [(last - first, unit) for unit, first, last in spans[name] if first <= start.at.line <= last]
            found.setdefault(min(holders)[1] if holders else f"{name}::<module>", set()).add("PL604")
    return found


LABELS = {unit: set(codes) for unit, codes in json.loads((LABELLED / "labels.json").read_text()).items()}
FOUND = predicted()


def test_the_set_has_units_of_both_kinds_about_half_of_them_positive() -> None:
    positives = [unit for unit, codes in LABELS.items() if codes]
    assert len(LABELS) >= 30 and 0.35 <= len(positives) / len(LABELS) <= 0.65
    assert any("::loop@" in unit for unit in positives) and any(unit.endswith(".py::serve_terminated") for unit in positives)


def test_every_unit_of_the_set_is_labelled() -> None:
    assert set(FOUND) == set(LABELS)


@pytest.mark.parametrize("unit", sorted(LABELS))
def test_pl604_reports_exactly_the_labelled_codes_for(unit: str) -> None:
    assert FOUND[unit] == LABELS[unit]


def test_precision_and_recall() -> None:
    tp = sum(1 for unit in LABELS if LABELS[unit] and FOUND.get(unit))
    fp = sum(1 for unit in FOUND if FOUND[unit] and not LABELS.get(unit))
    fn = sum(1 for unit in LABELS if LABELS[unit] and not FOUND.get(unit))
    print(f"PL604 labelled set: tp={tp} fp={fp} fn={fn} precision={tp / (tp + fp):.3f} recall={tp / (tp + fn):.3f}")
    assert (tp, fp, fn) == (24, 0, 0)
