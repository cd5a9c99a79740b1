"""PL601/PL602 on the labelled set (fixtures/toctou-labelled): every function gets exactly its label."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "toctou_precision.py"
_spec = importlib.util.spec_from_file_location("toctou_precision", _SCRIPT)
precision = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(precision)

LABELS = precision.labels()
FOUND = precision.predicted()


def test_the_set_has_at_least_30_functions_about_half_of_them_positive() -> None:
    positives = [key for key, codes in LABELS.items() if codes]
    assert len(LABELS) >= 30
    assert 0.4 <= len(positives) / len(LABELS) <= 0.6
    assert {"PL601", "PL602"} <= {code for codes in LABELS.values() for code in codes}


def test_every_function_of_the_set_is_labelled() -> None:
    assert set(FOUND) == set(LABELS)


@pytest.mark.parametrize("function", sorted(LABELS))
def test_the_analysis_reports_exactly_the_labelled_codes_for(function: str) -> None:
    assert FOUND[function] == LABELS[function]


def test_precision_and_recall_are_what_the_closing_note_reports() -> None:
    assert precision.score(LABELS, FOUND) == {
        "tp": 55, "fp": 0, "fn": 0,
        "functions_tp": 53, "functions_fp": 0, "functions_fn": 0, "functions_tn": 65,
    }
