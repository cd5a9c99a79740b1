"""A JSON list of problems; the shape is stable and documented in docs/usage.md (Output formats)."""
from __future__ import annotations

import json

from portlint.model.problems import Problem
from portlint.report import Context


def render(problems: list[Problem], context: Context) -> str:
    return json.dumps([_problem(p, context) for p in problems], indent=2) + "\n"


def _problem(problem: Problem, context: Context) -> dict:
    fix = None
    if problem.fix is not None:
        fix = {
            "applicability": "safe" if problem.fix.safe else "unsafe",
            "edits": [
                {"start": e.start, "end": e.end, "content": e.text.decode("utf-8", "replace")}
                for e in problem.fix.edits
            ],
        }
    return {
        "code": problem.code,
        "name": problem.name,
        "message": context.message(problem),
        "path": context.display(problem.path),
        "line": problem.line,
        "column": problem.column,
        "end_line": problem.end_line or problem.line,
        "end_column": problem.end_column or problem.column,
        "fix": fix,
    }
