"""Precision and recall of PL601+PL602 on the labelled set (fixtures/toctou-labelled). Not a test.

`python tests/bench/toctou_precision.py` prints, over (function, code) pairs and
over functions (flagged or not), the counts, precision and recall, and every
function the analysis gets wrong.
"""
from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

from portlint.analysis.sockets import analyse, resolve
from portlint.rules import ephemeral_fallback, toctou_probe
from portlint.rules.common.handoffs import anchor

LABELLED = Path(__file__).resolve().parents[2] / "fixtures" / "toctou-labelled"


def functions(tree: ast.Module) -> list[tuple[str, int, int]]:
    """(qualified name, first line, last line) of every function, classes' methods as `Class.method`."""
    found = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                found.append((prefix + child.name, first, child.end_lineno))
                walk(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")

    walk(tree, "")
    return found


def predicted() -> dict[str, set[str]]:
    """`file::function` -> the codes reported inside it (the innermost function holding the line).

    The files of the set are one repository: calls of helpers another file exports are followed.
    """
    result: dict[str, set[str]] = {}
    files = {path.name: path.read_bytes() for path in sorted(LABELLED.glob("*.py"))}
    trees = {name: ast.parse(data) for name, data in files.items()}
    found = resolve((name, data, analyse(data, trees[name])) for name, data in files.items())
    for file, data in files.items():
        spans = functions(trees[file])
        for name, _, _ in spans:
            result[f"{file}::{name}"] = set()
        for handoff in found.get(file, ()):
            codes = {rule.CODE for rule in (toctou_probe, ephemeral_fallback) if rule.judged(handoff)}
            line = anchor(handoff).line
            holders = [(last - first, name) for name, first, last in spans if first <= line <= last]
            key = f"{file}::{min(holders)[1]}" if holders else f"{file}::<module>"
            result.setdefault(key, set()).update(codes)
    return result


def labels() -> dict[str, set[str]]:
    return {key: set(codes) for key, codes in json.loads((LABELLED / "labels.json").read_text()).items()}


def score(truth: dict[str, set[str]], found: dict[str, set[str]]) -> dict[str, int]:
    keys = set(truth) | set(found)
    pairs_true = {(k, c) for k in keys for c in truth.get(k, set())}
    pairs_found = {(k, c) for k in keys for c in found.get(k, set())}
    flagged_true = {k for k in keys if truth.get(k)}
    flagged_found = {k for k in keys if found.get(k)}
    return {
        "tp": len(pairs_true & pairs_found), "fp": len(pairs_found - pairs_true), "fn": len(pairs_true - pairs_found),
        "functions_tp": len(flagged_true & flagged_found), "functions_fp": len(flagged_found - flagged_true),
        "functions_fn": len(flagged_true - flagged_found),
        "functions_tn": len(keys - flagged_true - flagged_found),
    }


def main() -> int:
    truth, found = labels(), predicted()
    counts = score(truth, found)
    positives = sum(1 for codes in truth.values() if codes)
    print(f"labelled functions: {len(truth)} ({positives} positive, {len(truth) - positives} negative)")
    for unit, prefix in (("(function, code) pairs", ""), ("functions", "functions_")):
        tp, fp, fn = counts[prefix + "tp"], counts[prefix + "fp"], counts[prefix + "fn"]
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / (tp + fn) if tp + fn else 1.0
        print(f"{unit}: tp={tp} fp={fp} fn={fn}  precision={precision:.3f} recall={recall:.3f}")
    for key in sorted(set(truth) | set(found)):
        if truth.get(key, set()) != found.get(key, set()):
            print(f"  wrong: {key}: labelled {sorted(truth.get(key, set()))}, found {sorted(found.get(key, set()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
